"""A machine dump: the raw evidence the probe read, written so that the same probe replays it.

`record(DIR)` runs `detect()` with every door to the machine recorded and writes:

  DIR/dump.json      {"format": 1, "tool": "tf-gpu-wizard", "masked": [...]}
  DIR/commands.json  [{"argv": [...], "stdout": "...", "stderr": "...", "exit": N}, ...] in the order run
                     ("missing": true where the program is not installed, "timed_out": true on a timeout)
  DIR/root/<abs path> every file the probe read (whole, up to the probe's limit), every folder it
                     listed (its entries as empty files or folders), every link it resolved (as a link)
  DIR/nvml.json      [{"call": "driver_version", "args": [], "result": ...} or {"..., "error":
                     {"kind": "driver_not_loaded", "detail": "..."}}] in call order; "factory" is the
                     library's load
  DIR/env.json       the environment variables the probe asked for (those it found)
  DIR/python.json    the interpreter the probe described (PythonFacts), its home, the wizard's own uv
  DIR/packages.json  the distributions the probe asked for -> version (null: not installed)
  DIR/resources.json RAM, CPUs, free disk in the home folder

Secrets and the user's name are masked before anything is written: the user's home folder becomes
/home/USER (the name in any text too), a URL's user and password become ***, and an environment
variable whose name says TOKEN, SECRET, PASSWORD, PASSWD, KEY, AUTH or CREDENTIAL keeps only its name.
`replay(DIR)` gives a ProbeContext that answers from the dump: the same probe reads the same answers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from wizard.nvml import ErrorKind, NvmlBackend, NvmlError, PynvmlBackend
from wizard.probe.context import ProbeContext, PythonFacts, installed_version, running_python
from wizard.safe.display import safe
from wizard.sysio import CommandResult, CommandRunner, System, run_command
from wizard.text import t

FORMAT = 1
FILE_LIMIT = 1 << 20  # what the probe reads of a file at most
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|KEY|AUTH|CREDENTIAL", re.IGNORECASE)
_URL_USER = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s:]+(?::[^/@\s]*)?@")
NVML_METHODS = (
    "init",
    "shutdown",
    "driver_version",
    "cuda_driver_version",
    "device_count",
    "name",
    "compute_capability",
    "memory",
    "uuid",
    "pci_bus_id",
    "utilization",
    "temperature",
    "power_usage",
    "power_limit",
    "clock",
    "max_clock",
    "fan_speed",
    "performance_state",
    "pcie_throughput",
    "throttle_reasons",
    "processes",
)


class DumpError(ValueError):
    """A dump that cannot be replayed; the message is one line for the user."""


# ---- masking ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Mask:
    """What is masked in a dump: the user's home folder and name, URL credentials."""

    home: str = ""
    user: str = ""

    @classmethod
    def here(cls, home: Path) -> Mask:
        home_text = str(home)
        parts = Path(home_text).parts
        # /home/alice, /Users/alice: a personal folder; /root and service homes hide no name.
        if len(parts) >= 3 and parts[1] in ("home", "Users") and parts[2] not in ("USER", ""):
            return cls(home=home_text, user=parts[2])
        return cls()

    def text(self, value: str) -> str:
        if self.home:
            value = value.replace(self.home, str(Path(self.home).parent / "USER"))
        if self.user and len(self.user) >= 3:
            value = re.sub(rf"(?<![A-Za-z0-9]){re.escape(self.user)}(?![A-Za-z0-9])", "USER", value)
        return _URL_USER.sub(lambda m: m.group("scheme") + "***:***@", value)

    def value(self, data: Any) -> Any:
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, list):
            return [self.value(v) for v in data]
        if isinstance(data, dict):
            return {self.text(k) if isinstance(k, str) else k: self.value(v) for k, v in data.items()}
        return data

    @property
    def names(self) -> list[str]:
        return (["home", "user"] if self.home else []) + ["url-credentials", "secret-variables"]


# ---- recording ----------------------------------------------------------------------------
@dataclass
class _Recorder:
    commands: list[dict[str, Any]] = field(default_factory=list)
    paths: dict[str, set[str]] = field(default_factory=dict)  # machine path -> ops
    nvml: list[dict[str, Any]] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    packages: dict[str, str | None] = field(default_factory=dict)

    def touch(self, path: str | os.PathLike[str], op: str) -> None:
        self.paths.setdefault(str(path), set()).add(op)


