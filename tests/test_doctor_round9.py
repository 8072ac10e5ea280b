"""Round 9's training texts and released held-out misses (issue 21, r21j): the program messages
behind them, the neighbouring causes each must stay apart from, and the ranking rule that puts a
root message before its consequence (`after = [ids]` in assets/doctor/patterns.toml).

Lines marked "from source" are the programs' own strings (TensorFlow's cudart_stub and cuda_dnn,
numba's driver init, cuDNN 8's sub-library loader, CTranslate2's loader, PyTorch's Windows DLL
loader, nvidia-installer, dkms, dpkg, apport, darknet, Blender Cycles, ptxas).
"""

from __future__ import annotations

from wizard.doctor.catalogue import patterns
from wizard.doctor.diagnose import match_output, recognised_in_output


def first(text: str) -> str:
    found = match_output(text)
    return found[0].id if found else "nothing"


def ids(text: str) -> list[str]:
    return [d.id for d in match_output(text)]


# ---- the ranking rule: a root message before its consequence ------------------------------------


def test_every_root_a_row_names_is_an_id_of_the_catalogue() -> None:
    known = {p.id for p in patterns()}
    for p in patterns():
        assert set(p.after) <= known - {p.id}, (p.id, p.after)
    # No cycle: a root is never a consequence of its own consequence (the order would be undefined).
    roots: dict[str, set[str]] = {p.id: set() for p in patterns()}
    for p in patterns():
        roots[p.id] |= set(p.after)

    def above(diag_id: str, path: tuple[str, ...] = ()) -> None:
        assert diag_id not in path, (*path, diag_id)
        for root in roots[diag_id]:
            above(root, (*path, diag_id))

    for diag_id in roots:
        above(diag_id)


def test_a_consequence_comes_after_its_root_whichever_line_comes_first() -> None:
    # from source: TensorFlow's conv op says the root was printed above ("see if a warning log
    # message was printed above"); a pasted traceback often puts the handle's line after it.
    conv = (
        "Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try "
        "looking to see if a warning log message was printed above."
    )
    handle = "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
    assert ids(f"{conv}\n{handle}")[:2] == ["gpu-lib-init-failed", "conv-algo-failed"]
    assert ids(f"{handle}\n{conv}")[:2] == ["gpu-lib-init-failed", "conv-algo-failed"]
    assert first(conv) == "conv-algo-failed"  # alone it is still said


def test_a_root_that_is_a_symptom_row_still_comes_first_and_a_real_cause_before_both() -> None:
    conv = "Failed to get convolution algorithm. This is probably because cuDNN failed to initialize"
    handle = "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
    oom = "E tensorflow/core/common_runtime/bfc_allocator.cc] ran out of memory trying to allocate 2.0GiB"
    assert ids(f"{conv}\n{handle}\n{oom}")[:3] == ["tensor-oom", "gpu-lib-init-failed", "conv-algo-failed"]


# ---- cuinit-failed vs missing-cudart: no driver reachable is the root ----------------------------


TF_NO_DRIVER = """\
W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory
I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.
W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory
W tensorflow/stream_executor/cuda/cuda_driver.cc:326] failed call to cuInit: UNKNOWN ERROR (303)"""


def test_cuinit_failing_beside_a_missing_cuda_runtime_is_said_first() -> None:
    found = match_output(TF_NO_DRIVER)
    assert [d.id for d in found][:2] == ["cuinit-failed", "missing-cudart"]
    assert found[0].harmful  # both are said: the runtime's fix follows the driver's


def test_a_missing_cuda_runtime_without_a_cuinit_failure_stays_missing_cudart() -> None:
    line = TF_NO_DRIVER.splitlines()[0]
    assert first(line) == "missing-cudart"
    assert (
        first(
            f"{line}\nI tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library libcuda.so.1"
        )
        == "missing-cudart"
    )


def test_the_runtimes_no_device_is_cuinits_no_device() -> None:
    # cudaErrorNoDevice (100) is the runtime's word for cuInit's CUDA_ERROR_NO_DEVICE
    for msg in (
        "RuntimeError: CUDA Runtime Error: no CUDA-capable device is detected",
        "ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected",
        "RuntimeError: CUDA failed with error no CUDA-capable device is detected",
    ):
        assert first(msg) == "cuinit-failed", msg
    # the GPUs hidden by CUDA_VISIBLE_DEVICES: the generic symptom, not a guess at the machine
    hidden = "CUDA_VISIBLE_DEVICES=$0 ./tools/demo.py\nno CUDA-capable device is detected"
    assert first(hidden) == "no-device"


