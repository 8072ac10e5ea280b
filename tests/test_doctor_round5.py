"""Rows written for round 5's families (issue 21, r21f): each message as its program prints it,
the variants, a Chinese session's words, and the texts where the row must NOT fire.

Lines marked "from source" are copied from the program that prints them (dkms, pip and setuptools'
pkg_resources, TensorFlow, PaddlePaddle's dynamic loader); the others are the shapes people write
them in.
"""

from __future__ import annotations

import textwrap

import pytest

from wizard.doctor.diagnose import match_output, recognised_in_output


def first(text: str) -> str:
    found = match_output(text)
    return found[0].id if found else "nothing"


# ---- dkms: its own errors, for the nvidia module only ---------------------------------------


def test_dkms_errors_for_the_nvidia_module_are_a_missing_kernel_module() -> None:
    # from source (dkms: read_conf's die message, then the file it looked for)
    nvidia = "Error! Could not locate dkms.conf file.\nFile: /var/lib/dkms/nvidia/390.48/source/dkms.conf does not exist."
    assert first(nvidia) == "kernel-module-missing"
    assert (
        first("Autoinstall on 6.5.0-14-generic failed for module(s) nvidia(10).") == "kernel-module-missing"
    )
    assert first("Error! nvidia/570.86.16 is broken! Missing the source directory") == "kernel-module-missing"
    # The same words for another module are not the doctor's business.
    amd = "Error! Could not locate dkms.conf file.\nFile: /var/lib/dkms/amdgpu/2.7-27/source/dkms.conf does not exist."
    assert first(amd) == "nothing"
    assert first("Autoinstall on 6.5.0-14-generic failed for module(s) dkms_test(1).") == "nothing"
    # The bare line, where the text runs dkms on nvidia.
    assert first("$ sudo dkms install nvidia/390.48\nError! Could not locate dkms.conf file.") == (
        "kernel-module-missing"
    )


@pytest.mark.parametrize(
    "said",
    [
        "After installing system updates, some DKMS stuff gets rebuilt.",
        "Since the automatic updates last night nvidia-smi fails.",
        "after sudo apt upgrade and a reboot:",
        "After some DKMS modules were rebuilt it stopped.",
        "系统更新之后就这样了",
    ],
)
def test_the_driver_not_reached_after_system_updates_is_the_kernel_module(said: str) -> None:
    line = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    assert first(f"{said}\n{line}") == "kernel-module-missing"
    assert first(line) == "no-device"  # alone: the symptom
    assert first(f"{said} (in WSL)\n{line}") != "kernel-module-missing"


# ---- pip: pip replacing itself ----------------------------------------------------------------


@pytest.mark.parametrize(
    "oserror",
    [
        # from source: pip 10-20.2 and pip 20.3+ (req/install: "Could not install packages due to an ...")
        "Could not install packages due to an EnvironmentError: [WinError 5] Access is denied: "
        "'c:\\\\program files\\\\python37\\\\lib\\\\site-packages\\\\pip-18.0.dist-info\\\\entry_points.txt'",
        "ERROR: Could not install packages due to an OSError: [WinError 5] Access is denied: "
        "'c:\\\\python39\\\\lib\\\\site-packages\\\\pip-21.0.dist-info\\\\RECORD'",
        "could not install package due to environment Error:[winError 5] Access is denied",  # retyped
    ],
)
def test_pips_oserror_while_it_uninstalled_itself(oserror: str) -> None:
    head = "Found existing installation: pip 18.0\nUninstalling pip-18.0:\n"
    assert first(head + oserror) == "pip-half-upgraded"
    assert first("Installing collected packages: numpy\n" + oserror) == "nothing"  # another package


def test_a_traceback_through_pip_after_pip_removed_itself() -> None:
    frame = '  File "c:\\python27\\lib\\site-packages\\pip\\req\\req_uninstall.py", line 152, in commit'
    removed = "  Found existing installation: pip 7.1.2\n    Uninstalling pip-7.1.2:\n      Successfully uninstalled pip-7.1.2"
    assert first(f"{removed}\nException:\nTraceback (most recent call last):\n{frame}") == "pip-half-upgraded"
    assert first(f"Exception:\nTraceback (most recent call last):\n{frame}") == "nothing"


