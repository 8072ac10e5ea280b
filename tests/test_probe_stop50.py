"""Stop 50's probe reading, from dump round 34's training side.

- A DKMS make.log read without its header (a pasted tail, or a log whose first lines were cut): the
  build failed where make's last line is its failure, for the kernel whose headers make entered, of
  the driver version its path names.
- Talos Linux's kernel log prints NVRM's multi-line messages on one line, each break written "\\x0a":
  a release's refusal of a GPU reads as it does over several lines.
"""

from __future__ import annotations

from pathlib import Path

from tests.probe_case import cmd, in_both_languages, layer
from tests.probe_case import replay_machine as replay
from wizard.probe.state_view import unsure_key

MAKE_LOG = "/var/lib/dkms/nvidia/470.239.06/build/make.log"
VOID_TAIL = (
    "make[2]: *** [/usr/src/kernel-headers-6.12.7_1/Makefile:1937: /var/lib/dkms/nvidia/470.239.06/build] "
    "Chyba 2\n"
    "make[1]: *** [Makefile:224: __sub-make] Error 2\n"
    "make[1]: Leaving directory '/usr/src/kernel-headers-6.12.7_1'\n"
    "make: *** [Makefile:80: modules] Error 2\n"
)


def test_a_make_log_without_its_header_is_a_failed_build_for_the_headers_kernel(tmp_path: Path) -> None:
    p = replay(tmp_path, {MAKE_LOG: VOID_TAIL}, [])
    module = layer(p, "module")
    assert unsure_key(module) == "module-build-failed"
    assert module.facts["version"] == "470.239.06" and module.facts["build_failed_for"] == "6.12.7_1"
    assert module.evidence[0].source == MAKE_LOG
    assert module.evidence[0].line == "make: *** [Makefile:80: modules] Error 2"
    (title, _), (zh_title, _) = in_both_languages(module, p)
    assert "470.239.06" in title and "6.12.7_1" in title and "6.12.7_1" in zh_title


def test_a_make_log_that_did_not_end_in_makes_failure_says_nothing(tmp_path: Path) -> None:
    # The build's own lines, then make leaving the headers tree with no error: not a failure read.
    ended = "  CC [M]  /var/lib/dkms/nvidia/470.239.06/build/nvidia/nv.o\nmake[1]: Leaving directory '/usr/src/linux-headers-6.8.0-45-generic'\n"
    p = replay(tmp_path, {MAKE_LOG: ended}, [])
    assert not any(s.facts.get("build_failed_for") for s in p.states)


def test_the_kernel_is_read_from_the_modules_build_link_too(tmp_path: Path) -> None:
    tail = (
        "make[1]: Leaving directory '/usr/lib/modules/6.9.7-arch1-1/build'\n"
        "make: *** [Makefile:80: modules] Error 2\n"
    )
    p = replay(tmp_path, {MAKE_LOG.replace("470.239.06", "550.90.07"): tail}, [])
    module = layer(p, "module")
    assert module.facts["build_failed_for"] == "6.9.7-arch1-1" and module.facts["version"] == "550.90.07"


TALOS = (
    "kern: warning: [2023-09-14T03:08:37.411164757Z]: NVRM: The NVIDIA GPU 0000:00:10.0 (PCI ID: 10de:1b38)"
    "\\x0aNVRM: installed in this system is not supported by the\\x0aNVRM: NVIDIA 535.54.03 driver release."
    "\\x0aNVRM: Please see 'Appendix A - Supported NVIDIA GPU Products'\\x0aNVRM: in this release's README, "
    "available on the operating system\\x0aNVRM: specific graphics driver download page at www.nvidia.com.\n"
    "kern: warning: [2023-09-14T03:08:37.433482757Z]: nvidia: probe of 0000:00:10.0 failed with error -1\n"
    "kern: warning: [2023-09-14T03:08:37.434129757Z]: NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
)


def test_talos_one_line_refusal_is_read_as_the_release_refusing_the_gpu(tmp_path: Path) -> None:
    p = replay(tmp_path, {}, [cmd(["dmesg"], TALOS)])
    refused = [s for s in p.states if s.facts.get("refused") == "release"]
    assert len(refused) == 1
    state = refused[0]
    assert unsure_key(state) == "driver-refuses-gpu"
    assert state.facts["version"] == "535.54.03" and state.facts["device"] == "10de:1b38"
    assert any("PCI ID: 10de:1b38" in ev.line for ev in state.evidence)


def test_a_literal_x0a_elsewhere_joins_nothing(tmp_path: Path) -> None:
    # Only a break before "NVRM:" is a continuation: other escaped text is left as it is.
    log = "kern: info: [1]: usb 1-1: product: a\\x0ab\n"
    p = replay(tmp_path, {}, [cmd(["dmesg"], log)])
    assert not any(s.facts.get("refused") for s in p.states)