class _RecordingEnv(Mapping[str, str]):
    def __init__(self, real: Mapping[str, str], rec: _Recorder) -> None:
        self._real, self._rec = real, rec

    def __getitem__(self, key: str) -> str:
        value = self._real[key]
        self._rec.env[key] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._real)

    def __len__(self) -> int:
        return len(self._real)


@dataclass
class RecordingSystem(System):
    """The real machine's door, noting every path touched (the probe only reads)."""

    recorder: _Recorder = field(default_factory=_Recorder)

    def read_text(self, p: str | os.PathLike[str], limit: int = 1 << 20) -> str | None:
        self.recorder.touch(p, "read")
        return super().read_text(p, limit)

    def exists(self, p: str | os.PathLike[str]) -> bool:
        self.recorder.touch(p, "exists")
        return super().exists(p)

    def is_dir(self, p: str | os.PathLike[str]) -> bool:
        self.recorder.touch(p, "exists")
        return super().is_dir(p)

    def listdir(self, p: str | os.PathLike[str]) -> list[str]:
        found = super().listdir(p)
        self.recorder.touch(p, "list")
        for name in found:
            self.recorder.touch(os.path.join(str(p), name), "exists")
        return found

    def glob(self, directory: str, pattern: str) -> list[str]:
        found = super().glob(directory, pattern)
        self.recorder.touch(directory, "exists")
        for path in found:
            self.recorder.touch(path, "exists")
        return found

    def realpath(self, p: str) -> str:
        self.recorder.touch(p, "link")
        return super().realpath(p)


def _recording_runner(inner: CommandRunner, rec: _Recorder) -> CommandRunner:
    def run(argv: Sequence[str], timeout: float) -> CommandResult:
        result = inner(argv, timeout)
        entry: dict[str, Any] = {
            "argv": list(argv),
            "stdout": result.stdout,
            "stderr": result.stderr,
            "exit": result.returncode,
        }
        if result.missing:
            entry["missing"] = True
        if result.timed_out:
            entry["timed_out"] = True
        rec.commands.append(entry)
        return result

    return run


class _RecordingNvml:
    def __init__(self, inner: NvmlBackend, rec: _Recorder) -> None:
        self._inner, self._rec = inner, rec

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._inner, name)
        if name not in NVML_METHODS:
            return method  # type: ignore[no-any-return]

        def call(*args: Any) -> Any:
            entry: dict[str, Any] = {"call": name, "args": list(args)}
            try:
                result = method(*args)
            except NvmlError as exc:
                entry["error"] = {"kind": exc.kind.value, "detail": exc.detail}
                self._rec.nvml.append(entry)
                raise
            entry["result"] = list(result) if isinstance(result, tuple) else result
            self._rec.nvml.append(entry)
            return result

        return call


def _nvml_factory(factory: Callable[[], NvmlBackend], rec: _Recorder) -> Callable[[], NvmlBackend]:
    def make() -> NvmlBackend:
        try:
            backend = factory()
        except NvmlError as exc:
            rec.nvml.append(
                {"call": "factory", "args": [], "error": {"kind": exc.kind.value, "detail": exc.detail}}
            )
            raise
        rec.nvml.append({"call": "factory", "args": [], "result": None})
        return _RecordingNvml(backend, rec)  # type: ignore[return-value]

    return make


def _resources_now(home: Path) -> dict[str, Any]:
    from wizard.probe.resources import MIB

    try:
        import psutil

        free: int | None
        try:
            free = psutil.disk_usage(str(home)).free // MIB
        except OSError:
            free = None
        return {
            "ram_mib": psutil.virtual_memory().total // MIB,
            "cpu_count": psutil.cpu_count(logical=True),
            "home_free_mib": free,
            "layer": "psutil",
        }
    except ImportError:  # the standard library's readings, as probe.resources takes them
        from wizard.probe.resources import _without_psutil
        from wizard.profile import MachineProfile

        p = MachineProfile()
        layer = _without_psutil(ProbeContext(system=System(home=home)), p)
        r = p.resources
        return {
            "ram_mib": r.ram_mib,
            "cpu_count": r.cpu_count,
            "home_free_mib": r.home_free_mib,
            "layer": layer,
        }


