"""Rules written in stop 55 from the training sides of rounds 68 and 69 (each held-out third was
scored blind first, never read), each on the words the real reports use, and each checked against a
near text where it must not answer."""

from __future__ import annotations

from packaging.version import Version

from tests.doctor_first import english, first, first_cause  # noqa: F401  (english: the autouse fixture)
from tests.dump_corpus import as_run
from wizard.choose.knowledge import load_knowledge
from wizard.doctor.gpu_names import named_gpus, table_cc

_NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def test_a_geforce_gt_card_is_read_by_its_brand_and_its_capability_is_the_tables() -> None:
    kb = load_knowledge()
    # w-okada/voice-changer#362 ("gt 710 2 gb"), #694 ("GT740 2GB GDDR5").
    assert named_gpus("### GPU\n\ngt 710 2 gb\n") == ["GeForce GT 710"]
    assert named_gpus("GT740 2GB GDDR5") == ["GeForce GT 740"]
    assert table_cc("GeForce GT 710", kb) == Version("3.5")
    assert table_cc("GeForce GT 740", kb) == Version("3.0")
    assert table_cc("GeForce GT 1030", kb) == Version("6.1")
    # A mobile part (its M) is another chip: not read as the desktop card.
    assert named_gpus("GeForce GT 750M") == []
    # A shell test's "-gt 650" and a series are no card; a sentence may end after the name.
    assert named_gpus('if [ "$used" -gt 650 ]; then') == []
    assert named_gpus("the GT 600 series") == []
    assert named_gpus("My GPU is a GT 710.") == ["GeForce GT 710"]
    # A GT card by its own row only: GT 650 is no GTX 650.
    assert table_cc("GeForce GT 650", kb) is None
    # The Turing TITAN as people write it.
    assert named_gpus("GPU-Titan RTX.") == ["NVIDIA TITAN RTX"]
    assert table_cc("NVIDIA TITAN RTX", kb) == Version("7.5")


def test_no_kernel_image_on_a_kepler_gt_card_is_a_gpu_too_old_for_the_build() -> None:
    text = "### OS\n\nwindows 10\n\n### GPU\n\ngt 710 2 gb\n\n" + _NO_KERNEL
    d = first(text)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old")
    # A Pascal GT 1030 (6.1) is too old for a new build and too new for an old one: left open.
    d = first(text.replace("gt 710", "GT 1030"))
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-open")


def test_llvms_nvptx_target_not_knowing_the_gpu_is_a_gpu_newer_than_the_package() -> None:
    # lum3on/comfyui_HiDream-Sampler#102: Triton's LLVM on an RTX 5090.
    text = (
        "RTX 5090\n\n"
        "'sm_120' is not a recognized processor for this target (ignoring processor)\n"
        "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.bfly.i32\n"
    )
    d = first(text)
    assert d.id == "gpu-too-new" and d.title == "This GPU is newer than the compiler the package brings"
    assert "Triton" in d.fix
    # An older architecture's name unknown to it, or the line asked about, is not read so.
    assert first_cause(text.replace("sm_120", "sm_90")) != "gpu-too-new"
    asked = "Why does it print 'sm_120' is not a recognized processor for this target?\n"
    assert first_cause(asked) != "gpu-too-new"


def test_module_loading_said_to_fail_because_of_secure_boot_is_the_signature() -> None:
    # NVIDIA/gpu-operator#1726: the module built, then "Module loading fails due to Secure Boot".
    text = "LD [M] nvidia.ko\n-> Kernel module compilation complete.\n\n# Module loading fails due to Secure Boot\n"
    assert first_cause(text) == "secure-boot-module"
    assert first_cause("the driver failed to load because of Secure Boot\n") == "secure-boot-module"
    # Denied, asked, said of another cause, or a condition (a guide pasted): not a cause.
    for near in (
        "Module loading does not fail due to Secure Boot",
        "does the module loading fail due to Secure Boot?",
        "The driver failed to load, not because of Secure Boot but a version mismatch",
        "The driver failed to load, but not due to Secure Boot: Secure Boot is disabled",
        "Module loading fails not due to Secure Boot but because of a missing symbol",
        "If module loading fails due to Secure Boot, enroll the MOK key",
        "The module loading was never blocked by Secure Boot",
        "Module loading never fails due to Secure Boot on this machine",
    ):
        assert first_cause(near + "\n") != "secure-boot-module", near


