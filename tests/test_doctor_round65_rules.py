"""Rules written in stop 54 from the training sides of rounds 63-67 (each round's held-out third was
scored blind first, never read), each on the words the real reports use, and each checked against
a near text where it must not answer."""

from __future__ import annotations

from tests.doctor_first import english, first, first_cause  # noqa: F401  (english: the autouse fixture)
from wizard.doctor.diagnose import match_output


def test_a_library_not_found_without_the_colon_is_still_not_found() -> None:
    # tensorflow/tensorflow#12416: "ImportError: libcudnn.so.6 cannot open shared object file: ..."
    text = "ImportError: libcudnn.so.6 cannot open shared object file: No such file or directory\n"
    assert first_cause(text) == "missing-cudnn"
    assert first_cause(text.replace("libcudnn.so.6", "libcudart.so.9.0")) == "missing-cudart"


def test_a_machine_said_to_have_only_a_cpu_in_chinese_has_no_nvidia_gpu() -> None:
    # MegEngine/MegEngine#392: "想在只有CPU的计算机上运行MegEngine" and its loader's words for libcuda.
    text = (
        "想在只有CPU的计算机上运行MegEngine，有没有不build from source的方法呢？\n"
        "err: Failed to load cuda API library\n"
        "err: failed to load cuda func: cuCtxGetCurrent\n"
    )
    d = first(text)
    assert (d.id, d.verdict) == ("no-nvidia-gpu", "no-nvidia-gpu-said")
    # The same loader failure where the machine is not said to be CPU-only: no driver found, not "no GPU".
    alone = "err: Failed to load cuda API library\nerr: failed to load cuda func: cuCtxGetCurrent\n"
    assert first(alone).id == "no-device"


def test_ggmls_arch_assert_is_no_code_for_this_gpu_with_the_direction_open() -> None:
    # ollama/ollama#12622: no GPU named, so too old or too new is left open (cover-open).
    text = (
        "//ml/backend/ggml/ggml/src/ggml-cuda/ggml-cuda.cu:329: GGML_ASSERT(ggml_cuda_has_arch("
        'info.devices[id].cc) && "ggml was not compiled with support for this arch") failed\n'
    )
    d = first(text)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-open")


def test_a_container_started_without_the_gpu_whatever_its_image_is_called() -> None:
    # stevezau/media_preview_generator#124: the image's own --list-gpus option, no --gpus.
    listed = (
        "docker run --rm stevezzau/plex_generate_vid_previews:latest --list-gpus\n"
        "2025/12/23 15:39:05 | ⚠  -   ⚠  card1: NVIDIA CUDA test failed\n"
        "2025/12/23 15:39:05 | ℹ  - ❌ No GPUs detected\n"
    )
    assert first_cause(listed) == "container-no-gpu"
    # triton-inference-server/server#7574: the program inside looks for NVML's library, which the
    # toolkit mounts only into a container given the GPU.
    nvml = (
        "docker run -it --rm tritonserver:24.07-trtllm-python-py3 /bin/bash\n"
        ">>> import tensorrt_llm\n"
        "OSError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n"
    )
    assert first_cause(nvml) == "container-no-gpu"
    # Given the GPU (--gpus all), the library missing is something else: not this answer.
    assert first_cause(nvml.replace("docker run -it", "docker run --gpus all -it")) != "container-no-gpu"
    # A container run in the background elsewhere in the text is not where the failure came from.
    host = (
        "I also use docker run -d postgres here.\n>>> import pynvml\n"
        "OSError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n"
    )
    assert first_cause(host) != "container-no-gpu"


def test_a_linux_drivers_libraries_inside_wsl_whatever_failed_after() -> None:
    # NVIDIA/nvidia-container-toolkit#289: nvc selecting a Linux driver's versioned library in WSL.
    text = (
        "I1004 13:41:19.478495 13740 dxcore.c:326] dxcore layer initialized successfully\n"
        "W1004 13:41:19.478894 13740 nvc.c:397] skipping kernel modules load on WSL\n"
        "I1004 13:41:19.551091 13740 nvc_info.c:197] selecting "
        "/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.460.91.03\n"
        "I1004 13:41:19.552122 13740 nvc_info.c:197] selecting /usr/lib/wsl/lib/libnvidia-opticalflow.so.1\n"
    )
    assert first_cause(text) == "linux-driver-in-wsl"
    # On a Linux machine (no WSL in the text) the same file is the driver's own: nothing to say.
    native = "I1004 13:41:19.551091 13740 nvc_info.c:197] selecting /usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.460.91.03\n"
    assert all(d.id != "linux-driver-in-wsl" for d in match_output(native))


