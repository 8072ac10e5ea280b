"""Rows written after the released misses of rounds 4-6 and round 6's training texts (issue 21,
r21g): each message as its program prints it (every version's wording), the cause said in words,
and the texts where the row must NOT fire.

Lines marked "from source" are copied from the program that prints them (pip's self-check, TensorFlow
1.x's cpu_feature_guard, XLA's nvptx_compiler, PyTorch's capability check, PaddlePaddle's dynamic
loader, the NVIDIA container runtime hook); the others are the shapes people write them in.
"""

from __future__ import annotations

from wizard.doctor.diagnose import match_output, recognised_in_output


def first(text: str) -> str:
    found = match_output(text)
    return found[0].id if found else "nothing"


def harmless_only(text: str) -> bool:
    found = match_output(text)
    return bool(found) and not recognised_in_output(found)


# ---- old wordings of known harmless messages ----------------------------------------------------


def test_every_pip_version_s_upgrade_notice_is_harmless() -> None:
    # from source: pip up to 9 ("%s, however version %s is available."), later ("; however, version")
    old = "You are using pip version 6.0.8, however version 6.1.1 is available."
    new = "WARNING: You are using pip version 21.1.1; however, version 21.2.4 is available."
    for text in (old, new, "you’re using pip version 22.0.4;however version 22.1 is available."):
        assert harmless_only(text) and first(text) == "noise-pip-notice", text


def test_tensorflow_1_cpu_feature_line_is_harmless_even_cut_in_two() -> None:
    # from source (TensorFlow 1.x cpu_feature_guard.cc)
    line = (
        "W tensorflow/core/platform/cpu_feature_guard.cc:45] The TensorFlow library wasn't compiled to use "
        "SSE4.1 instructions, but these are available on your machine and could speed up CPU computations."
    )
    assert first(line) == "noise-cpu-instructions" and harmless_only(line)
    cut = "tions, but these are available on your machine and could speed up CPU computations."
    assert first(cut) == "noise-cpu-instructions"


# ---- new messages of known families -------------------------------------------------------------


def test_xla_saying_the_driver_is_older_than_ptxas_is_an_old_driver() -> None:
    # from source (XLA nvptx_compiler.cc)
    line = (
        "W external/xla/xla/service/gpu/nvptx_compiler.cc:760] The NVIDIA driver's CUDA version is 12.4 which "
        "is older than the ptxas CUDA version (12.5.40). Because the driver is older than the ptxas version, "
        "XLA is disabling parallel compilation, which may slow down compilation."
    )
    assert first(line) == "driver-too-old"
    # ptxas older than XLA wants is another story (its own row).
    assert first(
        "ptxas CUDA version 11.0 which is older than 11.1. ptxas before 11.1 is known to miscompile"
    ) != ("driver-too-old")


def test_the_container_toolkit_s_cli_missing_is_a_container_without_gpu_access() -> None:
    # from source (nvidia-container-runtime-hook exec)
    assert first('exec: "nvidia-container-cli": executable file not found in $PATH') == "container-no-gpu"
    assert first("`nvidia-container-cli` not found in $PATH") == "container-no-gpu"
    assert first("nvidia-container-cli -V\nversion: 1.14.3") == "nothing"


def test_pytorch_rejecting_an_ampere_or_newer_gpu_is_a_gpu_newer_than_the_build() -> None:
    # from source (torch/cuda/__init__.py capability warning)
    new = (
        "GeForce RTX 3080 with CUDA capability sm_86 is not compatible with the current PyTorch installation."
    )
    old = (
        "GeForce GTX 770 with CUDA capability sm_30 is not compatible with the current PyTorch installation."
    )
    assert first(new) == "gpu-too-new"
    assert first(old) == "unsupported-cc"


def test_paddle_s_windows_cudnn_hint_is_a_missing_cudnn() -> None:
    # from source (PaddlePaddle dynamic_loader.cc, win_warn_meg: passed only for cuDNN)
    assert first("You should do this according to your CUDA installation directory and CUDNN version.") == (
        "missing-cudnn"
    )


def test_a_blackwell_gpu_named_the_chinese_way_makes_no_kernel_image_the_gpu_too_new() -> None:
    err = "CUDA error: no kernel image is available for execution on the device"
    assert first(err + "\n之前用4070能跑，换成5090就不行了") == "gpu-too-new"
    assert first(err + "\n是5090显卡不支持吗？") == "gpu-too-new"
    assert first(err + "\n显卡是 GTX 750") == "unsupported-cc"


