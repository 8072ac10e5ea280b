"""ptxas refusing an instruction the target GPU lacks ("Feature '.bf16' requires .target sm_80 or
higher"), as JAX/XLA and Triton print it when they compile for the GPU they run on: the GPU is older
than that code (bfloat16 on a V100 or a T4), and the fix is a data type it has, never a driver.

Shapes from real reports: facebookresearch/chameleon#39 and ModelTC/LightLLM#1029 (V100, bfloat16).
"""

from __future__ import annotations

import json

from tests.doctor_first import english, first  # noqa: F401  (english: the autouse fixture)
from tests.test_doctor_cli import wizard
from wizard.doctor.diagnose import match_output

TRITON = (
    "ptxas /tmp/tmpjbxlnipm.ptx, line 468; error   : Feature 'cvt with .f32.bf16' requires .target sm_80 or higher\n"
    "ptxas /tmp/tmpjbxlnipm.ptx, line 472; error   : Feature '.bf16' requires .target sm_80 or higher\n"
    "ptxas fatal   : Ptx assembly aborted due to errors\n"
)


def _verdicts(text: str) -> set[str]:
    return {d.verdict for d in match_output(text)}


def test_a_bf16_instruction_on_a_v100_is_the_gpu_lacking_it() -> None:
    d = first("GPU: Tesla V100-SXM2-32GB\n" + TRITON)
    assert d.verdict == "gpu-lacks-feature"
    assert "V100" in d.why and "8.0" in d.why  # the GPU and what the instruction needs, both named
    assert "float16" in d.fix
    assert "driver" not in d.fix.lower()  # no driver adds an instruction to a GPU


def test_without_the_gpu_named_it_still_reads_the_target_from_ptxas() -> None:
    d = first(TRITON)
    assert d.verdict == "gpu-lacks-feature"
    assert "below 8.0" in d.why


def test_a_gpu_that_has_the_instruction_is_not_called_too_old() -> None:
    assert "gpu-lacks-feature" not in _verdicts("GPU: NVIDIA A100-SXM4-80GB\n" + TRITON)


def test_a_build_for_a_list_of_architectures_is_not_decided() -> None:
    # nvcc compiling a list (-gencode): the refused target may be the list's, not the GPU's.
    build = "nvcc -gencode arch=compute_70,code=sm_70 -gencode arch=compute_80,code=sm_80 -c k.cu\n"
    assert "gpu-lacks-feature" not in _verdicts(build + TRITON)


def test_an_architecture_specific_target_is_not_the_gpus_age() -> None:
    text = "ptxas error   : Instruction 'wgmma.mma_async' requires .target sm_90a\n"
    assert "gpu-lacks-feature" not in _verdicts(text)


def test_the_cli_says_it_in_chinese(tmp_path) -> None:
    log = tmp_path / "ptx.txt"
    log.write_text(TRITON, encoding="utf-8")
    proc = wizard(
        "doctor", "--profile", "ubuntu-22.04-2x-a100-server", "--log", str(log), "--json", "--lang", "zh"
    )
    data = json.loads(proc.stdout)
    found = data["diagnoses"] if isinstance(data, dict) else data
    d = next(d for d in found if d["origin"] == "output")
    assert d["title"] == "这块 GPU 没有程序代码用到的指令"
    assert "mixed_float16" in d["fix"]


def test_vllms_own_bfloat16_refusal_on_a_t4() -> None:
    # xming521/WeClone#85 (round 63's training side): vLLM's check, not ptxas.
    d = first(
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 "
        "GPU has compute capability 7.5. You can use float16 instead by explicitly setting the `dtype` flag in "
        "CLI, for example: --dtype=half.\n"
    )
    assert d.verdict == "gpu-lacks-feature"
    assert "Tesla T4 (7.5)" in d.why and "--dtype half" in d.fix


def test_pytorchs_autocast_refusal() -> None:
    d = first(
        "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.\n"
    )
    assert d.verdict == "gpu-lacks-feature"
