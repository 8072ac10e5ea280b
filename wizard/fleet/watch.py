"""`fleet watch DIR`: the TA's board. One row per host: GPU utilisation, memory, temperature, the
process using the GPU, the host's last receipt.

Each round is one ad-hoc Ansible run over the inventory (its connections, its forks) of the wizard's
own monitor on each host: `python3 /opt/tf-gpu-wizard/tf-gpu-wizard-probe.pyz monitor --json
--count 1` (the project's folder), the same JSON line as `tf-gpu-wizard monitor --json`. Rows
change as hosts answer; a host with no answer when the round's time is up is shown as not
answering (with its last reading's time), and the next round asks it again: nothing waits on one host.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from wizard.fleet.ansible_lines import AnsibleError, HostLine, inventory_hosts, run_lines, tool
from wizard.fleet.hostplan import REMOTE_DIR
from wizard.fleet.project import PROBE_ZIP
from wizard.safe.atomic import read_bytes_limited
from wizard.text import language, t

# The folder is the project's own setting (group_vars/all.yml, which --playbook-dir loads; an
# inventory may set it per host); Ansible fills it in on each host.
MONITOR_ARGS = (
    f"python3 {{{{ tf_gpu_remote_dir | default('{REMOTE_DIR}') }}}}/{PROBE_ZIP}"
    " monitor --json --count 1 --lang "
)
DEFAULT_INTERVAL_S = 5.0
ROUND_LIMIT_S = 30.0  # one round, whatever a host does
MAX_RECEIPT = 1 << 20


@dataclass(frozen=True)
class GpuReading:
    index: int
    name: str = ""
    util: int | None = None  # percent
    mem_used: int | None = None  # bytes
    mem_total: int | None = None
    temperature: int | None = None  # degrees C
    processes: tuple[str, ...] = ()  # names of the processes using it
    lost: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "util_gpu": self.util,
            "mem_used": self.mem_used,
            "mem_total": self.mem_total,
            "temperature": self.temperature,
            "processes": list(self.processes),
            "lost": self.lost,
        }


@dataclass(frozen=True)
class HostRow:
    host: str
    state: str = "waiting"  # waiting | answering | not-answering
    gpus: tuple[GpuReading, ...] = ()
    no_gpu: str = ""  # why there is no GPU reading (the host's monitor says)
    cpu_percent: float | None = None
    reason: str = ""  # why it is not answering
    read_at: float | None = None  # wall-clock time of its last reading
    receipt_time: str = ""
    receipt_status: str = ""  # passed | failed | none

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "state": self.state,
            "gpus": [g.to_dict() for g in self.gpus],
            "no_gpu": self.no_gpu,
            "cpu_percent": self.cpu_percent,
            "reason": self.reason,
            "read_at": self.read_at,
            "receipt": {"time": self.receipt_time, "status": self.receipt_status},
        }


@dataclass
class Board:
    """The rows of the board, in the inventory's host order (sorted)."""

    rows: dict[str, HostRow] = field(default_factory=dict)
    round: int = 0
    round_seconds: float = 0.0

    def ordered(self) -> list[HostRow]:
        return [self.rows[h] for h in sorted(self.rows)]


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def reading(stdout: str) -> dict[str, Any] | None:
    """The last sample line the host's monitor wrote (None: no sample in its output)."""
    found = None
    for line in stdout.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("type") == "sample":
            found = data
    return found


def gpus_of(sample: dict[str, Any]) -> tuple[GpuReading, ...]:
    out = []
    for g in sample.get("gpus") or []:
        if not isinstance(g, dict):
            continue
        procs = tuple(
            str(p.get("name") or p.get("pid") or "?") for p in g.get("processes") or [] if isinstance(p, dict)
        )
        out.append(
            GpuReading(
                index=_int(g.get("index")) or 0,
                name=str(g.get("name") or ""),
                util=_int(g.get("util_gpu")),
                mem_used=_int(g.get("mem_used")),
                mem_total=_int(g.get("mem_total")),
                temperature=_int(g.get("temperature")),
                processes=procs,
                lost=g.get("lost") is True,
            )
        )
    return tuple(out)


