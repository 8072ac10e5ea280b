"""A saved system log (kern.log, syslog, messages) stands for this boot's kernel log only where it can
be this boot: its last boot names the running kernel, or names none. A logger that stopped writing
leaves an older boot last; its failures are not this machine's now."""

from __future__ import annotations

import copy
from pathlib import Path

from tests.dump_corpus import ROUND4, cases, materialize
from wizard.probe.dump import detect_dump

RUNNING = "Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045) (gcc 11.4.0) #101-Ubuntu SMP\n"
BOOT_OF = "Dec  2 11:35:01 worker4 kernel: [    0.000000] Linux version {release} (buildd@lcy02-amd64-045)\n"


def _case(release: str | None) -> dict:
    case = copy.deepcopy(
        next(c for c in cases(ROUND4) if c["slug"] == "k8s-worker4-rminitadapter-0x24-minor5")
    )
    case["files"]["/proc/version"] = RUNNING
    if release is not None:
        case["files"]["/var/log/syslog"] = BOOT_OF.format(release=release) + case["files"]["/var/log/syslog"]
    return case


def _reasons(tmp_path: Path, case: dict) -> set[str]:
    p = detect_dump(materialize(case, tmp_path))
    return {s.reason for s in p.failed_states if s.reason}


def test_a_saved_boot_of_the_running_kernel_is_read(tmp_path: Path) -> None:
    assert "gpu-init-failed" in _reasons(tmp_path, _case("5.15.0-91-generic"))


def test_a_saved_boot_of_another_kernel_is_not_this_boot(tmp_path: Path) -> None:
    assert "gpu-init-failed" not in _reasons(tmp_path, _case("5.15.0-88-generic"))


def test_a_saved_boot_that_names_no_kernel_is_read_by_its_stamps(tmp_path: Path) -> None:
    assert "gpu-init-failed" in _reasons(tmp_path, _case(None))
