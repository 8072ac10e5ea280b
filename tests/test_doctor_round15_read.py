"""Rules for round 15's texts (r21o: its 4 released held-out misses and its training texts), as the
general messages they are.

nvidia-smi not found beside nvidia-smi's own table and a `docker run --gpus` is a container started
without GPUs, not a driver without nvidia-smi; the driver's libcuda.so.1 not found, in any loader's
words (glibc's, cuda-python's dlopen, an ImportError's repr), is no driver reachable, and where the
text starts the program with `docker run` and gives the container no GPU, that container.
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first, ids

# --------------------------------------------------------------------------- nvidia-smi in a container

NVSMI_TABLE = (
    "It works on the host:\n"
    "docker run --gpus all nvidia/cuda:10.1-base-ubuntu18.04 nvidia-smi\n"
    "> NVIDIA-SMI 450.51.05    Driver Version: 450.51.05    CUDA Version: 11.0\n"
)
NOT_FOUND = '"!nvidia-smi" in the notebook does also not work: "/bin/bash: nvidia-smi: command not found"'


def test_nvidia_smi_not_found_beside_its_working_table_under_gpus_is_a_container_without_gpus() -> None:
    assert first(NVSMI_TABLE + NOT_FOUND) == "container-no-gpu"
    runtime = NVSMI_TABLE.replace("--gpus all", "--runtime=nvidia")
    assert first(runtime + "bash: nvidia-smi: command not found") == "container-no-gpu"


def test_nvidia_smi_not_found_alone_or_without_a_gpu_run_stays_the_driver() -> None:
    assert first(NOT_FOUND) == "nvidia-smi-missing"
    # The table without any container started with GPUs: nothing says where the other shell is.
    table_only = "> NVIDIA-SMI 450.51.05    Driver Version: 450.51.05    CUDA Version: 11.0\n"
    assert first(table_only + NOT_FOUND) == "nvidia-smi-missing"


@pytest.mark.parametrize(
    "said",
    [
        # The GPU run itself gave the error: the toolkit mounted nothing (the driver's own package).
        "docker run --gpus all nvidia/cuda nvidia-smi gives bash: nvidia-smi: command not found\n"
        "> NVIDIA-SMI 450.51.05    Driver Version: 450.51.05\n",
        # WSL: nvidia-smi lives in /usr/lib/wsl/lib there.
        "In WSL2:\n" + NVSMI_TABLE + "bash: nvidia-smi: command not found",
    ],
)
def test_nvidia_smi_not_found_where_the_gpu_run_failed_or_in_wsl_is_not_this_container(said: str) -> None:
    assert first(said) != "container-no-gpu"


# --------------------------------------------------------------------------- libcuda.so.1 not found

LIBCUDA = [
    "/sd-cli: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory",
    "Failed to import from vllm._C with ImportError('libcuda.so.1: cannot open shared object file: No such file or directory')",
    "RuntimeError: Failed to dlopen libcuda.so",
    "./llama-server: error while loading shared libraries: libcuda.so.1: 无法打开共享对象文件: 没有那个文件或目录",
]


@pytest.mark.parametrize("line", LIBCUDA)
def test_the_drivers_library_not_found_in_any_loaders_words_is_no_driver_reached(line: str) -> None:
    assert first(line) == "no-device"


DOCKER_RUN = "docker run \\\n  -v /home/lw/.cache:/root/.cache \\\n  -p 10860:9997 \\\n   dc3c46bccde1 \\\n  xinference-local -H 0.0.0.0\n"


@pytest.mark.parametrize("line", LIBCUDA)
def test_libcuda_not_found_under_a_docker_run_without_gpus_is_the_container(line: str) -> None:
    assert first(line + "\n" + DOCKER_RUN) == "container-no-gpu"
    assert first("docker compose up -d\n" + line) == "container-no-gpu"


@pytest.mark.parametrize(
    "given",
    [
        DOCKER_RUN.replace("docker run \\", "docker run --gpus all \\"),
        DOCKER_RUN + "  --runtime=nvidia\n",
        "docker compose up\n    deploy:\n      resources:\n        reservations:\n          devices:\n"
        "            - driver: nvidia\n              capabilities: [gpu]\n",
        "WSL2 Ubuntu 22.04, Docker Desktop\n" + DOCKER_RUN,
    ],
)
def test_libcuda_not_found_where_the_container_was_given_gpus_or_in_wsl_stays_no_driver(given: str) -> None:
    assert first(LIBCUDA[1] + "\n" + given) == "no-device"


def test_libcuda_not_found_where_the_fix_was_gpus_is_the_container() -> None:
    fixed = LIBCUDA[0] + "\nNot a bug: I forgot to add --gpus all to the docker run."
    assert first(fixed) == "container-no-gpu"
    assert first(LIBCUDA[0] + "\nI added --gpus all but still get the same error.") == "no-device"


# --------------------------------------------------------------------------- cuDNN's RNN op

FAIL_DNN = (
    "UnknownError: Graph execution error:\n\nFail to find the dnn implementation.\n"
    "\t [[{{node CudnnRNN}}]]\n\t [[sequential_1/lstm_3/PartitionedCall]] [Op:__inference_predict_function_5730]"
)


def test_the_rnn_ops_fail_to_find_the_dnn_implementation_alone_is_cudnn_not_started() -> None:
    assert first(FAIL_DNN) == "dnn-library-not-found"
    tf1 = "tensorflow.python.framework.errors_impl.UnknownError: Fail to find the dnn implementation. [Op:CudnnRNN]"
    assert first(tf1) == "dnn-library-not-found"


@pytest.mark.parametrize(
    ("root", "cause"),
    [
        (
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
            "gpu-lib-init-failed",
        ),
        (
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:319] Loaded runtime CuDNN library: 7.5.1 but source was "
            "compiled with: 7.6.5.  CuDNN library major and minor version needs to match or have higher minor "
            "version in case of CuDNN 7.0 or later version.",
            "cudnn-version-mismatch",
        ),
        (
            "Could not load dynamic library 'libcudnn.so.7'; dlerror: libcudnn.so.7: cannot open shared object file",
            "missing-cudnn",
        ),
    ],
)
def test_fail_to_find_the_dnn_implementation_after_its_root_is_that_root(root: str, cause: str) -> None:
    # The op's words come after the line that says why cuDNN did not start (r10's rnnt#12 among them).
    assert first(root + "\n" + FAIL_DNN) == cause
    assert first(FAIL_DNN + "\n" + root) == cause


# --------------------------------------------------------------------------- TensorFlow's self-check

SELF_CHECK = """ERROR: Failed to import the TensorFlow module.

