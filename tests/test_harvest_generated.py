"""The next release with no hand edits (issue 20 point 6): the rows a wheel can tell (Python range,
glibc, CUDA, cuDNN, SASS / PTX, the and-cuda lines) come from the harvest; pre-releases are kept
apart, shown only with --pre, labelled preview, and never the default recommendation.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from packaging.version import Version

from tests.test_harvest_cli import _run, index  # noqa: F401  (the fake index fixture)
from wizard.choose.harvest import load_harvest, parse_harvest
from wizard.choose.knowledge import (
    TABLES,
    build_from_harvest,
    build_knowledge,
    load_knowledge,
    read_table,
    release_from_harvest,
)
from wizard.choose.preview import recommend_with_previews
from wizard.choose.resolver import recommend
from wizard.demo import demo_names, load_demo

HAND = {name: read_table(name) for name in TABLES}
KB = load_knowledge()
HARVEST = load_harvest()


def test_a_new_release_harvested_gets_its_rows_with_no_hand_edit(index: Path) -> None:  # noqa: F811
    before = build_knowledge(HAND)
    assert before.release("2.99") is None
    _run(index)  # harvest the fixture index: it holds TensorFlow 2.99.0, unknown to every table
    # The shipped harvest with the fixture's releases added, as `python -m maint.harvest` adds them.
    raw = json.loads((Path(__file__).resolve().parents[1] / "assets/knowledge/harvest.json").read_text())
    raw["tensorflow"].update(json.loads((index / "out" / "harvest.json").read_text())["tensorflow"])
    after = build_knowledge(HAND, parse_harvest(raw))  # the same hand tables, the new harvest
    new = after.release("2.99")
    assert new is not None and new.generated and new.version == Version("2.99.0")
    # Every field as the wheel says it: cp311/cp312 tags, manylinux_2_27, build_info, the cuDNN pin.
    assert new.python_range() == "3.11-3.12" and str(new.glibc) == "2.27"
    assert (str(new.cuda), str(new.cudnn)) == ("12.5", "9.3")
    assert "tensorflow-2.99.0-cp311-cp311-manylinux_2_27_x86_64.whl sha256" in new.source
    build = after.build(new)
    assert build is not None and [str(v) for v in build.sass] == ["6.0", "7.0", "8.0", "8.9"]
    assert [(p.arch.label(ptx=True), str(p.isa)) for p in build.ptx] == [("compute_90", "8.3")]
    extra = after.extra(new)
    assert extra is not None and "nvidia-cudnn-cu12==9.3.0.75" in {str(r) for r in extra.requires}
    # The diff between the two is the harvested releases and nothing else: no row was written by
    # hand. 2.97.0's wheel would not open: an incomplete harvest makes no row.
    old = {str(r.version) for r in before.releases}
    assert {str(r.version) for r in after.releases} - old == {"2.98.1", "2.99.0"}


def test_the_generated_rows_are_the_hand_rows_for_every_harvested_release() -> None:
    for rel in KB.releases:
        tf = HARVEST.release(rel.version)
        assert tf is not None
        gen = release_from_harvest(tf)
        assert gen is not None
        assert (gen.python, gen.glibc, gen.cuda) == (rel.python, rel.glibc, rel.cuda), rel.version
        if rel.version >= Version("2.14"):  # before the and-cuda extra, no wheel names the cuDNN minor
            assert gen.cudnn == rel.cudnn, rel.version
        build, hand = build_from_harvest(tf), KB.build(rel)
        assert build is not None and hand is not None
        assert (build.sass, set(build.ptx)) == (hand.sass, set(hand.ptx)), rel.version


def test_the_preview_is_harvested_with_its_sha256_and_kept_apart() -> None:
    tf = HARVEST.release("2.22.0rc0")
    assert tf is not None and tf.wheel is not None and len(tf.wheel.sha256) == 64
    assert all(len(w.sha256) == 64 for w in tf.python_wheels.values()) and "3.14" in tf.python_wheels
    assert [str(r.version) for r in KB.previews] == ["2.22.0rc0"]
    assert all(not r.preview for r in KB.releases)
    rel = KB.previews[0]
    # build_info of 2.22.0rc0 names no CUDA: the and-cuda floors and the fatbins tell it.
    assert (str(rel.cuda), str(rel.cudnn), rel.python_range()) == ("12.5", "9.10", "3.10-3.14")
    build = KB.build(rel)
    assert build is not None and [str(v) for v in build.sass] == ["6.0", "7.0", "8.0", "8.9"]


def test_no_default_recommendation_is_a_pre_release() -> None:
    for name in demo_names():
        profile = load_demo(name)
        for rec in (recommend(profile), recommend_with_previews(profile)):
            if rec.recommended is not None:
                assert not Version(rec.recommended.set.tensorflow).is_prerelease, name


def test_pre_shows_the_preview_labelled_and_plans_it_only_when_asked_by_name() -> None:
    profile = load_demo("wsl2-rtx4060-laptop")
    rec = recommend_with_previews(profile)
    previews = [c for c in rec.candidates if c.set.tensorflow == "2.22.0rc0"]
    assert previews and all(c.reasons[0].startswith("preview:") for c in previews)
    assert not any(c.set.tensorflow == "2.22.0rc0" for c in recommend(profile).candidates)
    asked = recommend_with_previews(profile, tf="2.22")
    assert asked.recommended is not None and asked.recommended.set.tensorflow == "2.22.0rc0"


def test_the_cli_takes_pre_for_recommend_and_plan() -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "wizard", *args, "--profile", "wsl2-rtx4060-laptop"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    plain = cli("recommend", "--json")
    pre = cli("recommend", "--json", "--pre")
    assert "2.22.0rc0" not in plain.stdout and "2.22.0rc0" in pre.stdout
    assert json.loads(pre.stdout)["recommended"]["tensorflow"] == "2.21.0"
    refused = cli("plan", "--tf", "2.22")
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    script = cli("plan", "--tf", "2.22", "--pre", "--script")
    assert script.returncode == 0, script.stderr[-1000:]
    assert "tensorflow==2.22.0rc0 --hash=sha256:" in script.stdout


def test_the_hand_table_keeps_only_what_no_wheel_says() -> None:
    for row in HAND["tensorflow"]["release"]:
        told = {"python", "glibc", "cuda"} | (
            {"cudnn"} if Version(row["version"]) >= Version("2.14") else set()
        )
        assert not told & set(row), (
            f"tensorflow.toml {row['version']}: {sorted(told & set(row))} come from the wheel"
        )
        assert row["source"] and row["tested"]
    # ... and what the loader fills in is the wheel's: 2.21's Python range, glibc, CUDA, cuDNN.
    rel = KB.release("2.21")
    assert rel is not None
    assert (rel.python_range(), str(rel.glibc), str(rel.cuda), str(rel.cudnn)) == (
        "3.10-3.13",
        "2.27",
        "12.5",
        "9.3",
    )