def test_tunes_own_warning_that_no_trial_uses_the_gpus() -> None:
    # ray-project/ray_lightning#77.
    text = (
        "2021-08-17 12:26:32,703\tWARNING tune.py:495 -- Tune detects GPUs, but no trials are using GPUs. "
        "To enable trials to use GPUs, set tune.run(resources_per_trial={'gpu': 1}...)\n"
    )
    d = first(text)
    assert d.id == "scheduler-no-gpu" and d.title == "Ray gave this trial no GPU"
    assert "resources_per_trial" in d.fix and "status line" not in d.why  # Tune's own words


def test_an_apptainer_container_without_nv_and_its_own_fix() -> None:
    # google-deepmind/alphafold#873: `singularity exec` without --nv, then no libcuda inside.
    text = (
        "singularity exec ~/alphafold.simg python /app/alphafold/run_alphafold.py \\\n"
        "--use_gpu_relax=true\n"
        "2023-12-14 11:14:53.480552: W external/org_tensorflow/tensorflow/tsl/platform/default/"
        "dso_loader.cc:66] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot "
        "open shared object file: No such file or directory; LD_LIBRARY_PATH:\n"
        "2023-12-14 11:14:53.480642: W external/org_tensorflow/tensorflow/compiler/xla/stream_executor/"
        "cuda/cuda_driver.cc:265] failed call to cuInit: UNKNOWN ERROR (303)\n"
    )
    d = first(text)
    assert (d.id, d.verdict) == ("container-no-gpu", "container-no-gpu-apptainer")
    assert "--gpus" not in d.fix  # Apptainer's option, not Docker's
    # The person's own command, whole, with --nv where it goes.
    own = "singularity exec --nv ~/alphafold.simg python /app/alphafold/run_alphafold.py --use_gpu_relax=true"
    assert own in d.fix
    # Apptainer's other spelling, and its global options before exec, are read the same.
    other = first(text.replace("singularity exec", "apptainer -s exec"))
    assert (
        other.verdict == "container-no-gpu-apptainer"
        and "apptainer -s exec --nv ~/alphafold.simg" in other.fix
    )
    # With --nv the driver was given: not this answer, nor with --nv said as Apptainer's variable.
    given = text.replace("singularity exec", "singularity exec --nv")
    assert all(x.verdict != "container-no-gpu-apptainer" for x in match_output(given))
    by_env = "export APPTAINER_NV=1\n" + text
    assert all(x.verdict != "container-no-gpu-apptainer" for x in match_output(by_env))


def test_xlas_own_words_for_a_driver_too_old_for_what_ptxas_made() -> None:
    # jax-ml/jax#11699: XLA's cuda_asm_compiler.cc names the stale driver itself.
    text = (
        "2022-08-01 17:28:07.861579: E external/org_tensorflow/tensorflow/stream_executor/cuda/"
        "cuda_asm_compiler.cc:57] cuLinkAddData fails. This is usually caused by stale driver version.\n"
        "2022-08-01 17:28:07.861611: E external/org_tensorflow/tensorflow/compiler/xla/service/gpu/"
        "gpu_compiler.cc:1325] The CUDA linking API did not work. Please use "
        "XLA_FLAGS=--xla_gpu_force_compilation_parallelism=1 to bypass it\n"
    )
    assert first_cause(text) == "ptx-too-new-for-driver"
    # The workaround line alone names no cause.
    assert first_cause(text.splitlines()[1] + "\n") != "ptx-too-new-for-driver"


def test_tensorflows_build_and_its_ptxas_both_older_than_the_gpu_is_the_gpu_too_new() -> None:
    # simpler-env/SimplerEnv#131: an RTX 50 under TensorFlow.
    text = (
        "TensorFlow was not built with CUDA kernel binaries compatible with compute capability 12.0.\n"
        "CUDA kernels will be jit-compiled from PTX\n"
        "Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 12.0\n"
    )
    assert first_cause(text) == "gpu-too-new"
    # The warning alone is harmless (a first run that compiles PTX), the ptxas line alone is ptxas's.
    assert first_cause(text.splitlines()[0] + "\n") == ""
    assert first_cause(text.splitlines()[2] + "\n") == "ptxas-too-old"


