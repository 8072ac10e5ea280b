"""The doctor judges a log's facts with Choose's own functions (issue 35, i35c): code coverage
(wizard.choose.gpucode.fit) for "no kernel image", the releases' Python ranges for pip's "no matching
distribution", the driver floors by platform; a WSL2 CUDA broken by a Windows driver release; a
driver/library mismatch with both versions (which side is newer decides the one fix) or one.

Each text is what a person pastes; each assertion is what they read: the cause, the facts that
decided it, the fix, and that no second fix contradicts it. English and Chinese where text shows."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from wizard.choose.knowledge import load_knowledge
from wizard.choose.resolver import recommend
from wizard.doctor.diagnose import Diagnosis, match_output
from wizard.doctor.facts import read_facts
from wizard.doctor.judge import DECIDE_CC, coverage, python_fit
from wizard.profile import DriverInfo, GpuInfo, MachineProfile, OsInfo, PythonInfo
from wizard.text import set_language

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "doctor_corpus"

NO_KERNEL = (
    "tensorflow.python.framework.errors_impl.InternalError: Failed to load in-memory CUBIN: "
    "CUDA_ERROR_NO_BINARY_FOR_GPU: no kernel image is available for execution on the device [Op:Abs]\n"
)


def _tf_gpu(name: str, cc: str) -> str:
    return (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1928] Created device "
        f"/job:localhost/replica:0/task:0/device:GPU:0 with 20000 MB memory:  -> device: 0, name: {name}, "
        f"pci bus id: 0000:01:00.0, compute capability: {cc}\n"
    )


def harmful(found: list[Diagnosis]) -> list[str]:
    return [d.id for d in found if d.harmful]


@pytest.fixture(autouse=True)
def english() -> object:
    set_language("en")
    yield
    set_language("en")


# ---- 1a: code coverage ---------------------------------------------------------------------


def test_an_rtx_5090_under_tensorflow_2_17_is_too_new_by_the_builds_own_code() -> None:
    text = "$ pip show tensorflow\nVersion: 2.17.0\ntensorflow 2.17.0\n" + _tf_gpu(
        "NVIDIA GeForce RTX 5090", "12.0"
    )
    found = match_output(text + NO_KERNEL)
    first = found[0]
    assert first.id == "gpu-too-new" and first.title == "This GPU is newer than the build in use"
    # The facts that decided: the GPU, its capability, the release's code and the PTX only Hopper runs.
    for fact in (
        "GeForce RTX 5090",
        "12.0",
        "TensorFlow 2.17",
        "sm_60,sm_70,sm_80,sm_89,compute_90",
        "compute_90a",
    ):
        assert fact in first.why, fact
    assert "unsupported-cc" not in harmful(found)  # "too old" contradicts it: gone
    # Cited: the wheel (file name and sha256) whose build_info and fatbins the coverage was read from.
    assert "tensorflow-2.17.1-" in first.seen_in and "sha256 " in first.seen_in
    assert first.line == 5 and "no kernel image" in first.evidence


def test_a_kepler_gpu_under_tensorflow_2_16_is_too_old_below_the_builds_floor() -> None:
    text = "tensorflow==2.16.1\n" + _tf_gpu("NVIDIA GeForce GTX 780", "3.5") + NO_KERNEL
    found = match_output(text)
    first = found[0]
    assert first.id == "unsupported-cc" and first.title == "This GPU is too old for this build"
    assert "compute capability 3.5" in first.why and "(5.0;" in first.why and "TensorFlow 2.16" in first.why
    assert "compute capability 3.5" in first.fix
    assert "gpu-too-new" not in harmful(found)


def test_pytorchs_own_list_decides_too_new_for_an_ampere_gpu() -> None:
    text = (
        "NVIDIA GeForce RTX 3080 with CUDA capability sm_86 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    first = match_output(text)[0]
    assert first.id == "gpu-too-new"
    assert "sm_37 sm_50 sm_60 sm_70" in first.why and "8.6" in first.why


def test_ptx_the_driver_cannot_compile_is_the_driver_not_the_gpu() -> None:
    # TF 2.15 has machine code up to sm_75 and PTX compute_80 of ISA 8.1 (CUDA 12.1): an RTX 4090
    # (8.9) runs only that PTX, which a driver of CUDA 12.0 cannot compile.
    text = (
        "| NVIDIA-SMI 525.60.13    Driver Version: 525.60.13    CUDA Version: 12.0     |\n"
        "tensorflow 2.15.0\n" + _tf_gpu("NVIDIA GeForce RTX 4090", "8.9") + NO_KERNEL
    )
    found = match_output(text)
    first = found[0]
    assert first.id == "ptx-too-new-for-driver"
    assert "compute_80" in first.why and "CUDA 12.1" in first.why and "CUDA 12.0" in first.why
    assert not {"gpu-too-new", "unsupported-cc"} & set(harmful(found))
    # The same text with a driver of CUDA 12.2: the PTX compiles, so the build serves this GPU and
    # neither "too new" nor "too old" is named.
    served = match_output(text.replace("12.0     |", "12.2     |").replace("525.60.13", "535.54.03"))
    assert not {"gpu-too-new", "unsupported-cc", "ptx-too-new-for-driver"} & set(harmful(served))
    note = next(d for d in served if d.id == "not-sure")
    assert "get_build_info()" in note.fix and "TensorFlow: 2.15.0" in note.evidence


def test_a_release_that_serves_the_gpu_is_never_called_too_new() -> None:
    # The catalogue's words alone would say "too new" for an RTX 4090 beside "no kernel image";
    # TensorFlow 2.16's sm_80 runs on compute capability 8.9, so that would be a wrong cause.
    text = "tensorflow 2.16.1\n" + _tf_gpu("NVIDIA GeForce RTX 4090", "8.9") + NO_KERNEL
    found = match_output(text)
    assert harmful(found) == []
    assert found[0].id == "not-sure" and "compute capability: 8.9" in found[0].evidence


def test_without_the_gpu_the_answer_names_the_command_that_decides() -> None:
    text = "tensorflow 2.16.1\n" + NO_KERNEL
    facts = read_facts(text)
    assert coverage(facts, load_knowledge()) is None
    found = match_output(text)
    # The build has no code for the GPU (the catalogue's id), but which side is open: the answer
    # says so and gives the one command that decides, not an older or a newer TensorFlow.
    first = found[0]
    assert (
        first.id == "unsupported-cc"
        and first.title == "No GPU code for this GPU: too old or too new is not shown"
    )
    assert first.fix.endswith(DECIDE_CC) and "recommend" not in first.fix
    assert harmful(found) == ["unsupported-cc"] and first.line == 2
    set_language("zh")
    zh = match_output(text)[0]
    assert zh.title == "没有适用于这块 GPU 的代码：看不出是太旧还是太新" and zh.fix.endswith(DECIDE_CC)


def test_pytorchs_own_floor_decides_too_old() -> None:
    text = (
        "UserWarning:\n    Found GPU0 NVIDIA GeForce GT 730 which is of cuda capability 3.5.\n"
        "    PyTorch no longer supports this GPU because it is too old.\n"
        "    The minimum cuda capability supported by this library is 3.7.\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    first = match_output(text)[0]
    assert first.id == "unsupported-cc" and first.title == "This GPU is too old for this build"
    assert "NVIDIA GeForce GT 730, compute capability 3.5" in first.why and "(3.7;" in first.why
    # Above the floor the floor alone decides nothing (it has no upper bound).
    facts = read_facts(text.replace("capability 3.5.", "capability 8.6."))
    assert coverage(facts, load_knowledge()) is None


def test_a_name_alone_is_judged_through_chooses_gpu_table() -> None:
    facts = read_facts("tensorflow==2.18.0\nGPU 0: NVIDIA GeForce RTX 5080\n" + NO_KERNEL)
    verdict = coverage(facts, load_knowledge())
    assert verdict is not None and verdict.id == "gpu-too-new" and verdict.fields["cc"] == "12.0"


def test_two_releases_in_one_text_decide_nothing() -> None:
    facts = read_facts(
        "tried tensorflow 2.16.1 and tensorflow 2.10.1\n"
        + _tf_gpu("NVIDIA GeForce RTX 5090", "12.0")
        + NO_KERNEL
    )
    assert coverage(facts, load_knowledge()) is None


def test_build_infos_list_and_an_arch_specific_ptx_that_never_runs_forward() -> None:
    # TensorFlow's build_info lists compute_90a: PTX for the H100 alone, which an RTX 5090 cannot
    # compile (sm_90a-style code never runs forward), so the build has nothing for 12.0.
    info = (
        "{'cuda_compute_capabilities': ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90a'], "
        "'cuda_version': '12.5.1', 'is_cuda_build': True}"
    )
    too_new = match_output(info + "\n" + _tf_gpu("NVIDIA GeForce RTX 5090", "12.0") + NO_KERNEL)[0]
    assert too_new.id == "gpu-too-new" and "compute_90a" in too_new.why
    # The same list serves an H100 (compute_90a is its own PTX): the facts decide no coverage cause.
    h100 = read_facts(info + "\n" + _tf_gpu("NVIDIA H100 80GB HBM3", "9.0") + NO_KERNEL)
    assert h100.build_code[-1] == "compute_90a" and coverage(h100, load_knowledge()) is None


# ---- 1b: Python ranges ---------------------------------------------------------------------

PIP_210 = (
    "### Python version\n\n3.13\n\n"
    "> pip install tensorflow==2.10.0\n"
    "ERROR: Could not find a version that satisfies the requirement tensorflow==2.10.0 (from versions: none)\n"
    "ERROR: No matching distribution found for tensorflow==2.10.0\n"
)


def test_a_pinned_release_that_does_not_take_this_python_names_the_nearest_of_each() -> None:
    found = match_output(PIP_210)
    first = found[0]
    assert first.id == "python-unsupported"
    kb = load_knowledge()
    rel = kb.release("2.10")
    assert rel is not None and rel.python_range() == "3.7-3.10"
    # The same ranges Choose uses: 2.10 takes 3.7-3.10; the nearest release that takes 3.13 is 2.20.
    assert "TensorFlow 2.10.0 has wheels for Python 3.7-3.10" in first.why
    assert "the text shows Python 3.13" in first.why
    assert "The nearest TensorFlow for Python 3.13 is 2.20 (Python 3.9-3.13)" in first.why
    assert "for TensorFlow 2.10.0 use Python 3.10" in first.why
    assert "tensorflow-2.10.1-cp310-" in first.seen_in  # the wheel the range was read from


def test_the_python_choose_picks_is_the_one_the_doctor_names() -> None:
    # One function for both (Release.nearest_python): the Python Choose's resolver switches a set
    # of TensorFlow 2.15 to on a machine with Python 3.13 is the one the doctor names for that text.
    kb = load_knowledge()
    verdict = python_fit(read_facts(PIP_210.replace("2.10.0", "2.15.0")), kb)
    assert verdict is not None and verdict.fields["fits"] == "3.11"
    profile = MachineProfile(
        platform="linux",
        arch="x86_64",
        os=OsInfo(id="ubuntu", version="24.04", glibc="2.39"),
        python=PythonInfo(version="3.13.1"),
        driver=DriverInfo(version="550.90.07", cuda="12.4"),
        gpus=[GpuInfo(index=0, name="NVIDIA GeForce RTX 3090", compute_capability="8.6")],
        nvidia_pci_devices=1,
    )
    rec = recommend(profile, kb, tf="2.15")
    chosen = [c for c in rec.candidates if c.set.tensorflow.startswith("2.15.") and c.set.python]
    assert chosen and {c.set.python for c in chosen} == {verdict.fields["fits"]}


def test_a_python_the_release_takes_is_not_blamed() -> None:
    text = PIP_210.replace("3.13", "3.9")  # 2.10 takes 3.9: pip failed for another reason
    first = match_output(text)[0]
    assert first.id == "python-unsupported"  # the catalogue's general answer (32-bit, platform) stands
    assert "has wheels for" not in first.why


def test_a_python_no_release_takes_yet_names_the_newest_and_its_range() -> None:
    text = (
        "Python 3.14.0 (main, Oct  7 2025, 09:34:52) [GCC 13.3.0] on linux\n"
        "$ pip install tensorflow\n"
        "ERROR: Could not find a version that satisfies the requirement tensorflow (from versions: none)\n"
        "ERROR: No matching distribution found for tensorflow\n"
    )
    first = match_output(text)[0]
    assert first.id == "python-unsupported"
    newest = load_knowledge().releases[0]
    assert f"the newest, {newest.series}, takes Python {newest.python_range()}" in first.why
    assert "Python 3.14" in first.why and "use Python 3.13" in first.why


@pytest.mark.parametrize(
    ("text", "python"),
    [
        ("I have python 3.12.1 and pip 23.3.2", "3.12"),
        ('  File "/home/u/venv/lib/python3.10/site-packages/pip/_internal/cli/base_command.py"', "3.10"),
        ("ERROR: Package 'tensorflow' requires a different Python: 3.8.10 not in '>=3.9'", "3.8"),
        ("TensorFlow 2.16 requires Python 3.9", ""),  # a claim about a release, not the Python that ran
        ("it supports Python 3.9-3.12", ""),
        ("Python 3.10 or 3.11 both fail", ""),
        ("Python 3.12.1 here, and python3.10 in the venv: /x/lib/python3.10/site-packages", ""),  # two
    ],
)
def test_the_python_a_log_shows_is_read_and_a_claim_is_not(text: str, python: str) -> None:
    assert read_facts(text).python == python


def test_the_python_reason_reads_in_chinese() -> None:
    set_language("zh")
    first = match_output(PIP_210)[0]
    assert first.id == "python-unsupported"
    assert "TensorFlow 2.10.0 只有 Python 3.7-3.10 的安装包" in first.why and "2.20" in first.why


# ---- 1c: driver floors by platform ---------------------------------------------------------


def _no_device(driver: str, wsl: bool) -> str:
    head = "Linux DESKTOP 5.15.153.1-microsoft-standard-WSL2\n" if wsl else "Linux lab01 6.8.0-45-generic\n"
    return (
        head + f"| NVIDIA-SMI {driver}    Driver Version: {driver}    CUDA Version: 12.0     |\n"
        "I tensorflow/tsl/platform/default/dso_loader.cc] Successfully opened dynamic library libcudart.so.12\n"
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: "
        "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )


def test_the_floor_is_windows_where_the_driver_is_windows() -> None:
    # 527.41 serves CUDA 12.0 on Windows, but CUDA 12's minor-version compatibility there starts at
    # 528.33 (Choose's DRIVER_FLOOR_WSL); on Linux the floor is 525.60.13.
    found = match_output(_no_device("527.41", wsl=True))
    assert found[0].id == "driver-too-old"
    assert "527.41" in found[0].why and "528.33" in found[0].why and "WSL2" in found[0].why
    linux = match_output(_no_device("530.30.02", wsl=False))
    assert linux[0].id != "driver-too-old"


def test_a_release_named_in_the_text_gives_its_cuda_floor() -> None:
    text = (
        "| NVIDIA-SMI 470.161.03   Driver Version: 470.161.03   CUDA Version: 11.4     |\n"
        "tensorflow 2.16.1\n"
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: "
        "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    first = match_output(text)[0]
    assert first.id == "driver-too-old"
    assert "TensorFlow 2.16" in first.why and "525.60.13" in first.why and "on Linux" in first.why
    assert "software_requirements" in first.seen_in  # TensorFlow's own table of the floor


# ---- 2: WSL2 and a Windows driver release --------------------------------------------------

WSL_ERR = (
    "user@PC:~$ uname -r\n5.15.167.4-microsoft-standard-WSL2\n"
    "user@PC:~$ nvidia-smi\n"
    "| NVIDIA-SMI 572.16                 Driver Version: 572.16         CUDA Version: ERR!     |\n"
    "user@PC:~$ python -c 'import torch; torch.cuda.init()'\n"
    "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment\n"
)


def test_wsl2_with_a_windows_driver_and_cuda_err_gets_the_windows_side_fix() -> None:
    found = match_output(WSL_ERR)
    first = found[0]
    assert first.id == "wsl-windows-driver"
    assert "572.16" in first.why and "Roll Back Driver" in first.fix and "wsl --shutdown" in first.fix
    # Never a Linux driver inside WSL2, and no "update the driver" / "run detect" beside it.
    assert not re.search(r"apt(-get)? install nvidia|ubuntu-drivers|\.run\b", first.fix)
    assert harmful(found) == ["wsl-windows-driver"]


def test_wsl2_cuinit_999_with_the_windows_driver_store_version() -> None:
    text = (
        "WSL2 Ubuntu 22.04; Windows driver 32.0.15.7216\n"
        "Driver Version: 572.16\n"
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: "
        "CUDA_ERROR_UNKNOWN: unknown error\n"
    )
    assert match_output(text)[0].id == "wsl-windows-driver"


def test_wsl2_unknown_error_without_the_driver_version_is_not_sure_with_the_command() -> None:
    text = (
        "Linux PC 5.15.167.4-microsoft-standard-WSL2\n"
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: "
        "CUDA_ERROR_UNKNOWN: unknown error\n"
    )
    found = match_output(text)
    assert "wsl-windows-driver" not in [d.id for d in found]
    note = next(d for d in found if d.id == "not-sure")
    assert note.fix.endswith(": nvidia-smi") and "WSL2" in note.evidence


def test_a_gpu_in_tcc_mode_is_not_called_a_driver_regression() -> None:
    text = WSL_ERR + "|   0  Quadro RTX 6000      TCC  | 00000000:65:00.0 Off |                  Off |\n"
    assert "wsl-windows-driver" not in [d.id for d in match_output(text)]


def test_a_linux_driver_version_in_wsl2_is_not_the_windows_driver() -> None:
    text = WSL_ERR.replace("572.16 ", "550.54.14")
    assert "wsl-windows-driver" not in [d.id for d in match_output(text)]


def test_the_same_failure_outside_wsl2_is_not_the_windows_driver() -> None:
    text = WSL_ERR.replace("5.15.167.4-microsoft-standard-WSL2", "6.8.0-45-generic")
    assert "wsl-windows-driver" not in [d.id for d in match_output(text)]


def test_the_wsl2_answer_reads_in_chinese() -> None:
    set_language("zh")
    first = match_output(WSL_ERR)[0]
    assert first.id == "wsl-windows-driver"
    assert first.title == "Windows 上的 NVIDIA 驱动导致 WSL2 里的 CUDA 无法使用"
    assert "回退驱动程序" in first.fix and "wsl --shutdown" in first.fix and "572.16" in first.fix


# ---- 3: a driver/library mismatch ----------------------------------------------------------

NVML_ONLY = "$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.144\n"
PROC = "$ cat /proc/driver/nvidia/version\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  {v}  Tue Jun 23 08:38:17 UTC 2026\n"
REBOOT, MEND = "sudo reboot", "ldconfig -p"


def test_nvml_libraries_newer_than_the_proc_module_say_reboot_and_only_reboot() -> None:
    found = match_output(NVML_ONLY + PROC.format(v="550.127.05"))
    first = found[0]
    assert first.id == "driver-library-mismatch" and first.fix == REBOOT
    assert "550.144" in first.why and "550.127.05" in first.why
    assert all(MEND not in d.fix for d in found) and "driver-too-old" not in harmful(found)


def test_a_module_newer_than_the_libraries_mends_the_libraries_not_reboot() -> None:
    found = match_output(NVML_ONLY + PROC.format(v="560.35.03"))
    first = found[0]
    assert first.id == "driver-library-mismatch"
    assert MEND in first.fix and "reboot" not in first.fix.lower()
    assert all(REBOOT not in d.fix for d in found)


@pytest.mark.parametrize(
    "text",
    [NVML_ONLY, "Failed to initialize NVML: Driver/library version mismatch\n" + PROC.format(v="535.183.01")],
)
def test_one_version_says_what_was_read_and_the_command_that_decides(text: str) -> None:
    found = match_output(text)
    first = found[0]
    assert first.id == "driver-library-mismatch"
    version = "550.144" if "550.144" in text else "535.183.01"
    assert version in first.why
    assert first.fix.endswith("cat /proc/driver/nvidia/version; nvidia-smi")
    assert all(REBOOT not in d.fix and MEND not in d.fix for d in found)  # no fix it cannot choose


def test_one_version_reads_in_chinese() -> None:
    set_language("zh")
    first = match_output(NVML_ONLY)[0]
    assert first.title == "NVIDIA 驱动库与正在运行的内核模块版本不一致"
    assert "550.144" in first.why and first.fix.endswith("cat /proc/driver/nvidia/version; nvidia-smi")


def _mismatch_texts() -> list[Path]:
    files = sorted(CORPUS.glob("*.txt"))
    return [
        f
        for f in files
        if re.search(r"version mismatch|API mismatch|does not match DSO", f.read_text("utf-8"))
    ]


CONTRADICTS = {
    # A reboot loads a module already installed; these say the driver on disk is wrong or too old.
    "sudo reboot": ("driver-too-old", "driver-userspace-older", "ptx-too-new-for-driver"),
}


def test_no_mismatch_text_of_the_corpus_gets_two_fixes_that_contradict() -> None:
    # The training texts only (held-out texts are never read by the rule writer).
    texts = _mismatch_texts()
    assert len(texts) >= 20
    for path in texts:
        found = [d for d in match_output(path.read_text("utf-8")) if d.harmful]
        fixes = {d.fix for d in found}
        ids = {d.id for d in found}
        if REBOOT in fixes:
            assert not set(CONTRADICTS[REBOOT]) & ids, path.name
        assert not (any(REBOOT in f for f in fixes) and any(MEND in f for f in fixes)), path.name


# ---- the CLI shows the same, in both languages ---------------------------------------------


def _cli(stdin: str, lang: str) -> str:
    code = "import sys; from wizard.cli.main import main; sys.exit(main())"
    out = subprocess.run(
        [sys.executable, "-c", code, "doctor", "--log", "-"],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={
            "PYTHONPATH": str(ROOT),
            "TF_GPU_WIZARD_HOME": tempfile.mkdtemp(prefix="i35c-doctor-"),
            "COLUMNS": "200",
            "PATH": "/usr/bin:/bin",
            "TF_GPU_WIZARD_LANG": lang,
        },
        timeout=120,
    )
    assert out.returncode in (0, 1), out.stderr
    return " ".join(out.stdout.split())


def test_doctor_log_names_the_wsl2_windows_driver_in_english_and_chinese() -> None:
    en = _cli(WSL_ERR, "en")
    assert "The Windows NVIDIA driver broke CUDA in WSL2" in en and "Roll Back Driver" in en
    zh = _cli(WSL_ERR, "zh")
    assert "Windows 上的 NVIDIA 驱动导致 WSL2 里的 CUDA 无法使用" in zh and "572.16" in zh


def test_the_judged_causes_read_in_chinese() -> None:
    set_language("zh")
    too_new = match_output("tensorflow 2.17.0\n" + _tf_gpu("NVIDIA GeForce RTX 5090", "12.0") + NO_KERNEL)[0]
    assert too_new.id == "gpu-too-new" and "算力 12.0" in too_new.why and "compute_90a" in too_new.why
    too_old = match_output("tensorflow==2.16.1\n" + _tf_gpu("NVIDIA GeForce GTX 780", "3.5") + NO_KERNEL)[0]
    assert too_old.title == "这块 GPU 对这个构建来说太旧" and "算力 3.5" in too_old.fix
    floor = match_output(_no_device("527.41", wsl=True))[0]
    assert floor.id == "driver-too-old" and "528.33" in floor.why and "在 WSL2 上" in floor.why