def test_pips_access_denied_on_pip_exe_wrapped_by_a_terminal() -> None:
    line = (
        "ERROR: Could not install packages due to an OSError: [WinError 5] Access is denied: "
        "'e:\\invokeai\\.venv\\scripts\\pip.exe'"
    )
    assert first(line) == "pip-half-upgraded"
    wrapped = "\n".join(textwrap.wrap(line, 72, break_long_words=False, break_on_hyphens=False))
    assert first(wrapped) == "pip-half-upgraded"


def test_a_pip_script_pinned_to_a_pip_no_longer_installed() -> None:
    # from source (setuptools' pkg_resources: DistributionNotFound and VersionConflict as they print)
    gone = "pkg_resources.DistributionNotFound: The 'pip==20.0.2' distribution was not found and is required by the application"
    conflict = "pkg_resources.VersionConflict: (pip 21.0 (/usr/lib/python3/dist-packages), Requirement.parse('pip==20.3.4'))"
    assert first(gone) == first(conflict) == "pip-half-upgraded"
    other = "pkg_resources.DistributionNotFound: The 'prompt-toolkit<2.0.0,>=1.0.0' distribution was not found and is required by jupyter-console"
    assert first(other) == "nothing"


# ---- memory ---------------------------------------------------------------------------------

# from source (TensorFlow: the hint after an OOM error, TF 2's form)
HINT = (
    "Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom "
    "to RunOptions for current allocation info. This isn't available when running in Eager mode."
)


@pytest.mark.parametrize(
    ("said", "want"),
    [
        ("", "tensor-oom"),
        ("After closing the other Jupyter notebook it works.", "memory-held"),
        ("I had Jupyter opened in another tab; after closing it, no more OOM.", "memory-held"),
        ("When I killed the old python process the error went away.", "memory-held"),
        ("关闭其他进程就好了", "memory-held"),
        ("你运行的时候有运行其他任务吗？", "tensor-oom"),  # asked, not said
    ],
)
def test_tensorflows_oom_hint_and_memory_another_process_held(said: str, want: str) -> None:
    assert first(f"{HINT}\n{said}") == want


# ---- missing libraries: PaddlePaddle's dynamic loader -------------------------------------------


@pytest.mark.parametrize(
    ("line", "want"),
    [
        # from source (paddle/phi/backends/dynload/dynamic_loader.cc)
        (
            "W0804 dynamic_loader.cc:238] Note: [Recommend] copy cudnn into CUDA installation directory.",
            "missing-cudnn",
        ),
        (
            "The third-party dynamic library (cudnn64_8.dll) that Paddle depends on is not configured correctly.",
            "missing-cudnn",
        ),
        (
            "The third-party dynamic library (libcudnn.so) that Paddle depends on is not configured correctly.",
            "missing-cudnn",
        ),
        (
            "The third-party dynamic library (cublas64_11.dll) that Paddle depends on is not configured correctly.",
            "missing-cudart",
        ),
        (  # Paddle tries each name of its list (win_cublas_lib) and names them all
            "PreconditionNotMetError: The third-party dynamic library (cublas64_118.dll;cublas64_11.dll) that Paddle "
            "depends on is not configured correctly. (error code is 126)",
            "missing-cudart",
        ),
    ],
)
def test_paddles_library_lines_on_windows_and_linux(line: str, want: str) -> None:
    assert first(line) == want


# ---- a missing CUDA runtime said harmless beside TensorFlow's hint ---------------------------


def test_a_missing_cudart_on_linux_said_harmless_is_the_hint() -> None:
    text = (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        "'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
        "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU "
        "set up on your machine.\n"
        "This is just a warning, it doesn't affect the training."
    )
    found = match_output(text)
    assert [d.id for d in found] == ["noise-cudart-stub-hint"] and not recognised_in_output(found)


# ---- CPU-only TensorFlow said as the fix; TF 1.x's empty device mapping ------------------------


def test_no_known_devices_and_the_gpu_package_as_the_fix() -> None:
    mapping = "Device mapping: no known devices."  # from source (TF 1.x direct_session, log_device_placement)
    assert first(mapping) == "gpu-list-empty"
    for fix in (
        "The problem was that I had `tensorflow` installed: `tensorflow-gpu` instead of `tensorflow` fixed it.",
        "`pip install tensorflow-gpu` fixed it for me as well.",
        "原来装的是CPU版本",
    ):
        assert first(f"{mapping}\n{fix}") == "cpu-only-wheel", fix
        assert first(fix) == "cpu-only-wheel", fix  # said alone: a fallback, still the cause
    assert first("Should I pip install tensorflow-gpu instead?") == "nothing"


