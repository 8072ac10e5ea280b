"""Fleet: the Ansible project `fleet export` writes, the plan per host class, receipts and report.

The real engine on real hosts is tests/test_fleet_real.py (slow); these run in the fast suite:
the project is read by ansible-playbook (--syntax-check) and ansible-lint, the probe zip runs
under a bare Python, and the planner's verdicts are checked on fixture profiles.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest

from tests.fleet_tools import ansible_tool
from wizard.choose.harvest import WheelFile
from wizard.choose.lock import Lock, LockLine, environment_lock
from wizard.choose.resolver import recommend
from wizard.cli.main import main
from wizard.demo import load_profile
from wizard.fleet.answers import Answers, AnswersError, load_answers, parse_answers
from wizard.fleet.classes import class_key, group_hosts
from wizard.fleet.hostplan import (
    REMOTE_LOCKS,
    REMOTE_PROGRAMS,
    REMOTE_UV,
    REMOTE_WHEELHOUSE,
    blockers,
    fleet_profile,
    for_hosts,
    has_jinja,
    installed_lock,
    lock_source,
    step_packages,
)
from wizard.fleet.lockfile import (
    class_lock,
    compile_key,
    fallback_requirements,
    parse_compiled,
    target_platform,
)
from wizard.fleet.planner import plan_fleet
from wizard.fleet.project import PROBE_ZIP, export_project
from wizard.fleet.receipts import COLUMNS, csv_text, load_report, table
from wizard.fleet.wheelhouse import digests, pip_platforms, wheels_for
from wizard.plan.build import build_plan
from wizard.plan.model import Check, Step

TOOLS = f"{REMOTE_LOCKS}/c.venv.txt"


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    inventory = tmp_path / "inventory.ini"
    inventory.write_text("[lab]\nh1\nh2\n", encoding="utf-8")
    out = tmp_path / "proj"
    export_project(out, inventory, Answers(method="cpu", optional=("jupyter",)))
    return out, inventory


def _cpu_plan(name: str = "debian-12-gtx1060-laptop"):
    profile = fleet_profile(load_profile(name), "0.13.9")
    cand = next(
        c for c in recommend(profile, prefer_method="cpu").candidates if c.ok and c.set.method == "cpu"
    )
    plan = build_plan(profile, cand, venv="/opt/tf-gpu", home="/root")
    return profile, cand, plan


# ---- the project ---------------------------------------------------------------------------


def test_export_writes_the_project_and_a_second_export_changes_nothing(project: tuple[Path, Path]) -> None:
    out, inventory = project
    for rel in ("site.yml", "ansible.cfg", "answers.toml", "group_vars/all.yml", f"files/{PROBE_ZIP}",
                "files/uv", "files/programs.tar", "roles/tf_gpu/tasks/main.yml", "roles/tf_gpu/tasks/step.yml",
                "roles/tf_gpu/tasks/receipt.yml"):  # fmt: skip
        assert (out / rel).is_file(), rel
    assert (out / "files" / "uv").stat().st_mode & 0o111
    assert load_answers(out / "answers.toml") == Answers(method="cpu", optional=("jupyter",))
    group_vars = (out / "group_vars" / "all.yml").read_text(encoding="utf-8")
    assert sys.executable in group_vars  # the playbook's plan step runs this very wizard
    with tarfile.open(out / "files" / "programs.tar") as tar:
        names = tar.getnames()
    wanted = {"tf_gpu_check.py", "installed_ok.py", "hello_gpu.py", "fleet_receipt.py", "fleet_check.py"}
    assert wanted <= set(names)
    assert any(n.startswith(".programs-") and n in group_vars for n in names)
    assert export_project(out, inventory, Answers(method="cpu", optional=("jupyter",))) == []


def test_ansible_reads_the_exported_playbook(project: tuple[Path, Path]) -> None:
    playbook = ansible_tool("ansible-playbook")
    if playbook is None:
        pytest.skip("ansible-core is not installed (pip install -e '.[test]')")
    out, inventory = project
    done = subprocess.run(
        [playbook, "-i", str(inventory), str(out / "site.yml"), "--syntax-check"],
        capture_output=True, text=True, timeout=300, cwd=out, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "playbook: " in done.stdout


def test_the_exported_project_passes_ansible_lint(project: tuple[Path, Path]) -> None:
    lint = ansible_tool("ansible-lint")
    if lint is None:
        pytest.skip("ansible-lint is not installed (pip install -e '.[fleet]')")
    out, _ = project
    done = subprocess.run(
        [lint, "--offline", "--profile", "production", "site.yml", "check.yml"],
        capture_output=True, text=True, timeout=600, cwd=out, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_probe_zip_runs_on_a_bare_python(project: tuple[Path, Path], tmp_path: Path) -> None:
    # -I -S: no site-packages at all, as on a fresh host where nothing of the wizard is installed.
    out, _ = project
    profile_path = tmp_path / "profile.json"
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(out / "files" / PROBE_ZIP), "--out", str(profile_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(profile_path.read_text(encoding="utf-8"))
    assert data["platform"] == "linux"
    assert data["python"]["executable"] == sys.executable
    assert data["resources"]["cpu_count"] and data["probe_layers"]["resources"] in ("os", "psutil")


# ---- classes -------------------------------------------------------------------------------


def test_hosts_that_decide_the_same_set_share_a_class() -> None:
    a = load_profile("debian-12-gtx1060-laptop")
    b = copy.deepcopy(a)
    b.gpus[0].name = "another laptop's GPU, same chip"
    c = copy.deepcopy(a)
    c.python.version = "3.12.3"
    d = load_profile("no-nvidia-gpu")
    classes = group_hosts({"lab-01": a, "lab-02": b, "lab-03": c, "lab-04": d})
    assert [cls.hosts for cls in classes] == [["lab-01", "lab-02"], ["lab-03"], ["lab-04"]]
    assert class_key(a).gpus == ("6.1",) and class_key(d).gpus == ()
    assert len({cls.name for cls in classes}) == 3


# ---- the host plan -------------------------------------------------------------------------


def _installs(plan_steps) -> list[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    return [c for s in plan_steps for c in s.commands if c[:3] == (REMOTE_UV, "pip", "install")]


def test_hosts_install_the_plans_own_lock_from_the_wheelhouse_only() -> None:
    profile, cand, plan = _cpu_plan()
    lock = environment_lock(cand, profile.os.glibc)
    assert lock is not None and lock.complete  # a recorded lock: the fleet does not compile one
    assert class_lock(cand, profile.os.glibc, uv="/nonexistent/uv").lock == lock
    plan = plan.with_enabled("jupyter", True)
    assert step_packages(plan) == {"venv": ["pip"], "jupyter": ["ipykernel"]}
    tools = {"venv": TOOLS, "jupyter": f"{REMOTE_LOCKS}/c.jupyter.txt"}
    fleet = for_hosts(plan, tools)
    commands = [c for s in fleet.steps for c in (*s.commands, s.check.argv)]
    uv = [c for c in commands if c[0] == REMOTE_UV]
    assert uv, "the fleet makes environments with the uv it ships"
    for argv in uv:  # nothing from a public index: every uv command reads the wheelhouse only
        if argv[1] in ("venv", "pip"):
            assert "--no-index" in argv and argv[argv.index("--find-links") + 1] == REMOTE_WHEELHOUSE, argv
    installs = _installs(fleet.active_steps)
    assert len(installs) == 3
    for argv in installs:  # every package a host installs is pinned with its sha256, none resolved there
        assert "--require-hashes" in argv and "--no-deps" in argv and argv[-2] == "-r", argv
    assert [a[-1] for a in installs] == [TOOLS, installed_lock(plan), tools["jupyter"]]
    step = fleet.step("tensorflow")
    # The host's lock is the plan's: placed after its digest is checked, installed, then proved.
    source, digest = lock_source(fleet) or ("", "")
    assert digest == lock.digest and source == f"{REMOTE_PROGRAMS}/locks/{lock.digest[:16]}.txt"
    assert step.check.argv[-2:] == (installed_lock(plan), lock.digest)
    assert installed_lock(plan) == "/opt/tf-gpu/tf-gpu-wizard.lock.txt"
    programs = [
        a for argv in commands for a in argv if a.endswith(("installed_ok.py", "hello_gpu.py", "lockfile.py"))
    ]
    # Every program a step names is in the host's folder the playbook fills (or the environment),
    # none in this control node's data folder.
    assert f"{REMOTE_PROGRAMS}/lockfile.py" in programs and f"{REMOTE_PROGRAMS}/hello_gpu.py" in programs
    assert all(a.startswith((REMOTE_PROGRAMS + "/", "/opt/tf-gpu/")) for a in programs), programs


def _fake_wheels(folder: Path, lines: list[tuple[str, str]]) -> str:
    """Wheel files in the wheelhouse and the hashed lock text that names them."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, version in lines:
        data = f"{name} {version} wheel".encode()
        (folder / f"{name.replace('-', '_')}-{version}-py3-none-any.whl").write_bytes(data)
        out.append(f"{name}=={version} \\\n    --hash=sha256:{hashlib.sha256(data).hexdigest()}\n")
    return "".join(out)


