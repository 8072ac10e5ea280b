"""The doctor over tests/doctor_corpus/: real error texts copied from public issues, forums and docs.

Each file starts with '# source:' (where the text was seen), '# address:' (its canonical address),
'# family:' and one or more '# expect:' lines in ranked order ('harmless:<id>' for noise); '# lang:'
is optional; '# round:' names the collection round (default 1; round 2 is the fresh set collected
after the first held-out third had been scored and read). With one expect line the first diagnosis must be that id; with several (the mixed
sessions) the whole ranked list must be equal.

Two sets, split by a fixed rule on the address (see tests/doctor_corpus/README.md):
  * training, tests/doctor_corpus/*.txt: the texts the patterns were written against; 100% right
    for the rounds up to RULES_ROUND (a newer round's training texts are scored, not yet held);
  * held-out, tests/doctor_corpus/heldout/*.txt: never read while writing patterns. Only their
    aggregate is printed (counts, never a text, a file name or the families missed; the lead can
    list the expected id/family of each miss with DOCTOR_HELDOUT_MISSES=1), and CI holds it at
    >= 90% recognised with 0 wrong causes for the fresh round (FRESH_ROUND); a round read after
    its blind scoring is held at its own bar (BLIND_WRONG_CAUSES for round 1, READ_BARS).
Each score is printed for the whole set and for each round apart, with its Chinese texts apart too.

Scores, per set:
  recognised   a harmful text gets a harmful diagnosis from the text; a harmless one gets only
               harmless diagnoses, the expected one among them;
  right id     the first diagnosis is the expected id;
  wrong cause  the doctor names a cause that is not the expected one: the first diagnosis is a
               harmful cause (not a symptom row) with another id, or a harmless text is called
               harmful. A symptom ("TensorFlow lists no GPU") in place of the cause is incomplete,
               not wrong: it counts as recognised, not as a right id. So is an open verdict
               (wizard.doctor.reason.OPEN_VERDICTS: "too old or too new is not shown") where the
               label is one of the sides it leaves open: it names no side's fix, only the command
               that decides (counted wrong before r31's rules; both scores are in the note).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from wizard.doctor.catalogue import pattern, patterns
from wizard.doctor.diagnose import FINDING_TO_DIAGNOSIS, Diagnosis, recognised_in_output
from wizard.doctor.diagnose import match_output as doctor_match_output
from wizard.doctor.reason import OPEN_VERDICTS, REASONED_IDS, REFINES
from wizard.text import has, t


@cache
def _answer(text: str) -> tuple[Diagnosis, ...]:
    return tuple(doctor_match_output(text))


def match_output(text: str) -> list[Diagnosis]:
    """The doctor's answer to a text, worked out once per test process: the score tests, the
    per-text tests and the catalogue's coverage read the same 1,600 texts (a fresh list each call,
    so no test changes another's)."""
    return list(_answer(text))


CORPUS = Path(__file__).resolve().parent / "doctor_corpus"
HELDOUT = CORPUS / "heldout"
FILES = sorted(CORPUS.glob("*.txt"))
HELD = sorted(HELDOUT.glob("*.txt"))
HEADER_KEYS = ("source", "address", "family")
ADDRESS_KINDS = ("github:", "url:", "doc:", "seed:")
# '# note:' is a rule writer's one-line reason for a relabelled or amended training text (header, not text).
HEADER_LINE = re.compile(r"^# (source|address|family|expect|lang|round|note):(.*)$")
# The newest round the patterns were written against: training texts of this round and older must
# all be right; a newer round's training texts are only scored (raise this once rules cover them).
# 12 since r21m: rounds 11-12's training texts too (142: CTranslate2's out of memory, glibc's undefined
# symbol in a cuDNN library, pip 19.3+'s script, a driver upgrade that solved DNN initialisation, an
# entrypoint script's nvidia-smi; h2o-llmstudio#940 got its title's log line, nvidia-docker#1137's
# comment relabelled no-device, each with a note), NO_EVIDENCE unchanged (4).
# 14 since r21n: rounds 13-14's training texts too (round 14's were all right already; round 13's four:
# nvidia-smi's message retold in words after a kernel upgrade, Paddle 2.0's allocator message alone,
# XLA's newer warning of a ptxas older than CUDA 12.6.3, a container given no NVIDIA_VISIBLE_DEVICES
# that the CUDA runtime called an old driver), NO_EVIDENCE unchanged (4).
# 15 since r21o: round 15's training texts too (its 4 wrong causes: TensorFlow's Windows self-check's
# 'Could not find cuDNN 6.', JAX's 'Unable to load cuSPARSE' beside LD_LIBRARY_PATH, XLA's old-ptxas
# warning before ptxas refusing the GPU's CC; and its misses: libcuda.so.1 not found in the loader's
# or cuda-python's words, under a docker run without --gpus the container, a torch CPU build by
# default said in Chinese; electra#136 and bert4keras#508 relabelled gpu-too-new, each with a note),
# NO_EVIDENCE unchanged (4).
# 16 since r21p: round 16's training texts too (its 6 misses: PyTorch's '+cpu' wheel named beside a GPU
# asked for, a reply saying to install torch's GPU build, zlibwapi.dll said missing in words, an
# Ampere GPU beside a PyTorch built for CUDA 9-10 with or without cuDNN's EXECUTION_FAILED), no
# relabels, NO_EVIDENCE unchanged (4).
# 17 since the lead's round-17 read: round 17's training texts too (its one miss: a harmless text with
# both oneDNN's CPU line and NUMA's, wrapped mid-word as pasted, labelled both in order), no relabels
# of training labels but that amendment, NO_EVIDENCE unchanged (4).
# 18 since the lead's round-18 read: round 18's training texts too (its 3 misses: a NUMA note cut
# mid-word by a fixed-width paste, now read glued as well as spaced; a flask service started as 8
# processes on one GPU, memory-held as gunicorn's workers were; one relabel with its note: TensorFlow's
# failed allocation from the device beside the BFC allocator's line is tensor-oom, as tf52123),
# NO_EVIDENCE unchanged (4).
# 19 since the lead's round-19 read: round 19's training texts too (all 23 right blind; no rule
# written for them), NO_EVIDENCE unchanged (4).
# 20 since the lead's round-20 read: round 20's training texts too (its 7 misses: NVRM's lines that
# nouveau took the GPU, now the catalogue's nouveau for a log; the .run installer failing to build
# nvidia.ko for the running kernel; nvidia-docker 1.x's "driver 8.0 < image 9.0"; a driver named as
# the least one needed; LuisaRender's PTX newer than the driver; KDE's "NVIDIA kernel module not found"
# beside Secure Boot enabled; cuBLAS failing on an RTX 3090 that TensorFlow "does not support"), one
# training relabel with its note (mattshma/bigdata#133: nouveau, as its NVRM lines say), NO_EVIDENCE
# unchanged (4).
# 21 since i35 (issue 35): round 21's training texts too (its 5 misses, read after the blind score:
# CUDA's 802 "system not yet initialized" is the Fabric Manager, 46 "busy or unavailable" a GPU in an
# exclusive compute mode or held; both new catalogue ids, read from the codes' documented meanings in
# cuda.h / driver_types.h), no relabels, NO_EVIDENCE unchanged (4).
# 23 since i35d: rounds 22-23's training texts too (round 22's 27 were right after i35r22's setup facts
# and i35c's reasoning; round 23's two misses: nvidia-smi's Exclusive_Thread mode beside a failure, with
# no code, is gpu-busy (that mode lets one thread use the GPU, TensorFlow's runtime uses several); one
# relabel with its note: a harmless text whose oneDNN CPU-instructions line comes before its NUMA note
# is labelled both, in that order, as harmless lines rank by first appearance), NO_EVIDENCE unchanged (4).
# 24 since i35f: round 24's training texts too (scored blind before any rule: 30 texts, recognised 25,
# right first id 20, 1 wrong cause; after i35f: 30/30 recognised, 30 right, 0 wrong). Its misses, read
# as reasoning (wizard.doctor.stack_facts / stack_reason): an entry point missing from the driver's own
# libcuda.so.<version> is an old driver (Choose's cuda_for_driver names its CUDA), not mixed CUDA (the
# wrong cause); the Fabric Manager refusing a driver of another version, and a CUDA call's bare 802
# ("cudart init failure: 802"), are the Fabric Manager; CUDA's 999 after a suspend is cuInit failing;
# a GPU whose architecture came a CUDA major after its libraries' CUDA (architectures.toml ptxas_cuda)
# beside cuBLAS failing is too new; WSL 2 and a TCC row is wsl-tcc; PyTorch's "No CUDA GPUs are
# available" is cuInit finding none; out of memory on a GPU all but free before the run is the work's
# own. One training relabel with its note (grace9994/comosvc#6: cuinit-failed, as its CUDA_VISIBLE_DEVICES
# hiding the only GPU is that id's definition). Precision pass: a driver API entry point (cuX) undefined
# in any library is an old or stub libcuda, never mixed CUDA toolkits: not sure where libcuda's version is
# not shown, so round 4's tensorflow#23925 joins NO_EVIDENCE (5). After: training 1583 texts, 1580
# recognised, 1578 right, 2 wrong causes (both NO_EVIDENCE texts, answered as before i35f).
# Round 25's 31 training texts (i35g, read after the blind score): blind 28 recognised, 19 right, 9 wrong
# causes; after i35g's reasoning (gpu_names, the GPU alone, arch flags, own builds, a verdict beside the
# id, WSL2's nvidia-smi crash, macOS, a code span's wrap) 31/31 right, 0 wrong; no relabels.
# Round 26's 18 training texts (i35h, after the blind score): blind 13 recognised, 11 right, 2 wrong; after i35h 16, 16, 0.
# Round 27's 21 training texts (i35i, read after the blind score: 16 recognised, 15 right, 2 wrong causes):
# after i35i's reasoning from what a text says of its machine (wizard.doctor.host_facts / host_reason:
# a machine said to have no GPU, PyTorch's "found version" as the driver's CUDA judged by
# judge.cuda_floor, a WSL2 failure tied to a Windows driver release, a mismatch with neither version
# left open, Jupyter kernels sharing the GPU) 21/21 right, 0 wrong; no relabels. They are held through
# Round 28's 21 training texts (i35j, read after the blind score: 15 recognised, 15 right, 2 wrong causes):
# after i35j (a message read through Markdown bold and a comma typed for a library's dot; cuInit where
# the person wants CUDA off and no GPU is shown: harmless; lspci's NVIDIA row beside CUDA finding no
# device: no-device; Paddle's cuDNN warning with a pair PyTorch's own check refuses, no run shown after
# it; "DLL load failed" beside cuDNN's folder on %PATH% and its cuda\bin; 46 on native Windows, whose
# WDDM allows only the Default compute mode (nvml.h), with no mode or other work shown: not sure) 20
# recognised, 19 right, 0 wrong; no relabels. Not held: automatic1111/stable-diffusion-webui#2986 (46 on
# Windows, the thread's bad driver not in the text) is answered not sure with nvidia-smi, and
# robotology/himrep#25 (the runtime's no device, no GPU shown) gets the symptom cuinit-failed, not its
# no-device label.
# Round 29's 22 training texts (i35k, read after the blind score: 18 recognised, 17 right, 3 wrong causes):
# after i35k (a machine said to have no GPU, TF's template "GPU model and memory: None" too: NO_DEVICE in
# cuInit's line, libcuda and a libcudart beside TF's own cudart_stub hint are harmless; 35's words beside
# NVML failing to start with no driver version: not sure, nvidia-smi; deviceQuery's "cudaGetDeviceCount
# return 35" read as the code; PyTorch's "CUDA out of memory" alone: not sure) 20 recognised, 20 right,
# 0 wrong; no relabels. Not held (so 29 is not in RULES_ROUNDS_ALSO): paddlepaddle/fastdeploy#2390 (35
# beside NVML failing, labelled container-no-gpu, no container in the body) and zigangzhao-ai/
# zte_img_denoise#5 ("CUDA out of memory" alone, labelled tensor-oom) are answered not sure.
# RULES_ROUNDS_ALSO: RULES_ROUND cannot pass 26 while round 26's two misses (emgucv/emgucv#376: an
# OpenCV build's IsCompatible false on a GTX 950, which needs that build's GPU list; pytorch/pytorch#69202:
# a conda pytorch=1.9.0 + cudatoolkit=11.3 install that fell back to a CPU build, which needs the
# channel's build matrix) stay unanswered and NO_EVIDENCE is full.
RULES_ROUND = 25
RULES_ROUNDS_ALSO = (27,)  # newer rounds whose training texts are held right too (see above)
FRESH_ROUND = 74  # the newest round collected blind; the rounds below it were read (see READ_BARS)
# Training texts whose body holds no evidence of the cause their source names (it is in the issue's
# title or a reply the text leaves out): scored like every text, but not held right, since no honest
# rule names that cause from the body. Each says why; a test checks each is still in the corpus and
# still not right (a rule that gets one right must take it off), and the list stays this short.
NO_EVIDENCE: dict[str, str] = {
    "r6_memoryheld_sglang_h100_wrong_visible_devices_sglang465": (
        "the body is the issue's title, 'CUDA out of memory for H100 80GB ...': nothing in it says another "
        "process holds the memory (the source's resolution, a misspelled CUDA_VISIBLE_DEVICES, is not in the text)"
    ),
    "r8_arch_5090_ruinedfooocus251": (
        "the body is only 'no kernel image is available for execution on the device', with no GPU named: "
        "too old (unsupported-cc, the doctor's answer, whose text says both ways) and too new (the RTX 5090 "
        "of the issue's title) cannot be told apart from it"
    ),
    "cpu_only_cudart_stub_deepface739": (
        "the body is a server's start-up log: TensorFlow's cudart_stub INFO line and CPU notices, nothing that "
        "shows a GPU was expected (the source's 'despite cuda drivers being installed' is its title); the same "
        "lines from a CPU host (round 9's Hugging Face Spaces) are harmless, so the doctor calls them harmless"
    ),
    "r10_nvsmi_wsl2_container_not_in_path_nvdocker1482": (
        "the body is docker's 'exec: \"nvidia-smi\": executable file not found in $PATH' and a listing of the "
        "image: nothing in it says WSL2 (the source's cause, the toolkit mounting no nvidia-smi there in 2021); "
        "the same line from a container started without --gpus is container-no-gpu, the doctor's answer"
    ),
    "r4_symbols_cudevprimaryctx_tf112_1": (
        "the body is TensorFlow 1.12's 'libtensorflow_framework.so: undefined symbol: cuDevicePrimaryCtxGetState' "
        "beside CUDA 9.0: that is a driver API entry point, which only libcuda provides (the toolkit's libraries "
        "are cublas*, cudnn*, ...), so it shows an old driver's or a stub's libcuda, not the two CUDA toolkits "
        "mixed of its label; which libcuda was loaded is not in the text, so the doctor says not sure with "
        "the command that shows it (i35f's precision pass; the label is questioned in its report)"
    ),
    # CUDA's 803 alone (cudaErrorSystemDriverMismatch, "unsupported display driver / cuda driver
    # combination"): its header's meaning is a mismatch of the display driver and the CUDA driver, which
    # a driver updated without a reboot, a forward-compatibility libcuda in an image or a cuda-compat
    # package, and an old driver all give; the fix of each contradicts the others', so the doctor names
    # the code and the command that shows both sides (round 34's gpustack text, a host driver newer than
    # its image's libcuda, is the same code with the opposite fix).
    **{
        stem: "the body is CUDA's 803 with no driver version, libcuda version or platform beside it: the "
        "thread's fix was a newer driver, but the code is as much a driver updated without a reboot or an "
        "image's forward-compatibility libcuda on a newer host driver, so the doctor says not sure"
        for stem in (
            "a_driver_803_gtx1070_easydiffusion379",
            "a_driver_803_hoomd542",
            "a_zh_driver_803_docker_mobilenetyolo266",
        )
    },
}
MAX_NO_EVIDENCE = 8  # 5, then 8 with the three 803 texts (i36a)