def test_numbas_driver_init_is_cuinit() -> None:
    # from source: numba.cuda.cudadrv.driver ("Error at driver init: Call to cuInit results in ...")
    assert (
        first(
            "CudaSupportError: Error at driver init: \n[3] Call to cuInit results in CUDA_ERROR_NOT_INITIALIZED:"
        )
        == "cuinit-failed"
    )
    msg = "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in UNKNOWN_CUDA_ERROR"
    assert first(msg) == "cuinit-failed"


# ---- harmless lines never make a harmful cause: cudart_stub's INFO line ---------------------------


SPACE_LOG = (
    "2024-07-02 15:36:18.432973: I external/local_tsl/tsl/cuda/cudart_stub.cc:32] Could not find cuda drivers "
    "on your machine, GPU will not be used. 2024-07-02 15:36:18.441228: E external/local_xla/xla/stream_executor/"
    "cuda/cuda_fft.cc:479] Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when "
    "one has already been registered"
)
STUB = "I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used."


def test_cudart_stub_and_plugin_factories_on_a_cpu_host_are_harmless() -> None:
    for text in (
        SPACE_LOG,
        STUB,
        f"{STUB}\nI tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU instructions",
    ):
        found = match_output(text)
        assert found and not recognised_in_output(found), [d.id for d in found]
        assert "cpu-only-wheel" not in [d.id for d in found]


def test_cudart_stub_where_gpus_were_asked_for_is_a_tensorflow_without_its_cuda_libraries() -> None:
    for asked in (
        ">>> tf.config.list_physical_devices('GPU')",
        "W tensorflow/core/common_runtime/gpu/gpu_device.cc:2251] Cannot dlopen some GPU libraries.",
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |",
        "I installed tensorflow[and-cuda] on my RTX 3060 laptop",
    ):
        assert first(f"{asked}\n{STUB}") == "cpu-only-wheel", asked
        assert first(f"{STUB}\n{asked}") == "cpu-only-wheel", asked  # the cue may come after


def test_the_plugin_factory_noise_stays_harmless_beside_a_gpu_question() -> None:
    text = ">>> tf.config.list_physical_devices('GPU')\nE cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered"
    assert "noise-plugin-factory" in ids(text)
    assert not any(d.harmful for d in match_output(text) if d.id == "noise-plugin-factory")


# ---- cuda-libs-mixed vs missing-cudnn: what cuDNN's loader names decides --------------------------


def test_cudnns_loader_naming_an_undefined_symbol_is_a_mix_not_a_missing_cudnn() -> None:
    # from source: cuDNN 8 "Could not load library %s. Error: %s" with dlerror's message
    one_line = "Could not load library libcudnn_cnn_infer.so.8. Error: /usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.8: undefined symbol: _ZN5cudnn3cnn5infer22queryClusterPropertiesERPhS3_, version libcudnn_cnn_infer.so.8"
    assert first(one_line) == "cuda-libs-mixed"
    wrapped = "Could not load library libcudnn_cnn_infer.so.8. \n   Error: /opt/x/lib/libnvrtc.so: \n      undefined symbol: nvrtcGetCUBIN\nAborted (core dumped)"
    assert ids(wrapped)[:2] == ["cuda-libs-mixed", "missing-cudnn"]


def test_cudnns_loader_naming_another_missing_cuda_library_is_that_library() -> None:
    wrapped = "Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so:\ncannot open shared object file: No such file or directory"
    assert first(wrapped) == "missing-cudart"
    assert first("Could not load library libcudnn_cnn_infer.so.8.") == "missing-cudnn"  # alone


def test_a_symbol_looked_up_in_a_library_that_did_not_load_is_a_missing_library() -> None:
    # from source: CTranslate2's loader ("Unable to load any of {...}", "Invalid handle. Cannot load symbol")
    text = "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}\nInvalid handle. Cannot load symbol cudnnCreateTensorDescriptor"
    assert first(text) == "missing-cudnn"
    assert "cuda-libs-mixed" not in ids(text)
    assert (
        first("Cannot load symbol cudnnCreateTensorDescriptor") == "cuda-libs-mixed"
    )  # a loaded library without it