def recording_context(
    system: System | None = None,
    nvml_factory: Callable[[], NvmlBackend] = PynvmlBackend,
    python: PythonFacts | None = None,
    installed: Callable[[str], str | None] = installed_version,
) -> tuple[ProbeContext, _Recorder]:
    """A ProbeContext on the real machine (or the given one) that records what the probe reads."""
    rec = _Recorder()
    base = system or System()
    recording = RecordingSystem(
        root=base.root,
        runner=_recording_runner(base.runner, rec),
        environ=_RecordingEnv(base.environ, rec),
        home=base.home,
        recorder=rec,
    )

    def asked(name: str) -> str | None:
        version = installed(name)
        rec.packages[name] = version
        return version

    from wizard.probe.installers import bundled_uv

    own_uv = bundled_uv() if base.root == Path("/") else None
    resources = _resources_now(base.home)
    ctx = ProbeContext(
        system=recording,
        nvml_factory=_nvml_factory(nvml_factory, rec),
        python=python or running_python(),
        installed=asked,
        bundled_uv=lambda: own_uv,
        resources_reader=lambda: dict(resources),
    )
    rec.env["__resources__"] = json.dumps(resources)
    rec.env["__bundled_uv__"] = json.dumps(own_uv)
    return ctx, rec


def write_dump(directory: Path, ctx: ProbeContext, rec: _Recorder) -> None:
    """Write what `rec` saw into `directory` (made; an existing dump there is replaced)."""
    mask = Mask.here(ctx.system.home)
    resources = json.loads(rec.env.pop("__resources__", "{}"))
    own_uv = json.loads(rec.env.pop("__bundled_uv__", "null"))
    directory.mkdir(parents=True, exist_ok=True)
    root = directory / "root"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    _write_tree(root, ctx.system, rec, mask)
    env = {k: ("***" if _SECRET_NAME.search(k) else v) for k, v in rec.env.items()}
    py = asdict(ctx.python)
    python = {**py, "home": str(ctx.system.home), "bundled_uv": own_uv}
    out = {
        "dump.json": {"format": FORMAT, "tool": "tf-gpu-wizard", "masked": mask.names},
        "commands.json": rec.commands,
        "nvml.json": rec.nvml,
        "env.json": env,
        "python.json": python,
        "packages.json": rec.packages,
        "resources.json": resources,
    }
    from wizard.safe.atomic import write_text_atomic

    for name, data in out.items():
        text = json.dumps(mask.value(data) if name != "dump.json" else data, indent=1, ensure_ascii=False)
        write_text_atomic(directory / name, text + "\n")


def _write_tree(root: Path, system: System, rec: _Recorder, mask: Mask) -> None:
    def place(machine_path: str) -> Path:
        return root / mask.text(machine_path).lstrip("/")

    for path, ops in sorted(rec.paths.items()):
        if not path.startswith("/"):
            continue
        real = system.path(path)
        target = place(path)
        try:
            if "link" in ops and real.is_symlink():
                # The link's final target, so a chain (/etc/alternatives) resolves the same way.
                absolute = system.realpath(path)
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.exists() and not target.is_symlink():
                    os.symlink(os.path.relpath(place(absolute), target.parent), target)
                continue
            if real.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            if not real.exists() and not real.is_symlink():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_dir():
                continue
            if "read" in ops:
                text = system.read_text(path, FILE_LIMIT)
                if text is None:
                    continue  # unreadable here: unreadable in the replay too
                target.write_text(mask.text(text), encoding="utf-8")
            elif not target.exists():
                target.write_text("", encoding="utf-8")
        except OSError:
            continue


# ---- replaying ----------------------------------------------------------------------------
class ReplayRunner:
    """Answers each command with what the machine answered, in order (the same argv again gets its
    next recorded answer, then the last one); a command the dump lacks is 'not installed'."""

    def __init__(self, commands: list[dict[str, Any]]) -> None:
        self._answers: dict[tuple[str, ...], list[CommandResult]] = {}
        self._asked: dict[tuple[str, ...], int] = {}
        for entry in commands:
            argv = tuple(str(a) for a in entry.get("argv") or [])
            code = entry.get("exit", 0)
            result = CommandResult(
                # null: the exit code was not shown (a dump made from a pasted output): not 0.
                code if isinstance(code, int) and not isinstance(code, bool) else -1,
                str(entry.get("stdout", "")),
                str(entry.get("stderr", "")),
                timed_out=bool(entry.get("timed_out", False)),
                missing=bool(entry.get("missing", False)),
            )
            self._answers.setdefault(argv, []).append(result)

    def __call__(self, argv: Sequence[str], timeout: float) -> CommandResult:
        key = tuple(argv)
        answers = self._answers.get(key)
        if not answers:
            return CommandResult(127, missing=True)
        n = self._asked.get(key, 0)
        self._asked[key] = n + 1
        return answers[min(n, len(answers) - 1)]


