"""The doctor over tests/doctor_corpus/: real error texts copied from public issues and the guides.

Each file starts with '# source:' (where the text was seen), '# family:' and one or more
'# expect:' lines in ranked order ('harmless:<id>' for noise). With one expect line the first
diagnosis must be that id; with several (the mixed sessions) the whole ranked list must be equal.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from wizard.doctor.catalogue import patterns
from wizard.doctor.diagnose import match_output, recognised_in_output

CORPUS = Path(__file__).resolve().parent / "doctor_corpus"
FILES = sorted(CORPUS.glob("*.txt"))


@dataclass
class Case:
    source: str
    family: str
    expect: list[str]  # as written: "id" or "harmless:id"
    body: str

    @property
    def ids(self) -> list[str]:
        return [e.removeprefix("harmless:") for e in self.expect]


def parse(path: Path) -> Case:
    head: dict[str, str] = {}
    expect: list[str] = []
    body: list[str] = []
    in_header = True
    for line in path.read_text(encoding="utf-8").splitlines():
        if in_header and line.startswith("#"):
            key, _, value = line[1:].strip().partition(":")
            if key == "expect":
                expect.append(value.strip())
            else:
                head[key] = value.strip()
            continue
        in_header = False
        body.append(line)
    return Case(head.get("source", ""), head.get("family", ""), expect, "\n".join(body))


def test_the_corpus_is_big_and_varied() -> None:
    cases = [parse(f) for f in FILES]
    assert len(cases) >= 45
    sessions = [c for c in cases if c.family == "session"]
    assert len(sessions) >= 4 and all(len(c.expect) >= 2 for c in sessions)
    families = Counter(c.family for c in cases)
    assert len(families) >= 15, families
    assert sum(1 for c in cases if c.expect[0].startswith("harmless:")) >= 5  # noise-only texts too


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_corpus_text_gets_the_expected_diagnosis(path: Path) -> None:
    case = parse(path)
    assert case.source and case.family and case.expect, "header: source, family and expect lines"
    found = match_output(case.body)
    got = [d.id for d in found]
    assert got and got[0] == case.ids[0], f"{got} (expected first: {case.ids[0]})"
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
    assert recognised_in_output(found) is not case.expect[0].startswith("harmless:")


def test_every_diagnosis_in_the_catalogue_is_met_in_the_corpus() -> None:
    met = {d.id for f in FILES for d in match_output(parse(f).body)}
    assert {p.id for p in patterns()} - met == set()


def test_harmless_rows_come_after_every_harmful_row() -> None:
    # A line belongs to the first row that matches it, so this order keeps real errors away from noise.
    tiers = [p.harmful for p in patterns()]
    assert tiers == sorted(tiers, reverse=True)


def test_noise_alone_is_not_recognised_as_a_problem() -> None:
    noise = parse(CORPUS / "noise_all_relernn63.txt").body
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