def test_a_class_with_no_recorded_lock_gets_one_compiled_for_the_plans_target_and_says_so(
    project: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = project
    (out / "answers.toml").write_text('method = "cpu"\n', encoding="utf-8")
    old = load_profile("debian-12-gtx1060-laptop")
    old.os.glibc = "2.17"  # older than any recorded lock's
    (out / "profiles" / "old.json").write_text(old.to_json(), encoding="utf-8")
    profile = fleet_profile(old, "0.13.9")
    cand = next(
        c for c in recommend(profile, prefer_method="cpu").candidates if c.ok and c.set.method == "cpu"
    )
    assert environment_lock(cand, "2.17") is None
    # What uv would answer for exactly the plan's question, kept in the project's compile cache,
    # with wheels in the wheelhouse: the planner runs whole here with no index and no download.
    from wizard.fleet.planner import _index_args

    index = _index_args(load_answers(out / "answers.toml"))[0]  # this machine's own index settings
    python, platform = cand.set.python, target_platform("x86_64", "2.17")
    assert platform == "x86_64-manylinux2014"
    reqs, cons = fallback_requirements(cand, "2.17")
    assert reqs == [f"tensorflow-cpu=={cand.set.tensorflow}"]
    cache = out / "locks" / "compiled"
    cache.mkdir(parents=True)
    env = [("tensorflow-cpu", cand.set.tensorflow), ("numpy", "2.2.6"), ("six", "1.17.0")]
    text = _fake_wheels(out / "wheelhouse", env)
    (cache / f"{compile_key(reqs, cons, python, platform, index)}.txt").write_text(text, encoding="utf-8")
    pinned = sorted(f"{n}=={v}" for n, v in env)
    tools = _fake_wheels(out / "wheelhouse", [("pip", "26.3")])
    (cache / f"{compile_key(['pip'], pinned, python, platform, index)}.txt").write_text(
        tools, encoding="utf-8"
    )

    result = plan_fleet(out, ["old"], ["old"])
    info = result.classes[next(iter(result.classes))]
    assert result.hosts["old"]["status"] == "planned", result.hosts
    assert info["lock_source"] == "compiled" and info["lock_target"] == platform and info["packages"] == 3
    assert result.downloaded_files == 0
    host = json.loads((out / "plans" / "old.json").read_text(encoding="utf-8"))
    assert host["lock"]["digest"] == info["lock_digest"]
    shipped = {f["remote"]: (out / f["file"]).read_bytes() for f in host["locks"]}
    steps = {s["id"]: s for s in host["steps"]}
    place = next(c for c in steps["tensorflow"]["commands"] if "place" in c)
    # The plan installs the compiled lock the way it installs a recorded one; the file shipped is it.
    assert place[-1] == info["lock_digest"] == hashlib.sha256(shipped[place[-3]]).hexdigest()
    assert steps["tensorflow"]["check"][-1] == info["lock_digest"]
    assert shipped[f"{REMOTE_LOCKS}/{info['hosts'] and next(iter(result.classes))}.venv.txt"].startswith(
        b"pip==26.3 "
    )
    for step in host["steps"]:
        for argv in step["commands"]:
            if argv[:3] == [REMOTE_UV, "pip", "install"]:
                assert "--no-index" in argv and "--require-hashes" in argv, argv
    assert plan_fleet(out, ["old"], ["old"]).changed is False  # nothing compiled, downloaded or written again

    assert main(["fleet", "plan", str(out), "--hosts", "old"]) == 0
    lines = json.loads(capsys.readouterr().out)["lines"]
    assert any("no lock is recorded" in line and platform in line for line in lines), lines
    assert any(info["lock_digest"][:16] in line and "compiled" in line for line in lines), lines


def test_a_driver_step_holds_what_it_installed() -> None:
    _, _, plan = _cpu_plan()
    driver = Step(
        id="driver", title="driver", why="", where="root",
        commands=(("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "linux-headers-amd64",
                   "nvidia-driver", "firmware-misc-nonfree"),),
        check=Check(("nvidia-smi",), "driver"), restart="reboot",
    )  # fmt: skip
    ubuntu = replace(driver, id="driver", commands=(("ubuntu-drivers", "install", "nvidia:550"),))
    for step, held in ((driver, ("nvidia-driver",)), (ubuntu, ("nvidia-driver-550",))):
        fleet = for_hosts(replace(plan, steps=(step, *plan.steps)))
        assert fleet.step("driver").commands[-1] == ("apt-mark", "hold", *held)


def test_steps_the_fleet_cannot_run_leave_the_class_alone() -> None:
    _, _, plan = _cpu_plan()
    windows = Step("windows-driver", "w", "", "windows-host", (), Check(("true",), "x"))
    destructive = replace(plan.step("venv"), confirm="Replace the CUDA default?")
    assert blockers(replace(plan, steps=(windows, *plan.steps)), confirmed=False)
    assert blockers(replace(plan, steps=(destructive,)), confirmed=False)
    assert blockers(replace(plan, steps=(destructive,)), confirmed=True) == []
    assert has_jinja({"a": ["x", "{{ lookup('pipe', 'id') }}"]}) and not has_jinja({"a": ["{ x }"]})


def test_the_planner_reports_hosts_it_leaves_alone(project: tuple[Path, Path]) -> None:
    out, _ = project
    (out / "profiles" / "win.json").write_text(load_profile("windows11-rtx3070").to_json(), encoding="utf-8")
    hostile = load_profile("debian-12-gtx1060-laptop")
    hostile.python.executable = "/opt/{{ lookup('pipe', 'touch /tmp/pwned') }}/python3"
    (out / "profiles" / "odd.json").write_text(hostile.to_json(), encoding="utf-8")
    (out / "profiles" / "broken.json").write_text("{not json", encoding="utf-8")
    hosts = ["win", "odd", "broken", "gone"]
    result = plan_fleet(out, hosts, probed=["win", "odd", "broken"])
    status = {h: e["status"] for h, e in result.hosts.items()}
    assert status == {"win": "unfit", "odd": "unfit", "broken": "no-facts", "gone": "no-facts"}
    assert "template" in result.hosts["odd"]["reason"]
    assert "windows" in result.hosts["win"]["reason"]
    for host in hosts:
        left = json.loads((out / "plans" / f"{host}.json").read_text(encoding="utf-8"))
        assert left["fits"] is False and left["reason"]
        assert "lookup" not in json.dumps(left)  # the hostile text never reaches what Ansible reads
    assert plan_fleet(out, hosts, probed=["win", "odd", "broken"]).changed is False


# ---- locks and wheels ----------------------------------------------------------------------


def test_a_compiled_lock_is_read_package_by_package() -> None:
    text = (
        "absl-py==2.5.1 \\\n    --hash=sha256:" + "a" * 64 + " \\\n    --hash=sha256:" + "b" * 64 + "\n"
        "# a comment\nTensorflow_CPU==2.21.0 \\\n    --hash=sha256:" + "c" * 64 + "\n"
    )
    lines = parse_compiled(text)
    assert [(p.name, p.version, len(p.files)) for p in lines] == [
        ("absl-py", "2.5.1", 2),
        ("tensorflow-cpu", "2.21.0", 1),
    ]
    assert Lock(lines).text().startswith("absl-py==2.5.1 --hash=sha256:" + "a" * 64 + " --hash=sha256:")


def test_wheels_are_matched_by_their_digest(tmp_path: Path) -> None:
    wheel = tmp_path / "absl_py-2.5.1-py3-none-any.whl"
    wheel.write_bytes(b"wheel bytes")
    digest = hashlib.sha256(b"wheel bytes").hexdigest()
    other = tmp_path / "six-1.17.0-py3-none-any.whl"
    other.write_bytes(b"tampered")
    lock = Lock(
        (
            LockLine("absl-py", "2.5.1", (WheelFile(wheel.name, digest),)),
            LockLine("six", "1.17.0", (WheelFile(other.name, "0" * 64),)),
        )
    )
    found, missing = wheels_for(lock, digests(tmp_path))
    assert found == [wheel.name] and [p.name for p in missing] == ["six"]
    tags = pip_platforms("x86_64", "2.36")
    assert (
        tags[0] == "manylinux_2_36_x86_64"
        and "manylinux_2_17_x86_64" in tags
        and "manylinux2014_x86_64" in tags
    )
    assert all(not t.endswith("aarch64") for t in tags)


# ---- answers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('tensorflow = "2.21"\nspeed = "fast"\n', "unknown key speed"),
        ('method = "gpu"\n', "method gpu"),
        ("tensorflow = \n", "not valid TOML"),
        ('optional = "jupyter"\n', "list"),
        ('confirm = "yes"\n', "true or false"),
    ],
)
def test_a_bad_answers_file_is_one_line(text: str, words: str) -> None:
    with pytest.raises(AnswersError) as caught:
        parse_answers(text, Path("answers.toml"))
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_answers_survive_their_own_file() -> None:
    answers = Answers("2.21", "cpu", "3.11", '/opt/tf "x"', "campus", ("jupyter",), True)
    assert parse_answers(answers.to_toml(), Path("a.toml")) == answers


