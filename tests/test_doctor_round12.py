"""Rounds 11 and 12's training texts (issue 21, r21m): the program messages behind them, as variants
(other versions, paths, GPUs, wrappers), and what must not match.

Lines marked "from source" are the programs' own strings (CTranslate2's src/cuda/utils.h CUDA_CHECK,
glibc's ld.so "symbol lookup error", the script pip 19.3+ writes, libnvidia-container's CLI).
"""

from __future__ import annotations

from tests.doctor_answers import first, ids
from wizard.doctor.diagnose import match_output, recognised_in_output

# ---- CTranslate2: "CUDA failed with error out of memory" --------------------------------------

CT2_OOM = "RuntimeError: CUDA failed with error out of memory"  # from source: CUDA_CHECK + cudaGetErrorString


def test_ctranslate2_out_of_memory_is_the_work_that_did_not_fit() -> None:
    whisperx = (
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/lib/python3.10/site-packages/whisperx/asr.py", line 211, in transcribe\n'
        "    for idx, out in enumerate(self.__call__(data(audio, vad_segments), batch_size=batch_size)):\n"
        + CT2_OOM
    )
    assert first(whisperx) == "tensor-oom"
    assert first("Error processing file /tmp/a.mp3: CUDA failed with error out of memory") == "tensor-oom"


def test_ctranslate2_out_of_memory_where_another_process_holds_the_gpu_is_memory_held() -> None:
    busy = CT2_OOM + "\n|  0%   45C    P2   180W / 350W |  23800MiB / 24576MiB |     99%      Default |"
    assert first(busy) == "memory-held"
    said = CT2_OOM + "\nIt turned out another process was using most of the GPU memory."
    assert first(said) == "memory-held"


def test_ctranslate2_other_cuda_errors_are_not_out_of_memory() -> None:
    driver = (
        "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version"
    )
    assert first(driver) == "driver-too-old"
    no_gpu = "RuntimeError: CUDA failed with error no CUDA-capable device is detected"
    assert "tensor-oom" not in ids(no_gpu) and "memory-held" not in ids(no_gpu)


# ---- glibc: an undefined symbol in a cuDNN/cuBLAS library, or of one's version node ----------------


def test_an_undefined_symbol_in_a_cudnn_sub_library_is_two_cudnn_versions_mixed() -> None:
    # from source (ld.so): "symbol lookup error: FILE: undefined symbol: NAME, version V"
    system = (
        "python: symbol lookup error: /usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.8: undefined symbol: "
        "_Z22cudnnGenericOpTensorNdEP12cudnnContext, version libcudnn_ops_infer.so.8"
    )
    assert first(system) == "cuda-libs-mixed"
    wheel = (
        "/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12: undefined symbol: "
        "_ZN7cublasLt9internal5statusE, version libcublasLt.so.12"
    )
    assert first(wheel) == "cuda-libs-mixed"


def test_an_undefined_symbol_elsewhere_or_a_cudnn_file_not_found_is_not_a_mix() -> None:
    # A PyTorch extension built for another PyTorch: no CUDA library named.
    torchvision = (
        "ImportError: /venv/lib/python3.10/site-packages/torchvision/_C.so: undefined symbol: "
        "_ZN3c104impl8GPUTrace13gpuTraceStateE"
    )
    assert "cuda-libs-mixed" not in ids(torchvision)
    missing = (
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: "
        "cannot open shared object file: No such file or directory"
    )
    assert first(missing) == "missing-cudnn"


# ---- pip: the 19.3+ script importing main from pip._internal.cli.main -------------------------------


def test_pips_own_script_failing_to_import_main_is_pip_half_upgraded() -> None:
    script = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/bin/pip", line 5, in <module>\n'
        "    from pip._internal.cli.main import main\n"  # from source: the script pip 19.3+ writes
        "ImportError: cannot import name 'main'"
    )
    assert first(script) == "pip-half-upgraded"
    glued = (
        'File "/usr/bin/pip", line 7, in <module> from pip._internal.cli.main import main '
        "ImportError: cannot import name 'main'"
    )
    assert first(glued) == "pip-half-upgraded"
    cut = 'Traceback (most recent call last):\n  File "/home/u/.local/bin/pip3", line 8, in <module>\nImportError: cannot import name main'
    assert first(cut) == "pip-half-upgraded"


