"""Rules written from round 61's training texts (its held-out third was scored blind first)."""

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