# ---- a shared symptom read with the text's context ----------------------------------------------


def test_no_kernel_image_where_the_driver_is_said_to_limit_it_is_ptx_too_new_for_the_driver() -> None:
    err = "RuntimeError: Unknown: no kernel image is available for execution on the device"
    assert first(err + "\nDowngrading to `cuda-11.4.2` works.") == "ptx-too-new-for-driver"
    assert first(err + "\nI think upgrading the driver version would also work.") == "ptx-too-new-for-driver"
    assert first(err) == "unsupported-cc"
    # An old GPU stays an old GPU, whatever the driver.
    assert first(err + "\ncompute capability: 3.0\nDowngrading to cuda 10.0 works.") == "unsupported-cc"


def test_tensorflow_gpu_pinned_past_the_last_windows_build_is_the_package_not_the_python() -> None:
    line = (
        "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.11 (from versions: "
        "2.8.0rc1, 2.8.0, 2.9.0, 2.10.0rc0, 2.10.0, 2.10.1)"
    )
    assert first(line) == "tensorflow-gpu-removed"
    older = (
        "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==1.15.0 (from versions: "
        "2.2.0, 2.3.0, 2.10.0, 2.10.1)"
    )
    assert first(older) == "python-unsupported"


def test_a_pin_not_found_where_the_text_points_at_the_python_version_is_python_unsupported() -> None:
    err = "ERROR: No matching distribution found for tensorflow-gpu==1.1.0"
    assert (
        first(err + "\nPlease make sure to work with the proper Python version as well.")
        == "python-unsupported"
    )
    assert first(err + "\nIs this the proper Python version?") == "tensorflow-gpu-removed"
    assert first(err) == "tensorflow-gpu-removed"


def test_oom_where_another_task_runs_on_the_gpu_is_memory_held() -> None:
    err = "ResourceExhaustedError (see above for traceback): OOM when allocating tensor of shape [563354,256]"
    assert first(err + "\nI guess another task was running on your GPU:0.") == "memory-held"
    assert first(err + "\nMy workmate loaded data into memory but did not start training.") == "memory-held"
    assert first(err) == "tensor-oom"
    assert first(err + "\nNo other process was running on the GPU.") == "tensor-oom"


def test_tensorflow_s_cudart_hint_on_a_machine_said_to_have_no_gpu_is_harmless() -> None:
    lines = (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library "
        "'cudart64_101.dll'; dlerror: cudart64_101.dll not found\n"
        "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a "
        "GPU set up on your machine."
    )
    assert harmless_only(lines + "\nI don't have a GPU.")
    assert harmless_only(lines + "\nThe log lines you see are simply informational.")
    assert first(lines + "\nI have an RTX 3060 and TensorFlow does not use it.") == "missing-cudart"
    assert first(lines + "\nDon't I have a GPU?") == "missing-cudart"


def test_pip_s_own_stash_left_by_its_upgrade_is_a_half_upgraded_pip() -> None:
    # from source (pip: "Ignoring invalid distribution %s (%s)", the '~ip' / '~-p' stash names)
    warn = "WARNING: Ignoring invalid distribution -p (c:\\python310\\lib\\site-packages)"
    assert first("$ python -m pip install --upgrade pip\n" + warn) == "pip-half-upgraded"
    alone = match_output(warn)
    assert alone and alone[0].id == "pip-half-upgraded" and not recognised_in_output(alone)  # a note only
    assert (
        first("WARNING: Ignoring invalid distribution -umpy (c:\\python310\\lib\\site-packages)") == "nothing"
    )


def test_pip_s_launcher_without_its_package_is_a_half_upgraded_pip() -> None:
    tb = (
        '  File "D:\\Python310\\Scripts\\pip.exe\\__main__.py", line 4, in <module>\n'
        "ModuleNotFoundError: No module named 'pip'"
    )
    assert first(tb) == "pip-half-upgraded"
    assert first("ModuleNotFoundError: No module named 'pip'") == "nothing"


def test_a_message_wrapped_under_comment_marks_is_read_across_the_break() -> None:
    text = (
        "+# W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic \n"
        "+# library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object \n"
        "+# file: No such file or directory"
    )
    assert first(text) == "missing-cudart"
    quoted = "> Could not load dynamic\n> library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file"
    assert first(quoted) == "missing-cudnn"


# ---- causes said in words ------------------------------------------------------------------------


