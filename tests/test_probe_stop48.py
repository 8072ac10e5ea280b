"""Stop 48's probe readings, each on a machine replayed as a dump through `detect --from`'s reader.

- The loaded module's sysfs version (/sys/module/nvidia/version) names the driver where nothing else
  answered (round 22's fedora27-sysfs-module-version-396: a poster's `cat` of that file).
- Where only the kernel module answered (/proc, sysfs, its loading line), no GPU list was read: the
  finding says so and names what decides, never "the driver lists no GPU".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.dump_corpus import materialize
from tests.probe_case import cmd, reasons
from tests.probe_case import replay_machine as replay

ROOT = Path(__file__).resolve().parent.parent
FEDORA = {
    "/proc/version": "Linux version 4.16.7-300.fc28.x86_64 (mockbuild@bkernel01.phx2.fedoraproject.org) #1 SMP\n",
    "/etc/os-release": 'NAME=Fedora\nVERSION_ID=28\nID=fedora\nPRETTY_NAME="Fedora 28"\n',
}
SYSFS = {"/sys/module/nvidia/version": "396.24\n"}


def test_the_loaded_modules_sysfs_version_names_the_driver(tmp_path: Path) -> None:
    p = replay(tmp_path, {**FEDORA, **SYSFS}, [])
    assert p.driver is not None and p.driver.version == "396.24" and p.driver.source == "sysfs"
    assert not p.gpus  # the module alone lists no GPU; no CUDA is made up for it
    assert p.driver.cuda in ("", "unknown", None)
    assert not reasons(p)


def test_a_sysfs_file_that_is_no_version_names_nothing(tmp_path: Path) -> None:
    p = replay(tmp_path, {**FEDORA, "/sys/module/nvidia/version": "garbage\u202e\n"}, [])
    assert p.driver is None


def test_proc_still_answers_first(tmp_path: Path) -> None:
    proc = (
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  396.24  Thu Apr 26 00:11:39 PDT 2018\n"
        "GCC version:  gcc version 8.0.1 20180324 (Red Hat 8.0.1-0.20) (GCC)\n"
    )
    p = replay(tmp_path, {**FEDORA, **SYSFS, "/proc/driver/nvidia/version": proc}, [])
    assert p.driver is not None and p.driver.source == "proc"


def test_detect_from_shows_where_the_version_was_read_in_both_languages(tmp_path: Path) -> None:
    case = {
        "slug": "m",
        "source": "https://github.com/example/m",
        "files": {**FEDORA, **SYSFS},
        "commands": [],
    }
    dump = materialize(case, tmp_path)
    told = (
        (
            "en",
            "read from /sys/module/nvidia/version (the loaded module)",
            "Only the NVIDIA kernel module 396.24",
        ),
        (
            "zh",
            "从 /sys/module/nvidia/version 读取（已加载的内核模块）",
            "只有 NVIDIA 内核模块 396.24 有响应",
        ),
    )
    for lang, words, problem in told:
        env = {
            **os.environ,
            "COLUMNS": "200",
            "TF_GPU_WIZARD_HOME": str(tmp_path / "home"),
            "TF_GPU_WIZARD_LANG": lang,
            "PYTHONPATH": str(ROOT),
        }
        done = subprocess.run(
            [sys.executable, "-m", "wizard", "detect", "--from", str(dump)],
            capture_output=True,
            text=True,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        # the source beside the version, and no "driver lists no GPU": no GPU list was read at all
        assert words in done.stdout and problem in done.stdout, done.stdout
        assert "lists no GPU" not in done.stdout and "没有列出任何 GPU" not in done.stdout


def test_a_smi_failure_beside_the_sysfs_version_keeps_its_failure(tmp_path: Path) -> None:
    # NVML's library missing while the module is loaded: the version is the module's, the failure stays.
    smi = cmd(
        ["nvidia-smi"],
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the "
        "NVIDIA Display Driver is properly installed and present in your system.\n",
    )
    p = replay(tmp_path, {**FEDORA, **SYSFS}, [smi])
    assert p.driver is not None and p.driver.version == "396.24"
    assert p.failed_states