def test_dnn_library_not_found_follows_the_loader_message_that_explains_it() -> None:
    text = (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcudnn.so.8'\n"
        "UnimplementedError: DNN library is not found."
    )
    assert ids(text)[:2] == ["missing-cudnn", "dnn-library-not-found"]
    assert first("UnimplementedError: DNN library is not found.") == "dnn-library-not-found"


def test_pytorchs_windows_dll_error_wrapped_keeps_its_error_code_apart() -> None:
    # from source: torch/__init__.py 'Error loading "{dll}" or one of its dependencies.'
    tail = 'Error\nloading\n"D:\\x\\venv\\lib\\site-packages\\torch\\lib\\cudnn64_9.dll" or\none of its dependencies.'
    assert (
        first(f"OSError: [WinError 126] The specified module could not be found. {tail}") == "missing-cudnn"
    )
    assert first(f"OSError: [WinError 126] 找不到指定的模块。 {tail}") == "missing-cudnn"
    assert first(f"OSError: [WinError 127] 找不到指定的程序。 {tail}") == "cudnn-version-mismatch"


# ---- memory-held vs tensor-oom ---------------------------------------------------------------


def test_pytorchs_allocator_message_alone_says_whose_memory_by_its_figures() -> None:
    # 10.76 GiB GPU, 1010 MiB reserved by PyTorch, 8.81 MiB free: 9.8 GiB is held outside PyTorch
    # (tests/test_doctor_figures.py has the arithmetic); the allocator did not fail on its own work.
    msg = "RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 10.76 GiB total capacity; 996.23 MiB already allocated; 8.81 MiB free; 1010.00 MiB reserved in total by PyTorch)"
    assert first(msg) == "memory-held"
    busy = "|   0  Tesla V100-SXM2...  On   | 00000000:00:08.0 Off |                    0 |\n| N/A   45C    P0   250W / 300W |  15514MiB / 16130MiB |    100%      Default |"
    assert first(f"RuntimeError: CUDA error: out of memory\n{busy}") == "memory-held"


def test_darknets_out_of_memory_is_its_own_buffers_and_needs_darknet() -> None:
    # from source: darknet's src/cuda.c check_error ("CUDA Error: %s", then assert(0)). The bare line
    # is also what a GPU whose memory another process holds prints (round 43, pjreddie/darknet#304:
    # a reboot fixed it): its own buffers are named where the text shows the work's size or the
    # GPU's memory free beside it (stop 46).
    text = "   29 CUDA Error: out of memory\ndarknet: ./src/cuda.c:36: check_error: Assertion `0' failed."
    assert first(text) == "not-sure"
    assert first(text + "\nbatch=64 subdivisions=8") == "tensor-oom"
    assert first("RuntimeError: CUDA error: out of memory") == "not-sure"  # a CUDA call, no cause named


# ---- DKMS build failures are a missing kernel module --------------------------------------------


def test_the_modules_build_failing_is_no_module_for_this_kernel() -> None:
    for msg in (
        "ERROR: Failed to run `/usr/sbin/dkms build -m nvidia -v 460.107 -k 5.11.22-7-pve`:",
        "- ERROR: Failed to run `/usr/sbin/dkms build -m nvidia -v 340.108 -k 6.0.0-5-amd64`: Sign command: /usr/lib/linux-kbuild-6.0/scripts/sign-file",
        "ERROR: Unable to build the NVIDIA kernel module.",
        "dpkg: error processing package nvidia-dkms-535 (--configure):",
        "ERROR: Cannot create report: [Errno 17] File exists: '/var/crash/nvidia-kernel-source-390.0.crash'",
        "Consult /var/lib/dkms/nvidia/535.54.03/build/make.log for more information.",
    ):
        assert first(msg) == "kernel-module-missing", msg


def test_dkms_signing_lines_and_other_modules_are_not_the_nvidia_module() -> None:
    signing = "Sign command: /usr/lib/linux-kbuild-6.0/scripts/sign-file\nSigning key: /var/lib/dkms/mok.key\nPublic certificate (MOK): /var/lib/dkms/mok.pub"
    assert not recognised_in_output(match_output(signing))
    assert (
        first("Consult /var/lib/dkms/virtualbox/6.1.38/build/make.log for more information.")
        != "kernel-module-missing"
    )
    assert first("dpkg: error processing package virtualbox-dkms (--configure):") != "kernel-module-missing"