def test_a_cuda_library_said_not_loadable_in_words() -> None:
    # tensorflow/tensorflow#39132.
    text = 'TensorFlow doesn\'t use my GPU because there is a bug while trying to load "libcudart.so.10.1".\n'
    assert first_cause(text) == "missing-cudart"
    assert first_cause("I tried to load libcudart.so.10.1 with ctypes and it worked.\n") != "missing-cudart"


def test_cupys_nvrtc_options_name_the_gpus_architecture() -> None:
    # cupy/cupy#1651 (a GT 730, Fermi): CUDA 9.1's NVRTC has no compute_21, the GPU is below its floor.
    text = (
        "Cuda compilation tools, release 9.1, V9.1.85\n"
        "NVRTC compilation error: nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
        "Options: -I/home/u/miniconda3/lib/python3.6/site-packages/cupy/core/include -ftz=true -arch=compute_21\n"
    )
    d = first(text)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old")
    # Without the options line nothing names the GPU: the direction stays open.
    unnamed = match_output(text.splitlines()[0] + "\n" + text.splitlines()[1] + "\n")
    assert all(x.verdict != "cover-too-old" for x in unnamed)


def test_cuda_failing_after_a_suspend_mended_by_reloading_nvidia_uvm() -> None:
    # pop-os/default-settings#64, ollama/ollama#5464.
    text = (
        "CUDA fails to initialize after resuming from suspend with `UNKNOWN_ERROR(99)` until we reload "
        "the `nvidia_uvm` module.\n"
    )
    d = first(text)
    assert (d.id, d.verdict) == ("cuinit-failed", "cuda-after-suspend")
    # A suspend said without CUDA failing, a reload said not to help, or the nvidia-suspend service's
    # name beside an unrelated CUDA error: not this.
    for other in (
        "I reload the nvidia_uvm module after suspend.\n",
        "After suspend CUDA fails. Reloading nvidia_uvm did not help, only a reboot does.\n",
        "Starting nvidia-suspend.service\nsudo modprobe -r nvidia_uvm\nCUDA error: out of memory\n",
    ):
        assert all(x.verdict != "cuda-after-suspend" for x in match_output(other)), other


def test_caffes_cublas_check_by_number() -> None:
    # BVLC/caffe#5564 (a 1080 Ti, CUDA 8): status 1 is CUBLAS_STATUS_NOT_INITIALIZED.
    text = "Check failed: status == CUBLAS_STATUS_SUCCESS (1 vs. 0)  CUBLAS_STATUS_NOT_INITIALIZED\n"
    assert first_cause(text) == "gpu-lib-init-failed"
    assert first_cause("Check failed: status == CUBLAS_STATUS_SUCCESS (1 vs. 0)\n") == "gpu-lib-init-failed"


def test_out_of_memory_where_a_smaller_batch_runs_and_nothing_else_holds_the_gpu() -> None:
    # fubinfb/NTF#5 (a single RTX 4090).
    text = (
        "当我使用默认的32，会提示cuda out of memory\n"
        "您好，我使用的是单个4090，本服务器，所有参数都是默认的，并没有其他显存占用。"
        "当我把batchsize调整为30时可以正常运行，设置为32就会显示CUDA out of memory\n"
    )
    assert first_cause(text) == "tensor-oom"
    # Either fact alone leaves it open: memory held elsewhere also makes room for a smaller batch.
    alone = text.replace("并没有其他显存占用。", "")
    assert first_cause(alone) != "tensor-oom"
    # A smaller batch said not to run, or asked about, is not that fact.
    for other in (
        "batchsize改为2时也不能正常运行，并没有其他显存占用。\nCUDA out of memory\n",
        "batchsize改为2时可以运行吗？并没有其他显存占用。\nCUDA out of memory\n",
        "A smaller batch size still doesn't run. No other process uses the GPU.\nCUDA out of memory\n",
        "Would a smaller batch size work? No other process uses the GPU.\nCUDA out of memory\n",
    ):
        assert first_cause(other) != "tensor-oom", other
    said = "I reduced the batch size to 8 and it works. No other process uses the GPU.\nCUDA out of memory\n"
    assert first_cause(said) == "tensor-oom"


