"""The doctor's rules from round 45's training side, each on a minimal text:

* A build made with a CUDA older than every CUDA that builds for the GPU's architecture (Paddle's note
  "CUDA Capability: 75, ... Runtime Version: 8.0" beside "invalid device function"): the GPU is newer
  than the build (architectures' first CUDA, by major).
* NVRTC refusing the GPU's architecture ("nvrtc: error: invalid value for --gpu-architecture") where the
  text shows the installed toolkit's CUDA and a GPU below that CUDA's compiler floor (nvcc_floor): too
  old for that CUDA. Without the toolkit's CUDA it is left open.
* Theano's "Could not find cudnn library (looked for v5[.1])": cuDNN not found.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts, toolkit_cuda

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first
PADDLE_NOTE = "W0107 device_context.cc:203] Please NOTE: device: 0, CUDA Capability: 75, Driver Version: 10.0, Runtime Version: {rt}\n"
INVALID = "RuntimeError: function_attributes(): after cudaFuncGetAttributes: invalid device function\n"


def test_a_build_of_a_cuda_older_than_the_gpu_s_architecture_is_too_old_for_the_gpu() -> None:
    old = "显卡：RTX2070 8G\n" + PADDLE_NOTE.format(rt="8.0") + INVALID
    assert read_facts(old).build_cuda == "8.0"
    d = first(old)
    assert d.id == "gpu-too-new" and "the first CUDA that builds code for Turing GPUs is 10.0" in d.why
    # A runtime of the GPU's own major decides nothing by itself: the build's list does.
    same = "显卡：RTX2070 8G\n" + PADDLE_NOTE.format(rt="10.0") + INVALID
    assert "the first CUDA that builds code" not in first(same).why


def test_nvrtc_refusing_the_architecture_below_the_toolkit_s_floor_is_too_old() -> None:
    text = (
        "I'm trying to install openmm with nvidia graphic card Quadro K2000. Have installed cuda 11.4.\n"
        "CUDA platform error: Error compiling program: nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
    )
    d = first(text)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old")
    assert "NVRTC" in d.why and "11.4" in d.why
    unknown = text.replace(" Have installed cuda 11.4.", "")
    # Its CUDA not shown: a GPU of 5.0 or newer is not decided by NVRTC's refusal alone; a Kepler one is
    # too old whatever the CUDA (stop 48: nothing since CUDA 9 builds or compiles for Fermi alone).
    assert first(unknown.replace("Quadro K2000", "GeForce GTX 1060")).verdict != "cover-too-old"
    assert first(unknown).verdict == "cover-too-old"
    assert toolkit_cuda("Cuda compilation tools, release 11.1, V11.1.105") == "11.1"
    assert toolkit_cuda("installed cuda 10.2 ... Cuda compilation tools, release 11.1") == ""  # two: none


def test_theano_s_missing_cudnn_library() -> None:
    text = "For some reason, I'm getting an error 'Could not find cudnn library (looked for v5[.1])'.\n"
    assert first(text).id == "missing-cudnn"
    assert not [d for d in match_output("cudnn library (looked for nothing)\n") if d.id == "missing-cudnn"]