- Python version is 3.6.

- Could not find cuDNN 6.

  The GPU version of TensorFlow requires that the correct cuDNN DLL be installed
  in a directory that is named in your %PATH% environment variable. Note that"""


@pytest.mark.parametrize("which", ["cuDNN 6.", "cuDNN 5.1.", "cuDNN."])
def test_the_windows_self_checks_could_not_find_cudnn_is_cudnn_missing(which: str) -> None:
    assert first(SELF_CHECK.replace("cuDNN 6.", which)) == "missing-cudnn"
    said = "If I install the cpu version of tensorflow in r-tensorflow, it seems to work.\n"
    assert first(said + SELF_CHECK) == "missing-cudnn"


def test_cudnns_own_function_not_found_is_not_the_self_checks_line() -> None:
    symbol = (
        "F tensorflow/stream_executor/cuda/cuda_dnn.cc:222] Check failed: s.ok() could not find cudnnCreate in "
        "cudnn DSO; dlerror: _pywrap_tensorflow.so: undefined symbol: cudnnCreate"
    )
    assert first(symbol) == "cuda-libs-mixed"


def test_a_cpu_build_said_as_a_condition_is_not_the_cpu_build_installed() -> None:
    assert first("If I install the cpu version of tensorflow, it seems to work.") == "nothing"
    assert first("I installed the cpu version of tensorflow by mistake.") == "cpu-only-wheel"


# --------------------------------------------------------------------------- JAX's CUDA libraries

JAX_PLUGIN = (
    "ERROR:2025-07-08 12:39:34,990 jax._src.xla_bridge:444] Jax plugin configuration error: Exception when "
    "calling jax_plugins.xla_cuda12.initialize()\n...\nRuntimeError: Unable to load cuSPARSE. Is it installed?\n"
    "WARNING:2025-07-08 12:39:34,994 jax._src.xla_bridge:794] An NVIDIA GPU may be present on this machine, but "
    "a CUDA-enabled jaxlib is not installed. Falling back to cpu."
)


@pytest.mark.parametrize(
    "said",
    [
        "I cannot unset LD_LIBRARY_PATH since I need to compile and use CUDA code.",
        "export LD_LIBRARY_PATH=/opt/nvidia/hpc_sdk/Linux_x86_64/24.5/cuda/12.4/lib64:$LD_LIBRARY_PATH",
        "file=libnvJitLink.so.12 [0];  needed by .../nvidia/cusparse/lib/libcusparse.so.12 [0]",
    ],
)
def test_jaxs_unable_to_load_a_cuda_library_beside_ld_library_path_is_versions_mixed(said: str) -> None:
    assert first(JAX_PLUGIN + "\n" + said) == "cuda-libs-mixed"


def test_jaxs_unable_to_load_alone_stays_a_library_not_installed() -> None:
    assert first(JAX_PLUGIN) == "missing-cudart"
    assert first(JAX_PLUGIN + "\nLD_LIBRARY_PATH is empty on this machine.") == "missing-cudart"


def test_jaxs_cpu_fallback_after_its_plugin_failed_is_not_a_cpu_only_jaxlib() -> None:
    assert ids(JAX_PLUGIN)[:2] == ["missing-cudart", "gpu-list-empty"]
    alone = (
        "WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib "
        "is not installed. Falling back to cpu."
    )
    assert first(alone) == "cpu-only-wheel"


# --------------------------------------------------------------------------- XLA's old ptxas

OLD_PTXAS = (
    "E external/org_tensorflow/tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc:114] *** WARNING *** "
    "You are using ptxas 10.1.243, which is older than 11.1. ptxas before 11.1 is known to miscompile XLA code, "
    "leading to incorrect results or invalid-address errors."
)
NO_CC = (
    "W external/org_tensorflow/tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc:231] Falling back to "
    "the CUDA driver for PTX compilation; ptxas does not support CC 8.6"
)


def test_xlas_old_ptxas_warning_before_ptxas_refusing_the_gpu_is_ptxas_too_old() -> None:
    assert ids(OLD_PTXAS + "\n\n" + NO_CC) == ["ptxas-too-old", "xla-ptxas-problem"]


def test_xlas_old_ptxas_warning_alone_stays_the_ptxas_it_picked() -> None:
    assert first(OLD_PTXAS) == "xla-ptxas-problem"
    assert first(OLD_PTXAS + "\nnamed symbol not found") == "xla-ptxas-problem"


# --------------------------------------------------------------------------- a GPU newer than TF 1.x

CUBLAS = (
    "2022-12-27 15:27:14.672772: E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS "
    "routine: CUBLAS_STATUS_EXECUTION_FAILED"
)


@pytest.mark.parametrize(
    "setup",
    [
        "How can I save this problem? I use 3080ti /tensorflow 1.15 / python 3.7.10 / cuda 10.1",
        "- 你使用的**显卡**: rtx4080\n- 你使用的**Tensorflow**版本: 1.14\n- 你使用的**Keras**版本: 2.3.1",
        "GPU: 3090 Ti, TensorFlow version: 1.15.5",
    ],
)
def test_cublas_failing_on_an_ampere_or_ada_gpu_under_tensorflow_1_is_a_gpu_too_new(setup: str) -> None:
    assert first(setup + "\n\n" + CUBLAS) == "gpu-too-new"


@pytest.mark.parametrize(
    "setup",
    [
        "I use 3080ti / tensorflow 2.6 / cuda 11.2",
        "- 你使用的**显卡**: rtx2080\n- 你使用的**Tensorflow**版本: 1.14",
        "- 你使用的**显卡**: rtx4080\n- 你使用的**Tensorflow**版本: 2.10",
    ],
)
def test_cublas_failing_without_both_facts_stays_the_library_not_started(setup: str) -> None:
    assert first(setup + "\n\n" + CUBLAS) == "gpu-lib-init-failed"


# --------------------------------------------------------------------------- a CPU build by default

ZH_DEFAULT = (
    "requirements里torch install时默认是cpu版本，所以cuda.is_available()只会返回false，导致--use-cuda不能使用"
)


def test_an_empty_gpu_list_where_the_install_is_said_to_default_to_the_cpu_build_is_a_cpu_build() -> None:
    assert first(ZH_DEFAULT) == "cpu-only-wheel"
    en = (
        "torch.cuda.is_available() returns False\n"
        "The requirements file installs the CPU version of torch by default."
    )
    assert first(en) == "cpu-only-wheel"
    assert first("pip默认安装的是cpu版本的torch") == "cpu-only-wheel"  # the words alone: a fallback cause


@pytest.mark.parametrize(
    "said",
    [
        "torch.cuda.is_available() 返回 False，是不是默认是cpu版本？",
        "torch.cuda.is_available() returns False. Does pip install the CPU version by default?",
        "torch.cuda.is_available() returns False",
    ],
)
def test_an_empty_gpu_list_with_the_default_asked_or_unsaid_stays_the_symptom(said: str) -> None:
    assert first(said) == "gpu-list-empty"