def last_receipt(project: Path, host: str) -> tuple[str, str]:
    """(time, passed|failed) of the host's last receipt on this control node; ("", "none")."""
    try:
        data = json.loads(
            read_bytes_limited(project / "receipts" / f"{host}.json", MAX_RECEIPT).decode("utf-8")
        )
    except (OSError, ValueError, UnicodeDecodeError):
        return "", "none"
    if not isinstance(data, dict):
        return "", "none"
    check = data.get("check") if isinstance(data.get("check"), dict) else {}
    assert isinstance(check, dict)
    return str(data.get("time") or ""), "passed" if check.get("passed") is True else "failed"


def apply_line(row: HostRow, line: HostLine, now: float) -> HostRow:
    """A host's answer in this round, onto its row."""
    sample = reading(line.stdout) if line.status == "ok" else None
    if sample is None:
        # The host's own words first; "non-zero return code" (the module's msg) says less.
        why = (line.stderr.strip() or line.msg or line.stdout.strip() or line.status).splitlines()
        return replace(row, state="not-answering", reason=why[-1][:300] if why else line.status)
    host = sample.get("host") if isinstance(sample.get("host"), dict) else {}
    assert isinstance(host, dict)
    cpus = [c for c in host.get("cpu_percent") or [] if isinstance(c, (int, float))]
    return replace(
        row,
        state="answering",
        gpus=gpus_of(sample),
        no_gpu=str(sample.get("no_gpu_reason") or ""),
        cpu_percent=sum(cpus) / len(cpus) if cpus else None,
        reason="",
        read_at=now,
    )


def watch(
    project: Path,
    inventory: Path,
    *,
    interval: float = DEFAULT_INTERVAL_S,
    count: int | None = None,
    round_limit_s: float = ROUND_LIMIT_S,
    on_change: Callable[[Board], None] | None = None,
    stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], bool] | None = None,
) -> Iterator[Board]:
    """The board after each round (`count` rounds, or until `stop()`); `on_change` after each
    host's answer within a round. `sleep(s)` waits between rounds and says True to stop."""
    ansible = tool("ansible")
    if ansible is None:
        raise AnsibleError(t("fleet.ansible.missing", tool="ansible"))
    hosts = inventory_hosts(project, inventory)
    board = Board(rows={h: HostRow(h) for h in hosts})
    argv = [
        ansible, "all", "-i", str(inventory), "--playbook-dir", str(project),
        "-m", "ansible.builtin.command", "-a", MONITOR_ARGS + language(),
    ]  # fmt: skip
    while count is None or board.round < count:
        started = time.monotonic()
        answered: set[str] = set()  # this round's; `got` below is called within the round only
        for host in board.rows:
            when, status = last_receipt(project, host)
            board.rows[host] = replace(board.rows[host], receipt_time=when, receipt_status=status)
        if on_change is not None and board.round == 0:
            on_change(board)  # every host's row at once, asking, before the first answer

        def got(line: HostLine, answered: set[str] = answered) -> None:
            if line.host not in board.rows:
                board.rows[line.host] = HostRow(line.host)
            answered.add(line.host)
            board.rows[line.host] = apply_line(board.rows[line.host], line, time.time())
            if on_change is not None:
                on_change(board)

        run = run_lines(argv, project, round_limit_s, on_line=got, stop=stop)
        if run.stopped:
            return
        for host, row in board.rows.items():
            if host not in answered:
                why = (
                    t("fleet.watch.no_answer", seconds=f"{round_limit_s:g}")
                    if run.timed_out
                    else t("fleet.watch.no_line")
                )
                board.rows[host] = replace(row, state="not-answering", reason=why)
        board.round += 1
        board.round_seconds = time.monotonic() - started
        yield board
        if (count is not None and board.round >= count) or stop():
            return
        wait = max(0.0, interval - board.round_seconds)
        if sleep is not None:
            if sleep(wait):
                return
        else:
            time.sleep(wait)
