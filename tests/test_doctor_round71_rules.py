"""Rules written in stop 56 from the training sides of rounds 71-74 (each held-out third scored blind
first, never read), each checked against a near text where it must not answer; and the one command a
"not sure" names, asked of the text's own program."""

from __future__ import annotations

from pathlib import Path

from tests.doctor_first import english, first, first_cause  # noqa: F401  (english: the autouse fixture)
from wizard.doctor.diagnose import match_output

CORPUS = Path(__file__).parent / "doctor_corpus"


def test_cuda_46_retold_without_capable_is_a_gpu_held_or_in_an_exclusive_mode() -> None:
    # explosion/spaCy#5816: the person's copy of CUDA's 46, "-capable" dropped.
    text = "`spacy.require_gpu()`  returns true\nBut on using the nlp() method returns error.\n"
    d = first(text + "All cuda devices are busy or unavailable.\n")
    assert d.id == "gpu-busy" and "nvidia-smi -q -d COMPUTE" in d.fix
    # Said not to be so, or asked about: not 46.
    assert first_cause(text + "Not all CUDA devices are busy or unavailable here.\n") != "gpu-busy"
    assert first_cause(text + "Is it because all CUDA devices are busy or unavailable?\n") != "gpu-busy"


def test_julias_cuda_runtime_not_found_is_a_missing_cuda_library() -> None:
    # denizyuret/KUnet.jl#2 (CUDAapi.jl).
    text = "I get the following error:\n\nCUDA runtime API library cannot be found.\n"
    d = first(text)
    assert d.id == "missing-cudart" and "CUDA runtime API library cannot be found" in d.evidence
    # The driver's library not found is no missing runtime (the driver is what is absent).
    assert first_cause("CUDA driver library cannot be found.\n") != "missing-cudart"


def _unsure_fix(name: str) -> str:
    body = "".join(
        line
        for line in (CORPUS / name).read_text(encoding="utf-8").splitlines(keepends=True)
        if not line.startswith("# ")
    )
    found = match_output(body)
    note = next(d for d in found if d.id == "not-sure")
    assert not any(d.harmful for d in found), [d.id for d in found]
    return note.fix


def test_not_sure_asks_the_texts_own_program_whether_it_reaches_the_gpu() -> None:
    # A PyTorch traceback (ojh6404/deep_vision_ros#4): PyTorch's own check, not TensorFlow's import.
    fix = _unsure_fix("r41_driver_deepvisionros-docker-torch_B.txt")
    assert "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())" in fix
    assert "tensorflow" not in fix
    # A TensorFlow log: TensorFlow's list of GPUs.
    fix = _unsure_fix("r37_xla_rtx4090ptxas_a.txt")
    assert "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))" in fix
    # A text of neither (AUTOMATIC1111's launcher, no framework named): the driver and its GPUs.
    fix = _unsure_fix("r28_no-device_a1111-a5000-busy-bad-driver_1.txt")
    assert fix.rstrip().endswith("nvidia-smi") and "import" not in fix


def test_an_operation_refused_below_its_compute_capability_is_a_gpu_without_that_feature() -> None:
    # Round 72's training side: PyTorch's FP8 matrix multiply on an RTX 3050 (PyramidFlow), a 3090 Ti.
    said = (
        "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 "
        "or 8.9, or ROCm MI300+\n"
    )
    d = first("Hi, I use an RTX 3050 and the sampler still gives me the message:\n" + said)
    assert (d.id, d.verdict) == ("unsupported-cc", "gpu-lacks-feature")
    assert "torch._scaled_mm" in d.why and "8.9" in d.why and "RTX 3050 (8.6)" in d.why
    assert "FP8" in d.fix and "8.9" in d.fix
    # Its source is where such a refusal was seen, not ptxas' bfloat16 threads.
    assert "torch._scaled_mm" in d.seen_in and "bf16" not in d.seen_in
    # A GPU the text shows at or above the lower of the two capabilities has the feature: not this.
    assert all(x.verdict != "gpu-lacks-feature" for x in match_output("GPU: RTX 4090\n" + said))
    # A sentence ("this is only supported ..."), a warning, or an AMD GPU (ROCm's build prints the same
    # refusal, and an AMD GPU has no compute capability) is no GPU lacking the feature.
    k80 = "Tesla K80\nNote: this is only supported on devices with compute capability >= 7.0\n"
    warned = "UserWarning: flash_attn.ops is only supported on GPUs with compute capability of at least 8.0\n"
    amd = "GPU: AMD Radeon RX 7900 XTX (ROCm 6.1)\n" + said
    for text in (k80, warned, amd):
        assert all(x.verdict != "gpu-lacks-feature" for x in match_output(text)), text