def held_out(address: str) -> bool:
    """The fixed rule (CORPUS_RULES.md), decided before any new pattern was written."""
    return int(hashlib.sha256(address.encode("utf-8")).hexdigest(), 16) % 3 == 0


@dataclass
class Case:
    source: str
    address: str
    family: str
    lang: str
    expect: list[str]  # as written: "id" or "harmless:id"
    body: str
    round: int = 1  # the collection round ('# round:'); 0 when the header's value is not a number

    @property
    def ids(self) -> list[str]:
        return [e.removeprefix("harmless:") for e in self.expect]

    @property
    def harmless(self) -> bool:
        return self.expect[0].startswith("harmless:")


def parse(path: Path) -> Case:
    head: dict[str, str] = {}
    expect: list[str] = []
    body: list[str] = []
    in_header = True
    for line in path.read_text(encoding="utf-8").splitlines():
        field = HEADER_LINE.match(line) if in_header else None
        if field:  # a text may itself start with "#" ("## docker: Error ..."): only "# key: value" is header
            key, value = field.group(1), field.group(2).strip()
            if key == "expect":
                expect.append(value)
            else:
                head.setdefault(key, value)
            continue
        in_header = False
        body.append(line)
    return Case(
        head.get("source", ""),
        head.get("address", ""),
        head.get("family", ""),
        head.get("lang", "en"),
        expect,
        "\n".join(body),
        _round(head.get("round", "1")),
    )


def _round(value: str) -> int:
    return int(value) if value.isascii() and value.isdigit() else 0


@dataclass
class Score:
    total: int = 0
    harmless: int = 0
    recognised: int = 0
    right: int = 0
    wrong_cause: int = 0
    harmless_labelled: int = 0  # harmless texts the doctor labels harmless (and nothing harmful)
    misses: Counter[str] | None = None  # "expected id (family) -> got" for the texts not right

    def pct(self, n: int) -> str:
        return f"{100 * n / self.total:.1f}%" if self.total else "n/a"

    def line(self, name: str) -> str:
        return (
            f"{name}: {self.total} texts ({self.harmless} harmless), recognised {self.recognised} "
            f"({self.pct(self.recognised)}), right first id {self.right} ({self.pct(self.right)}), "
            f"wrong causes {self.wrong_cause}; harmless labelled harmless {self.harmless_labelled}/{self.harmless}"
        )


def says(d: Diagnosis, want: str) -> bool:
    """The diagnosis names `want`: its id, or the reasoning's verdict it carries (cover-too-old is an
    unsupported-cc the facts decided too old: a label may name either), or the words of a catalogue row
    that tells its id in another program's terms (`texts`: cpu-only-wheel-torch is cpu-only-wheel in
    PyTorch's words), shown by their title."""
    if want in (d.id, d.verdict) or REFINES.get(d.verdict) == want:
        return True  # its id, its verdict, or a verdict that names the label's cause more narrowly
    return want in _ROW_TEXTS.get(d.id, ()) and d.title == _title(want)


def _told(section: str) -> bool:
    """A diagnosis told in its own words (a row's or a decision's `texts`: cpu-only-wheel-torch,
    no-nvidia-gpu-said): a label may name them, as a person reads the title."""
    return has(f"doctor.{section}.title")


@cache
def _title(section: str) -> str:
    return t(f"doctor.{section}.title")


# The `texts` each catalogue id is told in by some of its rows (the row's id -> those sections).
_ROW_TEXTS: dict[str, frozenset[str]] = {
    i: frozenset(p.texts for p in patterns() if p.id == i and p.texts) for i in {p.id for p in patterns()}
}


def judge(case: Case, found: list[Diagnosis]) -> tuple[bool, bool, bool]:
    """(recognised, right first id, wrong cause) for one text."""
    right = bool(found) and says(found[0], case.ids[0])
    if case.harmless:
        recognised = bool(found) and not recognised_in_output(found) and case.ids[0] in {d.id for d in found}
        return recognised, right and recognised, recognised_in_output(found)
    recognised = recognised_in_output(found)
    first = next((d for d in found if d.harmful), None)
    row = pattern(first.id) if first is not None else None
    # A cause the reasoning decided (wizard.doctor.reasoned: cover-too-old, driver-mismatch-one-side,
    # ...) has no catalogue row: it is a cause all the same, and counts wrong where it is not the label.
    wrong = first is not None and not says(first, case.ids[0]) and (row is None or not row.symptom)
    # An open verdict ("too old or too new is not shown", "which side is newer is not shown") names
    # neither side's fix, only the command that decides: "not sure" for the causes it leaves open.
    wrong = wrong and case.ids[0] not in OPEN_VERDICTS.get(first.verdict if first else "", ())
    # A verdict wider than the label's narrower one (the GPU too old for the build, where the label says
    # it lacks one instruction the code uses) names the same failure: not right, not a wrong cause.
    wrong = wrong and not (first is not None and REFINES.get(case.ids[0]) == first.verdict)
    return recognised, right, wrong


def score(files: list[Path]) -> Score:
    s = Score(misses=Counter())
    assert s.misses is not None
    for path in files:
        case = parse(path)
        found = match_output(case.body)
        recognised, right, wrong = judge(case, found)
        s.total += 1
        s.harmless += case.harmless
        s.recognised += recognised
        s.right += right
        s.wrong_cause += wrong
        s.harmless_labelled += case.harmless and recognised
        if not right:
            got = found[0].id if found else "nothing"
            s.misses[f"{case.ids[0]} ({case.family}) -> {got}{' WRONG CAUSE' if wrong else ''}"] += 1
    return s


def of_round(files: list[Path], rnd: int, lang: str | None = None) -> list[Path]:
    """The files of one collection round (and one language, if given)."""
    cases = [(f, parse(f)) for f in files]
    return [f for f, c in cases if c.round == rnd and (lang is None or c.lang == lang)]


def round_lines(name: str, files: list[Path], rnd: int = FRESH_ROUND) -> list[str]:
    """The score of one round apart, and of its Chinese texts apart (counts only)."""
    return [
        score(of_round(files, rnd)).line(f"{name}, round {rnd}"),
        score(of_round(files, rnd, "zh")).line(f"{name}, round {rnd}, zh"),
    ]


# Training texts of the rounds the patterns were written against (all must be right).
TRAINED = [
    f
    for f in FILES
    if (parse(f).round <= RULES_ROUND or parse(f).round in RULES_ROUNDS_ALSO) and f.stem not in NO_EVIDENCE
]


# ---- the files themselves ---------------------------------------------------------------------


# A cause the doctor names from the machine (wizard.doctor.findings), not from a log: a label may name
# it where the thread settles it (LD_LIBRARY_PATH naming a stub folder); a log alone then is a miss.
MACHINE_IDS = frozenset(FINDING_TO_DIAGNOSIS.values())


def header_problems(path: Path) -> list[str]:
    """What is wrong with a file's header or its folder (never anything from its text)."""
    case = parse(path)
    out = [f"no '# {key}:' line" for key in HEADER_KEYS if not getattr(case, key)]
    if not case.expect:
        out.append("no '# expect:' line")
    if case.address != case.address.strip().lower() or not case.address.startswith(ADDRESS_KINDS):
        out.append("address not canonical (lowercase github:|url:|doc:|seed:)")
    if case.lang not in ("en", "zh"):
        out.append("lang is neither en nor zh")
    if case.round < 1:
        out.append("round is not a whole number >= 1")
    in_heldout = path.parent == HELDOUT
    if case.address and held_out(case.address) is not in_heldout:
        out.append(
            "held out by the address rule: belongs in heldout/"
            if not in_heldout
            else "belongs at the top level"
        )
    out += [
        f"expect names an id the catalogue does not have: {want}"
        for want in case.ids
        if pattern(want) is None and want not in REASONED_IDS and want not in MACHINE_IDS and not _told(want)
    ]
    for want in case.expect:
        # An id may have a harmless context row beside its harmful one (cuInit on a CPU-only node):
        # the prefix must fit one of the id's rows.
        rows = [p for p in patterns() if p.id == want.removeprefix("harmless:")]
        if rows and all(p.harmful is want.startswith("harmless:") for p in rows):
            out.append(f"'harmless:' prefix does not fit the catalogue's row: {want}")
    return out


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_training_text_has_its_header_and_lies_where_the_rule_puts_it(path: Path) -> None:
    assert header_problems(path) == []


def test_every_held_out_text_has_its_header_and_lies_where_the_rule_puts_it() -> None:
    # Counted, not named: the rule writer must not learn what the held-out texts are.
    problems = Counter(problem for path in HELD for problem in header_problems(path))
    assert problems == Counter(), dict(problems)


def test_the_corpus_is_big_and_varied() -> None:
    cases = [parse(f) for f in FILES]
    assert len(cases) >= 100
    sessions = [c for c in cases if c.family == "session"]
    assert all(len(c.expect) >= 2 for c in sessions)
    families = Counter(c.family for c in cases)
    assert len(families) >= 15, families
    assert sum(c.harmless for c in cases) >= 5  # noise-only texts too
    assert sum(c.lang == "zh" for c in cases) >= 5  # Chinese texts too


# ---- training: every text right ---------------------------------------------------------------


@pytest.mark.parametrize("path", TRAINED, ids=[f.stem for f in TRAINED])
def test_corpus_text_gets_the_expected_diagnosis(path: Path) -> None:
    case = parse(path)
    found = match_output(case.body)
    got = [d.id for d in found]
    assert got and says(found[0], case.ids[0]), f"{got} (expected first: {case.ids[0]})"
    if len(case.ids) > 1:
        assert got == case.ids
    for want, d in zip(case.expect, found[: len(case.expect)], strict=True):
        assert d.harmful is not want.startswith("harmless:"), d.id
        assert d.severity == ("harmless" if want.startswith("harmless:") else "error")
    first = found[0]
    # Each finding carries its evidence line (with its number), the cause, the fix and the source.
    assert first.line is not None and first.evidence and first.why and first.fix and first.seen_in
    evidence_line = case.body.splitlines()[first.line - 1].strip()
    assert evidence_line[:100] in first.evidence
    assert recognised_in_output(found) is not case.harmless


def test_training_score(capsys: pytest.CaptureFixture[str]) -> None:
    s = score(FILES)
    trained = score(TRAINED)
    with capsys.disabled():
        print("\n" + s.line("doctor corpus, training"))
        for line in round_lines("doctor corpus, training", FILES):
            print(line)
    # A round newer than RULES_ROUND is scored and printed, not held at 100%: no rule was written
    # against it yet, so its score is the rules' reach, not their memory.
    assert trained.right == trained.total and trained.wrong_cause == 0


def test_the_no_evidence_texts_are_few_listed_and_still_without_their_cause() -> None:
    # An exception list that could grow, or keep a text a rule now gets right, would weaken the bar.
    assert len(NO_EVIDENCE) <= MAX_NO_EVIDENCE
    stems = {f.stem: f for f in FILES}
    assert set(NO_EVIDENCE) <= set(stems), set(NO_EVIDENCE) - set(stems)
    for stem, why in NO_EVIDENCE.items():
        case = parse(stems[stem])
        assert case.round <= RULES_ROUND and why
        found = match_output(case.body)
        assert not (found and found[0].id == case.ids[0]), f"{stem} is right now: take it off NO_EVIDENCE"


# ---- held-out: the aggregate only -------------------------------------------------------------


# Round 1 (185 texts, scored blind once on 2026-12-01: 95.7% recognised, 94.1% right first id,
# 2 wrong causes) is no longer blind: after that score the lead read its 2 wrong-cause texts (a
# bare "nvidia-smi: command not found" said inside a container; WSL's "GPU access blocked by the
# operating system" on a Windows that gives WSL no GPU), and the rule writer (issue 21, round 2)
# read those two and fixed them by a general mechanism (context rows: a cue anywhere in the text),
# not by their lines. Round 1 was then scored twice as an aggregate: once by accident inside a
# batch of tests (only its pass under the old bar of 2 was seen), then with the rules of that
# moment (context and weak rows, the GPU check's codes, a few more rows): 177/185 recognised,
# 175 right first id, 1 wrong cause (both read texts right, one other text wrong, not looked at).
# After that run the
# rows most likely to name a wrong cause were taken back or narrowed (kernel-module format errors,
# libcuda as no-device, "Fail to find the dnn implementation", "CUDA error: out of memory"; the
# container and Blackwell cues narrowed to "said inside a container" and "this GPU's own
# capability") without another run, so the bar is what was measured, 1, never raised. Round 1
# guards against regressions now.
# Later the same day, after rounds 2 and 3's rules (rounds released and fixed as said below), round 1
# measured 177/185 recognised, 177 right first id, 0 wrong causes: held at 0 from then on.
BLIND_WRONG_CAUSES = 0


@dataclass(frozen=True)
class Bar:
    """What a read round's held-out texts are held at: counts measured after it was read."""

    recognised: int
    right: int
    wrong_causes: int


