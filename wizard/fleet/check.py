"""`fleet check DIR`: every host of the project re-proved against its class's lock, through Ansible.

DIR/check.yml runs fleet_check.py on each host (Ansible's inventory, connections and forks), which
digests the installed lock, checks every package of it against its RECORD (size and sha256 of each
file), and reads the driver and GPUs against the host's last receipt. Each host is then:
clean, drifted (each difference named: the package, its files, the version, the driver), not
answering (Ansible could not reach it or run anything there, or no answer within the limit),
left alone (no set fits it: the plan says why), or unknown (the check could not be read: why).
The next `ansible-playbook` run repairs a drifted environment: the TensorFlow step's own check
fails there first, so its repair and install run on that host only. A package none of the plan's
locks names (put in by hand) is named too; the playbook leaves it (it removes nothing it did not
install), and the words say so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wizard.fleet.ansible_lines import AnsibleError, AnsibleRun, HostLine, inventory_hosts, run_lines, tool
from wizard.safe.atomic import read_bytes_limited
from wizard.text import t

STATUSES = ("clean", "drifted", "not-answering", "unfit", "unknown")
CHECK_PLAYBOOK = "check.yml"
CHECK_TASK = "Re-prove the host against its class's lock"
DEFAULT_LIMIT_S = 100.0  # the whole check, whatever the hosts do (the bound is 120 s)
MAX_OUTPUT = 1 << 20


@dataclass(frozen=True)
class Drift:
    """One difference from what the host's receipt proved."""

    kind: str  # lock | missing | version | files | extra | driver | gpus | environment
    package: str = ""
    files: tuple[str, ...] = ()
    count: int = 0
    want: str = ""
    now: str = ""

    def words(self) -> str:
        fields = {
            "package": self.package,
            "files": ", ".join(self.files),
            "count": self.count,
            "want": self.want or t("fleet.check.none"),
            "now": self.now or t("fleet.check.none"),
        }
        return t(f"fleet.check.drift.{self.kind}", **fields)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "package": self.package,
            "files": list(self.files),
            "count": self.count,
            "want": self.want,
            "now": self.now,
            "words": self.words(),
        }


@dataclass(frozen=True)
class HostCheck:
    host: str
    status: str  # one of STATUSES
    drift: tuple[Drift, ...] = ()
    reason: str = ""
    receipt_time: str = ""
    seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "status": self.status,
            "drift": [d.to_dict() for d in self.drift],
            "reason": self.reason,
            "receipt_time": self.receipt_time,
            "seconds": self.seconds,
        }


@dataclass
class FleetCheck:
    hosts: list[HostCheck] = field(default_factory=list)
    seconds: float = 0.0
    limit_s: float = DEFAULT_LIMIT_S
    timed_out: bool = False

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for h in self.hosts if h.status == s) for s in STATUSES}

    def to_dict(self) -> dict[str, Any]:
        return {
            "hosts": [h.to_dict() for h in self.hosts],
            "counts": self.counts(),
            "seconds": round(self.seconds, 1),
            "limit_s": self.limit_s,
            "timed_out": self.timed_out,
        }


def _str(value: Any) -> str:
    return "" if value is None else str(value)


def drifts(report: dict[str, Any]) -> list[Drift]:
    """What fleet_check.py found different, one Drift each (empty: clean)."""
    out: list[Drift] = []
    lock = report.get("lock") if isinstance(report.get("lock"), dict) else {}
    assert isinstance(lock, dict)
    if lock.get("digest") != lock.get("want"):
        out.append(Drift("lock", want=_str(lock.get("want"))[:16], now=_str(lock.get("digest"))[:16]))
    for p in report.get("packages") or []:
        if not isinstance(p, dict):
            continue
        problem = _str(p.get("problem"))
        name = _str(p.get("name"))
        if problem == "missing":
            out.append(Drift("missing", name, want=_str(p.get("want"))))
        elif problem == "version":
            out.append(Drift("version", name, want=_str(p.get("want")), now=_str(p.get("version"))))
        elif problem == "files":
            files = tuple(_str(f) for f in p.get("files") or [])
            found = p.get("count")
            out.append(
                Drift("files", name, files=files, count=found if isinstance(found, int) else len(files))
            )
        elif problem == "extra":
            out.append(Drift("extra", name, now=_str(p.get("version"))))
        elif problem == "no-environment":
            out.append(Drift("environment", now=_str(p.get("path"))))
    driver = report.get("driver") if isinstance(report.get("driver"), dict) else {}
    assert isinstance(driver, dict)
    if not driver.get("unread") or driver.get("receipt"):
        if _str(driver.get("now")) != _str(driver.get("receipt")):
            read = _str(driver.get("now")) or _str(driver.get("unread"))
            out.append(Drift("driver", want=_str(driver.get("receipt")), now=read))
    gpus = report.get("gpus") if isinstance(report.get("gpus"), dict) else {}
    assert isinstance(gpus, dict)
    was, seen = [_str(g) for g in gpus.get("receipt") or []], [_str(g) for g in gpus.get("now") or []]
    if sorted(was) != sorted(seen) and not (driver.get("unread") and not was):
        out.append(Drift("gpus", want="; ".join(was), now="; ".join(seen)))
    return out