def test_apply_takes_its_choices_from_the_answers_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.toml"
    env = tmp_path / "lab env"
    answers.write_text(f'method = "cpu"\nenvironment = "{env}"\noptional = ["jupyter"]\n', encoding="utf-8")
    assert main(["apply", "--profile", "no-nvidia-gpu", "--answers", str(answers), "--dry-run"]) == 0
    out = capsys.readouterr().out
    # The environment the file names, installed from the plan's whole hashed lock beside it.
    assert f"{env}/tf-gpu-wizard.lock.txt" in out and "tensorflow-cpu 2.21.0" in out
    assert "--require-hashes --no-deps -r" in out
    assert "[optional, on]" in out  # the Jupyter step the file switched on
    answers.write_text('method = "gpu"\n', encoding="utf-8")
    assert main(["apply", "--profile", "no-nvidia-gpu", "--answers", str(answers), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "method gpu" in err


# ---- receipts and the report ---------------------------------------------------------------


def _receipt(host: str, passed: bool, gpu: str = "NVIDIA GeForce GTX 1060") -> dict[str, object]:
    return {
        "schema": 1, "host": host, "class": "c1", "time": "2026-12-01T08:00:00+00:00",
        "gpus": [{"name": gpu, "compute_capability": "6.1"}], "driver": "550.120",
        "tensorflow": {"distribution": "tensorflow", "version": "2.21.0"}, "lock_digest": "ab" * 32,
        "check": {"passed": passed, "exit_status": 0 if passed else 1, "code": None if passed else "arch",
                  "message": "ok" if passed else "=HYPERLINK(\"x\") no machine code", "seconds": 12.5},
    }  # fmt: skip


def test_the_report_has_a_row_for_every_host_and_a_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plans").mkdir()
    (tmp_path / "receipts").mkdir()
    summary = {
        "hosts": {
            "a": {"status": "planned", "class": "c1", "reason": ""},
            "b": {"status": "planned", "class": "c1", "reason": ""},
            "c": {"status": "planned", "class": "c1", "reason": ""},
            "d": {"status": "unfit", "class": "c2", "reason": "no TensorFlow set fits: Kepler"},
            "e": {"status": "no-facts", "reason": "its facts did not come in"},
            "f": {"status": "planned", "class": "c1", "reason": ""},
        },
        "classes": {"c1": {"status": "planned", "lock_digest": "ab" * 32}},
    }
    (tmp_path / "plans" / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (tmp_path / "receipts" / "a.json").write_text(json.dumps(_receipt("a", True, "GPU\x1b]52;c;x\x07")))
    (tmp_path / "receipts" / "b.json").write_text(json.dumps(_receipt("b", False)))
    (tmp_path / "receipts" / "e.json").write_text(json.dumps(_receipt("e", True)))  # from an earlier run
    # TensorFlow passes on f, but from another lock than its class's: not one of the identical hosts.
    (tmp_path / "receipts" / "f.json").write_text(
        json.dumps({**_receipt("f", True), "lock_digest": "cd" * 32})
    )
    rows = load_report(tmp_path)
    assert [(r.host, r.status) for r in rows] == [
        ("a", "passed"), ("b", "failed"), ("c", "no-receipt"), ("d", "unfit"), ("e", "no-facts"), ("f", "failed"),
    ]  # fmt: skip
    assert "cdcdcdcdcdcdcdcd" in rows[-1].detail and "abababababababab" in rows[-1].detail
    shown = table(rows)
    assert "\x1b" not in shown and "\\x1b" in shown  # a GPU name from a machine is data
    cells = list(csv.reader(io.StringIO(csv_text(rows))))
    assert cells[0][0] == "host" and cells[0][-1] == "secure_boot" and len(cells) == 7
    assert cells[2][COLUMNS.index("detail")].startswith("'=")  # a spreadsheet does not run it as a formula
    assert main(["fleet", "report", str(tmp_path), "--json"]) == 1  # not every host passed
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["passed"] == 1 and (tmp_path / "report.csv").is_file()
    assert (tmp_path / "report.csv").read_bytes().startswith(b"\xef\xbb\xbf")


def test_the_receipt_program_runs_the_check_and_says_what_it_proved(tmp_path: Path) -> None:
    from wizard.assets import asset_file

    lock = tmp_path / "lock.txt"
    lock.write_text("six==1.17.0 --hash=sha256:" + "0" * 64 + "\n", encoding="utf-8")
    fail = (
        "import json; print(json.dumps({'event': 'gpu', 'index': 0})); "
        "print(json.dumps({'event': 'fail', 'code': 'arch', 'message': 'no machine code for sm_61'})); "
        "raise SystemExit(1)"
    )
    results = {}
    for name, check in (("ok", ["-c", "print('matmul ok')"]), ("bad", ["-c", fail])):
        out = tmp_path / f"{name}.json"
        done = subprocess.run(
            [sys.executable, str(asset_file("ansible/fleet_receipt.py")), "--host", name, "--class", "c",
             "--lock", str(lock), "--python", sys.executable, "--out", str(out), "--", sys.executable, *check],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        results[name] = (done.returncode, json.loads(out.read_text(encoding="utf-8")))
    rc, ok = results["ok"]
    assert rc == 0 and ok["check"]["passed"] is True and ok["check"]["message"] == "matmul ok"
    assert ok["lock_digest"] == hashlib.sha256(lock.read_bytes()).hexdigest() and ok["host"] == "ok"
    assert ok["secure_boot"] == "unknown"
    rc, bad = results["bad"]
    assert rc == 1 and bad["check"] == {**bad["check"], "passed": False, "code": "arch"}
    assert bad["check"]["message"] == "no machine code for sm_61" and bad["time"].endswith("+00:00")


def test_the_one_download_takes_the_chosen_mirror(project: tuple[Path, Path]) -> None:
    from wizard.fleet.lockfile import LockError
    from wizard.fleet.planner import _index_args

    url = "https://mirror.example.edu/pypi/simple"
    assert _index_args(Answers(mirror=url)) == (("--index-url", url), ("--index-url", url))
    out, _ = project
    (out / "answers.toml").write_text('mirror = "nosuchmirror"\n', encoding="utf-8")
    with pytest.raises(LockError) as caught:  # a name the catalogue does not have: one line, no plan
        plan_fleet(out, ["h1"], ["h1"])
    assert "nosuchmirror" in str(caught.value) and "\n" not in str(caught.value)
