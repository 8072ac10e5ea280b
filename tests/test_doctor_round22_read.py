"""Reasoning for round 22's 6 released held-out misses and round 23's training misses (i35d), as the
general facts they are, each with the case that must stay undecided beside it.

The driver's libcuda not found inside a container of a GPU image that nothing gives a GPU is the
container's, ahead of a cuDNN missing beside it; a cuda* call's "Return value 46" is the runtime's
code 46; 46's "busy" retold by a person is that message; an A100 said to be partitioned is MIG; a
person saying the scheduler's job got no GPU is the job's request; a WSL2 Windows driver below the
oldest CUDA's WSL2 floor beside a GPU WSL does not see is too old; nvidia-smi's Exclusive_Thread or
Prohibited compute mode beside a failure is the GPU held by its mode.
"""

from __future__ import annotations

from tests.doctor_answers import first, ids
from wizard.doctor.diagnose import match_output

OLD_TF_NO_LIBCUDA = (
    "I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so. LD_LIBRARY_PATH:\n"
    "I tensorflow/stream_executor/cuda/cuda_dnn.cc:1407] Unable to load cuDNN DSO\n"
    "I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcuda.so.1. LD_LIBRARY_PATH:\n"
    "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:146] libcuda reported version is: Not found: "
    "was unable to find libcuda.so DSO loaded into this program\n"
)


def test_a_gpu_image_without_libcuda_is_a_container_given_no_gpu_not_a_missing_cudnn() -> None:
    text = "Using the docker image tensorflow/tensorflow:latest-gpu:\n" + OLD_TF_NO_LIBCUDA
    found = ids(text)
    assert found[0] == "container-no-gpu"
    assert "missing-cudnn" in found  # still reported, after the cause


def test_a_container_given_the_gpu_or_a_cpu_image_is_not_called_that() -> None:
    given = "docker run --gpus all tensorflow/tensorflow:latest-gpu python t.py\n" + OLD_TF_NO_LIBCUDA
    assert first(given) != "container-no-gpu"
    cpu_image = "When running the docker image built with tensorflow==1.15:\n" + OLD_TF_NO_LIBCUDA
    assert first(cpu_image) != "container-no-gpu"
    assert first(OLD_TF_NO_LIBCUDA) == "missing-cudnn"  # no container in the text: unchanged


def test_a_runtime_calls_return_value_is_read_as_its_code() -> None:
    text = "Fatal CUDA Error at hybrid.cu:450.\nReturn value 46 from 'cudaStreamCreate(&kernel_stream)'.  Exiting.\n"
    assert first(text) == "gpu-busy"
    assert first("Return value 46 from the parser") == "nothing"  # not a cuda* call


def test_busy_retold_is_46s_message() -> None:
    assert first("nccl-tests tell me GPUs are busy, although they are not.\n") == "gpu-busy"
    assert first("the GPUs are busy with training, so I waited\n") != "gpu-busy"


def test_a_partitioned_a100_is_mig() -> None:
    text = (
        "On any partitioned Nvidia A100 card I get an init error:\n"
        "[guppy/error] CUDA error at cuda_common.cpp:234:\nCUDA_ERROR_NO_DEVICE. Aborting.\n"
    )
    assert first(text) == "mig-no-instance"
    assert first(text.replace("partitioned ", "")) != "mig-no-instance"


def test_a_job_said_to_get_no_gpu_is_the_schedulers() -> None:
    smi = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    words = "In my slurm-submission script I didn't actually get a gpu allocated.\n"
    assert first(smi + words) == "scheduler-no-gpu"
    assert first(smi + "My slurm-submission script asks for a gpu.\n") != "scheduler-no-gpu"


def test_a_wsl2_windows_driver_below_cuda_11s_floor_is_too_old() -> None:
    text = (
        "After the update nvidia-smi shows\n"
        " NVIDIA-SMI 451.67       Driver Version: 451.67       CUDA Version: 11.0\n"
        "And after that, WSL doesn't see the GPU.\n"
    )
    found = match_output(text)
    assert found[0].id == "driver-too-old"
    assert "452.39" in found[0].why and "451.67" in found[0].why
    assert first(text.replace("451.67", "531.14")) != "driver-too-old"  # above every WSL2 floor


def test_an_exclusive_thread_or_prohibited_mode_beside_a_failure_is_the_gpu_held() -> None:
    table = "|  0  Tesla K40m   Off  | 0000:08:00.0  Off |   0 |\n| N/A 20C P8 19W / 235W | 23MiB / 11519MiB | 0%  {} |\n"
    said = "I observed the following error when I used tensorflow.\n"
    assert first(said + table.format("E. Thread")) == "gpu-busy"
    assert first(said + table.format("Prohibited")) == "gpu-busy"
    assert first(said + table.format("E. Process")) != "gpu-busy"  # one process: decides nothing alone
    assert first(table.format("E. Thread")) != "gpu-busy"  # no failure said


def test_the_new_reasons_are_said_in_chinese_too() -> None:
    from wizard.text import language, set_language

    before = language()
    set_language("zh")
    try:
        wsl = match_output(
            " NVIDIA-SMI 451.67       Driver Version: 451.67       CUDA Version: 11.0\nWSL doesn't see the GPU.\n"
        )
        assert wsl[0].id == "driver-too-old" and "WSL2 通过 Windows 驱动" in wsl[0].why
        container = match_output("docker image tensorflow/tensorflow:latest-gpu\n" + OLD_TF_NO_LIBCUDA)
        assert (
            container[0].id == "container-no-gpu"
            and "libcuda" in container[0].why
            and "容器" in container[0].why
        )
        held = match_output("出现错误\n| N/A 20C P8 19W / 235W | 23MiB / 11519MiB | 0%  E. Thread |\n")
        assert held[0].id == "gpu-busy" and "计算模式" in held[0].why
    finally:
        set_language(before)
