"""A hybrid laptop whose graphics switch is set to the integrated GPU alone (Ubuntu's `prime-select
query` answering "intel", Pop!_OS's `system76-power graphics` or EnvyControl's `envycontrol --query`
answering "integrated"): the NVIDIA GPU
is switched off, so nvidia-smi cannot reach the driver. The probe names that state, with the switch's
answer as its evidence and that switch's own command to turn the GPU on; a switch in another mode,
or a driver that answers, is no such state. Replayed from a dump, as `detect --from` reads it."""

from __future__ import annotations

from pathlib import Path

from tests.dump_corpus import as_run, materialize
from wizard.probe.dump import detect_dump
from wizard.probe.state_view import blocking_words

SMI_FAILED = {
    "argv": ["nvidia-smi"],
    "stdout": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running.\n",
    "stderr": "",
    "exit": 9,
}
LSPCI = {
    "argv": ["lspci"],
    "stdout": "00:02.0 VGA compatible controller: Intel Corporation UHD Graphics 620 (rev 07)\n"
    "01:00.0 3D controller: NVIDIA Corporation GP108M [GeForce MX150] (rev a1)\n",
    "stderr": "",
    "exit": 0,
}


def _dump(tmp_path: Path, *commands: dict, smi: dict = SMI_FAILED) -> Path:
    case = {"slug": "laptop", "source": "a test", "files": {}, "commands": [smi, LSPCI, *commands]}
    return materialize(case, tmp_path)


def _answer(argv: list[str], word: str) -> dict:
    return {"argv": argv, "stdout": word + "\n", "stderr": "", "exit": 0}


def test_prime_select_intel_is_the_gpu_switched_off(tmp_path: Path) -> None:
    profile = detect_dump(_dump(tmp_path, _answer(["prime-select", "query"], "intel")))
    state = profile.blocking_state
    assert state is not None and state.reason == "gpu-switched-off"
    assert [(e.source, e.line) for e in state.evidence] == [("prime-select query", "intel")]
    said = blocking_words(profile)
    assert said is not None and said.copy == ("sudo prime-select nvidia",)
    assert "install" not in said.fix.lower()  # the driver is there: never "install the driver"


def test_system76_power_integrated_gives_its_own_command(tmp_path: Path) -> None:
    profile = detect_dump(_dump(tmp_path, _answer(["system76-power", "graphics"], "integrated")))
    state = profile.blocking_state
    assert state is not None and state.reason == "gpu-switched-off"
    said = blocking_words(profile)
    assert said is not None and said.copy == ("sudo system76-power graphics hybrid",)
    assert "system76-power graphics hybrid" in said.manual and "prime-select" not in said.manual


def test_envycontrol_integrated_gives_its_own_command(tmp_path: Path) -> None:
    # bayasdev/envycontrol#32: its integrated mode blacklists the modules and takes the GPU off the bus.
    profile = detect_dump(_dump(tmp_path, _answer(["envycontrol", "--query"], "integrated")))
    state = profile.blocking_state
    assert state is not None and state.reason == "gpu-switched-off"
    assert [(e.source, e.line) for e in state.evidence] == [("envycontrol --query", "integrated")]
    said = blocking_words(profile)
    assert said is not None and said.copy == ("sudo envycontrol --switch hybrid",)
    assert "envycontrol --switch hybrid" in said.manual and "prime-select" not in said.manual


def test_envycontrols_switch_output_is_its_mode_after_the_restart() -> None:
    # A pasted `envycontrol --switch integrated` (its words: "Graphics mode set to: integrated"), read
    # as what `--query` answers after the restart it asks for (dump_corpus.as_run).
    switched = {
        "argv": ["sudo", "envycontrol", "--switch", "integrated"],
        "stdout": "Graphics mode set to: integrated\nPlease reboot your computer for changes to apply!\n",
        "stderr": "",
        "exit": None,
    }

    def queried(commands: list[dict]) -> list[str]:
        return [c["stdout"] for c in as_run(commands, {}) if c["argv"] == ["envycontrol", "--query"]]

    # In the same release's words as the switch's (2.x): "Current graphics mode is: integrated".
    assert queried([switched]) == ["Current graphics mode is: integrated\n"]
    # The last switch pasted wins: switched off, then back on, is on.
    back = {**switched, "stdout": switched["stdout"].replace("integrated", "hybrid")}
    assert queried([switched, back]) == ["Current graphics mode is: hybrid\n"]
    # A query pasted beside it is kept as it is, with no second answer made up.
    asked = {"argv": ["envycontrol", "-q"], "stdout": "hybrid\n", "stderr": "", "exit": 0}
    assert queried([switched, asked]) == []
    # A switch that failed (no "set to") says nothing of the mode.
    failed = {**switched, "stdout": "Error: this operation requires root privileges\n"}
    assert queried([failed]) == []


def test_envycontrol_2x_query_words_are_read_too(tmp_path: Path) -> None:
    answer = _answer(["envycontrol", "--query"], "Current graphics mode is: integrated")
    state = detect_dump(_dump(tmp_path, answer)).blocking_state
    assert state is not None and state.reason == "gpu-switched-off"
    other = _answer(["envycontrol", "--query"], "Current graphics mode is: hybrid")
    profile = detect_dump(_dump(tmp_path / "hybrid", other))
    assert all(s.reason != "gpu-switched-off" for s in profile.states)


def test_another_mode_or_no_switch_is_not_switched_off(tmp_path: Path) -> None:
    for answer in (
        _answer(["prime-select", "query"], "on-demand"),
        _answer(["prime-select", "query"], "nvidia"),
        _answer(["system76-power", "graphics"], "hybrid"),
        _answer(["envycontrol", "--query"], "hybrid"),
    ):
        profile = detect_dump(_dump(tmp_path / answer["stdout"].strip(), answer))
        assert all(s.reason != "gpu-switched-off" for s in profile.states)
    profile = detect_dump(_dump(tmp_path / "none"))
    assert all(s.reason != "gpu-switched-off" for s in profile.states)


def test_a_driver_that_answers_is_on_whatever_the_switch_says(tmp_path: Path) -> None:
    smi = {
        "argv": ["nvidia-smi"],
        "stdout": "| NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2     |\n",
        "stderr": "",
        "exit": 0,
    }
    profile = detect_dump(_dump(tmp_path, _answer(["prime-select", "query"], "intel"), smi=smi))
    assert profile.driver is not None
    assert all(s.reason != "gpu-switched-off" for s in profile.states)
