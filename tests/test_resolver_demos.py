"""The resolver on every bundled demo profile, and the README table built from it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wizard.choose.resolver import recommend
from wizard.cli import main
from wizard.cli.recommend import demo_markdown
from wizard.demo import demo_names, load_demo

README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- recommendations:start -->\n", "<!-- recommendations:end -->"


@pytest.mark.parametrize("name", demo_names())
def test_every_demo_profile_gets_an_answer(name):
    rec = recommend(load_demo(name))
    assert rec.candidates
    assert rec.recommended is None or rec.recommended.ok


def test_readme_table_is_current():
    text = README.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    assert rest, "README.md lacks the recommendations markers"
    fresh = head + START + demo_markdown() + END + tail
    if os.environ.get("UPDATE_DOCS"):
        README.write_text(fresh, encoding="utf-8")
    assert text == fresh, "the README's recommendations table is stale: rerun with UPDATE_DOCS=1"


def test_cli_json(capsys):
    import json

    name = demo_names()[0]
    main(["recommend", "--profile", name, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"recommended", "candidates"}


def test_cli_human_says_simulated(capsys):
    main(
        ["recommend", "--profile", "wsl2-rtx4060-laptop"]
        if "wsl2-rtx4060-laptop" in demo_names()
        else ["recommend", "--profile", demo_names()[0]]
    )
    out = capsys.readouterr().out
    assert "simulated profile" in out
