"""Receipts kept by time: the role copies each run's receipt to DIR/receipts/history/HOST/TIME.json
(TIME: the receipt's own, UTC); `fleet report --since WHEN` compares, host by host, the receipt in
force at WHEN with the newest one, field by field (status, class, GPU, driver, TensorFlow, lock).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wizard.fleet.receipts import MAX_RECEIPT, Row, _from_receipt
from wizard.safe.atomic import read_bytes_limited
from wizard.text import t

HISTORY = ("receipts", "history")
COMPARED = ("status", "host_class", "gpu", "driver", "tensorflow", "lock_digest")


class SinceError(ValueError):
    """--since WHEN is not a time; one line for the user."""


def parse_when(text: str) -> dt.datetime:
    """An ISO 8601 date or time ("2026-12-06", "2026-12-06 09:30", "...Z", "...+08:00"); one without
    a zone is this computer's local time."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        when = dt.datetime.fromisoformat(value)
    except ValueError:
        raise SinceError(t("fleet.since.bad_when", value=text)) from None
    return when.astimezone() if when.tzinfo is None else when


def _time(text: str) -> dt.datetime | None:
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.timezone.utc)


@dataclass(frozen=True)
class Kept:
    """One kept receipt, as the report reads it."""

    when: dt.datetime
    row: Row


def kept(project: Path, host: str) -> list[Kept]:
    """The host's kept receipts, oldest first (the current one too, where the history lacks it)."""
    folder = project.joinpath(*HISTORY, host)
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    current = project / "receipts" / f"{host}.json"
    out: dict[str, Kept] = {}
    for path in [*paths, current]:
        try:
            data = json.loads(read_bytes_limited(path, MAX_RECEIPT).decode("utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict):
            continue
        when = _time(str(data.get("time") or ""))
        if when is not None:
            out[when.isoformat()] = Kept(when, _from_receipt(host, data))
    return sorted(out.values(), key=lambda k: k.when)


@dataclass(frozen=True)
class Change:
    host: str
    then: Kept | None
    now: Kept | None
    runs: int  # receipts kept after WHEN
    fields: list[tuple[str, str, str]] = field(default_factory=list)  # (field, then, now)

    def to_dict(self) -> dict[str, Any]:
        def side(k: Kept | None) -> dict[str, Any] | None:
            return None if k is None else {"time": k.when.isoformat(), **k.row.to_dict()}

        return {
            "host": self.host,
            "then": side(self.then),
            "now": side(self.now),
            "runs_since": self.runs,
            "changed": [{"field": f, "then": a, "now": b} for f, a, b in self.fields],
        }


def _value(row: Row, name: str) -> str:
    value = str(getattr(row, name))
    return value[:16] if name == "lock_digest" else value


def changes_since(project: Path, when: dt.datetime) -> list[Change]:
    hosts = set()
    history = project.joinpath(*HISTORY)
    if history.is_dir():
        hosts |= {p.name for p in history.iterdir() if p.is_dir()}
    hosts |= {p.stem for p in (project / "receipts").glob("*.json")}
    out = []
    for host in sorted(hosts):
        all_kept = kept(project, host)
        before = [k for k in all_kept if k.when <= when]
        then = before[-1] if before else None
        now = all_kept[-1] if all_kept else None
        fields = []
        if then is not None and now is not None:
            fields = [
                (name, _value(then.row, name), _value(now.row, name))
                for name in COMPARED
                if _value(then.row, name) != _value(now.row, name)
            ]
        out.append(Change(host, then, now, len(all_kept) - len(before), fields))
    return out
