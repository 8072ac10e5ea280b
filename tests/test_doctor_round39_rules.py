"""The doctor's rules from round 39's training side, each on a minimal text:

* The container said to have been started without its GPU flag ("you most likely forgot ... the --nv
  flag", "I forgot --gpus all") beside a GPU failure: container-no-gpu, ranked before CUDA's 35 (the
  runtime found no driver to ask: the consequence).
* GPU memory said not to come back after its program was killed ("kill掉进程后显存无法自动释放"):
  memory held by a process still alive.
* The Fabric Manager said not running, or of another version than the driver, beside CUDA failing to
  start: fabric-manager.
* A driver said to be below a program's floor in the text's own finding ("needs a newer nvidia driver
  than my installed 535"): driver-too-old.
* A build's refusal naming only its floor (vLLM's "GPUs with compute capability less than 7.0 are not
  supported") beside several GPUs: the one below the floor is too old for it.
* TensorFlow's out-of-memory error where the same program is said to have run before: not sure (the
  work's size did not change), with the command that shows who holds the memory.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first

INSUFFICIENT = "CUDA driver version is insufficient for CUDA runtime version\n"


def ids(text: str) -> list[str]:
    return [d.id for d in match_output(text) if d.harmful]


def test_a_container_flag_said_forgotten_is_container_no_gpu_before_35() -> None:
    said = "If you get this error in the singularity container you most likely forgot to call it using the --nv flag"
    assert ids(INSUFFICIENT + said)[:2] == ["container-no-gpu", "driver-too-old"]
    assert ids(INSUFFICIENT + "I forgot --gpus all in my docker run")[0] == "container-no-gpu"
    assert ids(INSUFFICIENT)[0] == "driver-too-old"  # nothing said about a container


def test_memory_not_released_after_a_kill_is_memory_held() -> None:
    assert first("video nonlocal 模型kill掉进程后显存无法自动释放").id == "memory-held"
    assert first("After I killed the process the GPU memory is still not freed.").id == "memory-held"
    assert "memory-held" not in ids("The memory was freed after I killed it.")


def test_the_fabric_manager_said_not_running_is_fabric_manager() -> None:
    text = "Unexpected error from cudaGetDeviceCount()\nYep, Fabric Manager wasn't running.\n"
    assert first(text).id == "fabric-manager"
    mismatch = "Unexpected error from cudaGetDeviceCount()\na mismatched Fabric Manager version to the NVIDIA Driver version\n"
    assert first(mismatch).id == "fabric-manager"
    assert "fabric-manager" not in ids("Fabric Manager wasn't running, and everything works.")  # no failure


def test_a_driver_said_below_the_programs_floor_is_too_old() -> None:
    assert first("I found the real issue: ollama needs a newer nvidia driver than my installed 535.").id == (
        "driver-too-old"
    )
    assert (
        first("My driver (535.309.01) was below the 550 minimum that newer builds enforce").id
        == "driver-too-old"
    )


def test_oom_where_the_same_program_ran_before_is_not_sure() -> None:
    oom = "ResourceExhaustedError: OOM when allocating tensor with shape[64,512,512]\n"
    assert first(oom).id == "tensor-oom"
    found = match_output("It was working perfectly on Sunday with the same program.\n" + oom)
    assert found[0].id == "not-sure" and not any(d.harmful for d in found)
    assert "nvidia-smi" in found[0].fix


def test_a_floor_refused_by_the_build_names_the_gpu_below_it_among_others() -> None:
    """vLLM's "GPUs with compute capability less than 7.0 are not supported" beside an A100 and a P100:
    the refusal names a GPU below the floor, the P100 (6.0): too old for this build."""
    text = (
        "RuntimeError: GPUs with compute capability less than 7.0 are not supported.\n"
        "|   0  NVIDIA A100-PCIE-40GB          Off | 00000000:3F:00.0 Off |                    0 |\n"
        "|   1  Tesla P100-PCIE-16GB           Off | 00000000:40:00.0 Off |                    0 |\n"
    )
    d = first(text)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old")
    assert "P100" in d.why
    # the same GPUs beside a bare "no kernel image": which one ran it is not shown
    bare = text.replace(
        "RuntimeError: GPUs with compute capability less than 7.0 are not supported.",
        "no kernel image is available for execution on the device",
    )
    assert first(bare).verdict != "cover-too-old"
