"""The benchmark's JSON-lines events: schema, validation, parsing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

SCHEMA = 1
PHASES = ("environment", "sanity", "matmul", "train", "xla")
STATUSES = ("ok", "skipped", "failed")
_NUM = (int, float)

# ---- events ----------------------------------------------------------------------


class BenchEventError(ValueError):
    """A line from the script that is not a valid event."""


@dataclass
class BenchEvent:
    event: str
    phase: str | None
    raw: dict[str, Any]

    @property
    def data(self) -> dict[str, Any]:
        value = self.raw.get("data")
        return value if isinstance(value, dict) else {}


# event -> required fields and their types
_REQUIRED: dict[str, dict[str, type | tuple[type, ...]]] = {
    "start": {"schema": int},
    "phase_start": {"phase": str, "title": str},
    "progress": {"phase": str, "done": int, "total": int},
    "result": {"phase": str, "kind": str, "data": dict},
    "phase_end": {"phase": str, "status": str, "seconds": _NUM},
    "error": {"message": str, "fatal": bool},
    "done": {"ok": bool, "seconds": _NUM},
}
_RESULT_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "environment": {"tf_version": str, "devices": list, "gpus": list},
    "sanity": {"device": str, "max_abs_error": _NUM, "ok": bool},
    "matmul": {"device": str, "dtype": str, "n": int, "seconds": _NUM, "tflops": _NUM},
    "train": {"device": str, "xla": bool, "batch": int, "images_per_s": _NUM},
    "speedup": {"xla": bool, "gpu_vs_cpu": _NUM},
}


def _check(obj: dict[str, Any], spec: dict[str, type | tuple[type, ...]], what: str) -> None:
    for name, typ in spec.items():
        if name not in obj:
            raise BenchEventError(f"{what}: missing {name!r}")
        value = obj[name]
        # bool is an int in Python; a flag where a count belongs is still wrong.
        if isinstance(value, bool) and typ is not bool:
            raise BenchEventError(f"{what}: {name!r} should be {typ}, not a boolean")
        if not isinstance(value, typ):
            raise BenchEventError(f"{what}: {name!r} has the wrong type ({type(value).__name__})")


def validate_event(obj: Any) -> BenchEvent:
    """A parsed JSON value -> a BenchEvent, or BenchEventError saying what is wrong."""
    if not isinstance(obj, dict):
        raise BenchEventError("an event must be a JSON object")
    kind = obj.get("event")
    if kind not in _REQUIRED:
        raise BenchEventError(f"unknown event {kind!r}")
    _check(obj, _REQUIRED[kind], kind)
    phase = obj.get("phase")
    if phase is not None and phase not in PHASES:
        raise BenchEventError(f"{kind}: unknown phase {phase!r}")
    if kind == "phase_end" and obj["status"] not in STATUSES:
        raise BenchEventError(f"phase_end: unknown status {obj['status']!r}")
    if kind == "progress" and not 0 <= obj["done"] <= obj["total"]:
        raise BenchEventError("progress: done is outside 0..total")
    if kind == "start" and obj["schema"] != SCHEMA:
        raise BenchEventError(f"start: schema {obj['schema']} (this wizard reads {SCHEMA})")
    if kind == "result":
        spec = _RESULT_FIELDS.get(obj["kind"])
        if spec is None:
            raise BenchEventError(f"result: unknown kind {obj['kind']!r}")
        _check(obj["data"], spec, f"result {obj['kind']}")
        data = obj["data"]
        if obj["kind"] == "matmul" and (data["seconds"] <= 0 or data["tflops"] < 0):
            raise BenchEventError("result matmul: time and throughput must be positive")
    return BenchEvent(kind, phase, obj)


def parse_event(line: str) -> BenchEvent:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BenchEventError(f"not JSON ({exc.msg})") from None
    return validate_event(obj)