# Round 2 (62 texts) was scored blind, as aggregates, twice: 88.7% recognised, 77.4% right first
# id, 2 wrong causes with the rules of r21; 91.9% / 80.6% / 2 with r21b's. Then its 12 texts whose
# first id was not right were released and read (r21c), and the messages behind them fixed as
# general rows (ptxas older than TF requires, a GPU of compute capability 1.x/2.x, modprobe's own
# words, NVML after a driver upgrade, a Linux driver inside WSL said in words, CPU builds said in
# words). Measured after that: 61/62 recognised, 60 right first id, 0 wrong causes. It is read now,
# so this bar only guards regressions; the blind measure is the next fresh round.
ROUND2_BAR = Bar(recognised=61, right=60, wrong_causes=0)
# Every read round's bar (every round below FRESH_ROUND needs one; round 1's is the issue's share
# with BLIND_WRONG_CAUSES, see test_held_out_score). A round in here is held at its bar even while
# it is still FRESH_ROUND (round 2 now): making round 3 the fresh one is the one edit FRESH_ROUND = 3.
READ_BARS: dict[int, Bar] = {2: ROUND2_BAR}
# The fresh round, collected blind after the rounds before it were read: the issue's own bar.
FRESH_WRONG_CAUSES = 0
# Round 3 (120 texts, 37 held out) was collected after round 2 had been read, by an engineer who
# wrote no rule. Its held-out texts were never opened; they were scored twice, as aggregates only:
# blind, with the rules of that moment, 30/37 recognised (81.1%), 29 right first id (78.4%), 0 wrong
# causes; then, after rules were written against round 3's 83 training texts (82/83 right), 33/37
# (89.2%), 32 right (86.5%), 0 wrong causes. Held there since (its bar is in READ_BARS).
READ_BARS[3] = Bar(recognised=33, right=32, wrong_causes=0)
# Round 4 (101 texts, 33 held out), collected the same way after round 3's second look, scored once,
# blind: 29/33 recognised (87.9%), 24 right first id (72.7%), 2 wrong causes. Below the issue's
# bar (90%, 0 wrong causes) on both counts: CI holds what was measured, so nothing regresses, and
# prints that the issue's bar is not met. The next rule writer may read round 4's training texts,
# never its held-out ones; a fresh round 5 is the next blind measure.
# After rules were written against round 4's 68 training texts (r21e: all right, RULES_ROUND = 4),
# its held-out texts (never opened) were scored twice as aggregates: 31/33 recognised (93.9%), 27
# right first id (81.8%), 2 wrong causes, both times. Round 4 is not the fresh round any more: held
# at that (its held-out texts are still unread, but two rule rounds have been scored against them).
READ_BARS[4] = Bar(recognised=31, right=27, wrong_causes=2)
# Round 5 (144 texts, 49 held out, 16 zh; c21e), collected after round 4's training rules by an
# engineer who wrote no rule and never ran the doctor on them; new addresses only. Scored once, blind,
# with r21e's rules: 40/49 recognised (81.6%), 39 right first id (79.6%), 2 wrong causes; zh 4/4.
# Its 95 training texts at that moment: 86 (90.5%) / 81 / 3 wrong. Below the issue's bar again.
READ_BARS[5] = Bar(recognised=41, right=39, wrong_causes=2)  # after r21f's rules (never opened)
# After rules were written against round 5's 95 training texts (r21f: all right, RULES_ROUND = 5;
# two relabelled and one amended, '# note:' in each), its held-out texts (never opened) were scored
# twice as aggregates: 41/49 recognised, 39 right, 2 wrong causes (then 41/39/2 again); round 4 at
# 32/33, 28 right, 2 wrong. Round 5 is held at that now (the bar above), round 4 at its bar.
# Round 6 (156 texts, 53 held out, 22 zh; c21f), collected the same way while r21f wrote round 5's
# rules, new addresses only. Scored once, blind, with r21f's rules: 44/53 recognised (83.0%), 43
# right first id (81.1%), 1 wrong cause; zh 6/6. Its 103 training texts at that moment: 96 (93.2%)
# / 91 / 4 wrong. Fresh rounds so far, each blind once: 88.7%, 81.1%, 87.9%, 81.6%, 83.0%.
# Then the 25 held-out texts of rounds 4-6 whose first id was not right were released to the next
# rule writer (r21g), who fixed 23 as general rows (5 were wrong causes; 2 doubtful texts left):
# rounds 4-6 are read now, held at what was measured after that (regression guards).
READ_BARS[4] = Bar(recognised=33, right=33, wrong_causes=0)
READ_BARS[5] = Bar(recognised=48, right=48, wrong_causes=0)
READ_BARS[6] = Bar(recognised=52, right=52, wrong_causes=0)
# Round 7 (128 texts, 46 held out, 17 zh; c21g), collected while r21g wrote its rules; each text is a
# program's pasted output. Scored once, blind, with r21g's rules: 41/46 recognised (89.1%), 34 right
# first id (73.9%), 5 wrong causes; zh 5/5 (1 wrong). Its 82 training texts then: 75 (91.5%) / 65 /
# 6 wrong. More wrong causes than any round before, each a neighbouring cause (read after the
# score): a failed kernel launch called an illegal address (2), ptxas older than the GPU called an
# XLA ptxas problem, a GPU too new called an unsupported capability, Secure Boot called a missing
# kernel module. Below the issue's bar.
# Round 7's 12 held-out texts not right were then released to the next rule writer (r21h), who made
# the neighbouring pairs' decisions explicit (which program message means which cause; a prose cue
# never outranks a message) and kept the catalogue's meaning of CUDA_ERROR_LAUNCH_FAILED (a fault
# while a kernel runs: cuda-illegal-address; round 7's two texts labelled otherwise stay as they
# are). Measured after that: 43/46, 39 right, 3 wrong causes (those label conflicts). Held there.
READ_BARS[7] = Bar(recognised=43, right=39, wrong_causes=3)
# Round 8 (110 texts, 29 held out, 15 zh; c21h), collected while r21h wrote its rules, pasted program
# output only, new addresses only. Scored once, blind, with r21h's rules: 27/29 recognised (93.1%),
# 26 right first id (89.7%), 1 wrong cause; zh 5/6 (the 1 wrong). Its 81 training texts then: 80
# (98.8%) / 76 / 3 wrong. The first fresh round over 90% recognised; not yet 0 wrong causes.
# Round 8's 3 held-out texts not right were then released to the next rule writer (r21i), who fixed
# them as general rows (cuDNN's Windows error 127, TensorFlow's CHECK "(0 vs. 303)", a CUDA call out
# of memory beside a busy GPU in nvidia-smi), wrote round 8's training rules (RULES_ROUND = 8, with
# NO_EVIDENCE) and a precision pass (prose rows after a program's own cause; cuDNN's loader naming
# another library). Measured after that, once, as aggregates: round 8 29/29 recognised, 29 right,
# 0 wrong causes; the whole held-out third 477/494 recognised (96.6%), 471 right, 3 wrong causes
# (round 7's label conflicts); every read bar held. Round 8 is read now: held at that, a regression
# guard; the next fresh round (9) is the blind measure.
READ_BARS[8] = Bar(recognised=29, right=29, wrong_causes=0)
# Round 9 (160 texts, 55 held out, 17 zh; c21i), collected while r21i wrote its rules, pasted program
# output only, new addresses only. Scored once, blind, with r21i's rules: 51/55 recognised (92.7%),
# 48 right first id (87.3%), 4 wrong causes; zh 7/7. Its 105 training texts then: 97 (92.4%) / 89 /
# 4 wrong. Over 90% recognised again; still not 0 wrong causes.
FRESH_MEASURED = Bar(recognised=51, right=48, wrong_causes=4)
# Round 9's 7 held-out texts not right were then released to the next rule writer (r21j), who wrote
# round 9's training rules (RULES_ROUND = 9; 2 relabels, NO_EVIDENCE 5) and a precision pass: a
# consequence row ranks right after the root message the same text shows (`after` in patterns.toml:
# conv-algo after the cuDNN handle, the CUDA runtime after cuInit, cuDNN's loader line after what it
# names, "no kernel image" after its why), and cudart_stub's INFO line is harmless unless the text
# asks for GPUs. Measured after that, once, as aggregates: round 9 55/55 recognised, 54 right, 1
# wrong cause (a PyTorch OOM labelled memory-held; the doctor keeps tensor-oom, see NO_EVIDENCE's
# r9_held_torch_resmasking15); the whole third 532/549 recognised (96.9%), 522 right, 4 wrong causes
# (round 7's 3 label conflicts and that one); every read bar held. Rounds 1-8: 477 recognised and 3
# wrong causes as before, 468 right (3 fewer than r21i's 471, all in round 1, which has no right bar;
# each still recognised, none a wrong cause: not chased). Round 9 is read now: held at that.
READ_BARS[9] = Bar(recognised=55, right=54, wrong_causes=1)
# Round 10 (124 texts, 46 held out, 10 harmless, 11 zh; c21j), collected while r21j wrote its
# rules, pasted program output only, new addresses only. Scored once, blind, with r21j's rules:
# 37/46 recognised (80.4%), 34 right first id (73.9%), 3 wrong causes; zh 9/11. Its 78 training
# texts then: 63 (80.8%) / 59 / 4 wrong. Below the issue's bar: round 10 reached families and
# phrasings the rules had not met (older CUDA 8-10 libraries, PTX rejected by old drivers).
FRESH_MEASURED = Bar(recognised=37, right=34, wrong_causes=3)
# Round 10's 12 held-out texts not right were then released to the next rule writer (r21k), who wrote
# round 10's training rules (RULES_ROUND = 10; 3 relabels, NO_EVIDENCE 5) and fixed the released
# misses as general rows: a line holding several TensorFlow log records (a hosted app's log page)
# read record by record, Paddle's arch check both ways, TensorFlow's listing of an 8.x GPU beside a
# CUDA 9/10 runtime, CUDA_ERROR_INVALID_PTX with no newer GPU named as PTX newer than the driver, the
# 12.x slow-start warning harmless unless a launch fails after it, JAX's CUDA library version
# checks, NVML's RM mismatch code, out of memory while CUDA initialises as memory held, TensorFlow's
# module CHECK. Measured after that, once, as aggregates: round 10 45/46 recognised (97.8%), 43 right,
# 1 wrong cause (a Paddle allocator OOM labelled memory-held; the doctor keeps tensor-oom: its text
# shows no other process, Paddle's own advice names both); zh 11/11, 10 right. The whole third
# 577/595 (97.0%), 564 right, 5 wrong causes; rounds 1-8 as before (477, 468 right, 3 wrong); round 9
# 55/55, 53 right, 1 wrong: one text fewer right than its bar (still recognised, not a wrong cause).
READ_BARS[10] = Bar(recognised=45, right=43, wrong_causes=1)
# The lead read that one round 9 text (read already): a hosted app's log glued on one line, whose
# first record is cudart_stub's harmless "Could not find cuda drivers" and whose next are cuFFT/cuDNN
# factory lines; read record by record, the harmless messages rank by where each appears, as in any
# other log, so the stub hint comes first where the label names the factory line. Both harmless,
# nothing harmful named: round 9's right bar is one lower, by that text.
READ_BARS[9] = Bar(recognised=55, right=53, wrong_causes=1)
# Round 11 (132 texts, 38 held out, 7 harmless, 5 zh; c21k), collected while r21k wrote its
# rules, pasted program output only, new addresses only. Scored once, blind, with r21k's rules:
# 31/38 recognised (81.6%), 31 right first id (81.6%), 0 wrong causes; zh 4/5. Its 94 training
# texts then: 84 (89.4%) / 80 / 4 wrong. The first fresh round with 0 wrong causes; 7 texts missed
# (the doctor said nothing, or only harmless words), so still below 90% recognised.
FRESH_MEASURED = Bar(recognised=31, right=31, wrong_causes=0)
# Round 11's 7 held-out texts not right were then released to the next rule writer (r21l), who fixed
# them as general rows (MXNet's cudaMalloc out of memory, ONNX Runtime's CUDA provider DLL not loading
# with error 126 or naming the missing DLL, a slow first CUDA call as PTX JIT, the other tf.config
# calls on gpus[0]) and round 11's 4 training wrong causes (error 35 inside a GPU image run without
# GPU access, modprobe's "Function not implemented" outside WSL, Paddle's 0 B free with nothing
# allocated); 93 of round 11's 94 training texts right, RULES_ROUND left at 10 (the one left, h2oai/
# h2o-llmstudio#940, holds only a healthy host nvidia-smi, and NO_EVIDENCE is full). Measured after
# that, once, as aggregates: round 11 38/38 recognised, 38 right, 0 wrong causes; zh 5/5. The whole
# third 615/633 (97.2%), 602 right, 5 wrong causes; rounds 1-10 as before (every read bar held).
READ_BARS[11] = Bar(recognised=38, right=38, wrong_causes=0)
# Round 12 (67 texts, 19 held out, 1 harmless, 6 zh; c21l), collected while r21l wrote its rules,
# pasted program output only, new addresses only (the collector found the usual sources nearly
# used up). Scored once, blind, with r21l's rules: 18/19 recognised (94.7%), 18 right first id,
# 0 wrong causes; zh 6/6. Its 48 training texts then: 43 (89.6%) / 42 / 1 wrong. The first fresh
# round at the issue's bar (>= 90% recognised, 0 wrong causes), on a small round.
FRESH_MEASURED = Bar(recognised=18, right=18, wrong_causes=0)
# Stop 26, the lead's review of the whole third's 5 wrong causes (all in read rounds): three labels
# were another id's definition (round 7: CUDA_ERROR_LAUNCH_FAILED during training is a crashed kernel,
# cuda-illegal-address, as 27 other texts are labelled, not a kernel never loaded; ptxas 9.1 "known
# to miscompile" is xla-ptxas-problem, as 5 other texts are); each says why in a `note:` line. Two
# were rules: PyTorch's OOM figures (wizard/doctor/figures.py: most of the GPU neither free nor
# PyTorch's is held elsewhere, memory-held; two training texts relabelled by the same figures) and
# a server's several workers on one GPU (round 10's PaddleOCR text, whose poster's own lines the
# collector had left out, restored). Whole third after: 633/652 recognised (97.1%), 625 right, 0
# wrong causes; held there, and the read rounds at their new counts.
READ_BARS[7] = Bar(recognised=43, right=42, wrong_causes=0)
READ_BARS[8] = Bar(recognised=29, right=29, wrong_causes=0)
READ_BARS[9] = Bar(recognised=55, right=54, wrong_causes=0)
READ_BARS[10] = Bar(recognised=45, right=44, wrong_causes=0)
HELD_OUT_WRONG_CAUSES = 0  # the whole third, every round
# Round 12 read (r21m wrote rules for its training texts, RULES_ROUND 12): held at 19/19 since.
READ_BARS[12] = Bar(recognised=19, right=19, wrong_causes=0)
# Round 13 (60 texts, 19 held out, 0 harmless held out, 3 zh; c21m), collected from sources the
# corpus had not used (CTranslate2, ONNX Runtime, Paddle, ComfyUI, vLLM/sglang, JAX, containers,
# RTX 50xx under older PyTorch) while r21m wrote rounds 11-12's rules. Scored once, blind, with
# r21m's rules and the lead's figures rows: 18/19 recognised (94.7%), 17 right first id, 1 wrong
# cause (a zh text); zh 3/3 recognised, 2 right. Training then: 37/41 (90.2%), 36 right, 1 wrong.
FRESH_MEASURED = Bar(recognised=18, right=17, wrong_causes=1)
# Then its 2 misses were released to the lead and fixed as general rows (PyTorch's short
# "torch.OutOfMemoryError: Allocation on device"; memory an earlier task did not release, said in
# words, and Paddle's own OOM message in memory-held's prose row): 19/19, 0 wrong causes; the whole
# third 654/671 (97.5%), 646 right, 0 wrong causes. Round 13 is read now: held at 19/19.
READ_BARS[13] = Bar(recognised=19, right=19, wrong_causes=0)
# Round 14 (45 texts, 18 held out, 5 harmless all in training, 18 zh; c21n), collected from sources
# not used before (mmcv/mmdetection, GPT-SoVITS, CosyVoice, Langchain-Chatchat, LlamaFactory, numba,
# bitsandbytes, tfjs, d2l, repository notes), new addresses only. Scored once, blind, with the rules
# of stop 26 and the cue index: 16/18 recognised (88.9%), 16 right first id, 0 wrong causes; zh 5/5.
# Training then: 27/27 recognised, 26 right, 1 wrong (zh). The whole third 670/689 (97.2%), 662 right,
# 0 wrong causes.
FRESH_MEASURED = Bar(recognised=16, right=16, wrong_causes=0)
# Then its 2 misses were released to the lead and fixed as general rows (PyTorch's "CUDA error: out
# of memory" raised in the backward pass is the work's own memory; ctypes' "OSError: libcuda.so: cannot
# open shared object file" is no driver reachable), with one training wrong cause (a build of one's
# own whose nvcc -gencode list left the GPU out is unsupported-cc, not a GPU newer than a wheel):
# 18/18, 0 wrong causes; the whole third 672/689 (97.5%), 664 right, 0 wrong causes. Held at 18/18.
READ_BARS[14] = Bar(recognised=18, right=18, wrong_causes=0)
# Round 15 (44 texts, 14 held out, 5 harmless all in training, 12 zh; c21o), collected from sources
# not used before (llama.cpp and other inference runtimes, ColabFold/localcolabfold, RAPIDS, Colab,
# rstudio/keras, Chinese project issues and notes repositories), new addresses only, while r21n wrote
# rounds 13-14's training rules (RULES_ROUND 14). Scored once, blind, with those rules: 11/14
# recognised (78.6%), 10 right first id, 1 wrong cause; zh 3/3. Training then: 28/30 recognised, 22
# right, 3 wrong. The whole third 683/703 (97.2%), 674 right, 1 wrong cause. Below the issue's bar:
# containers whose own log shows no libcuda (no --gpus), RAPIDS/cuda-python's dlopen of libcuda in
# WSL, and TensorFlow 1.x's cuBLAS failure on a GPU newer than its CUDA were not met before.
FRESH_MEASURED = Bar(recognised=11, right=10, wrong_causes=1)
# Then its 4 held-out texts not right were released to the next rule writer (r21o) and fixed as general
# rows: nvidia-smi not found beside nvidia-smi's own table and a docker run --gpus is a container started
# without GPUs (the wrong cause); libcuda.so.1 not found in glibc's or cuda-python's words is no driver
# reached; TensorFlow's RNN op's "Fail to find the dnn implementation" is dnn-library-not-found. One
# stays recognised as a symptom (a loader's libcuda.so.1 not found, no container in the text): 14/14
# recognised, 13 right, 0 wrong causes; the whole third 686/703 (97.6%), 677 right, 0 wrong causes.
READ_BARS[15] = Bar(recognised=14, right=13, wrong_causes=0)
# Round 16 (37 texts, 15 held out, 3 harmless, 10 zh; c21p), collected from sources the corpus had
# used little or never (tensorflow/probability, cupy, dl-docker, multinerf, FastDeploy, PaddleSeg,
# PaddleX, darknet, YOLO apps, Chinese project issues), new addresses only, while nobody wrote rules
# (RULES_ROUND 15). Scored once, blind: 11/15 recognised (73.3%), 10 right first id, 0 wrong causes;
# zh 2/3. Training then: 18/22 recognised (81.8%), 16 right, 0 wrong. The whole third 697/718 (97.1%),
# 687 right, 0 wrong causes. Below the issue's bar: torch 0.x/1.x builds before CUDA 11 failing in
# cuDNN on an RTX 3090, CPU-only torch under YOLO apps, cuDNN 4 wanted beside cuDNN 5, cupy with the
# laptop's NVIDIA GPU switched off, and a cuBLASLt symbol at link time were not met before.
FRESH_MEASURED = Bar(recognised=11, right=10, wrong_causes=0)
# Then its 5 held-out texts not right were released to the next rule writer (r21p) and fixed as
# general rows, with round 16's 6 training misses (RULES_ROUND 16, no relabels): a torch build older
# than CUDA 11 beside an RTX 3090 is gpu-too-new (CUDNN_STATUS_EXECUTION_FAILED alone stays a symptom),
# the Lua torch bindings' "libcudnn (R4) not found" and zlibwapi.dll missing are missing-cudnn, GNU
# ld's undefined reference to a CUDA library's versioned symbol is cuda-libs-mixed, no CUDA device
# with the NVIDIA GPU switched off (prime-select, 禁用独显) is no-device, a "+cpu" torch where a GPU was
# asked for is cpu-only-wheel. Measured after that, once, as aggregates: round 16 15/15 recognised,
# 15 right, 0 wrong causes; zh 3/3; the whole third 701/718 (97.6%), 692 right, 0 wrong causes.
READ_BARS[16] = Bar(recognised=15, right=15, wrong_causes=0)
# Round 17 (40 texts, 14 held out, 3 harmless, 16 zh; c21q from stored web pages, mostly Chinese:
# CSDN, gists, pastebin, vendor FAQs; c21r from GitHub issues of 20 repositories, 16 never used),
# new addresses only, while nobody wrote rules (RULES_ROUND 16). Scored once, blind: 13/14
# recognised (92.9%), 12 right first id, 1 wrong cause; zh 7/8. Training then: 25/26 recognised,
# 25 right, 0 wrong; the whole third 714/732 (97.5%), 704 right, 1 wrong cause. Not met before: a
# Python too new for every TensorFlow in pip's list of versions, said in Chinese or beside the old
# tensorflow-gpu names (read as the removed package).
FRESH_MEASURED = Bar(recognised=13, right=12, wrong_causes=1)
# Then its 2 held-out texts not right were released to the lead and read (copies in the lead's
# released17): a TensorFlow requirement glued to its version ("tensorflow1.14.0", the "==" lost) is
# python-unsupported as with "=="; the wrong cause was a label, relabelled by the label review rule:
# tensorflow-gpu asked at an old version with pip finding none is the catalogue's
# tensorflow-gpu-removed, as litian96/fedprox#15 and qdata15 with the same words are labelled (its
# note). One training text amended (both its start-up notes labelled, NUMA's wrapped mid-word, now
# read). Measured after, once: round 17 14/14 recognised, 14 right, 0 wrong causes; zh 8/8; the whole
# third 715/732 (97.7%), 706 right, 0 wrong causes.
READ_BARS[17] = Bar(recognised=14, right=14, wrong_causes=0)
# Round 18 (50 texts, 18 held out, 5 harmless, 14 zh; c21s from stored web pages: CSDN, pastebin,
# gists, GitLab, Hugging Face discussions; c21t from GitHub issues of 21 repositories, 19 never used),
# new addresses only, while nobody wrote rules (RULES_ROUND 17). Scored once, blind: 18/18
# recognised (100%), 18 right first id, 0 wrong causes; zh 4/4. Training then: 30/32 recognised, 29
# right, 1 wrong cause; the whole third 733/750 (97.7%), 724 right, 0 wrong causes.
FRESH_MEASURED = Bar(recognised=18, right=18, wrong_causes=0)
# Nothing held out to release. Its 3 training misses were read by the lead and fixed as general rows
# (RULES_ROUND 18); measured after, once: round 18 still 18/18, 18 right, 0 wrong causes; the whole
# third 733/750 (97.7%), 724 right, 0 wrong causes. Held there.
READ_BARS[18] = Bar(recognised=18, right=18, wrong_causes=0)
# Round 19 (41 texts, 18 held out, 2 harmless, 6 zh; c21u from stored web pages: gists, Hugging Face
# discussions, pastebin, CSDN, juejin; c21v from GitHub issues of 18 repositories, 14 never used), new
# addresses only, while nobody wrote rules (RULES_ROUND 18). Scored once, blind: 18/18 recognised
# (100%), 16 right first id, 0 wrong causes; zh 1/1 recognised, 0 right. Training then: 23/23, 23
# right, 0 wrong; the whole third 751/768 (97.8%), 740 right, 0 wrong causes.
FRESH_MEASURED = Bar(recognised=18, right=16, wrong_causes=0)
# Then its 2 held-out texts whose first id was not right were released to the lead (released19) and
# read: a build's CUDA ("torch 1.8.1+cu111") on one line with a driver version below that CUDA
# major's floor (wizard/choose/driver_floors.py, the plan's table) is driver-too-old, a figures row;
# and one label reviewed (its note): nvidia-smi unable to reach the driver after apt's
# nvidia-cuda-toolkit, with no word of WSL or a Linux driver in the text, is no-device, as the 6
# training texts with the same words. Measured after, once: round 19 18/18, 18 right, 0 wrong
# causes; the whole third 751/768 (97.8%), 742 right, 0 wrong causes. Held there.
READ_BARS[19] = Bar(recognised=18, right=18, wrong_causes=0)
# Round 20 (37 texts, 12 held out, 4 harmless held out, 4 zh; c21w: 26 texts from GitHub issues of 18
# repositories, 6 never used; c21x: 11 from stored web pages: gists, pastebin, GitLab, a Huawei forum),
# new addresses only, while nobody wrote rules (RULES_ROUND 19). Two training texts were left out
# before scoring: their labels were findings of detect on a machine (macos, wsl1), not a log's words,
# and no log id fits them. Scored once, blind: 11/12 recognised (91.7%), 9 right first id, 0 wrong
# causes; zh 0/1. Training then: 22/25 recognised, 18 right, 1 wrong cause; the whole third 762/780
# (97.7%), 751 right, 0 wrong causes.
FRESH_MEASURED = Bar(recognised=11, right=9, wrong_causes=0)
# Then its 3 held-out texts not right were released to the lead (released20) and read. One rule:
# memory not released after the program was killed, or nvidia-smi showing memory used and no process,
# said in words (zh and en), is memory-held. One rule with a label review (its note): cuBLAS failing
# where the fix is a build for the GPU's architecture (cmake -DSM=86) is unsupported-cc, as the two
# nvcc -gencode texts are labelled. One label review (its note): a harmless text opening with absl's
# note before the NUMA notes is labelled both, in order, as the texts that open with absl's note are.
# Measured after, once: round 20 12/12 recognised, 12 right, 0 wrong causes; zh 1/1; the whole third
# 763/780 (97.8%), 754 right, 0 wrong causes. Held there.
READ_BARS[20] = Bar(recognised=12, right=12, wrong_causes=0)
# Round 21 (17 texts, 7 held out, 0 harmless, 0 zh; i35: GitHub issues of 15 repositories, every
# address new: CUDA's 802 and Fabric Manager, 46 and exclusive compute modes, 804 forward
# compatibility, NVRM's API mismatch with both versions), placed by the address rule before any rule
# was written, collected by the rule writer (no other collector this session). Scored once, blind:
# 7/7 recognised (100%), 2 right first id (28.6%), 0 wrong causes; training then 10/10, 5 right, 0
# wrong. Its training misses were then read and fixed (two catalogue ids from the codes' documented
# meanings, the reasoning of wizard.doctor.reason); its held-out texts were never opened.
FRESH_MEASURED = Bar(recognised=7, right=2, wrong_causes=0)
# Measured after, once, as aggregates: round 21 7/7 recognised, 7 right, 0 wrong causes. Held there.
READ_BARS[21] = Bar(recognised=7, right=7, wrong_causes=0)
# Round 22 (47 texts, 20 held out, 7 zh; collected blind by c35r22) scored once blind at main 5ef0b31:
# held out 17/20 recognised (85.0%), 14 right first id, 1 wrong cause; zh 2/2; training then 19/27,
# 18 right, 1 wrong. After rules from its training texts (i35r22) and i35c's reasoning: held out 17/20,
# 14 right, 1 wrong cause; training 27/27. Then its 6 held-out misses were released to i35d and read
# (general reasoning, no rule keyed to one text): the driver's libcuda not found inside a container of a
# GPU image that nothing gives a GPU is container-no-gpu, ahead of a cuDNN missing beside it (the wrong
# cause); a cuda* call's "Return value 46" is read as the runtime's code (46, busy or unavailable);
# "busy" retold by a person is 46's message; an A100 said to be partitioned is MIG; a person saying the
# scheduler's job got no GPU is the job's request; a WSL2 Windows driver below CUDA 11's WSL2 floor
# (Choose's table: the oldest CUDA WSL2 runs) beside a GPU WSL does not see is too old.
# Measured after, as aggregates: once after five of the six rules (19/20 recognised, 19 right, 0 wrong
# causes), then once after the sixth (46 retold): 20/20 recognised (100%), 20 right, 0 wrong causes;
# zh 2/2 (the test prints it on every run since; the readings made robust to a narrow or quoted paste
# after that, for round 22-23's training texts, left it there). Held there.
READ_BARS[22] = Bar(recognised=20, right=20, wrong_causes=0)
# Round 23 (34 texts, 12 held out, 5 harmless in training, 7 zh; c35r23, collected blind while
# i35c/i35r22/i34* wrote rules; one collector grep printed one earlier-round held-out label line, not
# round 23's): scored once blind with main's rules: held out 9/12 recognised (75.0%), 9 right first id,
# 0 wrong causes; zh 2/2; training 21/22, 20 right, 0 wrong. Its held-out texts are unread; below the
# issue's 90% bar, so held at what was measured (the test prints that the bar is not met).
FRESH_MEASURED = Bar(recognised=9, right=9, wrong_causes=0)  # round 23's, then 25's (below)
# Then its 3 held-out misses were released to i35e and read (general reasoning, no rule keyed to one
# text): a GPU in an exclusive compute mode (nvidia-smi's, or said in words) beside CUDA failing to
# create or bind a context is gpu-busy (cuda.h: one context at a time in that mode; the 101 it came
# back with has two meanings, the mode decides between them); a CHECK on a driver call's CUresult
# "(0 vs. 216)" is read as cuda.h's CUDA_ERROR_CONTEXT_ALREADY_IN_USE, whose documented meaning (a
# context bound to one thread; driver_types.h: an exclusive-thread device in use) is gpu-busy; WSL2
# beside a GPU said to run TCC only (no WDDM), with the GPU said not recognised, is wsl-tcc.
# Blind: 12 texts, recognised 9, right 9, wrong 0. Measured after, as aggregates: 12/12 recognised,
# 12 right first id, 0 wrong causes; the whole third 802/819 (97.9%), 793 right, 0 wrong causes (799,
# 790, 0 before); training 1551/1553 recognised, 1549 right (unchanged; the 2 wrong are NO_EVIDENCE's).
# Held there (FRESH_ROUND stays 23 until round 24 lands; the lead moves it).
READ_BARS[23] = Bar(recognised=12, right=12, wrong_causes=0)
# Round 24 (44 texts, 14 held out, 5 zh; c35r24, collected blind): scored once blind with main's rules
# (7576380): held out 12/14 recognised (85.7%), 12 right first id, 0 wrong causes; training 25/30, 20
# right, 1 wrong. Rules were then written from its 30 training texts only (i35f) and, without round 24,
# from round 23's release (i35e) and round 25's training texts (i35g); its held-out third was never
# given to a rule writer nor read by anyone. Scored again after each merge: 12/14, 12 right, 0 wrong
# each time. Below the issue's 90%: held at what was measured.
READ_BARS[24] = Bar(recognised=12, right=12, wrong_causes=0)
# Round 25 (45 texts, 14 held out, 1 harmless, 12 zh; c35r25, collected blind): scored once blind with
# main at a63f4ed: held out 14/14 recognised (100%), 12 right first id, 0 wrong causes (the issue's bar
# met on a set never seen); training 28/31 recognised, 19 right, 9 wrong causes (7 of them "no kernel
# image" answered too old where the GPU the text names loosely is newer, or the text does not decide).
# Rules from its 31 training texts only (i35g: GPUs as people write them, the coverage verdict carried
# beside the id, which the scorer counts since); held out after: 14/14, 12 right, 0 wrong (unread).
READ_BARS[25] = Bar(recognised=14, right=12, wrong_causes=0)
# Round 26 (30 texts, 12 held out, 1 harmless, 4 zh; c35r26, collected blind after every rule of this
# stop was merged, at fe9341d): scored once blind: held out 10/12 recognised (83.3%), 9 right first id,
# 0 wrong causes; training 13/18 recognised, 11 right, 2 wrong causes. Below the issue's 90%: held at
# what was measured (the test prints that the bar is not met). Round 25's held-out side stays at its bar.
FRESH_MEASURED = Bar(recognised=10, right=9, wrong_causes=0)
# Its held-out third was never given to a rule writer; held at what was measured.
READ_BARS[26] = Bar(recognised=10, right=9, wrong_causes=0)
# Round 27 (36 texts collected blind by c35r27 after every rule of stop 42; the lead removed one
# repeated address, six texts whose threads settle no cause and one unanswered one, and relabelled the
# CPU-only cuInit text harmless, before any scoring: 28 texts, 7 held out, 1 harmless, 4 zh): scored
# once blind at 9297181 (rules unchanged since stop 42): held out 4/7 recognised (57.1%), 2 right first
# id, 0 wrong causes; training 16/21 recognised, 15 right, 2 wrong causes. Far below the issue's 90%:
# held at what was measured (the test prints that the bar is not met).
FRESH_MEASURED = Bar(recognised=4, right=2, wrong_causes=0)
# After rules from its 21 training texts only (i35i), its held-out third (never read): 4/7, 2 right,
# 0 wrong, unchanged. Held there.
READ_BARS[27] = Bar(recognised=4, right=2, wrong_causes=0)
# Round 28 (34 texts, 13 held out, 2 harmless, 8 zh; c35r28, collected blind after i35i's rules were
# merged, only texts whose thread settles the cause): scored once blind at 660c5a9: held out 10/13
# recognised (76.9%), 10 right first id, 1 wrong cause (a cuInit failure labelled harmless, answered
# harmful); training 15/21 recognised, 15 right, 2 wrong causes. Below the issue's bar: held at what
# was measured, its one wrong cause counted (FRESH_MEASURED) and printed as not meeting the bar.
FRESH_MEASURED = Bar(recognised=10, right=10, wrong_causes=1)
# After rules from its 21 training texts only (i35j), its held-out third (never read): 10/13, 10 right,
# 1 wrong cause, unchanged. Held there.
READ_BARS[28] = Bar(recognised=10, right=10, wrong_causes=1)
# Round 29 (35 texts, 13 held out, 3 harmless, 7 zh; c35r29, collected blind while i35j wrote rules
# from round 28): scored once blind with i35i's rules: held out 9/13 recognised (69.2%), 7 right first
# id, 2 wrong causes (two "no kernel image" texts labelled cover-gap / cover-too-old answered
# unsupported-cc); training 18/22, 17 right, 3 wrong. Again after i35j's merge: the same. Unread.
FRESH_MEASURED = Bar(recognised=9, right=7, wrong_causes=2)
# The wrong causes measured on held-out thirds no rule writer has read (rounds 28 and 29): counted in
# the whole third's total, not hidden.
# After rules from round 29's 22 training texts only (i35k), its held-out third (never read): 9/13,
# 7 right, 2 wrong causes, unchanged. Held there.
READ_BARS[29] = Bar(recognised=9, right=7, wrong_causes=1)  # 2 before r31's judge
# Round 30 (21 texts, 10 held out, 4 zh; c35r30, collected blind while i35k wrote rules from round 29;
# scored once blind after i35k's merge, i.e. after every rule of stop 43): held out 8/10 recognised
# (80.0%), 5 right first id, 3 wrong causes (three "no kernel image" texts labelled cover-gap,
# cover-too-old and gpu-too-new answered unsupported-cc); training 10/11, 6 right, 4 wrong. Unread.
# Recounted (unread) under r31's judge, where an open verdict ("too old or too new is not shown") is
# "not sure" about the sides it leaves open, not wrong: round 28 10/13, 10 right, 1 wrong; round 29
# 9/13, 7 right, 1 wrong; round 30 8/10, 5 right, 0 wrong (its three were open verdicts).
READ_BARS[30] = Bar(recognised=8, right=5, wrong_causes=0)
# Round 31 (25 texts, 6 held out, 2 zh; c35r31, collected blind while the lead wrote stop 44's first
# rules: the open-verdict judge, a mismatch in a container beside a working nvidia-smi). Scored once
# blind after those: held out 5/6 recognised, 4 right, 1 wrong cause (a cover-too-old text answered
# unsupported-cc with no verdict); training 17/19, 12 right, 1 wrong (ollama: "your nvidia driver is
# too old or missing" read as a missing cudart). Then rules from its training side only (a driver
# library without a driver API function, a CPU-only install said in words, tiny-cuda-nn's "no
# compatible extension") and one general reading motivated by the held-out miss's ids alone (its text
# unread): a build's own words that the GPU is below its lowest compute capability (TensorFlow's
# "minimum required Cuda capability", "insufficient compute capability", PyTorch's "too old") decide
# cover-too-old. After them: held out 5/6, 5 right, 0 wrong; training 18/19, 14 right, 0 wrong. Unread.
READ_BARS[31] = Bar(recognised=5, right=5, wrong_causes=0)
# Round 32 (34 texts, 14 held out, 7 zh, 1 harmless; c35r32, collected blind while the lead wrote
# round 31's rules). Scored once blind after them: held out 12/14 recognised (85.7%), 6 right, 2 wrong
# causes (memory-held answered tensor-oom; no-nvidia-gpu answered driver-too-old); training 16/20, 14
# right, 0 wrong. Then rules from its training side only: PaddlePaddle's "Mismatched GPU
# Architecture" read as the build's code and the GPU's (coverage decides), an NGC container's "built
# for NVIDIA Driver Release N or later, but version M was detected", jaxlib's "Unknown backend gpu"
# with no CUDA plugin failing, nouveau's own probe line in the kernel log with no NVIDIA module loading.
# After them: held out 13/14, 7 right, 2 wrong (unread); training 20/20 recognised, 18 right, 0 wrong.
READ_BARS[32] = Bar(recognised=13, right=7, wrong_causes=2)
# Round 33 (40 texts, 18 held out, 7 zh, 3 harmless; c35r33, collected blind while the lead wrote round
# 32's rules). Scored once blind after them: held out 15/18 recognised (83.3%), 12 right, 1 wrong cause
# (a wsl-windows-driver text, doubtful label, answered gpu-busy); training 21/22, 15 right, 1 wrong
# (memory-held answered tensor-oom). Then rules from its training side only: PyTorch's "Tried to allocate
# R" with its own figures showing far more free than R is not a tensor too big (not sure); a library's
# floor said as an architecture ("FlashAttention only supports Ampere GPUs or newer") read as the
# build's lowest compute capability (a named GPU below it, or none named: too old); a container "image
# with GPU support" said in words is a GPU image. After them: held out 16/18, 13 right, 1 wrong
# (unread); training 21/22, 17 right, 0 wrong.
READ_BARS[33] = Bar(recognised=16, right=13, wrong_causes=1)
# Round 34 (23 texts, 6 held out, 6 zh; c35r34, collected blind while the lead wrote round 33's rules).
# Scored once blind after them: held out 5/6 recognised, 5 right, 0 wrong; training 12/17, 11 right, 1
# wrong (an 803 in a vLLM image on a 580 host, labelled one side, answered driver-too-old as 803 is in
# the older rounds). One rule from its training side: Paddle's loader "Can not find library: libcudnn.so"
# (and the CUDA libraries). After it: held out unchanged (unread); training 13/17, 12 right, 1 wrong.
READ_BARS[34] = Bar(recognised=5, right=5, wrong_causes=0)
# Round 35 (28 texts, 7 held out, 2 zh; c35r35, collected blind while the lead wrote round 34's rule and
# 35's words on a machine said to have no GPU). Scored once blind after every rule of stop 44: held out
# 6/7 recognised, 4 right, 0 wrong; training 18/21, 11 right, 1 wrong (nouveau, a doubtful label,
# answered kernel-module-missing). Unread. In stop 45, from its training side: nvidia-docker 1.x's
# "Could not load UVM kernel module" alone is a symptom (no cause named); with round 34's 803 text, CUDA's
# 803 alone is not sure. After them: held out unchanged; training 18/21, 11 right, 0 wrong.
READ_BARS[35] = Bar(recognised=6, right=4, wrong_causes=0)
# Round 36 (28 texts, 9 held out, 1 zh; c36, collected blind in stop 45 while the lead wrote round 35's
# and 34's 803 and UVM rules). Scored once blind after them: held out 8/9 recognised (88.9%), 6 right,
# 1 wrong; training 15/19, 13 right, 0 wrong. Unread. Then rules from its training side (an srun step
# asking for no GPU, WSL 1 said, the legacy-branch words as printed): held out unchanged; training
# 16/19 recognised, 16 right, 0 wrong.
READ_BARS[36] = Bar(recognised=8, right=6, wrong_causes=1)
# Round 37 (52 texts, 16 held out, 10 zh; c37 and c38, two collectors splitting the repositories by
# their owner's first letter, collected blind in stop 45 while the lead wrote round 36's rules). Scored
# once blind after them: held out 13/16 recognised (81.2%), 11 right, 1 wrong; training 25/36, 20
# right, 0 wrong. Unread. Then rules from its training side (NGC's "not yet supported in this version of
# the container", nvidia-installer's nouveau refusal, Paddle's check cut to its tail, PyTorch's figures
# line alone, another program said run on the same GPU, "No GPU found, use CPU", torch.__version__ said
# X+cpu, Docker asking for a GPU on a machine said to have none): held out unchanged; training 34/36
# recognised, 28 right, 0 wrong.
READ_BARS[37] = Bar(recognised=13, right=11, wrong_causes=1)
# Round 38 (55 texts, 14 held out, 12 zh; c39 and c40, split by owner as round 37, collected blind in
# stop 45 while the lead wrote round 37's rules). Scored once blind after them: held out 9/14 recognised
# (64.3%), 7 right, 1 wrong; training 34/41, 29 right, 1 wrong. Unread. Then from its training side:
# Paddle's arch warning as the build's list, a CUDA DLL said missing in Chinese, "my 5090" as that GPU,
# "CUDA out of memory" in Chinese prose (not sure), and one relabel with its note (Windows' error 127
# beside a cuDNN DLL is two cuDNN versions mixed, as PaddleDetection#8265): held out unchanged;
# training 36/41 recognised, 34 right, 0 wrong.
READ_BARS[38] = Bar(recognised=9, right=7, wrong_causes=1)
# Round 39 (39 texts, 10 held out, 6 zh; c41 and c42, split by owner, collected blind in stop 45 while
# the lead wrote round 38's rules; both ran out of search budget, so many texts are thin: prose
# findings, one-line titles, no raw log). Scored once blind after them: held out 6/10 recognised
# (60.0%), 5 right, 1 wrong; training 13/29, 10 right, 2 wrong. Unread. Then from its training side: a
# container flag said forgotten (container-no-gpu, before 35), memory said not released after a kill,
# the Fabric Manager said not running or mismatched, a driver said below a program's floor, and TF's OOM
# where the same program ran before (not sure), a build's floor refusal beside mixed GPUs: held out
# unchanged; training 16/29, 15 right, 0 wrong.
READ_BARS[39] = Bar(recognised=6, right=5, wrong_causes=1)
# Round 40 (52 texts, 17 held out, 11 zh; two collectors split by owner, collected blind in stop 46
# after every rule of stop 45). Scored once blind before any rule from it: held out 13/17 recognised
# (76.5%), 9 right, 4 wrong; training 24/35, 22 right, 1 wrong. Unread. Then from its training side:
# "no kernel image is available" cut before its tail, "RTX 50 series" as the GPU, PyTorch's and ONNX
# Runtime's CPU builds (in their own words), the legacy line as retyped, OpenCV's build without code
# for the device, and a PyTorch build's CUDA below whose compiler floor the GPU lies (nvcc_floor):
# training 28/35, 25 right, 1 wrong (the mlrun text, below). Held out after them (unread, aggregate):
# 13/17, 10 right, 3 wrong.
READ_BARS[40] = Bar(recognised=13, right=10, wrong_causes=3)
# Round 41 (40 texts, 13 held out, 7 zh; two collectors split by owner, collected blind in stop 46 while
# the lead wrote round 40's rules). Scored once blind after them (stop 45's 573addc scores the same):
# held out 11/13 recognised (84.6%), 8 right, 1 wrong; training 19/27, 16 right, 2 wrong. Unread. Then
# from its training side: RAPIDS' floor and PTX checks and a program's "kernel requires X capability"
# (the GPU below the build's floor), ONNX Runtime's CPU package's providers list beside a CUDA provider
# wanted, "cudaGetErrorString symbol not found" no longer read as an old driver; and CUDA's 35 beside a
# driver that runs the program's CUDA is not sure: training 22/27, 20 right, 1 wrong (a container's 35
# beside a 550 driver, the program's CUDA not shown). Held out unchanged.
READ_BARS[41] = Bar(recognised=11, right=8, wrong_causes=0)  # stop 49: 1 -> 0 (cuda-libs-open)
# Round 42 (56 texts, 17 held out, 11 zh; two collectors split by owner, collected blind in stop 46 while
# the lead wrote round 41's rules). Scored once blind after them: held out 12/17 recognised (70.6%), 8
# right, 3 wrong; training 32/39, 28 right, 0 wrong. Unread. Then from its training side: GeForce series
# as GPUs ("RTX50", "RTX 40xx": the table's rows of the series), cuDNN said too old in Chinese, a compose
# service without a device reservation, Omniverse's driver range from 0: training 35/39, 32 right, 0
# wrong. (A rule for cuDNN's "Please make sure ... is in your library path!" was tried and dropped: two
# older training texts print it where libcuda, not cuDNN, was missing.) Held out unchanged.
READ_BARS[42] = Bar(recognised=12, right=8, wrong_causes=2)  # stop 49: 3 -> 2 (cuda-libs-open)
# Round 43 (24 texts, 3 held out, 7 zh; two collectors split by owner, collected blind in stop 46 while
# the lead wrote round 42's rules; both ran out of search budget, so it is small). Scored once blind
# after them: held out 2/3 recognised, 2 right, 0 wrong; training 15/21, 10 right, 2 wrong. Unread.
# Then from its training side: PyTorch 2.x's own capability range beside the GPU it found (below: too
# old, above: too new), a GeForce number before its brand ("5090 RTX"), darknet's bare out-of-memory
# line naming the work's size only where the text shows it (else not sure): training 14/21, 12 right,
# 0 wrong. Held out unchanged.
READ_BARS[43] = Bar(recognised=2, right=2, wrong_causes=0)
# Round 44 (41 texts, 14 held out, 5 zh; three collectors split by owner (a-m; n-z twice), collected
# blind in stop 47 after every rule of stop 46). Scored once blind before any rule from it: held out
# 11/14 recognised (78.6%), 7 right, 2 wrong; training 19/27, 10 right, 2 wrong. Unread. Then from its
# training side: "no kernel image" beside two named GPUs of different capabilities, one older than 8.0,
# is open (which one ran is not shown); PyTorch's "Found no NVIDIA driver" on a machine said to have no
# GPU is no NVIDIA GPU (a statement before a question's comma counts); both ONNX Runtime packages beside
# the CPU in use, and a provider list without CUDA before "Fallback to cpu", are the CPU package; "my
# Nvidia version is too old" as a fallback; a label in another program's words (cpu-only-wheel-torch)
# is the catalogue id told so (this test's `says`): training 21/27, 14 right, 0 wrong. Held out after
# them (unread, aggregate): unchanged, 11/14, 7 right, 2 wrong.
READ_BARS[44] = Bar(recognised=11, right=7, wrong_causes=2)
# Round 45 (25 texts, 16 held out, 3 zh; two collectors split by owner, collected blind in stop 47 after
# round 44's rules; most of what the search returned was used already, so it is small and its held-out
# share is where the hash fell). Scored once blind before any rule from it: held out 10/16 recognised
# (62.5%), 7 right, 1 wrong; training 6/9, 2 right, 0 wrong. Unread. Then from its training side: a
# build's CUDA (Paddle's runtime in its device note) older than every CUDA that builds for the GPU's
# architecture is too new for it; NVRTC refusing the architecture below the shown toolkit's compiler
# floor is too old (Quadro K2000 added to the GPU table, 3.0); Theano's "Could not find cudnn library":
# training 8/9, 5 right, 0 wrong. Held out after them (unread, aggregate): unchanged.
READ_BARS[45] = Bar(recognised=10, right=7, wrong_causes=0)  # stop 49: 1 -> 0 (cuda-libs-open)
# Round 46 (24 texts, 9 held out, 0 zh; two collectors split by owner, collected blind in stop 47 after
# round 45's rules). Scored once blind before any rule from it: held out 7/9 recognised (77.8%), 5
# right, 1 wrong; training 11/15, 6 right, 1 wrong. Unread. Then from its training side: CUDA's 35 in a
# container that the text shows given no GPU (no --gpus, no singularity --nv, no NVIDIA runtime) and no
# driver version is not sure (a container without the GPU finds no libcuda and says the same), with
# the command that tells them apart: training 10/15, 6 right, 0 wrong. Held out after it (unread,
# aggregate): unchanged.
READ_BARS[46] = Bar(recognised=7, right=5, wrong_causes=1)
# Round 47 (6 texts, 2 held out; two collectors split by owner, collected blind in stop 47 after round
# 46's rules; both ran out of search budget after about 25 searches, so it is very small). Scored once
# blind: held out 2/2 recognised, 2 right, 0 wrong; training 3/4, 2 right, 0 wrong (its misses: a
# program of one's own built by nvcc 11 for its default target, run on a K80, left open; a title-only
# text). No rule written from it.
READ_BARS[47] = Bar(recognised=2, right=2, wrong_causes=0)
# Round 48 (82 texts, 25 held out, 2 zh; two collectors split by owner, collected blind in stop 48
# after every rule of stop 47, with a fresh search budget). Scored once blind, before any rule from it
# (the stop's probe work beside it changes no doctor answer): held out 21/25 recognised (84.0%), 17
# right, 1 wrong; training 43/57, 31 right, 3 wrong. Unread. Then from its training side: a GPU of
# compute capability below 5.0 (Kepler, Fermi) beside "no kernel image" is too old for the build (a
# build too new for it would hold Fermi code alone, which no CUDA since 9 makes), and Kepler/Maxwell
# GeForce rows in the GPU table; "sm_70+" as a build's floor; a program's own "GPU is too old ...
# Compute Capability detected" and AliceVision's "compute capabilities is not enough" with the
# requirement; "my gpu is a 5070 ti"; "at least compute capability 2.0" is a requirement, not a GPU's;
# "Torch not compiled with CUDA enabled" on a Mac (Mac mini, an app bundle's path) is the Mac; a
# discrete AMD or Intel Arc GPU named as the machine's, no NVIDIA GPU shown, is no NVIDIA GPU; ENOSPC
# (errno 28) is low disk; PyTorch not found for a 32-bit Python or beside only the 0.1.2 placeholders
# is the Python: training 50/57, 44 right, 1 wrong. Held out after them (unread, aggregate): 22/25
# recognised, 18 right, 0 wrong.
READ_BARS[48] = Bar(recognised=22, right=18, wrong_causes=0)
# Round 49 (53 texts, 15 held out, 2 zh; two collectors split by owner, collected blind in stop 48
# after round 48's rules and the stop's probe work). Scored once blind: held out 12/15 recognised
# (80.0%), 8 right, 0 wrong; training 32/38, 29 right, 0 wrong. Unread. Then, in stop 49, from its
# training side and round 48's (tests/test_doctor_round49_rules.py): Ollama's "compute capability not
# in compiled architectures" with ggml's cc/archs; a GeForce number after its board maker; nvcuda.dll
# not found; NVRTC's builtins not opened; memory still held after the process stopped; a Linux driver's
# versioned NVML beside /usr/lib/wsl/lib; a +cpu torch beside "CUDA not available": training 36/38,
# 34 right, 0 wrong. Held out after them (unread, aggregate): unchanged.
READ_BARS[49] = Bar(recognised=12, right=8, wrong_causes=0)
# Round 50 (93 texts, 32 held out; two collectors split by owner, collected blind in stop 49 while
# round 49's rules were written, scored after them and before any rule from it): held out 28/32
# recognised (87.5%), 23 right, 0 wrong; training 44/61, 35 right, 4 wrong. Then from its training side
# (tests/test_doctor_round50_rules.py): the open kernel module refusing a GPU without a GSP; FFmpeg's
# NVENC API check of the driver; PyTorch's incompatibility warning for a GPU below every code its build
# lists; Kokkos' architecture check: training 50/61, 40 right, 2 wrong; then ONNX Runtime's provider
# failing with no library named left open (cuda-libs-open): training 1 wrong. Held out after them
# (unread, aggregate): 29/32 recognised, 24 right, 0 wrong.
READ_BARS[50] = Bar(recognised=29, right=24, wrong_causes=0)
# Round 51 (103 texts, 39 held out; two collectors split by owner, collected blind in stop 49 after
# round 50's rules, from library-specific messages the corpus had few of: nvcc/NVRTC's unsupported
# architecture, xformers' and FlashAttention's GPU checks, extension builds' CUDA mismatch). Scored once
# blind, after every rule of the stop and before any rule from it: held out 20/39 recognised (51.3%),
# 15 right, 4 wrong; training 40/64, 32 right, 6 wrong. Then from its training side
# (tests/test_doctor_round51_rules.py): nvcc's unsupported architecture is the compiler older than it
# (ptxas-too-old, the catalogue's row for it: five training texts labelled gpu-too-new were relabelled
# with a note), with the CUDA that knows it; xformers' "(too old)"/"(too new)"; Triton's floor; two
# CUDA versions in one build in PyTorch's, DeepSpeed's and PyG's words; "the GPU is already fully used"
# beside an out-of-memory error; a misaligned address and Blender's CUDA queue's illegal address:
# training 52/64, 50 right, 0 wrong. Held out after them (unread, aggregate): 29/39 recognised, 24
# right, 4 wrong.
READ_BARS[51] = Bar(recognised=29, right=24, wrong_causes=4)
# Round 52 (77 texts, 13 held out; two collectors split by owner, asked for a balanced mix of families,
# collected blind in stop 49 after round 51's rules). Scored once blind, before any rule from it: held
# out 11/13 recognised (84.6%), 9 right, 2 wrong; training 58/64 (90.6%), 48 right, 4 wrong. Then from
# its training side: the GSP refusal quoted in part ("nvidia.ko because it does not include the required
# GPU"); Apple's chip said as the machine ("on an M1") beside "Torch not compiled with CUDA enabled";
# k2's build check of two CUDA versions: training 60/64, 51 right, 3 wrong (the three left: a missing
# libcudart of another CUDA, labelled cuda-libs-mixed by the thread, read as missing-cudart). Held out
# after them (unread): unchanged.
FRESH_MEASURED = Bar(recognised=11, right=9, wrong_causes=2)
READ_BARS[52] = Bar(recognised=11, right=9, wrong_causes=2)
# Round 53 (66 texts, 20 held out; two collectors split by owner, asked for the thin families and for
# TensorFlow, Keras and JAX threads, collected blind in stop 50 after round 52's rules). Scored once
# blind, before any rule from it: held out 15/20 recognised (75.0%), 14 right, 0 wrong; training 32/46
# (69.6%), 26 right, 3 wrong. Then from its training side: a CPU build on a machine said to have no
# NVIDIA GPU; "not configured to use CUDA" on a Mac; cuDNN's ARCH_MISMATCH (the GPU below cuDNN);
# TensorFlow 2.11+ on native Windows with nothing else read (first written wider: it moved four older
# held-out texts to wrong causes, by their aggregates, and was narrowed before anything else); nvidia-smi
# not found by a Popen on Windows; CUDA_VISIBLE_DEVICES set to nothing (CUDA.jl's codes read); a crash in
# WSL's driver libcuda; nvlink newer than toolkit; a versioned cuDNN function missing: training 41/46,
# 39 right, 1 wrong (DeepSpeech's "Fail to find the dnn implementation" labelled cudnn-version-mismatch).
# Held out after them (unread): unchanged.
FRESH_MEASURED = Bar(recognised=15, right=14, wrong_causes=0)
READ_BARS[53] = Bar(recognised=15, right=14, wrong_causes=0)
# Round 54 (72 texts, 37 held out; two collectors split by owner, collected blind in stop 50 after round
# 53's rules). Scored once blind, before any rule from it: held out 31/37 recognised (83.8%), 24 right,
# 0 wrong; training 28/35 (80.0%), 23 right, 2 wrong. Then from its training side: NVRTC older than the
# GPU (the toolkit's CUDA from apt's and dpkg's listings); nvcc's words quoted without their prefix; a
# GitHub Actions job container of a CUDA image given no GPU; a container's newer libcuda as the open
# mismatch verdict (it was a bare not-sure); conda's cpu_ build, TensorFlow 1.x's CPU package beside
# tensorflow-gpu, the CPU build in words; a driver entry point missing with the driver's version shown
# in /proc: training 31/35, 30 right, 0 wrong. Held out after them (unread): unchanged.
FRESH_MEASURED = Bar(recognised=31, right=24, wrong_causes=0)
READ_BARS[54] = Bar(recognised=31, right=24, wrong_causes=0)
# Round 55 (65 texts, 22 held out; two collectors split by owner, collected blind in stop 50 after round
# 54's rules). Scored once blind, before any rule from it: held out 11/22 recognised (50.0%), 9 right,
# 0 wrong; training 39/43 (90.7%), 33 right, 5 wrong. Then from its training side: Paddle's own arch
# list against its GPU's capability; the machine's graphics driver said to be AMD's beside CUDA's 35;
# lshw's and lspci's NVIDIA device listed with nouveau as its driver: training 40/43, 36 right, 3 wrong
# (a cuDNN function missing read as an older cuDNN was tried and dropped: the linker names the first
# undefined symbol it meets, so a missing newer function does not show cuDNN itself was found). Held
# out after them (unread): round 54 one more right (the nouveau listing), no other change.
FRESH_MEASURED = Bar(recognised=11, right=9, wrong_causes=0)
READ_BARS[55] = Bar(recognised=11, right=9, wrong_causes=0)
# Round 56 (23 texts, 7 held out; two collectors split by owner, 80 searches each, collected blind in
# stop 50 after round 55's rules: about nine in ten candidates were already used). Scored once blind,
# before any rule from it: held out 5/7 recognised (71.4%), 4 right, 1 wrong; training 14/16, 11 right,
# 1 wrong. Then from its training side: a public cuDNN function not defined in the libcudnn.so.N the
# linker read (an older cuDNN): training 14/16, 12 right, 0 wrong. Held out after it (unread): unchanged.
FRESH_MEASURED = Bar(recognised=5, right=4, wrong_causes=1)
READ_BARS[55] = Bar(recognised=12, right=10, wrong_causes=0)  # one more right after round 57's rules
READ_BARS[56] = Bar(recognised=5, right=4, wrong_causes=1)
# Round 57 (67 texts, 25 held out; two collectors split by owner, 136 and 145 searches, collected
# blind in stop 51 after round 56's rules). Scored once blind, before any rule from it: held out 23/25
# recognised (92.0%), 17 right, 4 wrong; training 37/42 (88.1%), 30 right, 3 wrong. Then from its
# training side: TensorFlow 2.11+ on native Windows told in native-windows' words where its CPU-build
# row reads it, and decided over a complaint said in words; nvcc's "Value 'sm_61' is not defined for
# option 'gpu-architecture'" read as nvcc's (ptxas's option is gpu-name); conda's jaxlib cpu_py build;
# nvidia-container-cli's "unsatisfied condition: brand = tesla" beside an image's cuda>=N alternative;
# a CUDA library not found on a machine said to have only an Intel GPU; "/dev/nvidia0 does not exist"
# inside a container: training 39/42, 36 right, 0 wrong. Held out after them (unread): round 57
# unchanged; round 55 one more right; no other round changed.
FRESH_MEASURED = Bar(recognised=23, right=17, wrong_causes=4)
READ_BARS[57] = Bar(recognised=23, right=17, wrong_causes=4)
# Round 58 (60 texts, 21 held out; two collectors split by owner, 127 and 126 searches, collected
# blind in stop 51 after round 57's rules). Scored once blind, before any rule from it: held out 19/21
# recognised (90.5%), 13 right, 1 wrong; training 37/39 (94.9%), 26 right, 4 wrong. Then from its
# training side: NVIDIA's installer failing at its "Building kernel modules" step is no module for
# this kernel (it was read as Secure Boot's, which stops loading after a build that succeeded); JAX's
# "no attribute 'GpuAllocatorConfig'" is a jaxlib without CUDA; TensorFlow's "cuInit: UNKNOWN ERROR
# (34)" read as CUDA_ERROR_STUB_LIBRARY: training 37/39, 29 right, 3 wrong. Tried and dropped, each
# on the held-out aggregates (never the texts): the installer's "The nvidia kernel module was not
# created" moved from Secure Boot to the build (round 1: one right to wrong); the stub library (34)
# decided as a library path (round 22: one right to wrong), and every "UNKNOWN ERROR (N)" read as a
# code (the same text); tensorflow-gpu pinned to a published release (1.x to 2.10) read as this Python
# outside its range (four training texts labelled the removed package moved to wrong). Held out after
# the rules kept (unread): unchanged in every round.
FRESH_MEASURED = Bar(recognised=19, right=13, wrong_causes=1)
READ_BARS[58] = Bar(recognised=19, right=13, wrong_causes=1)
# Stop 52 read four older held-out wrong causes (their rounds' blind scores are above): a Mac said by
# its /Users home, its /Volumes disk or "using Mac", and pip finding no tensorflow-gpu on a MacBook
# (three texts); PyTorch 2.1's OOM message, spelt "total capacty", read by its counts (one). Each rule
# moved only its own text (every corpus answer compared before and after).
READ_BARS[40] = Bar(recognised=13, right=11, wrong_causes=2)
READ_BARS[52] = Bar(recognised=11, right=10, wrong_causes=1)
READ_BARS[57] = Bar(recognised=23, right=19, wrong_causes=2)
# Round 59 (71 texts, 27 held out, 3 zh; two collectors split by owner, 88 and 123 searches, collected
# blind in stop 52 after the rules above). Many threads are from older frameworks the corpus had few
# of (Caffe, DIGITS, Julia's CUDA.jl, rust-bert, faceswap, MXNet). Scored once blind, before any rule
# from it: held out 14/27 recognised (51.9%), 13 right, 0 wrong; training 26/44 (59.1%), 20 right,
# 2 wrong. Below the issue's 90%; at its 0 wrong causes. Then from its training side: a Mac said in
# words ("Mac doesn't have cuda") or by a .dylib; CUDA.jl not loading libcuda; a runtime call's number
# after '#' ("failed with error #35"); CUDAnative's "not supported by your driver (which supports up
# to ...)": training 29/44, 24 right, 1 wrong. Held out after them (unread): unchanged.
FRESH_MEASURED = Bar(recognised=14, right=13, wrong_causes=0)
READ_BARS[59] = Bar(recognised=14, right=13, wrong_causes=0)
# Stop 52: ollama's "cuda driver library init failure: N" read as the CUresult it is (from round 60's
# training side) made one round 24 held-out text (802, unread) right: Fabric Manager.
READ_BARS[24] = Bar(recognised=13, right=13, wrong_causes=0)
# An AMD card said by its model without "RX" ("AMD 6600XT", "AMD 7900 XT") is another maker's GPU:
# one round 42 text (read, a wrong cause) and one round 50 text (unread, a miss) now right.
READ_BARS[42] = Bar(recognised=12, right=9, wrong_causes=1)
READ_BARS[50] = Bar(recognised=29, right=25, wrong_causes=0)
# Round 60 (69 texts, 26 held out, 10 zh; two collectors split by owner, 116 and 130 searches,
# collected blind in stop 52 after round 59's rules and the reasoning above). Scored once blind,
# before any rule from it: held out 21/26 recognised (80.8%), 18 right, 1 wrong; training 35/43
# (81.4%), 29 right, 1 wrong.
FRESH_MEASURED = Bar(recognised=21, right=18, wrong_causes=1)
READ_BARS[60] = Bar(recognised=21, right=18, wrong_causes=1)
# Round 61 (24 texts, 8 held out, 2 zh; two collectors split by owner, 75 searches each, collected
# blind in stop 52 after round 60's rules; both found most threads used already). Scored once blind,
# before any rule from it: held out 7/8 recognised (87.5%), 6 right, 0 wrong; training 11/16, 8 right,
# 1 wrong. Then from its training side: Ray's status line for a trial that asked for no GPU ("0/1 GPUs")
# where the text says the GPU is not used: training 12/16, 9 right, 1 wrong; held out unchanged.
FRESH_MEASURED = Bar(recognised=7, right=6, wrong_causes=0)
READ_BARS[61] = Bar(recognised=7, right=6, wrong_causes=0)
# Stop 53 (before round 62 was collected): ptxas refusing an instruction the GPU lacks (bfloat16 below
# sm_80), from round 51's training side, made one round 52 held-out text (read) right.
READ_BARS[52] = Bar(recognised=12, right=11, wrong_causes=1)
# Stop 53, from round 51's training side (before round 63 was collected): xFormers' own check ("built
# for PyTorch 2.1.2+cu121 ... (you have 2.1.0+cpu)") names PyTorch's CPU wheel: one round 49 and two
# round 51 held-out texts (unread) now right.
READ_BARS[49] = Bar(recognised=13, right=9, wrong_causes=0)
READ_BARS[51] = Bar(recognised=31, right=26, wrong_causes=4)
# Round 62 (40 texts, 12 held out, 6 zh; two collectors split by owner, 74 searches each, collected
# blind in stop 53 after the two rules above; both ran out of searches, most threads used already).
# Scored once blind, before any rule from it: held out 11/12 recognised (91.7%), 9 right, 0 wrong;
# training 26/28 (92.9%), 18 right, 2 wrong.
FRESH_MEASURED = Bar(recognised=11, right=9, wrong_causes=0)
READ_BARS[62] = Bar(recognised=11, right=9, wrong_causes=0)
# Round 63 (48 texts, 14 held out, 5 zh; two collectors split by owner, 96 and 90 searches, collected
# blind in stop 53 after round 62's rules and the CPU builds named above; many older threads: WSL 1,
# xmr-stak, JuliaGPU, TensorRT). Scored once blind, before any rule from it: held out 10/14 recognised
# (71.4%), 8 right, 0 wrong; training 23/34 (67.6%), 18 right, 3 wrong. Then from its training side
# (bfloat16 refused by vLLM and PyTorch, TensorRT's "CUDA initialization failure with error: 35", uv's
# no wheel for this Python, Fedora's module missing beside Secure Boot, WSL 1's kernel string):
# training 28/34, 24 right, 1 wrong; held out 11/14, 9 right, 0 wrong (TensorRT's 35).
FRESH_MEASURED = Bar(recognised=10, right=8, wrong_causes=0)
READ_BARS[63] = Bar(recognised=11, right=9, wrong_causes=0)
# Round 64 (27 texts, 4 held out, 4 zh; two collectors split by owner, 90 and 84 searches, collected
# blind in stop 53 after round 63's rules; both ran out of unused threads early). Scored once blind,
# no rule written from it: held out 3/4 recognised, 2 right, 0 wrong; training 14/23 (60.9%), 12
# right, 1 wrong (804 labelled the compat libcuda, answered the driver too old, as 804's other texts).
FRESH_MEASURED = Bar(recognised=3, right=2, wrong_causes=0)
READ_BARS[64] = Bar(recognised=3, right=2, wrong_causes=0)
# Round 65 (22 texts, 3 held out, 1 zh; two collectors split by owner, 81 and 87 searches, collected
# blind in stop 54 after a first few rules from round 63-64's training sides; both ran out of unused
# threads). Scored once blind, before any rule from it: held out 3/3 recognised, 2 right, 1 wrong;
# training 16/19 (84.2%), 12 right, 0 wrong. Then from its training side: Apptainer's (Singularity's)
# exec without --nv, and Tune's own "Tune detects GPUs, but no trials are using GPUs": training 17/19,
# 14 right, 0 wrong; held out unchanged (unread).
FRESH_MEASURED = Bar(recognised=3, right=2, wrong_causes=1)
READ_BARS[65] = Bar(recognised=3, right=2, wrong_causes=1)
# Round 66 (37 texts, 12 held out, 6 zh; two collectors split by owner, 85 and 68 searches, collected
# blind in stop 54 after round 65's rules; both found most threads used already: PaddlePaddle, Jittor,
# CNTK, Caffe, CuPy, pop-os). Scored once blind, before any rule from it: held out 9/12 recognised
# (75.0%), 8 right, 0 wrong; training 16/25 (64.0%), 11 right, 1 wrong. Then from its training side:
# TensorFlow's "not built with CUDA kernel binaries" beside "ptxas does not support CC" (the GPU newer
# than the build), CuPy's NVRTC options naming the GPU's architecture, a CUDA library said not
# loadable in words, CUDA failing after a suspend mended by reloading nvidia_uvm, Caffe's cuBLAS check
# by number: training 21/25, 17 right, 0 wrong; held out unchanged (unread).
FRESH_MEASURED = Bar(recognised=9, right=8, wrong_causes=0)
READ_BARS[66] = Bar(recognised=9, right=8, wrong_causes=0)
# Round 67 (41 texts, 17 held out, 5 zh; two collectors split by owner, 90 and 86 searches, collected
# blind in stop 54 after round 66's rules and a first few from older training sides; both ran out of
# unused threads: cryoSPARC, CaImAn, CellBender, DeepVariant, CNTK, ImageAI). Scored once blind,
# before any rule from it: held out 15/17 recognised (88.2%), 15 right, 0 wrong (2 harmless labelled
# harmless); training 20/24 (83.3%), 19 right, 1 wrong. Then from its training side: nvidia-smi not
# found on a machine said to have no NVIDIA card, a CUDA or cuDNN library file that is not a whole
# library ("file too short"), a build that finds no cudnn.h, jaxlib's platform registry without CUDA:
# training 23/24, 23 right, 0 wrong; held out unchanged (unread).
FRESH_MEASURED = Bar(recognised=15, right=15, wrong_causes=0)
READ_BARS[67] = Bar(recognised=15, right=15, wrong_causes=0)
# Round 68 (46 texts, 15 held out, 1 harmless, 3 zh; four collectors split by owner (a-f, g-m, n-s,
# t-z), 77-80 searches each, collected blind in stop 55 after round 67's rules; all four ran out of
# unused threads: OpenPose, rembg, voice-changer, VOICEVOX, TensorRT, LAMMPS, hashcat). Scored once
# blind, before any rule from it: held out 12/15 recognised (80.0%), 11 right, 1 wrong (1 harmless
# labelled harmless); training 25/31 (80.6%), 18 right, 0 wrong.
FRESH_MEASURED = Bar(recognised=12, right=11, wrong_causes=1)
# Then from its training side: a GeForce GT card read by its brand (GT 710, GT740) with the GPU
# table's capability (Kepler with no kernel image: too old), LLVM's NVPTX target not knowing the GPU
# (a package's compiler older than it), module loading said to fail because of Secure Boot, an
# allocation failing only while another program runs: training 27/31, 23 right, 0 wrong; held out
# unchanged (unread).
READ_BARS[68] = Bar(recognised=12, right=11, wrong_causes=1)
# Round 69 (51 texts, 26 held out, 9 zh; four collectors split by owner (a-f, g-m, n-s, t-z), 70-80
# searches each, collected blind in stop 55 after round 68's rules; all four ran out of unused
# threads: Ultimate Vocal Remover, darknet, CuPy, waifu2x-caffe, Video2X, FunASR, Jittor, MindSpore,
# PaddlePaddle's repositories, video-subtitle-extractor, Triton server). Scored once blind, before any
# rule from it: held out 21/26 recognised (80.8%), 17 right, 1 wrong; training 19/25 (76.0%), 16
# right, 1 wrong (1 harmless labelled harmless).
FRESH_MEASURED = Bar(recognised=21, right=17, wrong_causes=1)
# Then from its training side: JAX's and PaddlePaddle's own words for their CPU packages, a program
# retelling FFmpeg's NVENC driver check, a build that finds no cuDNN library, pip finding no CUDA
# jaxlib on a Mac: training 23/25, 21 right, 0 wrong; held out unchanged (unread). Round 70's rule
# (one PyTorch request larger than the whole GPU) later moved one of its held-out texts from a wrong
# cause to right (seen only as a moved answer in the before/after comparison): 21/26, 18 right, 0 wrong.
READ_BARS[69] = Bar(recognised=21, right=18, wrong_causes=0)
# Round 70 (22 texts, 8 held out, 1 zh; two collectors split by owner (a-m, n-z), 59 and 60 searches,
# collected blind in stop 55 after round 69's rules; both ran out of unused threads: Ultimate Vocal
# Remover gave 7 of them). Scored once blind, before any rule from it: held out 7/8 recognised
# (87.5%), 6 right, 1 wrong; training 11/14 (78.6%), 9 right, 2 wrong (1 harmless labelled harmless).
FRESH_MEASURED = Bar(recognised=7, right=6, wrong_causes=1)
# Then from its training side: a Jittor build not finding cudnn.h, PaddlePaddle's CPU package said in
# its own words, a request larger than the whole GPU: training 13/14, 0 wrong; held out unchanged
# (unread).
READ_BARS[70] = Bar(recognised=7, right=6, wrong_causes=1)
# Round 71 (40 texts, 13 held out; four collectors split by owner (a-f, g-m, n-s, t-z), 65-70
# searches each, collected blind in stop 56 after round 70's rules; all four ran out of unused
# threads: spaCy/thinc, darknet, PyTorch Geometric's extensions, bark, TRELLIS). Scored once blind,
# before any rule from it: held out 9/13 recognised (69.2%), 8 right, 0 wrong; training 23/27
# (85.2%), 20 right, 0 wrong.
FRESH_MEASURED = Bar(recognised=9, right=8, wrong_causes=0)
# Then from its training side: CUDA's 46 retold without "-capable", Julia's CUDA runtime not found:
# training 25/27, 22 right, 0 wrong; held out unchanged (unread).
READ_BARS[71] = Bar(recognised=9, right=8, wrong_causes=0)
# Round 72 (24 texts, 12 held out; two collectors on GitHub split by owner (a-m, n-z), 60 searches
# each, and two on the stored Q&A and forum pages (Stack Exchange; NVIDIA's and distributions' forums),
# which gave one text (a FreeBSD mailing-list message): those pages are mostly content farms and
# copies. Collected blind in stop 56 after round 71's rules). Scored once blind, after round 71's
# rules and before any rule from it: held out 11/12 recognised (91.7%), 6 right, 2 wrong; training
# 7/12 (58.3%), 6 right, 0 wrong.
FRESH_MEASURED = Bar(recognised=11, right=6, wrong_causes=2)
# Then from its training side: an operation a program refuses below a compute capability (PyTorch's
# FP8 matrix multiply) read as a GPU without that feature: training 10/12, 9 right, 0 wrong; held out
# unchanged (unread).
READ_BARS[72] = Bar(recognised=11, right=6, wrong_causes=2)
# Round 73 (42 texts, 15 held out, 2 zh; four collectors split by owner (a-f, g-m, n-s, t-z), 56-60
# searches each, searching by an error's words more than by project, collected blind in stop 56 after
# round 72's rules; all four ran out of unused threads: WarpX, GPUMD, neural-style, ethminer,
# nerfstudio, pg-strom and four Mac texts gave most). Scored once blind, after round 72's rules and
# before any rule from it: held out 10/15 recognised (66.7%), 8 right, 2 wrong; training 21/27
# (77.8%), 16 right, 2 wrong.
FRESH_MEASURED = Bar(recognised=10, right=8, wrong_causes=2)
# Then from its training side: a CUDA-compatible card said missing beside 35, PyTorch's "is_available()
# is False" on a Mac, a miner's DAG larger than the card, xFormers of another CUDA: training 24/27, 21
# right, 1 wrong; held out unchanged (unread).
READ_BARS[73] = Bar(recognised=10, right=8, wrong_causes=2)
# Round 74 (28 texts, 7 held out; two collectors split by owner (a-m, n-z), 58 and 55 searches, sent
# to repositories little mined before; most new threads were crypto miners' (XMRig, T-Rex, ethminer,
# TeamBlackMiner), AutoDock-GPU and pg-strom). Collected blind in stop 56 after round 73's rules.
# Scored once blind, after round 73's rules and before any rule from it: held out 5/7 recognised
# (71.4%), 2 right, 0 wrong; training 11/21 (52.4%), 9 right, 2 wrong. Two held-out texts
# (TeamBlackMiner's) were seen by the rule writer before that score, while a wallet address in one
# was masked; no rule was written from them (the note of stop 56 says so).
FRESH_MEASURED = Bar(recognised=5, right=2, wrong_causes=0)
UNREAD_WRONG_CAUSES = {
    28: 1,
    29: 1,
    30: 0,
    31: 0,
    32: 2,
    33: 1,
    34: 0,
    35: 0,
    36: 1,
    37: 1,
    38: 1,
    39: 1,
    40: 2,  # stop 52: a PyTorch 2.1 OOM ("total capacty") read by its counts
    41: 0,  # stop 49: ONNX Runtime's unnamed library left open (cuda-libs-open)
    42: 1,  # stop 49: likewise; stop 52: an AMD 6600XT
    43: 0,
    44: 1,
    45: 0,  # stop 49: likewise
    46: 1,
    47: 0,
    48: 0,
    49: 0,
    50: 0,
    51: 4,
    52: 1,  # stop 52: a Mac read from its /Users home
    53: 0,
    54: 0,
    55: 0,
    56: 1,
    57: 2,  # stop 52: two Macs (a /Volumes disk; pip finding no tensorflow-gpu on a MacBook)
    58: 1,
    59: 0,
    60: 1,
    61: 0,
    62: 0,
    63: 0,
    64: 0,
    65: 1,
    66: 0,
    67: 0,
    68: 1,
    69: 0,  # its one wrong cause moved to right by round 70's rule (see READ_BARS[69])
    70: 1,
    71: 0,
    72: 2,
    73: 2,
    74: 0,
}


