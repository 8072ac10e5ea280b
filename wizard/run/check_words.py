"""The GPU check's JSON lines (assets/programs/tf_gpu_check.py) as sentences in the user's
language, for the Run screen and `apply`. The log keeps the JSON as the program wrote it.

    worded(line) -> str    a tf_gpu_check event said through t(); any other line unchanged

The program runs in the target environment (it cannot use t()); its events carry codes and
values, and those are what is worded here. An event this module does not know is shown by its
own `message`, so a newer check still reads as text rather than as JSON.
"""

from __future__ import annotations

import json
from typing import Any

from wizard.safe.display import safe
from wizard.text import has, t

CHECK = "tf_gpu_check"


def _fields(event: dict[str, Any]) -> dict[str, str]:
    return {k: safe(v if not isinstance(v, list) else ", ".join(map(str, v)), 200) for k, v in event.items()}


def _sentence(event: dict[str, Any]) -> str | None:
    kind = str(event.get("event", ""))
    f = _fields(event)
    if kind == "start":
        return t("story.check.start")
    if kind == "tensorflow":
        built = f.get("compute_capabilities") or t("story.check.no_gpu_code")
        return t("story.check.tensorflow", version=f.get("version", "?"), built=built)
    if kind == "gpu":
        cc = f.get("compute_capability") or "?"
        return t(
            "story.check.gpu",
            index=f.get("index", "?"),
            name=f.get("name", "?"),
            cc=cc if cc != "None" else "?",
        )
    if kind == "arch":
        runs = f.get("runs", "")
        key = f"story.check.arch_{runs.replace('-', '_')}"
        if has(key):
            return t(
                key,
                **{
                    k: f.get(k, "?")
                    for k in (
                        "gpu",
                        "compute_capability",
                        "via",
                        "isa",
                        "needs_cuda",
                        "driver_cuda",
                        "missing",
                    )
                },
            )
        return None
    if kind == "op":
        key = "story.check.op_ok" if event.get("ok") else "story.check.op_bad"
        device = f.get("device", "GPU").rsplit("device:", 1)[-1]  # ".../device:GPU:0" -> "GPU:0"
        return t(key, op=f.get("op", "?"), device=device, error=f.get("rel_error", "?"))
    if kind == "fail":
        key = f"story.check.fail_{f.get('code', '').replace('-', '_')}"
        return t(key) + " (" + f.get("message", "") + ")" if has(key) else None
    if kind in ("fit", "limit"):  # a Keras fit without XLA; XLA's known limit (issue 33)
        return _train_sentence(kind, event, f)
    if kind == "done":
        key = "story.check.done_ok" if event.get("ok") else "story.check.done_failed"
        return t(key, seconds=f.get("seconds", "?"))
    return None


def _train_sentence(kind: str, event: dict[str, Any], f: dict[str, str]) -> str:
    if kind == "limit":
        return t("gpuroute.check_limit", cc=f.get("compute_capability", "?"))
    key = "gpuroute.check_fit_ok" if event.get("ok") else "gpuroute.check_fit_bad"
    return t(key, device=f.get("device", "GPU").rsplit("device:", 1)[-1])


def worded(line: str) -> str:
    start = line.find('{"')
    if start < 0 or not line.rstrip().endswith("}"):
        return line
    try:
        event = json.loads(line[start:])
    except ValueError:
        return line
    if not isinstance(event, dict) or event.get("check") != CHECK:
        return line
    sentence = _sentence(event)
    if sentence is None:
        sentence = safe(event.get("message", ""), 400) or line[start:]
    return line[:start] + sentence
