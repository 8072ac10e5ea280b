"""Rules written from round 61's and 62's training texts (each held-out third was scored blind first)."""

from __future__ import annotations

from wizard.doctor.diagnose import match_output

COMPLAINT = "ray does not use the GPU to run the experiments.\n"


def _ids(text: str) -> list[str]:
    return [d.id for d in match_output(text) if d.harmful]


def test_a_ray_trial_that_asked_for_no_gpu_is_why_none_is_used() -> None:
    for status in (
        "Resources requested: 1/8 CPUs, 0/1 GPUs",
        "Logical resource usage: 1.0/16 CPUs, 0/2 GPUs",
    ):
        found = match_output(COMPLAINT + "== Status ==\n" + status + "\n")
        assert found[0].id == "scheduler-no-gpu" and found[0].title == "Ray gave this trial no GPU"
        assert "resources_per_trial" in found[0].fix


def test_a_trial_given_its_gpu_or_a_status_line_alone_is_no_cause() -> None:
    assert "scheduler-no-gpu" not in _ids(COMPLAINT + "Resources requested: 1/8 CPUs, 1/1 GPUs\n")
    assert "scheduler-no-gpu" not in _ids("Resources requested: 1/8 CPUs, 0/1 GPUs\n")


def test_amd_said_as_the_reason_cuda_cannot_be_installed_is_another_makers_gpu() -> None:
    # d-ailin/GDN#86 (round 62's training side): "since I have AMD and cannot install CUDA".
    text = (
        "OSError: libcudart.so.10.2: cannot open shared object file: No such file or directory\n"
        "Apparently, there seems to be some issue with the CUDA, which makes sense since I have AMD "
        "and cannot install CUDA.\n"
    )
    assert match_output(text)[0].verdict == "no-nvidia-gpu-said"
    # An AMD processor beside the same words is no GPU's maker.
    cpu = text.replace("I have AMD and", "I have AMD Ryzen and")
    assert all(d.verdict != "no-nvidia-gpu-said" for d in match_output(cpu))