def test_an_allocation_failing_only_while_another_program_runs_is_memory_that_program_holds() -> None:
    # microsoft/AirSim#1425: cuDNN's handle fails to allocate while the simulator runs.
    failure = (
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:385] could not create cudnn handle: "
        "CUDNN_STATUS_ALLOC_FAILED\n"
    )
    said = "as I said all works when the app is not running\n"
    assert first_cause(said + failure) == "memory-held"
    # Without that sentence, with it asked or denied, or with another point, it does not say who
    # holds the memory.
    assert first_cause(failure) != "memory-held"
    for near in (
        "does it work when the app is not running?",
        "It doesn't work even when the app is not running",
        "nothing works when the app is not running",
        "It is not working when the simulator is not running either",
        "It works when the app is not running in Docker",
    ):
        assert first_cause(near + "\n" + failure) != "memory-held", near


def test_lspci_v_holds_plain_lspcis_device_lines() -> None:
    # A pasted `lspci -v` (charmed-kubernetes/kubernetes-docs#646's device), no plain `lspci`.
    verbose = (
        "00:1e.0 3D controller: NVIDIA Corporation GK210GL [Tesla K80] (rev a1)\n"
        " Subsystem: NVIDIA Corporation GK210GL [Tesla K80]\n"
        " Kernel modules: nvidiafb, nvidia_drm, nvidia\n"
    )
    ran = as_run([{"argv": ["lspci", "-v"], "stdout": verbose, "exit": 0}], {})
    plain = [c for c in ran if c["argv"] == ["lspci"]]
    assert [c["stdout"] for c in plain] == [
        "00:1e.0 3D controller: NVIDIA Corporation GK210GL [Tesla K80] (rev a1)\n"
    ]
    # Cut to one slot (-s) or a device (-d), or -m's records, it is not the whole bus: not read so.
    for cut in (["lspci", "-v", "-s", "00:1e.0"], ["lspci", "-vd", "10de:"], ["lspci", "-vmm"]):
        ran = as_run([{"argv": cut, "stdout": verbose, "exit": 0}], {})
        assert not [c for c in ran if c["argv"] == ["lspci"]], cut
    # Where plain `lspci` was pasted too, it is kept as it is: no second one.
    both = as_run(
        [
            {"argv": ["lspci", "-v"], "stdout": verbose, "exit": 0},
            {"argv": ["lspci"], "stdout": "00:02.0 VGA compatible controller: Intel\n", "exit": 0},
        ],
        {},
    )
    assert [c["stdout"] for c in both if c["argv"] == ["lspci"]] == [
        "00:02.0 VGA compatible controller: Intel\n"
    ]


def test_jaxs_own_words_for_a_cpu_jaxlib_are_told_as_jaxs() -> None:
    # google-deepmind/mujoco_playground#26: an L4 nvidia-smi shows; JAX falls back to the CPU.
    text = (
        "WARNING:2025-01-19 21:22:46,211:jax._src.xla_bridge:987: An NVIDIA GPU may be present on this "
        "machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.\n"
    )
    d = first(text)
    assert d.id == "cpu-only-wheel" and d.title.startswith("This JAX has no CUDA in it")
    # The CUDA plugin failing to start beside it: that failure, not a CPU jaxlib.
    plugin = "CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against 8907.\n"
    assert first(plugin + text).id != "cpu-only-wheel"


def test_paddles_own_words_for_its_cpu_package() -> None:
    # PaddlePaddle/PARL#929.
    text = (
        "E0714 16:34:40.972663 31948 pybind.cc:1277] Cannot use GPU because you have installed CPU "
        "version PaddlePaddle.\nIf you want to use GPU, please try to install GPU version PaddlePaddle "
        "by: pip install paddlepaddle-gpu\n"
    )
    d = first(text)
    assert d.id == "cpu-only-wheel" and "PaddlePaddle is the CPU package" in d.title
    assert "paddlepaddle-gpu" in d.fix