def test_held_out_score(capsys: pytest.CaptureFixture[str]) -> None:
    """CI holds each round's held-out texts at their bar: round 1 at >= 90% recognised and no more
    wrong causes than BLIND_WRONG_CAUSES, every other read round at its own bar (READ_BARS: they were
    read after their blind scoring, so they only stop a regression), FRESH_ROUND at its blind score
    (FRESH_MEASURED; the issue's 90% and 0 wrong are said beside it), and the whole third at its
    measured count (WHOLE_RECOGNISED; the issue's 90% is test_the_whole_held_out_third_is_at_the_
    issues_bar, a strict xfail until it holds). Only the totals are printed, never a text, a file name or
    which families were missed (that would tell the rule writer what the held-out texts are); the
    lead can list the expected id/family of each miss with DOCTOR_HELDOUT_MISSES=1."""
    import os

    if not HELD:
        pytest.skip("no held-out texts in this checkout")
    s = score(HELD)
    rounds = sorted({parse(f).round for f in HELD} | {FRESH_ROUND})
    by_round = {rnd: score(of_round(HELD, rnd)) for rnd in rounds}
    fresh = by_round[FRESH_ROUND]
    with capsys.disabled():
        print("\n" + s.line("doctor corpus, held-out"))
        assert s.misses is not None and fresh.misses is not None
        for rnd in rounds:
            for line in round_lines("doctor corpus, held-out", HELD, rnd):
                print(line)
        if os.environ.get("DOCTOR_HELDOUT_MISSES") == "1":
            for miss, n in sorted(s.misses.items()):
                print(f"  held-out miss x{n}: {miss}")
            for miss, n in sorted(fresh.misses.items()):
                print(f"  held-out round {FRESH_ROUND} miss x{n}: {miss}")
    # Plain counts in the asserts: pytest's report of a failed assert would print the Score with
    # its misses, which is exactly what the rule writer must not see.
    # The fresh round's measured wrong causes are its blind score, unread: counted, not hidden.
    whole_wrong = HELD_OUT_WRONG_CAUSES + sum(UNREAD_WRONG_CAUSES.values())
    assert s.wrong_cause <= whole_wrong, "the whole held-out third: more wrong causes than measured"
    # Its share recognised: held at what was measured (WHOLE_RECOGNISED), as each round is at its own
    # bar; the issue's 90% is the strict xfail below, which fails the day the third reaches it.
    assert s.recognised >= WHOLE_RECOGNISED, "the whole held-out third recognises fewer than measured"
    if s.recognised < 0.9 * s.total:
        with capsys.disabled():
            need = -(-9 * s.total // 10)
            print(f"  the whole held-out third: {s.recognised}/{s.total} recognised, {need} needed for 90%")
    unbarred = [rnd for rnd in rounds if 1 < rnd < FRESH_ROUND and rnd not in READ_BARS]
    assert not unbarred, f"read rounds without a bar in READ_BARS: {unbarred}"
    first = by_round.get(1)
    if first is not None and first.total:
        first_ok = first.recognised >= 0.9 * first.total and first.wrong_cause <= BLIND_WRONG_CAUSES
        assert first_ok, "round 1 held-out below its bar (counts printed above)"
    for rnd, bar in sorted(READ_BARS.items()):
        got = by_round.get(rnd)
        read_ok = got is not None and (
            got.recognised >= bar.recognised
            and got.right >= bar.right
            and got.wrong_cause <= bar.wrong_causes
        )
        assert read_ok, f"round {rnd} held-out below its bar (counts printed above)"
    allowed = max(FRESH_WRONG_CAUSES, FRESH_MEASURED.wrong_causes)
    assert fresh.wrong_cause <= allowed, f"round {FRESH_ROUND} held-out: more wrong causes than measured"
    fresh_ok = fresh.recognised >= min(0.9 * fresh.total, FRESH_MEASURED.recognised)
    fresh_ok = fresh_ok and fresh.right >= min(fresh.total, FRESH_MEASURED.right)
    assert fresh_ok, f"round {FRESH_ROUND} held-out below its measured bar (counts printed above)"
    if fresh.recognised < 0.9 * fresh.total or fresh.wrong_cause > FRESH_WRONG_CAUSES:
        with capsys.disabled():
            print(f"  round {FRESH_ROUND} held-out is below the issue's bar: 90%, 0 wrong (FRESH_MEASURED)")


# Measured in stop 55 with rounds 68-70 added (blind, 49 texts, 40 recognised): 1368 of 1521, one
# text short of the issue's 90% (1369); in stop 56 with rounds 71-72 added (blind, 25 texts, 20
# recognised): 1388 of 1546, four short of 90% (1392); with round 73 added (blind, 15 texts, 10
# recognised): 1398 of 1561, seven short (1405); with round 74 (blind, 7 texts, 5 recognised): 1403 of
# 1568, nine short (1412). Raised as it rises; never lowered to let a regression by.
WHOLE_RECOGNISED = 1403


@pytest.mark.xfail(
    strict=True,
    reason="the whole held-out third is 1403/1568 recognised, 9 short of the issue's 90% (stop 56)",
)
def test_the_whole_held_out_third_is_at_the_issues_bar() -> None:
    s = score(HELD)
    assert s.recognised >= 0.9 * s.total


# ---- the catalogue --------------------------------------------------------------------------


def test_every_diagnosis_in_the_catalogue_is_met_in_the_training_corpus() -> None:
    # Every training text (a row from a round not yet held right is met all the same).
    met = {d.id for f in FILES for d in match_output(parse(f).body)}
    assert {p.id for p in patterns()} - met == set()


def test_the_judge_counts_a_wrong_cause_and_an_incomplete_answer_apart() -> None:
    case = Case("s", "github:a/b#1", "cudnn", "en", ["missing-cudnn"], "")
    wrong = match_output("CUDA_ERROR_OUT_OF_MEMORY: out of memory")  # a cause, not this one
    assert judge(case, wrong) == (True, False, True)
    symptom = match_output("Skipping registering GPU devices...")  # true, but not the cause
    assert judge(case, symptom) == (True, False, False)
    assert judge(case, match_output("libcudnn.so.8: cannot open shared object file")) == (True, True, False)
    assert judge(case, []) == (False, False, False)
    noise = Case("s", "github:a/b#1", "noise", "en", ["harmless:noise-numa"], "")
    numa = match_output("successful NUMA node read from SysFS had negative value (-1)")
    assert judge(noise, numa) == (True, True, False)
    assert judge(noise, wrong)[2] is True  # a harmless text called harmful is a wrong cause


def test_the_round_header_is_parsed_and_defaults_to_one(tmp_path: Path) -> None:
    head = "# source: s\n# address: github:a/b#1\n# family: noise\n# expect: harmless:noise-numa\n"
    old, fresh, bad = tmp_path / "old.txt", tmp_path / "fresh.txt", tmp_path / "bad.txt"
    old.write_text(head + "text\n", encoding="utf-8")
    fresh.write_text(head + "# lang: zh\n# round: 2\ntext\n", encoding="utf-8")
    bad.write_text(head + "# round: two\ntext\n", encoding="utf-8")
    assert (parse(old).round, parse(fresh).round, parse(fresh).lang) == (1, 2, "zh")
    assert parse(fresh).body == "text"  # the round line is header, not text
    assert of_round([old, fresh], 2) == [fresh] and of_round([old, fresh], 2, "en") == []
    assert "round is not a whole number >= 1" in header_problems(bad)


def test_the_split_rule_is_the_fixed_one() -> None:
    # Pinned values: the rule must never be changed to move a text between the sets.
    assert held_out("github:tensorflow/tensorflow#45930") is (
        int(hashlib.sha256(b"github:tensorflow/tensorflow#45930").hexdigest(), 16) % 3 == 0
    )
    addresses = [f"github:tensorflow/tensorflow#{n}" for n in range(300)]
    share = sum(map(held_out, addresses)) / len(addresses)
    assert 0.25 < share < 0.42


def test_harmless_rows_come_after_every_harmful_row() -> None:
    # A line belongs to the first row that matches it, so this order keeps real errors away from noise.
    # A harmless row with context (`when`) may stand earlier: it claims its line only where the text
    # says the line is harmless, and the harmful row after it takes the line everywhere else.
    tiers = [p.harmful for p in patterns() if not p.when]
    assert tiers == sorted(tiers, reverse=True)
    early = [p for p in patterns() if not p.harmful and p.when]
    assert all(p.also or p.unless for p in early)  # a second fact too: never on one cue alone


def test_a_missing_cudart_said_harmless_beside_tensorflows_hint_is_the_hint() -> None:
    # TensorFlow's own lines (dso_loader.cc, cudart_stub.cc), then a reply that says so in words.
    lines = [
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        "'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
        "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have "
        "a GPU set up on your machine.",
    ]
    alone = match_output("\n".join(lines))
    assert [d.id for d in alone] == ["missing-cudart", "noise-cudart-stub-hint"]
    for said in (
        "It doesn't affect your program.",
        "This is just a warning.",
        "It can be safely ignored.",
        "不影响运行",
        "You can just ignore it, nothing to worry about.",
        "It is not an error.",
        "不用理会",
    ):
        found = match_output("\n".join([*lines, said]))
        assert [(d.id, d.harmful) for d in found] == [("noise-cudart-stub-hint", False)], said
    blamed = match_output("\n".join([*lines, "This is not an error of tensorflow: install CUDA 11."]))
    assert blamed[0].id == "missing-cudart"
    asked = match_output("\n".join([*lines, "Can this be safely ignored?"]))
    assert asked[0].id == "missing-cudart"
    # Without TensorFlow's hint the words alone do not make a missing library harmless.
    found = match_output("\n".join([lines[0], "It is just a warning."]))
    assert found[0].id == "missing-cudart"


def test_noise_alone_is_not_recognised_as_a_problem() -> None:
    noise = "\n".join(
        [
            "I tensorflow/core/platform/cpu_feature_guard.cc:193] This TensorFlow binary is optimized with "
            "oneAPI Deep Neural Network Library (oneDNN) to use the following CPU instructions in "
            "performance-critical operations:  AVX2 FMA",
            "I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:975] successful NUMA node read from "
            "SysFS had negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero",
            "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
        ]
    )
    found = match_output(noise)
    assert found and all(not d.harmful and d.severity == "harmless" for d in found)
    assert not recognised_in_output(found)


def test_a_real_error_is_never_claimed_by_noise() -> None:
    # The TensorRT dlopen line looks like a missing CUDA library, but it is noise; libcudart is not.
    found = match_output(
        "Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file\n"
        "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file"
    )
    assert [(d.id, d.harmful) for d in found] == [("missing-cudart", True), ("noise-tensorrt", False)]


def test_a_repl_echo_needs_the_line_that_printed_it() -> None:
    # "[]" and "False" mean something only right after the call that printed them.
    assert match_output(">>> print(tf.config.list_physical_devices('GPU'))\n[]")[0].id == "gpu-list-empty"
    assert match_output(">>> print(tf.test.is_built_with_cuda())\nFalse")[0].id == "cpu-only-wheel"
    assert match_output(">>> x = []\n[]\n>>> y == 3\nFalse") == []


def test_every_regex_has_an_anchor() -> None:
    # A regex without a literal every match holds runs on every line of a long log.
    from wizard.doctor.catalogue import anchor_of

    loose = [
        (p.id, r.regex.pattern) for p in patterns() for r in p.rules if anchor_of(r.regex.pattern) is None
    ]
    assert loose == []


def _wrapped(body: str, width: int) -> str:
    import textwrap

    out: list[str] = []
    for line in body.splitlines():
        out += textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False) or [""]
    return "\n".join(out)


@pytest.mark.parametrize(
    "form",
    [
        pytest.param(lambda b: _wrapped(b, 72), id="wrapped-at-72-columns"),
        pytest.param(lambda b: "\n".join("> " + line for line in b.splitlines()), id="quoted-in-a-reply"),
        pytest.param(lambda b: re.sub(r"'([^'\n]*)'", "\u2018\\1\u2019", b), id="curly-quotes"),
    ],
)
def test_a_training_text_pasted_another_way_gets_the_same_diagnosis(form: object) -> None:
    # The same message, as another forum or terminal would show it: the stable core still matches.
    assert callable(form)
    missed = []
    for path in TRAINED:
        case = parse(path)
        found = match_output(form(case.body))
        if not found or not says(found[0], case.ids[0]):
            missed.append(f"{path.stem}: {[d.id for d in found[:2]]} (expected {case.ids[0]})")
    assert missed == []