class ReplayNvml:
    """NVML as the dump recorded it: each call answers as it did, errors included."""

    def __init__(self, calls: list[dict[str, Any]]) -> None:
        self._answers: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._asked: dict[tuple[str, str], int] = {}
        for entry in calls:
            key = (str(entry.get("call")), json.dumps(entry.get("args") or []))
            self._answers.setdefault(key, []).append(entry)

    def answer(self, name: str, *args: Any) -> Any:
        key = (name, json.dumps(list(args)))
        found = self._answers.get(key)
        if not found:
            raise NvmlError(ErrorKind.OTHER, f"{name} is not in the dump")
        n = self._asked.get(key, 0)
        self._asked[key] = n + 1
        entry = found[min(n, len(found) - 1)]
        if "error" in entry:
            err = entry["error"] or {}
            try:
                kind = ErrorKind(err.get("kind"))
            except ValueError:
                kind = ErrorKind.OTHER
            raise NvmlError(kind, str(err.get("detail", "")))
        result = entry.get("result")
        return tuple(result) if isinstance(result, list) and name != "processes" else result

    def factory(self) -> NvmlBackend:
        if ("factory", "[]") in self._answers:
            self.answer("factory")
        elif not self._answers:
            raise NvmlError(ErrorKind.LIBRARY_NOT_FOUND, "no NVML in the dump")
        return self  # type: ignore[return-value]

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name not in NVML_METHODS:
            raise AttributeError(name)
        return lambda *args: self.answer(name, *args)


def _load(directory: Path, name: str, kind: type) -> Any:
    path = directory / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return kind()
    except (OSError, ValueError) as exc:
        raise DumpError(f"{path}: {exc}") from None
    if not isinstance(data, kind):
        raise DumpError(t("detect.dump_not_json", path=safe(str(path), 400), kind=kind.__name__))
    return data


def is_dump(directory: Path) -> bool:
    return directory.is_dir() and (directory / "commands.json").is_file()


def replay_context(directory: Path) -> ProbeContext:
    """A ProbeContext that answers from the dump in `directory`."""
    if not is_dump(directory):
        raise DumpError(t("detect.not_a_dump", path=safe(str(directory), 400)))
    meta = _load(directory, "dump.json", dict)
    if meta and meta.get("format", FORMAT) != FORMAT:
        raise DumpError(
            t(
                "detect.dump_format",
                path=safe(str(directory), 400),
                found=repr(meta.get("format")),
                reads=FORMAT,
            )
        )
    commands = _load(directory, "commands.json", list)
    nvml = ReplayNvml(_load(directory, "nvml.json", list))
    env = {str(k): str(v) for k, v in _load(directory, "env.json", dict).items()}
    py = _load(directory, "python.json", dict)
    packages = _load(directory, "packages.json", dict)
    resources = _load(directory, "resources.json", dict)
    known = {f.name for f in fields(PythonFacts)}
    try:
        facts = PythonFacts(**{k: v for k, v in py.items() if k in known})
    except TypeError as exc:
        raise DumpError(f"{directory / 'python.json'}: {exc}") from None
    system = System(
        root=directory / "root",
        runner=ReplayRunner(commands),
        environ=env,
        home=Path(str(py.get("home") or "/root")),
    )
    own_uv = py.get("bundled_uv")
    return ProbeContext(
        system=system,
        nvml_factory=nvml.factory,
        python=facts,
        installed=lambda name: packages.get(name) if isinstance(packages.get(name), str) else None,
        bundled_uv=lambda: own_uv if isinstance(own_uv, str) else None,
        resources_reader=lambda: dict(resources),
    )


def detect_dump(directory: Path) -> Any:
    """`detect --from DIR`: the profile the probe reads from the dump."""
    from wizard.probe.detect import detect

    return detect(context=replay_context(directory))


def detect_and_dump(directory: Path) -> Any:
    """`detect --dump DIR`: this machine's profile, and its evidence written to `directory`."""
    from wizard.probe.detect import detect

    ctx, rec = recording_context()
    profile = detect(context=ctx)
    write_dump(directory, ctx, rec)
    return profile


def live_mask() -> Mask:
    return Mask.here(Path.home())


__all__ = [
    "DumpError",
    "Mask",
    "ReplayNvml",
    "ReplayRunner",
    "detect_and_dump",
    "detect_dump",
    "is_dump",
    "recording_context",
    "replay_context",
    "run_command",
    "write_dump",
]