def test_a_driver_installed_inside_wsl_said_in_words() -> None:
    err = "CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NO_DEVICE (100)"
    said = "You have an incorrect driver installed in the WSL2 environment."
    assert first(err + "\n" + said) == "linux-driver-in-wsl"
    assert first("I installed the GPU driver, cudatoolkit and cudnn in wsl too. Now I cannot use GPU.") == (
        "linux-driver-in-wsl"
    )
    assert first(err + "\nDo not install any Linux driver in WSL.") == "cuinit-failed"


def test_a_driver_not_loaded_beside_secure_boot_s_unfinished_enrolment_is_secure_boot() -> None:
    err = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    assert first(err + "\nI could not finish the MOK enrollment at the reboot.") == "secure-boot-module"
    bumblebee = "[ERROR]Cannot access secondary GPU - error: Could not load GPU driver"
    assert first(bumblebee + "\nI disabled the SecureBoot and it worked.") == "secure-boot-module"
    assert first(bumblebee) == "no-device"
    assert first("The nvidia modules are rejected with module.sig_enforce=1") == "secure-boot-module"


def test_a_driver_lost_after_an_os_upgrade_or_without_dkms_is_a_missing_kernel_module() -> None:
    said = "run nvidia-smi and got message saying that it cannot communicate to the driver"
    assert first(said + "\nNotice the os version is upgraded to the latest one.") == "kernel-module-missing"
    assert first(said) == "no-device"
    err = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    assert first(err + "\nDid you select to use the dkms modules?") == "kernel-module-missing"
    assert (
        first("a quick `modprobe nvidia` showed that the module does not exist.") == "kernel-module-missing"
    )


def test_tensorflow_gpu_pulling_in_the_cpu_tensorflow_is_a_cpu_build() -> None:
    err = "Device mapping: no known devices."
    said = "`pip install tensorflow-gpu` also installs `tensorflow` as a dependency"
    assert first(err + "\n" + said) == "cpu-only-wheel"
    assert first(err) == "gpu-list-empty"


def test_a_cuda_dll_missing_said_in_words() -> None:
    assert first("please pass me this file cudart64_110.dll its misssing here") == "missing-cudart"
    assert first("cusolver tries to find a version 10 and ignores 11") == "missing-cudart"
    assert first("find which directory these dlls are in, and then update your PATH to include it") == (
        "missing-cudart"
    )
    assert first("cudart64_110.dll is present in the bin folder") == "nothing"


def test_wsl_s_libcuda_copies_and_their_symlink_fix_are_harmless() -> None:
    text = "cd \\Windows\\System32\\lxss\\lib\ndel libcuda.so.1\nmklink libcuda.so.1 libcuda.so.1.1"
    assert harmless_only(text) and first(text) == "noise-wsl-libcuda-symlink"


def test_the_chinese_words_for_the_same_causes() -> None:
    err = "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    assert first(err + "\n我在WSL里又安装了Linux的显卡驱动") == "linux-driver-in-wsl"
    assert first(err + "\n不要在WSL里安装显卡驱动") == "cuinit-failed"
    smi = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    assert first(smi + "\n重启时没有完成注册MOK") == "secure-boot-module"
    assert first("bash: nvidia-container-cli: command not found") == "container-no-gpu"


def test_other_wordings_of_known_driver_and_library_messages() -> None:
    # from source (nvidia-installer, both word orders; X.Org's NVIDIA driver)
    assert first("ERROR: Unable to load the 'nvidia-drm' kernel module.") == "secure-boot-module"
    assert first("ERROR: Unable to load the kernel module 'nvidia.ko'.") == "secure-boot-module"
    assert first(
        "(EE) NVIDIA: Failed to load the NVIDIA kernel module. Please check your system's kernel log"
    ) == ("no-device")
    assert first("cudnn64_8.dll its missing in the bin folder") == "missing-cudnn"


def test_the_words_that_must_not_make_a_cause() -> None:
    kernel = "RuntimeError: no kernel image is available for execution on the device"
    assert first(kernel + "\nI updated the driver but it did not fix it.") == "unsupported-cc"
    assert first(kernel + "\nDowngrading cuda to 10.0 doesn't work either.") == "unsupported-cc"
    oom = "OOM when allocating tensor with shape[256,512,64,64]"
    assert first(oom + "\nSomeone else ran the same script on their laptop without problems.") == "tensor-oom"
    nodev = "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    assert (
        first(nodev + "\nI installed the latest Windows driver, and the CUDA toolkit in WSL.")
        == "cuinit-failed"
    )
    assert first("Nothing missing: cudart64_110.dll and cublas64_11.dll load fine.") == "nothing"
    assert first("Is it missing the cudart library?") == "nothing"
