"""The lab after its setup, in words: `fleet check`'s verdicts, the board's cells, `--since`'s changes.

One wording for the CLI tables and the board screen (screens/fleet_watch_app.py renders
`board_cells`), so they cannot disagree. Host data goes through `safe` (control characters visible).
"""

from __future__ import annotations

import datetime as dt
import time

from wizard.fleet.check import FleetCheck
from wizard.fleet.history import Change, Kept
from wizard.fleet.receipts import _width
from wizard.fleet.watch import Board, HostRow
from wizard.safe.display import safe
from wizard.text import t

BOARD_COLUMNS = ("host", "gpu", "memory", "temp", "process", "receipt")
PROCESS_WIDTH = 22  # the process (or why a host is silent) in full is in the board's detail line


def _table(header: list[str], body: list[list[str]]) -> str:
    widths = [max(_width(r[i]) for r in [header, *body]) for i in range(len(header))]
    return "\n".join(
        "  ".join(c + " " * (widths[i] - _width(c)) for i, c in enumerate(r)).rstrip()
        for r in [header, *body]
    )


def status_word(status: str) -> str:
    return t(f"fleet.check.status.{status}")


def check_table(result: FleetCheck) -> str:
    body = []
    for h in result.hosts:
        what = "; ".join(d.words() for d in h.drift) if h.drift else h.reason
        if h.status == "clean":
            what = t("fleet.check.clean_detail", time=h.receipt_time or "-")
        body.append([safe(h.host, 60), status_word(h.status), safe(what, 300)])
    header = [t("fleet.check.column.host"), t("fleet.check.column.status"), t("fleet.check.column.what")]
    n = result.counts()
    summary = t(
        "fleet.check.summary",
        total=len(result.hosts),
        clean=n["clean"],
        drifted=n["drifted"],
        silent=n["not-answering"],
        other=n["unfit"] + n["unknown"],
        seconds=f"{result.seconds:.0f}",
    )
    return _table(header, body) + "\n\n" + summary


def _gib(n: int | None) -> str:
    return "-" if n is None else f"{n / 1024**3:.1f}"


def receipt_cell(row: HostRow) -> str:
    if row.receipt_status == "none" or not row.receipt_time:
        return t("fleet.watch.no_receipt")
    when = row.receipt_time
    try:
        local = dt.datetime.fromisoformat(when.replace("Z", "+00:00")).astimezone()
        when = local.strftime("%m-%d %H:%M")
    except ValueError:
        when = when[:16]
    return f"{t('fleet.watch.receipt.' + row.receipt_status)} {when}"


def board_cells(row: HostRow) -> list[str]:
    """host, GPU %, memory, temperature, process, receipt: a host with several GPUs shows the
    busiest's utilisation, the memory of all, the hottest, every process."""
    host = safe(row.host, 40)
    receipt = receipt_cell(row)
    if row.state == "waiting":
        return [host, "…", "", "", t("fleet.watch.waiting"), receipt]
    if row.state == "not-answering":
        return [host, "-", t("fleet.watch.not_answering"), "", safe(row.reason, PROCESS_WIDTH), receipt]
    if not row.gpus:
        return [host, "-", t("fleet.watch.no_gpu"), "", "", receipt]
    utils = [g.util for g in row.gpus if g.util is not None]
    util = f"{max(utils)}%" if utils else t("monitor.na")
    used = [g.mem_used for g in row.gpus if g.mem_used is not None]
    total = [g.mem_total for g in row.gpus if g.mem_total is not None]
    memory = f"{_gib(sum(used) if used else None)}/{_gib(sum(total) if total else None)} GiB"
    temps = [g.temperature for g in row.gpus if g.temperature is not None]
    temp = f"{max(temps)}°C" if temps else t("monitor.na")
    names = [p for g in row.gpus for p in g.processes]
    process = safe(", ".join(dict.fromkeys(names)), PROCESS_WIDTH) if names else t("fleet.watch.idle")
    if len(row.gpus) > 1:
        host = f"{host} ×{len(row.gpus)}"
    return [host, util, memory, temp, process, receipt]


def board_header() -> list[str]:
    return [t(f"fleet.watch.column.{c}") for c in BOARD_COLUMNS]


def board_summary(board: Board, interval: float | None = None) -> str:
    rows = board.ordered()
    return t(
        "fleet.watch.summary",
        round=board.round,
        seconds=f"{board.round_seconds:.1f}",
        total=len(rows),
        answering=sum(1 for r in rows if r.state == "answering"),
        silent=sum(1 for r in rows if r.state == "not-answering"),
        at=time.strftime("%H:%M:%S"),
    )


def board_table(board: Board) -> str:
    return _table(board_header(), [board_cells(r) for r in board.ordered()]) + "\n" + board_summary(board)


def _kept_cell(kept: Kept | None) -> str:
    if kept is None:
        return t("fleet.since.none")
    status = kept.row.status
    word = t(f"fleet.watch.receipt.{status}") if status in ("passed", "failed") else status
    return f"{word} {kept.when.astimezone():%m-%d %H:%M}"


def since_table(rows: list[Change], when: dt.datetime) -> str:
    body = []
    for c in rows:
        then, now = _kept_cell(c.then), _kept_cell(c.now)
        if c.then is None:
            what = t("fleet.since.new")
        elif not c.fields:
            what = t("fleet.since.same", runs=c.runs)
        else:
            what = "; ".join(
                t(
                    "fleet.since.field",
                    field=t(f"fleet.since.name.{f}"),
                    then=safe(a, 40) or "-",
                    now=safe(b, 40) or "-",
                )
                for f, a, b in c.fields
            )
        body.append([safe(c.host, 60), then, now, what])
    header = [t("fleet.since.column.host"), t("fleet.since.column.then"), t("fleet.since.column.now"),
              t("fleet.since.column.what")]  # fmt: skip
    return t("fleet.since.title", when=when.isoformat(timespec="minutes")) + "\n" + _table(header, body)