def test_a_users_own_script_failing_to_import_main_is_not_pip() -> None:
    own = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "    from utils import main\n"
        "ImportError: cannot import name main"
    )
    assert "pip-half-upgraded" not in ids(own)


# ---- "DNN library initialization failed" solved by a driver upgrade ---------------------------------

DNN = (
    "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed. "
    "Look at the errors above for more details."
)


def test_dnn_initialization_solved_by_a_driver_upgrade_is_the_driver() -> None:
    assert first(DNN + "\n\nFixed it by updating the NVIDIA driver to 550.54.") == "driver-too-old"
    assert (
        first(DNN + "\nI solved this issue by upgrading the NVIDIA Drivers in my server, thanks!")
        == "driver-too-old"
    )


def test_dnn_initialization_without_a_driver_fix_stays_cudnn() -> None:
    assert first(DNN) == "dnn-library-not-found"
    assert first(DNN + "\n\nThis was not solved by upgrading the driver either.") == "dnn-library-not-found"


# ---- nvidia-smi not found in a container's entrypoint script --------------------------------------


def test_nvidia_smi_not_found_in_an_entrypoint_script_is_the_container() -> None:
    assert (
        first("comfyui  | /docker-entrypoint.sh: line 12: nvidia-smi: command not found")
        == "container-no-gpu"
    )
    assert (
        first("2025-11-30 10:13:26.852 | /workspace/entrypoint.sh: line 4: nvidia-smi: command not found")
        == "container-no-gpu"
    )


def test_nvidia_smi_not_found_on_the_host_or_with_gpus_given_is_not_the_container() -> None:
    assert first("user@box:~$ nvidia-smi\nbash: nvidia-smi: command not found") == "nvidia-smi-missing"
    gpus = (
        "$ docker run --gpus all -it myimage\n/docker-entrypoint.sh: line 12: nvidia-smi: command not found"
    )
    assert first(gpus) != "container-no-gpu"


# ---- nvidia-container-cli's "driver error: failed to process request" ------------------------------


def test_the_container_cli_not_reaching_the_driver_is_no_device_not_an_old_driver() -> None:
    # from source (libnvidia-container's CLI): "initialization error: driver error: ..." (1.7+: "driver rpc error")
    hook = (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:349: starting container "
        'process caused "process_linux.go:449: container init caused \\"running prestart hook 1 caused \\\\\\"error '
        "running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: driver error: "
        'failed to process request\\\\\\\\n\\\\\\"\\"": unknown.'
    )
    assert first(hook) == "no-device"
    rpc = "nvidia-container-cli: initialization error: driver rpc error: failed to process request: unknown."
    assert first(rpc) == "no-device"
    assert "driver-too-old" not in ids(hook) + ids(rpc)


# ---- Paddle's cuDNN check beside a failing cuDNN call; glibc's other wording, wrapped --------------

PADDLE_CUDNN = (
    "W0901 10:12:33.123456  1234 device_context.cc:260] device: 0, cuDNN Version: 7.3.\n"
    "WARNING: device: 0. The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine "
    "is 7.3, which may cause serious incompatible bug. Please recompile or reinstall Paddle with compatible "
    "CUDNN version."
)


def test_paddles_cudnn_check_beside_a_failing_cudnn_call_is_the_cause() -> None:
    failing = PADDLE_CUDNN + (
        "\nExternalError: Cudnn error, CUDNN_STATUS_BAD_PARAM at (/paddle/paddle/fluid/operators/conv_cudnn_op.cu:300)"
    )
    found = match_output(failing)
    assert found[0].id == "cudnn-version-mismatch" and recognised_in_output(found)


def test_paddles_cudnn_check_alone_is_only_a_note() -> None:
    alone = PADDLE_CUDNN + "\nPaddlePaddle works well on 1 GPU."
    assert not recognised_in_output(match_output(alone))


def test_a_version_not_defined_with_link_time_reference_wrapped_is_still_a_mix() -> None:
    # from source (ld.so): "symbol %s version %s not defined in file %s with link time reference"
    wrapped = (
        "Could not load library libcudnn_cnn_train.so.8. Error:\n"
        "/opt/cuda/lib64/libcudnn_cnn_train.so.8: symbol\n"
        "_ZN10cask_cudnn2kr8isAmpereEPNS0_5spa_tERKi, version\n"
        "libcudnn_cnn_infer.so.8 not defined in file libcudnn_cnn_infer.so.8 with\n"
        "link time reference"
    )
    assert first(wrapped) == "cuda-libs-mixed"
