"""The doctor recognises the failures users really see and names the fix."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.demo import load_demo
from wizard.doctor.catalogue import pattern
from wizard.doctor.diagnose import FINDING_TO_DIAGNOSIS, diagnose, match_output, patterns
from wizard.plan.installer import INSTALLER_ENV
from wizard.text import has, set_language, t

REAL_TEXTS = {
    # From the users' guides (shared/seeds) and TensorFlow / CUDA / pip output.
    "missing-cudnn": "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
    "missing-cudart": "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
    "gpu-list-empty": (
        "W0000 00:00:1712345678.1 12345 gpu_device.cc:2344] Cannot dlopen some GPU libraries. "
        "Please make sure the missing libraries mentioned above are installed properly\n"
        "Skipping registering GPU devices..."
    ),
    # cudart_stub's INFO line is this cause only where GPUs were asked for (alone: a CPU host's notice).
    "cpu-only-wheel": (
        ">>> tf.config.list_physical_devices('GPU')\n"
        "I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used."
    ),
    "memory-held": "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:1017] failed to allocate 22.19GiB (23826612224 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
    "driver-too-old": "CUDA driver version is insufficient for CUDA runtime version",
    "no-device": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    "secure-boot-module": "ERROR: Installation failed. The nvidia kernel module was not created.",
    "unsupported-cc": "Ignoring visible gpu device (device: 0, name: NVIDIA GeForce GTX 680, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.",
    "python-unsupported": "ERROR: Could not find a version that satisfies the requirement tensorflow[and-cuda]==2.15.0 (from versions: 2.16.1)",
    "externally-managed": "error: externally-managed-environment",
    "no-venv-module": "The virtual environment was not created successfully because ensurepip is not\navailable.",
}


@pytest.mark.parametrize(("diag_id", "text"), sorted(REAL_TEXTS.items()))
def test_real_error_texts_are_recognised(diag_id: str, text: str) -> None:
    found = match_output("some unrelated line\n" + text)
    assert found and found[0].id == diag_id
    assert found[0].fix and found[0].fix != f"doctor.{diag_id}.fix"


def test_every_pattern_has_texts_and_a_source() -> None:
    for p in patterns():
        assert p.seen_in
        for part in ("title", "why", "fix"):
            assert has(f"doctor.{p.id}.{part}"), f"doctor.{p.id}.{part} missing"


def test_healthy_output_gives_nothing() -> None:
    ok = "2.21.0\n[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]\nmatmul ok\n"
    assert match_output(ok) == []


def test_profile_problems_come_with_fixes(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [d.id for d in diagnose(load_demo("wsl2-linux-driver-inside"))]
    assert "linux-driver-in-wsl" in ids
    # The machine's error first, then its warnings in detect's order. A fresh Ubuntu has no
    # python3-venv, which the plan does not need: the wizard's own uv makes the environment.
    assert [d.id for d in diagnose(load_demo("ubuntu-24.04-rtx4090-fresh"))] == [
        "no-device",  # an RTX 4090 on the PCI bus and no NVIDIA driver
        "nouveau",
        "secure-boot-module",
        "finding-driver-step",  # the plan's first step: the driver the chosen set needs
    ]
    monkeypatch.setenv(INSTALLER_ENV, "pip")  # the person picked pip: python3-venv is needed
    assert "no-venv-module" in [d.id for d in diagnose(load_demo("ubuntu-24.04-rtx4090-fresh"))]


def test_output_matches_come_before_profile_findings_and_are_not_repeated() -> None:
    found = diagnose(load_demo("wsl2-linux-driver-inside"), REAL_TEXTS["missing-cudart"])
    assert found[0].id == "missing-cudart"
    assert len({d.id for d in found}) == len(found)


def test_doctor_cli_reads_a_log_from_stdin() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "wizard", "--profile", "no-nvidia-gpu", "doctor", "--log", "-", "--json"],
        input=REAL_TEXTS["missing-cudnn"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stderr  # 1: a harmful problem was found
    found = json.loads(result.stdout)
    assert found[0]["id"] == "missing-cudnn" and found[0]["origin"] == "output" and found[0]["line"] == 1
    assert "no-nvidia-gpu" in [d["id"] for d in found]  # and what detect says about the machine


# ---- issue 21: the log's findings first, this machine's after, labelled -------------------------

SYMPTOM_ONLY = "W gpu_device.cc:2344] Cannot dlopen some GPU libraries.\nSkipping registering GPU devices..."
NOISE_ONLY = "I cuda_gpu_executor.cc:975] successful NUMA node read from SysFS had negative value (-1)"


@pytest.mark.parametrize("log", [REAL_TEXTS["missing-cudnn"], SYMPTOM_ONLY, NOISE_ONLY])
@pytest.mark.parametrize("machine", ["no-nvidia-gpu", "wsl1-ubuntu-22.04", "ubuntu-24.04-rtx4090-fresh"])
def test_a_logs_own_findings_come_before_the_machines(log: str, machine: str) -> None:
    found = diagnose(load_demo(machine), log)
    origins = [d.origin for d in found]
    assert origins[0] == "output" and "profile" in origins
    # Every output finding (harmful, symptom or harmless) before the first one about the machine.
    assert origins == sorted(origins, key=lambda o: o != "output")


def test_the_cli_labels_the_machines_findings_as_about_the_demo_machine() -> None:
    # A demo profile's findings are the demo's, named so: never "this machine" (the computer here).
    env = dict(os.environ, TF_GPU_WIZARD_LANG="en", COLUMNS="250")
    result = subprocess.run(
        [sys.executable, "-m", "wizard", "--profile", "wsl1-ubuntu-22.04", "doctor", "--log", "-"],
        input=SYMPTOM_ONLY + "\n" + NOISE_ONLY,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    out = result.stdout
    log_at = out.index(t("doctor.gpu-list-empty.title"))
    noise_at = out.index(t("doctor.noise-numa.title"))
    heading_at = out.index("About the demo machine")
    assert t("doctor.machine_heading") not in out
    machine_at = out.index(t("doctor.wsl1.title"))
    assert out.index(t("doctor.log_heading")) < log_at < noise_at < heading_at < machine_at


def test_a_log_with_nothing_known_says_so_before_the_machine() -> None:
    env = dict(os.environ, TF_GPU_WIZARD_LANG="en", COLUMNS="250")
    result = subprocess.run(
        [sys.executable, "-m", "wizard", "--profile", "no-nvidia-gpu", "doctor", "--log", "-"],
        input="Segmentation fault (core dumped)\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    out = result.stdout
    assert out.index(t("doctor.not_recognised")) < out.index("About the demo machine")
    assert out.index("About the demo machine") < out.index(t("doctor.no-nvidia-gpu.title"))


# ---- issue 21 / issue 18 point 6: fixes point at the wizard's pinned plan; sources are public --------


def _all_fix_texts() -> list[tuple[str, str, str]]:
    out = []
    for lang in ("en", "zh"):
        set_language(lang)
        try:
            ids = {p.id for p in patterns()} | {p.texts for p in patterns() if p.texts}
            ids |= set(FINDING_TO_DIAGNOSIS.values())
            out += [(lang, i, t(f"doctor.{i}.fix", venv="~/.venvs/tf-gpu")) for i in sorted(ids)]
            out += [(lang, f"sharpen.{k}", t(f"doctor.sharpen.{k}")) for k in ("install", "install_lock")]
        finally:
            set_language(None)
    return out


@pytest.mark.parametrize(("lang", "diag_id", "fix"), _all_fix_texts())
def test_no_fix_advises_an_unpinned_install_or_a_venv_of_its_own(lang: str, diag_id: str, fix: str) -> None:
    # An unpinned tensorflow[and-cuda] floats to newer nvidia wheels than the plan's lock.
    assert re.findall(r"tensorflow\[and-cuda\](?!==)", fix) == [], fix
    assert "python3 -m venv" not in fix and "~/tf " not in fix and "~/tf/" not in fix
    assert "unpinned" not in fix and "不锁版本" not in fix  # never blame what the fix itself does


def test_sources_shown_to_users_are_public() -> None:
    for p in patterns():
        assert not re.search(r"shared/|seeds/|§|assets/|\.py\b", p.seen_in), (p.id, p.seen_in)


def test_the_missing_cudnn_fix_is_the_wizards_pinned_plan() -> None:
    # Issue 18 point 6: 'libcudnn.so.8' must not both blame an unpinned [and-cuda] and advise it.
    from wizard.choose.resolver import pip_requirements, recommend
    from wizard.plan.build import default_venv_for  # the demo's, in the demo user's home
    from wizard.plan.lock_view import locked_install

    profile = load_demo("wsl2-rtx4060-laptop")
    best = recommend(profile).recommended
    assert best is not None
    found = diagnose(
        profile, "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open"
    )
    d = found[0]
    assert d.id == "missing-cudnn"
    assert "~/.venvs/tf-gpu" in d.fix and "tf-gpu-wizard apply" in d.fix
    machine = d.for_this_machine
    # The plan installs the hashed lock (wizard/plan/lock_view.py): apply, its count and digest.
    locked = locked_install(best, profile)
    assert locked is not None
    assert str(default_venv_for(profile)) in machine and "tf-gpu-wizard apply" in machine
    assert f"{locked.count} packages" in machine and locked.digest in machine
    assert not any(req in machine for req in pip_requirements(best))  # no second install line


@pytest.mark.parametrize(
    ("machine", "key"), [("no-nvidia-gpu", "cuinit_no_gpu"), ("wsl2-rtx4060-laptop", "cuinit_gpu")]
)
def test_cuinit_says_whether_it_matters_on_this_machine(machine: str, key: str) -> None:
    line = "E cuda_driver.cc:314] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    found = diagnose(load_demo(machine), line)
    assert found[0].id == "cuinit-failed"
    assert "expected" in found[0].why  # both cases, in general
    gpu = load_demo(machine).gpus
    assert found[0].for_this_machine.startswith(
        t(f"doctor.sharpen.{key}", name=gpu[0].name if gpu else "")[:30]
    )


# ---- Chinese sessions: OS messages in a zh locale, and the diagnosis worded in zh -----------------

ZH_TEXTS = {
    "missing-cudnn": "ImportError: libcudnn.so.8: 无法打开共享对象文件: 没有那个文件或目录",
    "missing-cudart": "OSError: libcudart.so.12: 无法打开共享对象文件: 没有那个文件或目录",
    "nvidia-smi-missing": "bash: nvidia-smi：未找到命令",
    "kernel-module-missing": "dpkg: 处理软件包 nvidia-dkms-535 (--configure)时出错：",
}
ZH_WINDOWS = {
    "nvidia-smi-missing": [
        "'nvidia-smi' 不是内部或外部命令，也不是可运行的程序\n或批处理文件。",
        "nvidia-smi : 无法将“nvidia-smi”项识别为 cmdlet、函数、脚本文件或可运行程序的名称。",
        "找不到命令 “nvidia-smi”，但可以通过以下软件包安装它：",
        "sudo: nvidia-smi：找不到命令",
    ]
}


@pytest.mark.parametrize(("diag_id", "text"), sorted(ZH_TEXTS.items()))
def test_chinese_os_messages_are_recognised_and_worded_in_chinese(diag_id: str, text: str) -> None:
    set_language("zh")
    try:
        found = match_output(text)
        assert found and found[0].id == diag_id
        assert re.search(r"[\u4e00-\u9fff]", found[0].title + found[0].why + found[0].fix)
        assert found[0].fix != f"doctor.{diag_id}.fix"
    finally:
        set_language(None)


@pytest.mark.parametrize("text", ZH_WINDOWS["nvidia-smi-missing"])
def test_chinese_windows_shells_are_recognised(text: str) -> None:
    assert match_output(text)[0].id == "nvidia-smi-missing"


# ---- texts as people paste them: wrapped lines, typographic quotes, HTML entities ----------------


def test_a_message_wrapped_onto_two_lines_is_recognised_on_its_first_line() -> None:
    text = (
        "some context\n"
        "W gpu_device.cc:1943] TensorFlow was not built with CUDA kernel binaries compatible\n"
        "with compute capability 12.0. CUDA kernels will be jit-compiled from PTX\n"
    )
    found = match_output(text)
    # The warning alone is the slow first start (harmless, round 10's released text); a launch
    # failure after it makes it a GPU too new (tests/test_doctor_round10.py).
    assert found[0].id == "ptx-jit-slow-start" and found[0].line == 2
    assert "compatible with compute capability 12.0" in found[0].evidence
    # Two lines that each match nothing and say nothing together stay unmatched.
    assert match_output("the module could not\nbe found anywhere") == []


@pytest.mark.parametrize(
    "text",
    [
        "NVIDIA-SMI has failed because it couldn\u2019t communicate with the NVIDIA driver",
        "Could not load dynamic library \u2018libcudart.so.11.0\u2019; dlerror: libcudart.so.11.0",
        "Could not load dynamic library &#39;libcudart.so.11.0&#39;; dlerror: libcudart.so.11.0",
        "ImportError\uff1alibcudnn.so.8\uff1a\u65e0\u6cd5\u6253\u5f00\u5171\u4eab\u5bf9\u8c61\u6587\u4ef6",
    ],
)
def test_typographic_and_full_width_punctuation_is_read_as_plain(text: str) -> None:
    found = match_output(text)
    assert found and found[0].harmful
    assert found[0].evidence == t("doctor.matched", line=text)  # the evidence is the line as written


# ---- the real message formats of each tool (TensorFlow, XLA, CUDA, cuDNN, PyTorch, pip, docker, shells) ----
# The doctor is written against the stable core of each message, not one user's paths or numbers;
# these are the formats as the tools print them, in forms the corpus does not hold.
MESSAGE_FORMATS = [
    ("pip-half-upgraded", "ModuleNotFoundError: No module named 'pip._internal.utils'"),
    ("pip-half-upgraded", "ImportError: No module named _internal"),
    (
        "pip-half-upgraded",
        "ImportError: cannot import name 'main' from 'pip._internal' (/usr/lib/python3/dist-packages/pip/_internal/__init__.py)",
    ),
    ("numpy-abi", "A module that was compiled using NumPy 1.x cannot be run in"),
    ("numpy-abi", "AttributeError: _ARRAY_API not found"),
    (
        "numpy-abi",
        "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject",
    ),
    ("numpy-abi", "RuntimeError: module compiled against API version 0x10 but this version of numpy is 0xf"),
    (
        "container-no-gpu",
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
    ),
    ("container-no-gpu", "docker: Error response from daemon: unknown or invalid runtime name: nvidia."),
    (
        "container-no-gpu",
        "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.",
    ),
    ("container-no-gpu", "   Use the NVIDIA Container Toolkit to start this container with GPU support; see"),
    # The toolkit could not reach the host's driver: a driver problem, not a missing --gpus.
    ("no-device", "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown."),
    ("container-no-gpu", "unknown flag: --gpus"),
    (
        "kernel-module-missing",
        "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.5.0-14-generic",
    ),
    (
        "kernel-module-missing",
        "Error! Bad return status for module build on kernel: 6.5.0-14-generic (x86_64)",
    ),
    (
        "linux-driver-in-wsl",
        "modprobe: FATAL: Module nvidia not found in directory /lib/modules/5.15.133.1-microsoft-standard-WSL2",
    ),
    (
        "dnn-library-not-found",
        "tensorflow.python.framework.errors_impl.UnimplementedError: Graph execution error: DNN library is not found.",
    ),
    (
        "dnn-library-not-found",
        "FAILED_PRECONDITION: DNN library initialization failed. Look at the errors above for more details.",
    ),
    (
        "cuinit-failed",
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:274] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
    ),
    (
        "cuinit-failed",
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (303)",
    ),
    ("cuinit-failed", "E cuda_driver.cc:266] failed call to cuInit: UNKNOWN ERROR (34)"),
    (
        "cuinit-failed",
        "UserWarning: CUDA initialization: CUDA driver initialization failed, you might not have a CUDA gpu.",
    ),
    (
        "ptxas-too-old",
        "2023-05-01 W asm_compiler.cc:231] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 9.0",
    ),
    ("ptxas-too-old", "ptxas fatal   : Value 'sm_89' is not defined for option 'gpu-name'"),
    (
        "ptxas-too-old",
        "ptxas /tmp/tempfile-xyz, line 5; fatal   : Unsupported .version 7.8; current version is '7.4'",
    ),
    (
        "xla-ptxas-problem",
        "W external/local_xla/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc] Can't find ptxas binary in ${CUDA_DIR}/bin.  Will back to the GPU driver for PTX -> sass compilation.",
    ),
    (
        "xla-libdevice-missing",
        "W external/local_xla/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:546] Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice. This may result in compilation or runtime failures",
    ),
    (
        "missing-cudart",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
    ),
    (
        "missing-cudart",
        "ImportError: Could not find 'cudart64_90.dll'. TensorFlow requires that this DLL be installed in a directory that is named in your %PATH% environment variable.",
    ),
    ("missing-cudart", "RuntimeError: Library libcublas.so.12 is not found or cannot be loaded"),
    ("missing-cudart", "OSError: libcusparse.so.12: 无法打开共享对象文件: 没有那个文件或目录"),
    (
        "missing-cudnn",
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory",
    ),
    (
        "missing-cudnn",
        "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}",
    ),
    (
        "missing-cudnn",
        'OSError: [WinError 126] 找不到指定的模块。 Error loading "C:\\Users\\stu\\miniconda3\\envs\\tf\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.',
    ),
    ("missing-cudnn", "Could not locate zlibwapi.dll. Please make sure it is in your library path!"),
    (
        "cudnn-version-mismatch",
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0.  CuDNN library needs to have matching major version and equal or higher minor version.",
    ),
    (
        "cuda-libs-mixed",
        "ImportError: /usr/local/cuda/lib64/libcublasLt.so.11: version `libcublasLt.so.11' not found (required by libcublas.so.11)",
    ),
    ("cuda-libs-mixed", "undefined symbol: __cudaRegisterFatBinaryEnd"),
    (
        "driver-too-old",
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver",
    ),
    ("driver-too-old", "Error 804: forward compatibility was attempted on non supported HW"),
    ("driver-library-mismatch", "Failed to initialize NVML: Driver/library version mismatch"),
    (
        "driver-library-mismatch",
        "E cuda_diagnostics.cc] kernel version 535.54.3 does not match DSO version 535.104.5 -- cannot find working devices in this configuration",
    ),
    (
        "driver-library-mismatch",
        "NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.05.",
    ),
    (
        "no-device",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    ),
    # PyTorch's words for cudaGetDeviceCount finding no device (i35f): cuInit's "no device".
    ("cuinit-failed", "RuntimeError: No CUDA GPUs are available"),
    (
        "no-device",
        "AssertionError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver",
    ),
    (
        "no-device",
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is properly installed",
    ),
    ("no-device", "No devices were found"),
    ("nvidia-smi-missing", "-bash: nvidia-smi: command not found"),
    ("nvidia-smi-missing", "/bin/sh: 1: nvidia-smi: not found"),
    ("nvidia-smi-missing", "'nvidia-smi' is not recognized as an internal or external command,"),
    (
        "nvidia-smi-missing",
        "nvidia-smi : The term 'nvidia-smi' is not recognized as the name of a cmdlet, function, script file, or operable program.",
    ),
    (
        "nvidia-smi-missing",
        "nvidia-smi : 无法将“nvidia-smi”项识别为 cmdlet、函数、脚本文件或可运行程序的名称。",
    ),
    ("nvidia-smi-missing", "'nvidia-smi' 不是内部或外部命令，也不是可运行的程序"),
    ("secure-boot-module", "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service"),
    ("secure-boot-module", "modprobe: ERROR: could not insert 'nvidia': Operation not permitted"),
    (
        "secure-boot-module",
        "ERROR: The kernel module failed to load. Secure boot is enabled on this system, so this is likely because it was not signed",
    ),
    ("secure-boot-module", "Your system has UEFI Secure Boot enabled."),
    ("no-device", "modprobe: ERROR: could not insert 'nvidia': No such device"),
    (
        "secure-boot-module",
        "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module was built against the wrong",
    ),
    (
        "secure-boot-module",
        "Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7",
    ),
    ("unsupported-cc", "RuntimeError: CUDA error: no kernel image is available for execution on the device"),
    (
        "unsupported-cc",
        "Found GPU0 GeForce GTX 770 which is of cuda capability 3.0. PyTorch no longer supports this GPU because it is too old.",
    ),
    (
        "gpu-too-new",
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
    ),
    # The driver's JIT refusing PTX, no newer GPU named: PTX newer than the driver (round 10's Jetson);
    # with a Blackwell GPU in the text it is gpu-too-new (tests/test_doctor_round10.py).
    ("ptx-too-new-for-driver", "CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed"),
    ("ptx-too-new-for-driver", "CUDA error: the provided PTX was compiled with an unsupported toolchain."),
    (
        "tensor-oom",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 3.95 GiB total capacity",
    ),
    (
        "tensor-oom",
        "W bfc_allocator.cc:479] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to 1073741824)requested by op Conv2D",
    ),
    (
        "tensor-oom",
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.",
    ),
    (
        "memory-held",
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:936] failed to allocate 10.76G (11550654464 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
    ),
    ("cuda-illegal-address", "RuntimeError: CUDA error: an illegal memory access was encountered"),
    (
        "cuda-illegal-address",
        "E tensorflow/stream_executor/cuda/cuda_event.cc:29] Error polling for event status: failed to query event: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure",
    ),
    ("cpu-only-wheel", "AssertionError: Torch not compiled with CUDA enabled"),
    (
        "cpu-only-wheel",
        "$ python -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\"\n"
        "I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used.",
    ),
    (
        "gpu-list-empty",
        "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1956] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU.",
    ),
    ("gpu-list-empty", "Num GPUs Available:  0"),
    ("gpu-list-empty", "GPU available: False, used: False"),
    (
        "gpu-lib-init-failed",
        "E tensorflow/stream_executor/cuda/cuda_blas.cc:238] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED",
    ),
    (
        "gpu-lib-init-failed",
        "tensorflow.python.framework.errors_impl.InternalError: Blas GEMM launch failed : a.shape=(100, 784), b.shape=(784, 10), m=100, n=10, k=784",
    ),
    (
        "conv-algo-failed",
        "UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.",
    ),
    (
        "python-unsupported",
        "ERROR: Could not find a version that satisfies the requirement tensorflow (from versions: none)",
    ),
    ("python-unsupported", "ERROR: Package 'tensorflow' requires a different Python: 3.8.10 not in '>=3.9'"),
    ("tensorflow-gpu-removed", "ERROR: No matching distribution found for tensorflow-gpu==2.12.0"),
    ("externally-managed", "error: externally-managed-environment"),
    (
        "no-venv-module",
        "Error: Command '['/home/u/env/bin/python3', '-m', 'ensurepip', '--upgrade', '--default-pip']' returned non-zero exit status 1.",
    ),
    ("noise-pip-notice", "WARNING: You are using pip version 21.2.4; however, version 23.3.1 is available."),
    (
        "noise-numa",
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc] Could not identify NUMA node of platform GPU id 0, defaulting to 0.  Your kernel may not have been built with NUMA support.",
    ),
    (
        "ptx-jit-slow-start",
        "W gpu_device.cc:1943] TensorFlow was not built with CUDA kernel binaries compatible with compute capability 8.6. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.",
    ),
]


@pytest.mark.parametrize(
    ("diag_id", "text"), MESSAGE_FORMATS, ids=[f"{i}-{d}" for i, (d, _) in enumerate(MESSAGE_FORMATS)]
)
def test_each_tools_message_format_is_recognised(diag_id: str, text: str) -> None:
    found = match_output(text)
    assert found and found[0].id == diag_id, [d.id for d in found]


# Round 3's messages as their programs print them, in forms the corpus does not hold (another
# version, another order, a Chinese session), and the fact that turns a cause around.
ROUND3_FORMS = [
    ("ptxas-too-old", "nvcc fatal   : Unsupported gpu architecture 'compute_86'"),
    ("ptxas-too-old", "nvcc fatal : Value 'sm_89' is not defined for option 'gpu-architecture'"),
    ("unsupported-cc", "RuntimeError: CUDA error: invalid device function"),
    ("pip-half-upgraded", "    from pip import main\nImportError: cannot import name 'main'"),
    (
        "missing-cudart",
        "    ctypes.WinDLL(build_info.cudart_dll_name)\nOSError: [WinError 126] 找不到指定的模块。",
    ),
    (
        "tensor-oom",
        "failed to allocate 2.00G from device: CUDA_ERROR_OUT_OF_MEMORY\nMy GPU memory keeps growing each epoch",
    ),
    (
        "missing-cudnn",
        "    ctypes.WinDLL(build_info.cudnn_dll_name)\nOSError: [WinError 126] The specified module could not be found",
    ),
    (
        "no-device",
        "ImportError: Could not find 'nvcuda.dll'. TensorFlow requires that this DLL be installed in a directory",
    ),
    # batch size 1 still failing: not the model's size, memory another process holds
    ("memory-held", "CUDA_ERROR_OUT_OF_MEMORY\nI reduced the batch size to 1 and it still fails"),
    (
        "no-device",
        'could not select device driver "" with capabilities: [[gpu]]\nI have no NVIDIA GPU, only integrated Intel graphics',
    ),
    (
        "container-no-gpu",
        'could not select device driver "" with capabilities: [[gpu]]\nA laptop with integrated Intel graphics and an NVIDIA GeForce RTX 3060',
    ),
]


@pytest.mark.parametrize(
    ("diag_id", "text"), ROUND3_FORMS, ids=[f"{i}-{d}" for i, (d, _) in enumerate(ROUND3_FORMS)]
)
def test_round_three_messages_in_other_forms(diag_id: str, text: str) -> None:
    found = match_output(text)
    assert found and found[0].id == diag_id, [d.id for d in found]


def test_a_specific_message_wrapped_after_a_generic_one_on_its_first_line_is_seen() -> None:
    # The first half matches a generic row by itself (no device); joined, the specific one wins.
    text = (
        "nvidia-container-cli: initialization error: nvml error: driver/library\nversion mismatch: unknown."
    )
    assert [d.id for d in match_output(text)][:2] == ["driver-library-mismatch", "no-device"]


def test_an_ascii_line_meets_the_same_rows_with_the_ascii_prefilter() -> None:
    # The ASCII-only tries are a shortcut: a Chinese line still meets the Chinese rows and cues.
    assert match_output("nvidia-smi: 未找到命令")[0].id == "nvidia-smi-missing"
    assert match_output("在容器里\nnvidia-smi: command not found")[0].id == "container-no-gpu"


HEALTHY_LOG = Path(__file__).parent / "doctor_fixtures" / "healthy_gpu_session.txt"


def test_a_healthy_gpu_session_holds_nothing_harmful() -> None:
    # Everything a working TensorFlow GPU start prints, noise included: no harmful diagnosis at all.
    found = match_output(HEALTHY_LOG.read_text(encoding="utf-8"))
    assert found and all(not d.harmful for d in found), [d.id for d in found if d.harmful]


def test_the_guides_are_cited_by_what_they_are_in_the_readers_language() -> None:
    line = "Failed to get convolution algorithm. This is probably because cuDNN failed to initialize"
    assert t("doctor.source_guide_cuda") in match_output(line)[0].seen_in
    set_language("zh")
    try:
        zh = match_output(line)[0].seen_in
        assert t("doctor.source_guide_cuda") in zh and "widely copied" not in zh
    finally:
        set_language(None)


def test_a_cpu_machine_does_not_offer_its_cpu_set_for_a_gpu_library_error() -> None:
    # IT reads a student's cuDNN log on a machine without a GPU: its CPU plan fixes nothing there.
    found = diagnose(load_demo("no-nvidia-gpu"), REAL_TEXTS["missing-cudnn"])
    assert found[0].id == "missing-cudnn" and found[0].for_this_machine == ""


NEW_FAMILIES = {
    "ptxas-too-old": "Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9",
    "numpy-abi": "AttributeError: _ARRAY_API not found",
    "container-no-gpu": 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
    "kernel-module-missing": "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-49-generic",
    "dnn-library-not-found": "UnimplementedError: DNN library is not found.",
    "pip-half-upgraded": "ModuleNotFoundError: No module named 'pip._internal.utils'",
    "cuinit-failed": "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("diag_id", "text"), sorted(NEW_FAMILIES.items()))
def test_each_new_family_has_its_cause_fix_and_a_line_for_this_machine(
    diag_id: str, text: str, lang: str
) -> None:
    set_language(lang)
    try:
        lines = []
        for name in ("ubuntu-22.04-rtx3090-cuda11.8", "no-nvidia-gpu", "wsl2-rtx4060-laptop"):
            d = diagnose(load_demo(name), text)[0]
            assert d.id == diag_id and d.why and d.fix and d.seen_in
            assert f"doctor.{diag_id}" not in d.why + d.fix  # the catalogue has the text
            lines.append(d.for_this_machine)
        assert any(lines), "no profile gets a line for this machine"
        if lang == "zh":
            assert all(
                re.search(r"[\u4e00-\u9fff]", x) for x in [d.title, d.why, d.fix, *filter(None, lines)]
            )
    finally:
        set_language(None)


def test_a_join_that_repeats_a_known_diagnosis_does_not_hide_a_new_one() -> None:
    # Line 3 alone is a new diagnosis; joined to line 2 it would repeat line 1's: it stays its own.
    text = (
        "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open\n"
        "some words about libcudnn.so.8: cannot\n"
        "open shared object file; CUDA_ERROR_OUT_OF_MEMORY: out of memory\n"
    )
    assert [d.id for d in match_output(text)] == ["missing-cudnn", "memory-held"]


@pytest.mark.parametrize(
    "text",
    [
        "CUDA error 803: system has unsupported display driver / cuda driver combination",
        "system has unsupported display driver / cuda driver combination",
        "failed call to cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver",
    ],
)
def test_803_alone_is_not_sure_and_names_the_command_that_shows_both_sides(text: str) -> None:
    """803 is a display driver and a CUDA driver of different versions: a driver updated without a
    reboot (reboot), an image's or cuda-compat's forward-compatibility libcuda (remove it, or update
    the driver), an old driver: fixes that contradict each other, so no cause is named."""
    found = match_output(text)
    named = [d.id for d in found if d.harmful and not (pattern(d.id) is not None and pattern(d.id).symptom)]
    assert named == [] and "driver-too-old" not in [d.id for d in found]
    if (
        found[0].id == "not-sure"
    ):  # alone: the code's meaning and the command; beside cuInit's symptom, that row
        assert "803" in found[0].evidence
        assert found[0].fix.endswith("cat /proc/driver/nvidia/version; nvidia-smi")
    else:
        assert found[0].id == "cuinit-failed"