def test_a_program_saying_its_work_needs_more_than_the_gpu_has() -> None:
    # trexminer/T-Rex#906 (a 4 GB GTX 1050 Ti): the GPU is too small, told in its own words (no batch).
    d = first("Epoch 330 requires 4.08GB but device has 4.00GB\n")
    assert d.id == "tensor-oom" and d.title == "The work needs more memory than this GPU has"
    assert "batch" not in d.fix


def test_a_builds_refusal_naming_the_gpus_architecture_decides_the_direction() -> None:
    # fireice-uk/xmr-stak#258 (a GT 705, compute capability 2.1), JuliaGPU/CUDAnative.jl (a Quadro FX
    # 770M, 1.1): below every CUDA 9+ build's floor, the GPU is too old.
    for line in (
        "WARNING: NVIDIA GPU 0: miner not compiled for the gpu architecture 21.",
        "ERROR: Device capability v1.1.0 not supported by available toolchain",
    ):
        d = first(line + "\n")
        assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old"), line
    # A capability above every toolchain the text could hold: the toolchain is the older side.
    newer = first("ERROR: Device capability v12.0.0 not supported by available toolchain\n")
    assert newer.verdict != "cover-too-old"


def test_a_library_file_that_is_not_a_whole_library() -> None:
    # microsoft/CNTK#2213.
    d = first("ImportError: /usr/local/cuda/lib64/libcudnn.so.6: file too short\n")
    assert d.id == "missing-cudnn" and "damaged" in d.title and "Remove the file" in d.fix
    assert first_cause("OSError: /usr/lib/libcublas.so.11: invalid ELF header\n") == "missing-cudart"
    # Another library's damage is not cuDNN's or CUDA's.
    assert first_cause("ImportError: /usr/lib/libfoo.so.1: file too short\n") == ""


def test_a_build_that_finds_no_cudnn_header() -> None:
    # chineseocr/darknet-ocr#70.
    text = "include/darknet.h:16:14: fatal error: cudnn.h: 没有那个文件或目录\n"
    d = first(text)
    assert d.id == "missing-cudnn" and "cudnn.h" in d.title and "development files" in d.fix
    assert first_cause(text.replace("没有那个文件或目录", "No such file or directory")) == "missing-cudnn"


def test_nvidia_smi_not_found_on_a_machine_said_to_have_no_nvidia_card() -> None:
    # CordatusAI/ollama-benchmark#2.
    text = (
        "I get this error but I do not have an nvidia card\n\n"
        "FileNotFoundError: [Errno 2] No such file or directory: 'nvidia-smi'\n"
    )
    d = first(text)
    assert (d.id, d.verdict) == ("no-nvidia-gpu", "no-nvidia-gpu-said")
    # Without the sentence it is nvidia-smi missing, as before.
    assert first_cause(text.split("\n\n", 1)[1]) == "nvidia-smi-missing"


def test_jaxlibs_platform_registry_without_cuda() -> None:
    # jax-ml/jax#10349: the message wrapped over three lines, as pasted.
    text = (
        "[RuntimeError: Backend 'gpu' failed to initialize: NOT_FOUND: Could not find \n"
        'registered platform with name: "cuda". Available platform names are: \n'
        "Host Interpreter]()\n"
    )
    d = first(text)
    assert d.id == "cpu-only-wheel" and "JAX" in d.title and 'pip install -U "jax[cuda12]"' in d.fix
    # A registry that has CUDA in it is not the CPU jaxlib.
    with_cuda = text.replace("Host Interpreter", "Host Interpreter CUDA")
    assert first_cause(with_cuda) != "cpu-only-wheel"


def test_a_program_offering_onnxruntimes_providers_that_has_only_the_cpu() -> None:
    # facefusion/facefusion#48.
    text = "run.py: error: argument --execution-providers: invalid choice: 'cuda' (choose from 'cpu')\n"
    assert first_cause(text) == "cpu-only-wheel"
    assert first_cause(text.replace("'cpu')", "'cpu', 'cuda')")) != "cpu-only-wheel"


def test_an_ngc_container_refusing_an_old_gpu() -> None:
    # NVIDIA/caffe#525 (a Tesla K80 under an NGC container).
    text = "ERROR: Detected NVIDIA Tesla K80 GPU, which is not supported by this container\n"
    d = first(text)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old")
