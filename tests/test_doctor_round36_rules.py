"""The doctor's rules from rounds 34-36's training sides, each on a minimal text:

* A job step started by `srun` asking for no GPU, whose CUDA then finds none: SLURM gave it none
  (scheduler-no-gpu, the srun line as evidence); a GPU asked for anywhere in the text leaves it open.
* A text that says its Linux runs in WSL 1 (in words, WSL's issue template ticked, `wsl -l -v`'s
  default distribution at version 1): WSL 1 has no GPU (wsl1); not "WSL 1 or 2", not the WSL app's
  own version number.
* The driver's legacy-branch words as the kernel printed them, "NVIDA" included: driver-drops-gpu.
* nvidia-docker 1.x's "Could not load UVM kernel module" alone names no cause (a symptom); with
  modprobe's own "Module nvidia not found" the module is missing for this kernel.
* Other tools' words for a program that sees no GPU (PyTorch's autocast warning, cpp_extension's
  "No CUDA runtime is found", vLLM's "No platform detected"): the empty-GPU-list symptom.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.catalogue import pattern
from wizard.doctor.diagnose import match_output

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first

SRUN = 'srun python -c "import torch; print(torch.cuda.is_available())"\nFalse\n'


def test_an_srun_step_asking_for_no_gpu_that_finds_none_was_given_none() -> None:
    d = first(SRUN)
    assert d.id == "scheduler-no-gpu"
    assert "srun python" in d.evidence and "--gres=gpu" in d.fix


def test_a_gpu_asked_for_leaves_the_step_open() -> None:
    for asked in (
        'srun --gres=gpu:1 python -c "import torch; print(torch.cuda.is_available())"\nFalse\n',
        'srun -G 1 python -c "import torch; print(torch.cuda.is_available())"\nFalse\n',
        "#SBATCH --gpus=1\n" + SRUN,
    ):
        assert "scheduler-no-gpu" not in [d.id for d in match_output(asked)], asked


def test_srun_where_cuda_works_is_no_finding() -> None:
    assert "scheduler-no-gpu" not in [d.id for d in match_output(SRUN.replace("False", "True"))]


NO_DRIVER = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU"


def test_wsl_1_said_is_wsl1() -> None:
    for said in (
        "I'm using wsl 1 on windows 10.",
        "### Are you using WSL 1 or WSL 2?\n- [x] WSL 1\n- [ ] WSL 2",
        "PS> wsl -l -v\n  NAME      STATE           VERSION\n* Ubuntu    Running         1\n  Debian    Stopped         2",
        "我用的是WSL1，",
    ):
        assert first(said + "\n" + NO_DRIVER).id == "wsl1", said


def test_wsl_1_not_said_is_not_wsl1() -> None:
    for said in (
        "### Are you using WSL 1 or WSL 2?\n- [ ] WSL 1\n- [x] WSL 2",
        "I am on WSL 1.2.5.0 (the store version)",
        "Should I be using WSL 1 or 2?",
        "PS> wsl -l -v\n  NAME      STATE           VERSION\n* Ubuntu    Running         2\n  Legacy    Stopped         1",
    ):
        assert "wsl1" not in [d.id for d in match_output(said + "\n" + NO_DRIVER)], said


def test_the_legacy_branch_words_as_printed_name_the_branch() -> None:
    text = (
        "The NVIDIA GeForce GT 720M installed in this system is supported through the NVIDA 390.xx "
        "Legacy drivers"
    )
    assert first(text).id == "driver-drops-gpu"


def test_uvm_not_loaded_alone_is_a_symptom() -> None:
    found = match_output("nvidia-docker | 2016/09/25 22:24:24 Error: Could not load UVM kernel module\n")
    row = pattern(found[0].id)
    assert row is not None and row.symptom
    with_modprobe = found and match_output(
        "nvidia-docker | Error: Could not load UVM kernel module\n"
        "$ nvidia-smi\nmodprobe: FATAL: Module nvidia not found.\n"
    )
    assert with_modprobe[0].id == "kernel-module-missing"


def test_other_tools_words_for_no_cuda_are_the_empty_gpu_list_symptom() -> None:
    """PyTorch's autocast warning and cpp_extension's line (torch.cuda.is_available() False), vLLM's
    'No platform detected': the program sees no GPU; no cause is named from them alone."""
    for text in (
        "UserWarning: User provided device_type of 'cuda', but CUDA is not available. Disabling",
        "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
        "INFO 05-20 20:12:25 [__init__.py:252] No platform detected, vLLM is running on UnspecifiedPlatform",
    ):
        found = match_output(text)
        assert [d.id for d in found if d.harmful] == ["gpu-list-empty"], text
        row = pattern("gpu-list-empty")
        assert row is not None and row.symptom
