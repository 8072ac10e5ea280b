"""Stop 51's probe reading, from dump round 36's training side.

modprobe's "could not insert 'nvidia': Operation not permitted" (EPERM from init_module) in this
boot's kernel log or journal: the module file is there and the kernel did not load it (kernel
lockdown refusing an unsigned module, module loading switched off, or modprobe without root). The
module is installed and not loaded, with that line as the evidence; inside a container, where
modprobe has no right to load modules whatever the host runs, nothing is decided from it.
"""

from __future__ import annotations

from pathlib import Path

from tests.probe_case import cmd, in_both_languages, layer
from tests.probe_case import replay_machine as replay

# Bottlerocket's boot console (bottlerocket-os/bottlerocket#4218, round 36), as dmesg keeps it.
EPERM = (
    "[    5.879228] driverdog[2088]: 23:10:41 [ERROR] '/usr/bin/modprobe' failed - stderr: modprobe: "
    "ERROR: could not insert 'nvidia': Operation not permitted\n"
    "[    5.881035] driverdog[2088]: modprobe: ERROR: could not insert 'nvidia_uvm': Operation not permitted\n"
)


def test_modprobe_refused_at_boot_is_the_module_not_loaded_and_its_fix_says_what_eperm_means(
    tmp_path: Path,
) -> None:
    p = replay(tmp_path, {}, [cmd(["dmesg"], EPERM)])
    module = layer(p, "module")
    assert (module.state, module.reason) == ("failing", "not-loaded")
    assert "Operation not permitted" in module.evidence[0].line
    (_, fix), (_, zh_fix) = in_both_languages(module, p)
    assert "'Operation not permitted' with sudo" in fix and "Operation not permitted" in zh_fix
    assert "install the" not in fix.lower()  # never "install the driver" over an installed one


def test_inside_a_container_modprobe_refused_decides_nothing(tmp_path: Path) -> None:
    p = replay(tmp_path, {"/.dockerenv": ""}, [cmd(["dmesg"], EPERM)])
    assert layer(p, "module").reason != "not-loaded"


def test_another_modules_refusal_is_not_nvidias(tmp_path: Path) -> None:
    other = "[    5.9] systemd-modules-load[301]: modprobe: ERROR: could not insert 'vboxdrv': Operation not permitted\n"
    p = replay(tmp_path, {}, [cmd(["dmesg"], other)])
    assert layer(p, "module").reason != "not-loaded"


def test_the_probes_own_words_are_read_in_the_readers_language() -> None:
    # A saved profile keeps the probe's English word ("present (outside /usr/lib/wsl/lib)"); a zh
    # reader saw it in English beside Chinese. Shown through the one state view, it is worded.
    from wizard.demo import load_demo
    from wizard.probe.state_view import PROBE_WORDS, evidence_lines
    from wizard.text import set_language, t

    profile = load_demo("wsl2-rtx4070-shadowing-library")
    shadow = next(s for s in profile.states if any(e.line in PROBE_WORDS for e in s.evidence))
    try:
        set_language("zh")
        zh = " ".join(evidence_lines(shadow))
        set_language("en")
        en = " ".join(evidence_lines(shadow))
    finally:
        set_language("en")
    assert "存在（在 /usr/lib/wsl/lib 之外）" in zh and "present" not in zh
    assert "present (outside /usr/lib/wsl/lib)" in en
    # English words them as the probe wrote them: the catalogue is the probe's words, nothing added.
    assert all(t(f"states.seen.{key}") == word for word, key in PROBE_WORDS.items())


def test_a_line_read_from_the_machine_is_never_reworded() -> None:
    from wizard.probe.state_view import evidence_lines
    from wizard.profile import Evidence, LayerState
    from wizard.text import set_language

    state = LayerState(
        layer="module", state="failing", reason="", facts={}, evidence=[Evidence("dmesg", 1, "present")]
    )
    try:
        set_language("zh")
        assert evidence_lines(state) == ("dmesg（退出码 1）：present",)
    finally:
        set_language("en")


def test_the_container_clis_driver_timeout_is_the_driver_not_answering_in_time(tmp_path: Path) -> None:
    # ctk#202, round 37: docker's hook (nvidia-container-cli) on a host whose GPUs are not kept
    # initialised (persistence mode off): the driver did not answer its start in time.
    said = "nvidia-container-cli: initialization error: driver rpc error: timed out\n"
    p = replay(tmp_path, {}, [cmd(["nvidia-container-cli", "info"], "", said, 1)])
    nvml = layer(p, "nvml")
    assert (nvml.state, nvml.reason) == ("unreadable", "nvml-timeout")
    assert "driver rpc error: timed out" in nvml.evidence[-1].line
    other = "nvidia-container-cli: initialization error: nvml error: driver not loaded\n"
    p = replay(tmp_path / "other", {}, [cmd(["nvidia-container-cli", "info"], "", other, 1)])
    assert layer(p, "nvml").reason != "nvml-timeout"