def test_a_program_retelling_ffmpegs_nvenc_check_is_a_driver_too_old() -> None:
    # jvdillon/netv#42: driver 550 under FFmpeg's NVENC API 13.
    text = (
        "NVIDIA driver: 550.163.01\n```NVENC (h264_nvenc): unavailable\nRequired: NVENC API 13.0\n"
        "Found: 12.2\nMinimum required Nvidia driver is 570.0 or newer\n"
    )
    assert first_cause(text) == "driver-too-old"
    # The same words where NVENC works, or a requirement listed: not a failure.
    for near in (
        "NVENC (h264_nvenc): available\nRequired: NVENC API 13.0\nFound: 13.0\n",
        "Requirements:\n- Minimum required Nvidia driver is 570.0 or newer\n- My driver: 575.51.03\n",
    ):
        assert first_cause(near) != "driver-too-old", near


def test_a_build_that_finds_no_cudnn_library_is_told_as_a_build() -> None:
    # mindspore-ai/mindspore#91: ./build.sh -e GPU on a machine whose cuDNN the build did not find.
    text = (
        "CMake Error at mindspore/ccsrc/CMakeLists.txt:40 (message):\n"
        "  Failed to find cudnn library file, please set environment variable\n"
        "  CUDNN_HOME to cudnn installation position.\n"
    )
    d = first(text)
    assert d.id == "missing-cudnn" and d.title == "The build finds no cuDNN library"
    # TensorFlow's Windows self-check ("Could not find cuDNN.") is the runtime DLL, not a build.
    assert first("- Could not find cuDNN.\n").title != "The build finds no cuDNN library"


def test_pip_finding_no_cuda_jaxlib_on_a_mac_is_the_mac() -> None:
    # xai-org/grok-1#113: jax[cuda12-pip] on an M1 Mac.
    text = (
        "On M1 Mac:\nERROR: Could not find a version that satisfies the requirement "
        'jaxlib==0.4.25+cuda12.cudnn89; extra == "cuda12_pip" (from jax[cuda12-pip]) (from versions: '
        "0.4.3, 0.4.4)\nERROR: No matching distribution found for jaxlib==0.4.25+cuda12.cudnn89\n"
    )
    assert first_cause(text) == "macos"
    # The same on Linux, or said not to be a Mac, is not the Mac.
    assert first_cause(text.replace("On M1 Mac:", "On Ubuntu 22.04:")) != "macos"
    assert first_cause(text.replace("On M1 Mac:", "Not on a Mac, this is Ubuntu:")) != "macos"


def test_one_pytorch_request_larger_than_the_whole_gpu_is_work_larger_than_the_gpu() -> None:
    # Anjok07/ultimatevocalremovergui#835: 24.58 GiB asked of an 8 GiB GPU.
    text = (
        'OutOfMemoryError: "CUDA out of memory. Tried to allocate 24.58 GiB (GPU 0; 8.00 GiB total '
        "capacity; 3.50 GiB already allocated; 2.53 GiB free; 3.53 GiB reserved in total by PyTorch)\n"
    )
    d = first(text)
    assert d.id == "tensor-oom" and d.title == "The work needs more memory than this GPU has"
    # The newer message's words for the same.
    newer = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.00 GiB. GPU 0 has a total "
        "capacity of 23.99 GiB of which 20.10 GiB is free.\n"
    )
    assert first(newer).title == "The work needs more memory than this GPU has"
    # A request smaller than the GPU: the work's tensors, not a GPU too small for any setting.
    smaller = text.replace("24.58 GiB (GPU 0", "2.58 GiB (GPU 0")
    assert first(smaller).title != "The work needs more memory than this GPU has"


def test_paddles_config_check_and_jittors_header_search_in_their_own_words() -> None:
    # PaddlePaddle/PaddleDetection#1091; Jittor/jittor#12.
    paddle = (
        "2020-07-23 09:22:17,124-ERROR: Config use_gpu cannot be set as true while you are using "
        "paddlepaddle cpu version !\n"
    )
    assert "PaddlePaddle is the CPU package" in first(paddle).title
    jittor = (
        "RuntimeError: [f 0321 11:27:39.879776 56 compile_extern.py:16] file cudnn.h not found in "
        "['/usr/local/cuda/include', '/usr/include']\n"
    )
    assert first(jittor).title == "The build finds no cuDNN header (cudnn.h)"
    # Another header missing: not cuDNN's.
    assert first_cause(jittor.replace("cudnn.h", "cublas_v2.h")) != "missing-cudnn"
