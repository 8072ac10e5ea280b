"""Ansible run by the wizard, read as it answers: `fleet check` and `fleet watch` use it.

The project's callback (callback_plugins/tf_gpu_lines.py) writes one JSON line per host result as
each host answers; `run_lines` reads them until Ansible ends or the time limit, whichever is first,
then ends Ansible's whole process group (SIGTERM, then SIGKILL). A host with no line by then did
not answer: whatever a host does, the call returns within its limit. The inventory is the one
`fleet export -i` recorded in DIR/ansible.cfg (or the one given); forks are Ansible's to decide.
"""

from __future__ import annotations

import atexit
import configparser
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wizard.safe.error_words import os_error

CALLBACK = "tf_gpu_lines"
KILL_GRACE_S = 3.0
# Ansible runs in flight: ended when this process exits however it leaves (a quit while a round
# runs), since each has a session of its own that no signal to this process reaches.
_RUNNING: set[subprocess.Popen[bytes]] = set()


def _end_all() -> None:
    for proc in list(_RUNNING):
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


atexit.register(_end_all)


def end_with_this_process() -> None:
    """A hangup (the terminal closed) or a TERM ends this process through SystemExit, so the
    Ansible runs in flight are ended too (atexit): by default those signals skip atexit. Call it
    from the main thread."""

    def leave(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    for sig in (signal.SIGHUP, signal.SIGTERM):
        try:
            signal.signal(sig, leave)
        except (ValueError, OSError):  # not the main thread, or no such signal here
            pass


class AnsibleError(RuntimeError):
    """Ansible cannot be run for this project; one line for the user."""


@dataclass(frozen=True)
class HostLine:
    """One host's result of one task, as the callback wrote it."""

    host: str
    task: str
    status: str  # ok | failed | unreachable | skipped
    rc: int | None = None
    stdout: str = ""
    stderr: str = ""
    msg: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HostLine:
        rc = d.get("rc")
        return cls(
            host=str(d.get("host") or ""),
            task=str(d.get("task") or ""),
            status=str(d.get("status") or ""),
            rc=rc if isinstance(rc, int) else None,
            stdout=str(d.get("stdout") or ""),
            stderr=str(d.get("stderr") or ""),
            msg=str(d.get("msg") or ""),
        )


@dataclass
class AnsibleRun:
    lines: list[HostLine] = field(default_factory=list)
    recap: dict[str, dict[str, int]] = field(default_factory=dict)
    timed_out: bool = False
    stopped: bool = False
    returncode: int | None = None
    stderr_tail: str = ""
    seconds: float = 0.0


def tool(name: str) -> str | None:
    """`ansible`, `ansible-playbook`: the one beside this Python first (the wizard's own venv)."""
    import shutil

    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else shutil.which(name)


def recorded_inventory(project: Path) -> Path | None:
    """The inventory `fleet export -i` recorded in DIR/ansible.cfg."""
    parser = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=(";",))
    try:
        parser.read(project / "ansible.cfg", encoding="utf-8")
    except (OSError, configparser.Error, UnicodeDecodeError):
        return None
    value = parser.get("defaults", "inventory", fallback="").strip()
    return Path(value) if value else None


def inventory_hosts(project: Path, inventory: Path, timeout_s: float = 60.0) -> list[str]:
    """Every host the inventory names (`ansible-inventory --list`), sorted; an inventory that gives
    no answer within `timeout_s` (a dynamic one) is an error, not a wait."""
    exe = tool("ansible-inventory")
    if exe is None:
        raise AnsibleError(_text("fleet.ansible.missing", tool="ansible-inventory"))
    try:
        done = subprocess.run(
            [exe, "-i", str(inventory), "--list"], capture_output=True, text=True,
            timeout=timeout_s, check=False, cwd=project, env=ansible_env(project),
        )  # fmt: skip
        data = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        data = None
    if not isinstance(data, dict):
        raise AnsibleError(_text("fleet.ansible.inventory", path=str(inventory)))
    hosts = set(data.get("_meta", {}).get("hostvars", {}))
    for group in data.values():
        if isinstance(group, dict):
            hosts.update(h for h in group.get("hosts", []) if isinstance(h, str))
    return sorted(hosts)


def ansible_env(project: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ANSIBLE_CONFIG=str(project / "ansible.cfg"),
        ANSIBLE_STDOUT_CALLBACK=CALLBACK,
        ANSIBLE_LOAD_CALLBACK_PLUGINS="1",  # the ad-hoc `ansible` loads it too
        ANSIBLE_CALLBACK_PLUGINS=str(project / "callback_plugins"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_RETRY_FILES_ENABLED="0",
    )
    return env


def _text(key: str, **fields: Any) -> str:
    from wizard.text import t

    return t(key, **fields)


def run_lines(
    argv: list[str],
    project: Path,
    limit_s: float,
    on_line: Callable[[HostLine], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> AnsibleRun:
    """Run `argv` (an ansible or ansible-playbook command) and read its host lines for at most
    `limit_s` seconds; `on_line` is called with each as it comes; `stop()` True ends it early."""
    started = time.monotonic()
    run = AnsibleRun()
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(
                argv, cwd=project, env=ansible_env(project), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=err, start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            raise AnsibleError(_text("fleet.ansible.cannot_run", tool=argv[0], error=os_error(exc))) from None
        _RUNNING.add(proc)
        lines: queue.Queue[bytes | None] = queue.Queue()

        def reader() -> None:
            assert proc.stdout is not None
            for raw in proc.stdout:
                lines.put(raw)
            lines.put(None)

        threading.Thread(target=reader, daemon=True).start()
        ended = False
        while not ended:
            left = limit_s - (time.monotonic() - started)
            if left <= 0:
                run.timed_out = True
                break
            if stop is not None and stop():
                run.stopped = True
                break
            try:
                raw = lines.get(timeout=min(left, 0.25))
            except queue.Empty:
                continue
            if raw is None:
                ended = True
                break
            try:
                data = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                continue  # Ansible's own words on stdout (a warning): not a host's result
            if not isinstance(data, dict):
                continue
            if isinstance(data.get("recap"), dict):
                run.recap = {str(h): dict(v) for h, v in data["recap"].items() if isinstance(v, dict)}
                continue
            line = HostLine.from_dict(data)
            run.lines.append(line)
            if on_line is not None:
                on_line(line)
        if run.timed_out or run.stopped:
            _end_group(proc)
        try:
            run.returncode = proc.wait(timeout=KILL_GRACE_S * 2)
        except subprocess.TimeoutExpired:
            _end_group(proc, signal.SIGKILL)
            run.returncode = None
        _RUNNING.discard(proc)
        err.seek(0, os.SEEK_END)
        err.seek(max(0, err.tell() - 4000))
        run.stderr_tail = err.read().decode("utf-8", "replace")
    run.seconds = time.monotonic() - started
    return run


def _end_group(proc: subprocess.Popen[bytes], first: int = signal.SIGTERM) -> None:
    """Ansible and every connection it started (its own session) end."""
    for sig in (first, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=KILL_GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue
