"""The doctor's rules from round 37's training side, each on a minimal text:

* NVIDIA's NGC container check "GPU, which is not yet supported in this version of the container":
  the GPU is newer than the container (gpu-too-new); "not supported by this container" is left alone.
* nvidia-installer's "The Nouveau kernel driver is currently in use by your system": nouveau.
* PaddlePaddle's architecture check cut to its tail ("your current GPU is 120 Solution: Install the
  correct wheel package built for your GPU"): the GPU's compute capability, judged alone (12.0 is
  newer than any build that lacks it; an old GPU stays open).
* PyTorch's figures line without "CUDA out of memory." before it: its out-of-memory message all the
  same, judged by its figures (a request above what is free is the work's tensors).
* "I run another code on GPU0" beside an out-of-memory error: memory held by the other program.
* A program's "No GPU found, use CPU instead": the empty-GPU-list symptom, no cause named.
* `torch.__version__` said to be "X+cpu" beside a GPU asked for: PyTorch's CPU build.
* Docker's "could not select device driver nvidia" on a machine the text says has no NVIDIA GPU:
  no-nvidia-gpu (the request asks for a GPU the machine does not have).
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.catalogue import pattern
from wizard.doctor.diagnose import match_output

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


def ids(text: str) -> list[str]:
    return [d.id for d in match_output(text) if d.harmful]


def test_a_gpu_not_yet_supported_by_the_container_is_too_new() -> None:
    text = (
        "WARNING: Detected NVIDIA NVIDIA Graphics Device GPU, which is not yet supported in this version "
        "of the container\nERROR: No supported GPU(s) detected to run this container\n"
    )
    assert first(text).id == "gpu-too-new"
    older = "WARNING: Detected NVIDIA Tesla K80 GPU, which is not supported by this container\n"
    assert "gpu-too-new" not in ids(older)


def test_the_installer_refusing_while_nouveau_is_loaded_is_nouveau() -> None:
    assert first("ERROR: The Nouveau kernel driver is currently in use by your system.").id == "nouveau"


def test_paddles_check_cut_to_its_tail_judges_the_gpu_alone() -> None:
    tail = "your current GPU is {} Solution: Install the correct wheel package built for your GPU"
    assert first(tail.format(120)).id == "gpu-too-new"
    old = first(tail.format(61))  # a GTX 10xx: too old for a new build, too new for an old one
    assert (old.id, old.verdict) == ("unsupported-cc", "cover-open")


FIGURES = "Tried to allocate {} (GPU 0; 5.94 GiB total capacity; 5.22 GiB already allocated; {} free; 5.42 GiB reserved in total by PyTorch)"


def test_pytorchs_figures_line_alone_is_its_out_of_memory_message() -> None:
    assert first("报错：" + FIGURES.format("20.00 MiB", "20.81 MiB")).id == "tensor-oom"
    # its own figures show far more free than it asked for: not a tensor too big
    assert "tensor-oom" not in ids(FIGURES.format("20.00 MiB", "2.50 GiB"))


def test_another_program_run_on_the_same_gpu_beside_oom_is_memory_held() -> None:
    said = "RuntimeError: CUDA out of memory.\nAt the same time, I run another code on GPU0.\n"
    assert first(said).id == "memory-held"
    asked = "RuntimeError: CUDA out of memory.\nShould I run another code on GPU0?\n"
    assert first(asked).id != "memory-held"


def test_no_gpu_found_use_cpu_is_a_symptom() -> None:
    found = match_output("WARNING:ChatTTS.utils.gpu_utils:No GPU found, use CPU instead\n")
    row = pattern(found[0].id)
    assert found[0].id == "gpu-list-empty" and row is not None and row.symptom


def test_torch_version_said_plus_cpu_beside_a_gpu_is_the_cpu_build() -> None:
    text = "warp saw `cuda:0` the whole time.\n`torch.__version__` is `2.9.1+cpu` and `torch.version.cuda` is `None`."
    assert first(text).id == "cpu-only-wheel"
    assert "cpu-only-wheel" not in ids("`torch.__version__` is `2.9.1+cpu`")  # a CPU host: nothing asked


DOCKER = 'Error response from daemon: could not select device driver "nvidia" with capabilities: [[gpu]]'


def test_docker_asking_for_a_gpu_on_a_machine_said_to_have_none_is_no_nvidia_gpu() -> None:
    said = "The dev stack does not start on my machine, which has no NVIDIA graphics card.\n$ docker compose up -d\n"
    d = first(said + DOCKER)
    assert (d.id, d.verdict) == ("no-nvidia-gpu", "no-nvidia-gpu-docker")
    assert "which has no NVIDIA graphics card" in d.why
    assert "--gpus" in d.fix and "changes nothing" in d.fix  # the request is what to change, not a driver
    # the same refusal where a GPU is shown (the toolkit is missing, not the GPU): not this
    shown = "My RTX 3060 works on the host (nvidia-smi shows it).\n$ docker compose up -d\n"
    assert first(shown + DOCKER).id != "no-nvidia-gpu"
    assert first(DOCKER).id != "no-nvidia-gpu"  # nothing said about the machine
