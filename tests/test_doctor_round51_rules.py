"""The doctor's rules from round 51's training side, each on a minimal text:

* nvcc's "Unsupported gpu architecture 'compute_XY'": the compiler older than the architecture
  (ptxas-too-old in a build's words), with the CUDA that knows every GPU of it, from the tables.
* xformers' operator checks "(too old)" / "(too new)": the side of the range the GPU is on, in its own
  words; both sides in one text decide nothing.
* Triton's floor ("only supports devices of CUDA Capability >= 7.0, but your device is ... 6.1").
* Two CUDA versions in one build, in PyTorch's, DeepSpeed's and PyG's words.
* "The GPU is already fully used" beside an out-of-memory error: memory held by other work.
* A misaligned address (716) and Blender's "Illegal address in CUDA queue": a crashed GPU program.
* (Round 52's training side) k2's build check "PyTorch is built with CUDA version: X / The current
  running CUDA version is: Y": two CUDA versions in one build.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


def test_nvcc_refusing_an_architecture_names_the_cuda_that_knows_it() -> None:
    text = "nvcc fatal   : Unsupported gpu architecture 'compute_120'\n"
    d = first(text)
    assert d.id == "ptxas-too-old" and "nvcc" in d.title
    assert "compute_120" in d.why and "CUDA 12.8" in d.why and "Blackwell" in d.why
    assert "nvcc --version" in d.fix
    pascal = first("nvcc fatal   : Unsupported gpu architecture 'compute_61'\n")
    assert "CUDA 8.0" in pascal.why and "Pascal" in pascal.why
    # An architecture the tables do not know keeps the row's own words, naming no CUDA.
    odd = first("nvcc fatal   : Unsupported gpu architecture 'compute_99'\n")
    assert odd.id == "ptxas-too-old" and "CUDA 1" not in odd.why


def test_xformers_says_which_side_of_its_range_the_gpu_is_on() -> None:
    new = (
        "`cutlassF-pt` is not supported because:\n"
        "    requires device with capability < (5, 0) but your GPU has capability (12, 0) (too new)\n"
    )
    assert first(new).id == "gpu-too-new"
    old = (
        "`flshattF@v2.5.6` is not supported because:\n"
        "requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)\n"
    )
    d = first(old)
    assert d.verdict == "cover-too-old" and read_facts(old).build_minimum == "8.0"
    both = old + new.replace("(12, 0)", "(7, 5)")
    assert first(both).verdict not in ("cover-too-old",) and first(both).id != "gpu-too-new"


def test_triton_s_floor_is_too_old() -> None:
    text = (
        "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU "
        "compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, "
        "but your device is of CUDA capability 6.1\n"
    )
    facts = read_facts(text)
    assert facts.build_minimum == "7.0" and "6.1" in facts.compute_capabilities
    assert first(text).verdict == "cover-too-old"


def test_two_cuda_versions_in_one_build_in_the_programs_words() -> None:
    for text in (
        "The detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.3).\n",
        "Exception: >- DeepSpeed Op Builder: Installed CUDA version 9.1 does not match the version torch was "
        "compiled with 11.8, unable to compile cuda/cpp extensions without a matching cuda version.\n",
        "RuntimeError: Detected that PyTorch and torch_sparse were compiled with different CUDA versions. "
        "PyTorch has CUDA version 11.0 and torch_sparse has CUDA version 10.1.\n",
    ):
        assert first(text).id == "cuda-libs-mixed", text


def test_a_gpu_already_fully_used_beside_an_oom_is_memory_held() -> None:
    oom = "OOM when allocating tensor with shape[1032651776] and type uint8 on\n"
    text = (
        "Or else, is it possible to run medaka on the CPU? The GPU is already fully used for basecalling.\n"
    )
    assert first(text + oom).id == "memory-held"
    # Alone, or said as a question, or denied: the allocator's own reading stands.
    for said in ("", "Is the GPU already fully used?\n", "The GPU is not already fully used.\n"):
        assert first(said + oom).id == "tensor-oom", said


def test_a_misaligned_address_and_blenders_illegal_address_are_a_crashed_gpu_program() -> None:
    assert first("出现CUDA error: misaligned address错误\n").id == "cuda-illegal-address"
    blender = "`Illegal address in CUDA queue copy_from_device (integrator_shade_surface prefix_sum)`\n"
    assert first(blender).id == "cuda-illegal-address"


def test_k2_s_build_check_of_two_cuda_versions() -> None:
    text = "AssertionError: PyTorch is built with CUDA version: 11.3.\nThe current running CUDA version is: 11.4.120\n"
    assert first(text).id == "cuda-libs-mixed"
    # Its first line alone (the other version not shown) is not read as two versions.
    assert all(d.id != "cuda-libs-mixed" for d in match_output("PyTorch is built with CUDA version: 11.3.\n"))
