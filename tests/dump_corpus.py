"""Real machine dumps made from outputs posted in public issues (tests/fixtures/machine_dumps/corpus.json).

Each case: its source (the issue's address), the context the issue states (native Linux, WSL2, the
files that context implies), and the command output copied verbatim from the issue. `materialize`
writes it as a dump (`detect --dump`'s format: commands.json, root/, nvml.json) with the exit code
null (an issue does not show it) and NVML absent, so the probe's fallbacks read the text;
`score` replays it through `detect --from` and compares with what the text says.

A third is held out by sha256(source) % 3 == 0 (the project's rule); a case is right when every fact
it states is read and the failure it shows is named; wrong when the probe states a driver or CUDA
the text contradicts, or names a failure the text does not show.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from wizard.probe.dump import detect_dump
from wizard.profile import MachineProfile

CORPUS = Path(__file__).parent / "fixtures" / "machine_dumps" / "corpus.json"


def cases() -> list[dict]:
    return json.loads(CORPUS.read_text(encoding="utf-8"))


def held_out(case: dict) -> bool:
    return int(hashlib.sha256(case["source"].encode()).hexdigest(), 16) % 3 == 0


def materialize(case: dict, directory: Path) -> Path:
    out = directory / case["slug"]
    (out / "root").mkdir(parents=True, exist_ok=True)
    for path, text in case["files"].items():
        target = out / "root" / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    meta = {"format": 1, "tool": "tf-gpu-wizard", "masked": [], "source": case["source"]}
    (out / "dump.json").write_text(json.dumps(meta), encoding="utf-8")
    (out / "commands.json").write_text(json.dumps(case["commands"], ensure_ascii=False), encoding="utf-8")
    (out / "nvml.json").write_text("[]", encoding="utf-8")
    python = {
        "version": "3.10.12",
        "executable": "/usr/bin/python3",
        "prefix": "/usr",
        "base_prefix": "/usr",
        "platform": "linux",
        "machine": "x86_64",
        "has_pip": True,
        "has_venv": True,
        "libc": "glibc 2.35",
        "home": "/home/USER",
    }
    (out / "python.json").write_text(json.dumps(python), encoding="utf-8")
    return out


@dataclass
class Verdict:
    slug: str
    right: bool
    wrong: list[str]
    missed: list[str]


def judge(case: dict, p: MachineProfile) -> Verdict:
    want = case["expect"]
    wrong: list[str] = []
    missed: list[str] = []
    driver = p.driver.version if p.driver is not None else None
    if want.get("driver") is None:
        if driver not in (None, "unknown"):
            wrong.append(f"driver {driver} where the text shows none")
    elif driver != want["driver"]:
        (wrong if driver not in (None, "unknown") else missed).append(f"driver {driver} != {want['driver']}")
    if "cuda" in want:
        cuda = p.driver.cuda if p.driver is not None else "unknown"
        if cuda != want["cuda"]:
            (wrong if cuda != "unknown" else missed).append(f"cuda {cuda} != {want['cuda']}")
    if "gpus" in want and len(p.gpus) != want["gpus"]:
        missed.append(f"{len(p.gpus)} GPUs != {want['gpus']}")
    named = {s.reason for s in p.failed_states if s.reason}
    for reason in want.get("reasons", []):
        if reason not in named:
            missed.append(f"not named: {reason}")
    for reason in sorted(named - set(want.get("reasons", []))):
        wrong.append(f"named {reason}, which the text does not show")
    if "library" in want:
        libs = [s.facts.get("library") for s in p.states if s.reason == "version-mismatch"]
        if want["library"] not in libs:
            missed.append(f"library version {want['library']} not kept")
    return Verdict(case["slug"], not wrong and not missed, wrong, missed)


def score(directory: Path, which: bool) -> list[Verdict]:
    """Replay every case of one side (held out or not) and judge it."""
    return [judge(c, detect_dump(materialize(c, directory))) for c in cases() if held_out(c) == which]


if __name__ == "__main__":
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for label, side in (("held out", True), ("training", False)):
            found = score(Path(tmp), side)
            right = sum(v.right for v in found)
            wrong = sum(bool(v.wrong) for v in found)
            print(f"{label}: {right}/{len(found)} right, {wrong} wrong")
            for v in found:
                if not v.right:
                    print(f"  {v.slug}: wrong={v.wrong} missed={v.missed}", file=sys.stdout)
