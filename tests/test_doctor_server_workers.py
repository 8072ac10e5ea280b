"""A web server's workers on one GPU: each worker process loads the model, so the memory an out of
memory error lacks is held by the other workers (memory-held), not by one tensor (tensor-oom)."""

from __future__ import annotations

import pytest

from tests.doctor_answers import first

PADDLE = (
    "ResourceExhaustedError: Out of memory error on GPU 0. Cannot allocate 25.002197MB memory on GPU 0, "
    "available memory is only 15.187500MB."
)
TF = "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[512,512]"


@pytest.mark.parametrize(
    "said",
    [
        "It runs under gunicorn with 4 workers, each loads the model at start-up.",
        "We start 8 uwsgi processes behind nginx.",
        "celery with several workers on the same machine",
        "使用gunicorn开了13个worker，好像原因是内存都集中在gpu0了",
        "uwsgi 启动了 4 个进程",
    ],
)
def test_an_oom_beside_several_server_workers_is_memory_they_hold(said: str) -> None:
    assert first(f"{PADDLE}\n{said}") == "memory-held"
    assert first(f"{TF}\n{said}") == "memory-held"


@pytest.mark.parametrize(
    "said",
    [
        "gunicorn with 1 worker",
        "I tried 2 workers and 4 workers in the DataLoader",  # a data loader's workers hold no GPU memory
        "uvicorn started",
    ],
)
def test_one_worker_or_a_data_loaders_workers_leave_the_works_own_oom(said: str) -> None:
    assert first(f"{TF}\n{said}") == "tensor-oom"