# ---- the CUDA JIT cache said in words (harmless) ---------------------------------------------


def test_the_jit_cache_said_in_words_is_a_slow_first_start() -> None:
    found = match_output("The slow startup is due to the JIT compilation of the CUDA code.")
    assert [(d.id, d.harmful) for d in found] == [("ptx-jit-slow-start", False)]
    assert (
        first("Even after setting CUDA_CACHE_MAXSIZE=2147483648 it takes 3 minutes.") == "ptx-jit-slow-start"
    )
    assert first("export CUDA_CACHE_MAXSIZE=4294967296") == "nothing"  # the wizard's own plan line


# ---- nvidia-smi missing in a container the user ran with GPU access --------------------------

SHELL = "root@048c27656b5c:/# nvidia-smi\nbash: /usr/bin/nvidia-smi: No such file or directory"


def test_nvidia_smi_missing_in_a_container_run_with_gpu_access_is_the_hosts() -> None:
    assert first(SHELL) == "container-no-gpu"
    run = "If I start the container with `docker run --runtime=nvidia --rm -it nvidia/cuda bash` I get"
    assert first(f"{run}\n{SHELL}") == "nvidia-smi-missing"
    assert first(f"$ docker run --gpus all -it nvidia/cuda bash\n{SHELL}") == "nvidia-smi-missing"
    # The same command given as advice is no fact about the user's container.
    advice = "Try `docker run --gpus all -it nvidia/cuda bash` instead."
    assert first(f"{SHELL}\n{advice}") == "container-no-gpu"


def test_jax_and_paddle_name_the_library_they_could_not_use() -> None:
    # from source (JAX's xla_bridge version check; Paddle's gpu_resources/device_context warning)
    assert first("RuntimeError: Unable to load cuBLAS. Is it installed?") == "missing-cudart"
    assert first("RuntimeError: Unable to load cuDNN. Is it installed?") == "missing-cudnn"
    paddle = (
        "W1114 device_context.h:397] WARNING: device: 0. The installed Paddle is compiled with CUDNN 8.1, but CUDNN "
        "version in your machine is 8.0, which may cause serious incompatible bug. Please recompile or reinstall "
        "Paddle with compatible CUDNN version."
    )
    found = match_output(paddle + "\nPaddlePaddle works well on 1 GPU.")
    assert found[0].id == "cudnn-version-mismatch" and not recognised_in_output(found)  # a note alone
    failed = match_output(paddle + "\nOSError: (External) CUDNN error(1), CUDNN_STATUS_NOT_INITIALIZED.")
    assert next(d.id for d in failed if d.harmful) == "cudnn-version-mismatch"


@pytest.mark.parametrize(
    "said",
    [
        "For a while now, I have to manually do `sudo dkms install nvidia/xxx.xx` after a kernel upgrade.",
        "DKMS failed to rebuild the module for the new kernel.",
        "The nvidia module was not rebuilt, so nothing loads.",
        "dkms没有重新编译nvidia模块",
    ],
)
def test_the_module_not_rebuilt_said_in_words(said: str) -> None:
    assert first(said) == "kernel-module-missing"
    assert first("Module not being rebuilt after kernel upgrade?") == "nothing"  # asked


def test_a_new_cue_costs_no_time_on_a_healthy_log() -> None:
    # The cues are looked for on every line until seen: each needs a literal of two characters or
    # more besides blanks (a Chinese word counts; a lone space is on every line), or a healthy
    # 15,000-line log pays a regex per cue per line (the rows round 5 touched).
    from wizard.doctor.catalogue import _cue_list, patterns

    mine = {
        "kernel-module-missing",
        "noise-cudart-stub-hint",
        "memory-held",
        "cpu-only-wheel",
        "container-no-gpu",
    }
    rows = {id(p): p.id for p in patterns()}
    loose = [
        rx.pattern
        for (row, _), anchor, rx in _cue_list()
        if rows[row] in mine and (anchor is None or len(anchor.strip()) < 2)
    ]
    known = {  # older, known (see test_doctor_generalize)
        r"@[0-9a-f]{12}:[~/]",
        r"(pytorch|torch)[^。\n]{0,10}(可以|能够|能)\s*(用|使用|调用|识别|检测到)\s*(GPU|显卡|cuda)",
    }
    assert set(loose) <= known, loose
