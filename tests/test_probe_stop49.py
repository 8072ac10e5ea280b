"""Stop 49's probe reading: the open kernel module refusing a GPU without a GSP (wizard.probe.open_module).

The open modules drive only GPUs with a GSP (Turing and newer). On a Maxwell, Pascal or Volta GPU the
module says so as it probes, and nvidia-smi then finds no devices (or cannot reach the driver, where
the module gave up at load). Rounds 8, 11 and 15 held real pastes of it; their collectors found no id
for it. It is named once, on the layer that failed, and its fix is the proprietary module.
"""

from __future__ import annotations

from pathlib import Path

from tests.dump_corpus import materialize
from tests.probe_case import cmd, detect_from, in_both_languages, reasons
from tests.probe_case import replay_machine as replay

NATIVE = {
    "/proc/version": "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) #45-Ubuntu SMP\n",
    "/etc/os-release": 'NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\n',
}
REFUSAL = (
    "[   87.358035] NVRM: The NVIDIA GPU 0000:03:00.0 (PCI ID: 10de:1c03)\n"
    "               NVRM: installed in this system is not supported by open\n"
    "               NVRM: nvidia.ko because it does not include the required GPU\n"
    "               NVRM: System Processor (GSP).\n"
)
LOADING = "[    3.0] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.172.08  Release Build\n"


def test_a_loaded_open_module_that_refused_the_gpu_is_named_once(tmp_path: Path) -> None:
    log = (
        LOADING + REFUSAL + "[  988.289884] NVRM: GPU 0000:03:00.0: RmInitAdapter failed! (0x24:0x72:1603)\n"
    )
    lspci = (
        "03:00.0 VGA compatible controller [0300]: NVIDIA Corporation GP106 [GeForce GTX 1060 6GB] [10de:1c03]\n"
        "        Kernel driver in use: nvidia\n"
    )
    p = replay(
        tmp_path,
        NATIVE,
        [cmd(["nvidia-smi"], "No devices were found\n"), cmd(["dmesg"], log), cmd(["lspci", "-nnk"], lspci)],
    )
    assert reasons(p) == {"open-module-no-gsp"}  # RmInitAdapter's failure follows from it: not named
    state = next(s for s in p.failed_states if s.reason)
    assert len([s for s in p.failed_states if s.reason == "open-module-no-gsp"]) == 1
    assert state.facts["device"] == "10de:1c03" and state.facts["version"] == "570.172.08"
    assert "GTX 1060" in state.facts["name"]  # the PCI table's name for 1c03
    (title, fix), (zh_title, zh_fix) = in_both_languages(state, p)
    assert "570.172.08" in title and "GTX 1060" in title and "proprietary" in title
    assert "nvidia-driver-580" in fix and "--kernel-module-type=proprietary" in fix
    assert "专有" in zh_title and "nvidia-driver-580" in zh_fix


def test_the_words_without_the_refusal_name_no_gsp_cause(tmp_path: Path) -> None:
    # The proprietary module's release refusal is another state; plain "No devices" names none of this.
    p = replay(tmp_path, NATIVE, [cmd(["nvidia-smi"], "No devices were found\n"), cmd(["dmesg"], LOADING)])
    assert "open-module-no-gsp" not in reasons(p)


def test_detect_from_a_dump_shows_it(tmp_path: Path) -> None:
    case = {
        "slug": "m",
        "source": "https://github.com/example/m",
        "files": NATIVE,
        "commands": [{"argv": ["dmesg"], "stdout": REFUSAL, "stderr": "", "exit": None}],
    }
    dump = materialize(case, tmp_path / "dump")
    done = detect_from(dump, tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert "cannot drive" in done.stdout and "proprietary" in done.stdout
    assert "Traceback" not in done.stderr
