"""`fleet report`: the hosts' receipts (DIR/receipts/HOST.json) and the plan's verdict per host
(DIR/plans/summary.json) as one row a host, for people (a table), machines (--json) and IT's
spreadsheet (DIR/report.csv). A host without a receipt says why: its facts did not come in, no set
fits it, or it failed before its check.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from wizard.safe.atomic import read_bytes_limited, write_text_atomic
from wizard.safe.display import safe
from wizard.text import t

MAX_RECEIPT = 1 << 20
STATUSES = ("passed", "failed", "no-receipt", "unfit", "no-facts")
COLUMNS = ("host", "status", "class", "gpu", "driver", "tensorflow", "lock", "seconds", "time", "detail")
CSV_COLUMNS = (*COLUMNS, "secure_boot")


@dataclass(frozen=True)
class Row:
    host: str
    status: str  # one of STATUSES
    host_class: str = ""
    gpu: str = ""
    driver: str = ""
    tensorflow: str = ""
    lock_digest: str = ""
    seconds: float | None = None
    time: str = ""
    detail: str = ""
    secure_boot: str = ""  # on | off | unknown, from the receipt (JSON and CSV; the table has no room)

    def cells(self) -> list[str]:
        return [
            self.host,
            self.status,
            self.host_class,
            self.gpu,
            self.driver,
            self.tensorflow,
            self.lock_digest[:12],
            "" if self.seconds is None else f"{self.seconds:g}",
            self.time,
            self.detail,
        ]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["class"] = d.pop("host_class")
        return d


def _read_json(path: Path) -> Any:
    try:
        return json.loads(read_bytes_limited(path, MAX_RECEIPT).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _from_receipt(host: str, data: dict[str, Any]) -> Row:
    check: dict[str, Any] = data["check"] if isinstance(data.get("check"), dict) else {}
    gpus: list[Any] = data["gpus"] if isinstance(data.get("gpus"), list) else []
    gpu = "; ".join(_text(g.get("name")) for g in gpus if isinstance(g, dict)) or t("fleet.report.no_gpu")
    tf: dict[str, Any] = data["tensorflow"] if isinstance(data.get("tensorflow"), dict) else {}
    seconds = check.get("seconds")
    return Row(
        host=host,
        status="passed" if check.get("passed") is True else "failed",
        host_class=_text(data.get("class")),
        gpu=gpu,
        driver=_text(data.get("driver")) or "-",
        tensorflow=" ".join(x for x in (_text(tf.get("distribution")), _text(tf.get("version"))) if x),
        lock_digest=_text(data.get("lock_digest")),
        seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
        time=_text(data.get("time")),
        detail=_text(check.get("message")),
        secure_boot=_text(data.get("secure_boot")),
    )


def load_report(project: Path) -> list[Row]:
    summary = _read_json(project / "plans" / "summary.json")
    hosts: dict[str, Any] = summary.get("hosts", {}) if isinstance(summary, dict) else {}
    found = summary.get("classes") if isinstance(summary, dict) else None
    classes: dict[str, Any] = (
        {k: v for k, v in found.items() if isinstance(v, dict)} if isinstance(found, dict) else {}
    )
    receipts = {p.stem: p for p in sorted((project / "receipts").glob("*.json"))}
    rows = []
    for host in sorted(set(hosts) | set(receipts)):
        entry: dict[str, Any] = hosts[host] if isinstance(hosts.get(host), dict) else {}
        status = _text(entry.get("status"))
        data = _read_json(receipts[host]) if host in receipts else None
        # This run's verdict first: a receipt left from an earlier run does not speak for a host
        # whose facts did not come in now, or that no set fits now.
        if isinstance(data, dict) and status not in ("unfit", "no-facts"):
            row = _from_receipt(host, data)
            planned = _text((classes.get(row.host_class) or {}).get("lock_digest"))
            if row.status == "passed" and planned and row.lock_digest != planned:
                # TensorFlow runs, but not from the class's lock: the host is not one of ten identical.
                detail = t("fleet.report.lock_differs", got=row.lock_digest[:16] or "-", want=planned[:16])
                row = replace(row, status="failed", detail=detail)
            rows.append(row)
            continue
        if status == "planned":
            rows.append(
                Row(host, "no-receipt", _text(entry.get("class")), detail=t("fleet.report.no_receipt"))
            )
        elif status in ("unfit", "no-facts"):
            rows.append(Row(host, status, _text(entry.get("class")), detail=_text(entry.get("reason"))))
        else:
            rows.append(Row(host, "no-receipt", detail=t("fleet.report.unreadable")))
    return rows


def csv_text(rows: list[Row]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        # A spreadsheet runs a cell that starts with = + - @ as a formula: such text is quoted as text.
        cells = [*row.cells(), row.secure_boot]
        writer.writerow(["'" + c if c[:1] in ("=", "+", "-", "@") and c != "-" else c for c in cells])
    return buf.getvalue()


def write_csv(project: Path, rows: list[Row]) -> Path:
    path = project / "report.csv"
    write_text_atomic(path, csv_text(rows), encoding="utf-8-sig")  # a BOM: spreadsheets then read UTF-8
    return path


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def table(rows: list[Row]) -> str:
    header = [t(f"fleet.report.column.{c}") for c in COLUMNS]
    body = [[safe(c, 60) for c in row.cells()] for row in rows]
    widths = [max(_width(r[i]) for r in [header, *body]) for i in range(len(COLUMNS))]
    lines = []
    for r in [header, *body]:
        lines.append("  ".join(c + " " * (widths[i] - _width(c)) for i, c in enumerate(r)).rstrip())
    return "\n".join(lines)


def counts(rows: list[Row]) -> dict[str, int]:
    return {s: sum(1 for r in rows if r.status == s) for s in STATUSES}