def test_installing_without_signing_under_secure_boot_is_secure_boot_not_a_missing_module() -> None:
    line = (
        "This system also has UEFI Secure Boot enabled; many distributions enforce module signature verification "
        "on UEFI systems when Secure Boot is enabled. Would you like to sign the NVIDIA kernel module? "
        "(Answer: Install without signing) Kernel module load error: Operation not permitted"
    )
    found = match_output(line)
    assert found[0].id == "secure-boot-module" and found[0].harmful
    assert first("UEFI Secure Boot enabled") == "secure-boot-module"
    assert not match_output("UEFI Secure Boot enabled")[0].harmful  # alone: a note


# ---- other messages of round 9 ----------------------------------------------------------------


def test_blender_cycles_illegal_address_and_arm64_numa() -> None:
    assert first("CUDA error: Illegal address in cuCtxSynchronize(), line 1809") == "cuda-illegal-address"
    numa = "I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:948] ARM64 does not support NUMA - returning NUMA node zero"
    found = match_output(numa)
    assert found[0].id == "noise-numa" and not found[0].harmful


def test_ptxas_gpu_name_wrapped_inside_its_number() -> None:
    text = "Internal Triton PTX codegen error: ptxas fatal : Value 'sm_1\n20' is not defined for option 'gpu-name'"
    assert first(text) == "ptxas-too-old"
    assert first("ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'") == "ptxas-too-old"


# ---- more roots: why "no kernel image", and a module build inside WSL2 ------------------------


def test_no_kernel_image_follows_ptxas_unable_to_compile_for_the_gpu() -> None:
    image = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    ptxas = "ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'"
    assert ids(f"{image}\n{ptxas}")[:2] == ["ptxas-too-old", "unsupported-cc"]
    assert ids(f"{ptxas}\n{image}")[:2] == ["ptxas-too-old", "unsupported-cc"]
    assert first(image) == "unsupported-cc"  # alone: the catalogue's answer, both ways said


def test_a_nvidia_module_build_failing_inside_wsl2_is_a_linux_driver_in_wsl() -> None:
    build = "ERROR: Unable to build the NVIDIA kernel module."
    assert first(f"{build}\n$ uname -r\n5.15.153.1-microsoft-standard-WSL2") == "linux-driver-in-wsl"
    assert first(f"{build}\n$ uname -r\n6.8.0-64-generic") == "kernel-module-missing"
    uvm = "Could not load UVM kernel module\nFailed to initialize NVML: GPU access blocked by the operating system\n$ sudo apt install nvidia-driver-535"
    assert first(uvm) == "linux-driver-in-wsl"


def test_dpkg_failing_on_the_nvidia_dkms_package_in_a_chinese_session() -> None:
    zh = "dpkg: 处理软件包 nvidia-dkms-535 (--configure)时出错："
    assert first(zh) == "kernel-module-missing"
    assert first(f"{zh}\n$ uname -r\n5.15.153.1-microsoft-standard-WSL2") == "linux-driver-in-wsl"


def test_a_consequence_moved_after_its_root_keeps_this_machines_findings_after_the_log() -> None:
    # Issue 21's output rule: a log's own findings first, this machine's after them, labelled.
    from wizard.doctor.diagnose import diagnose
    from wizard.profile import MachineProfile

    found = diagnose(MachineProfile(), TF_NO_DRIVER)
    origins = [d.origin for d in found]
    assert [d.id for d in found][:2] == ["cuinit-failed", "missing-cudart"]
    assert origins == sorted(origins, key=lambda o: o != "output")  # every output finding first


def test_a_missing_cuda_runtime_comes_after_a_broken_driver_in_the_same_log() -> None:
    cudart = "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file"
    for driver, root in (
        (
            "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.5.0-14-generic",
            "kernel-module-missing",
        ),
        ("Failed to initialize NVML: Driver/library version mismatch", "driver-library-mismatch"),
        ("modprobe: ERROR: could not insert 'nvidia': Key was rejected by service", "secure-boot-module"),
    ):
        assert ids(f"{cudart}\n{driver}")[:2] == [root, "missing-cudart"], driver