def host_verdict(host: str, lines: list[HostLine], planned: bool = True) -> HostCheck | None:
    """The verdict from a host's lines (None: no line yet, it has not answered); `planned`: the
    control node has this host's plan (DIR/plans/HOST.json)."""
    if not lines:
        return None
    for line in lines:
        if line.status == "unreachable":
            return HostCheck(host, "not-answering", reason=t("fleet.check.unreachable", error=line.msg))
    failed = next((ln for ln in lines if ln.status == "failed"), None)
    if failed is not None and failed.rc is None and not failed.stdout:
        if not planned:
            return HostCheck(host, "unknown", reason=t("fleet.check.no_plan", error=failed.msg))
        # Every task of a host opens its connection first: with the plan there, a failure that ran
        # nothing is the connection's (a chroot whose root is gone, a host that refused). Ansible's
        # own message is the evidence.
        return HostCheck(host, "not-answering", reason=t("fleet.check.no_connection", error=failed.msg))
    check = next((ln for ln in lines if ln.task == CHECK_TASK), None)
    if check is None:
        if failed is not None:
            return HostCheck(host, "unknown", reason=t("fleet.check.failed", error=failed.msg))
        return None  # still on its way
    if check.status == "skipped":
        return HostCheck(host, "unfit", reason=t("fleet.check.unfit"))
    try:
        report = json.loads(check.stdout)
    except ValueError:
        report = None
    if check.status != "ok" or not isinstance(report, dict):
        why = (check.stderr.strip() or check.stdout.strip() or check.msg).splitlines()
        return HostCheck(host, "unknown", reason=t("fleet.check.failed", error=why[-1] if why else check.rc))
    found = drifts(report)
    receipt = report.get("receipt") if isinstance(report.get("receipt"), dict) else {}
    assert isinstance(receipt, dict)
    seconds = report.get("seconds")
    return HostCheck(
        host,
        "drifted" if found else "clean",
        drift=tuple(found),
        receipt_time=_str(receipt.get("time")),
        seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
    )


def planned_hosts(project: Path) -> list[str]:
    try:
        data = json.loads(read_bytes_limited(project / "plans" / "summary.json", MAX_OUTPUT).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    hosts = data.get("hosts") if isinstance(data, dict) else None
    return sorted(hosts) if isinstance(hosts, dict) else []


def check_fleet(project: Path, inventory: Path, limit_s: float = DEFAULT_LIMIT_S) -> FleetCheck:
    """Run DIR/check.yml on every host of `inventory`; every host gets a verdict within `limit_s`."""
    import time

    started = time.monotonic()
    playbook = tool("ansible-playbook")
    if playbook is None:
        raise AnsibleError(t("fleet.ansible.missing", tool="ansible-playbook"))
    if not (project / CHECK_PLAYBOOK).is_file():
        raise AnsibleError(t("fleet.check.no_playbook", path=str(project)))
    hosts = inventory_hosts(project, inventory, timeout_s=max(5.0, limit_s / 3))
    left = max(5.0, limit_s - (time.monotonic() - started))
    run: AnsibleRun = run_lines(
        [playbook, "-i", str(inventory), str(project / CHECK_PLAYBOOK)], project, left
    )
    by_host: dict[str, list[HostLine]] = {}
    for line in run.lines:
        by_host.setdefault(line.host, []).append(line)
    result = FleetCheck(limit_s=limit_s, timed_out=run.timed_out)
    for host in sorted(set(hosts) | set(by_host)):
        verdict = host_verdict(host, by_host.get(host, []), (project / "plans" / f"{host}.json").is_file())
        if verdict is None:
            reason = (
                t("fleet.check.no_answer", seconds=f"{limit_s:g}")
                if run.timed_out
                else t("fleet.check.ansible_ended", error=_last_line(run.stderr_tail))
            )
            verdict = HostCheck(host, "not-answering", reason=reason)
        result.hosts.append(verdict)
    result.seconds = time.monotonic() - started
    return result


def _last_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip() and "Warning" not in ln]
    return lines[-1].strip()[:300] if lines else "-"
