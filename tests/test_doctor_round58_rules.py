"""The doctor's rules from round 58's training side, each with the text that must keep its reading."""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.codes import codes_in
from wizard.doctor.diagnose import match_output

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


def test_the_installers_failed_build_step_is_no_module_for_this_kernel() -> None:
    failed = (
        'ERROR: An error occurred while performing the step: "Building kernel modules". '
        "See /var/log/nvidia-installer.log for details.\n"
        "ERROR: The nvidia kernel module was not created.\n"
    )
    assert first(failed).id == "kernel-module-missing"
    # A build that succeeded, then a module that does not load: Secure Boot's reading stays.
    loaded = (
        "Building kernel modules\n  : [##############################] 100%\n\n"
        "ERROR: Unable to load the kernel module 'nvidia.ko'.\n"
        "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"
    )
    assert first(loaded).id == "secure-boot-module"


def test_a_jaxlib_without_cuda_is_the_cpu_package() -> None:
    jax = (
        "I1025 08:07:07.369699 139768635004736 xla_bridge.py:357] Unable to initialize backend 'cuda': "
        "module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'\n"
        "W1025 08:07:07.371087 139768635004736 xla_bridge.py:364] No GPU/TPU found, falling back to CPU.\n"
    )
    assert first(jax).id == "cpu-only-wheel"
    # Another backend's failure to start is not the CPU package.
    other = jax.replace(
        "has no attribute 'GpuAllocatorConfig'", "CUDA_ERROR_NO_DEVICE: no CUDA-capable device"
    )
    assert not any(d.id == "cpu-only-wheel" for d in match_output(other))


def test_tensorflows_unnamed_cuinit_result_34_is_the_stub_library() -> None:
    line = "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (34)"
    assert [c.name for c in codes_in(line)] == ["CUDA_ERROR_STUB_LIBRARY"]
    # Other numbers printed so stay the catalogue rows' to read.
    assert codes_in(line.replace("(34)", "(303)")) == []