def test_a_text_naming_both_programs_is_asked_by_the_one_whose_code_failed() -> None:
    torch_text = (CORPUS / "r41_driver_deepvisionros-docker-torch_B.txt").read_text(encoding="utf-8")
    body = "".join(line for line in torch_text.splitlines(keepends=True) if not line.startswith("# "))
    # A PyTorch traceback whose poster mentions TensorFlow: PyTorch's frames decide.
    fix = next(
        d for d in match_output("I moved from TensorFlow to PyTorch for this.\n" + body) if d.id == "not-sure"
    )
    assert "import torch" in fix.fix and "tensorflow" not in fix.fix
    # Both programs' own code in one log (a process that imported both): nvidia-smi, no import of
    # one that may not be the failing program.
    tf_line = (
        '  File "/usr/lib/python3/dist-packages/tensorflow/python/framework/ops.py", line 5, in <module>\n'
    )
    note = next(d for d in match_output(tf_line + body) if d.id == "not-sure")
    assert note.fix.rstrip().endswith("nvidia-smi") and "import" not in note.fix


def test_round73_rules_read_a_card_said_missing_a_mac_without_cuda_a_miners_dag_and_xformers() -> None:
    # jcjohnson/neural-style: CUDA's 35 where the poster says the machine has no CUDA card.
    said = "cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version\n"
    d = first(said + "I don't have a CUDA compatible video card.\n")
    assert (d.id, d.verdict) == ("no-nvidia-gpu", "no-nvidia-gpu-said")
    assert first_cause(said + "Do I have a CUDA compatible video card?\n") == "driver-too-old"
    # OpenTalker/SadTalker#425: PyTorch's is_available() said False on an Intel Mac with an AMD GPU.
    mac = (
        "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
        "False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device"
        "('cpu') to map your storages to the CPU.\n\ni use macos 13.4 intel with amd gpu. why it not use mps?\n"
    )
    assert first(mac).id == "macos"
    # A Mac named as where it works, or as where the program is not: the failing machine is another.
    for other in (
        "It works on macOS but not here on ubuntu.",
        "I'm not on macOS, this is a Linux server.",
        "Same code runs fine on my Mac Studio with mps.",
    ):
        assert (
            first_cause(mac.replace("i use macos 13.4 intel with amd gpu. why it not use mps?", other))
            != "macos"
        )
    # ethereum-mining/ethminer: the DAG of an epoch larger than the card.
    d = first("Epoch 436 requires 4.48 GB memory. Only 3.95 GB available on device.\n")
    assert d.id == "tensor-oom" and d.title == "The work needs more memory than this GPU has"
    assert first_cause("Epoch 436 requires 4.48 GB memory. 7.95 GB available on device.\n") == ""
    # Nerogar/OneTrainer#55: xFormers of CUDA 12.1 beside PyTorch of CUDA 11.8.
    xf = "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
    d = first(xf + "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu118)\n")
    assert d.id == "cuda-libs-mixed" and "xFormers" in d.title and "+cuXXX" in d.fix
    # The same CUDA on both sides is no CUDA mixed (another PyTorch release, the same CUDA).
    assert (
        first_cause(xf + "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.2+cu121)\n")
        != "cuda-libs-mixed"
    )


def test_round74_rules_read_xmrigs_driver_check_and_the_cudnn_wrappers_arch_mismatch() -> None:
    # xmrig/xmrig#3504: the CUDA plugin's own check of the driver.
    d = first(
        "Driver does not support CUDA 12.5 API! Update your nVidia driver!\n * CUDA disabled (no devices)\n"
    )
    assert d.id == "driver-too-old"
    # Its words are any program's, not TensorFlow's alone (a miner loaded these CUDA libraries).
    assert "the program loaded" in d.why
    # Asked about, it is no refusal.
    assert first_cause("Why does it say Driver does not support CUDA 12.5 API?\n") != "driver-too-old"
    # The libcudnn.py wrapper raises cuDNN's ARCH_MISMATCH as its own exception class.
    text = '  File "libcudnn.py", line 246, in cudnnCheckStatus\n    raise cudnnExceptions[status]\n'
    d = first(text + "libcudnn.cudnnStatusArchMismatch\n")
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old")
    # Another status of the same wrapper names another cause.
    assert all(x.verdict != "cover-too-old" for x in match_output(text + "libcudnn.cudnnStatusBadParam\n"))
