"""The machine profile: the single input of every later step.

Plain dataclasses that round-trip through JSON. Loading is forgiving on purpose:
unknown fields are ignored and missing ones become "unknown", so a profile saved
by an older or newer wizard still loads. Only a file that is not JSON, not an
object, or carries another schema number is refused, with one clear message.

Profiles are data from outside (a file someone sent, a hand-edited demo), so the
loader also bounds them: a file over MAX_BYTES, not UTF-8, nested past what JSON
can parse, or with an integer of thousands of digits is refused with one line;
text is cut to MAX_TEXT characters, lone surrogates become U+FFFD, lists keep at
most MAX_ITEMS entries, and integers outside +-2**53 fall back to the default.
Control characters stay in the data (a path may hold them); whatever shows them
goes through wizard.safe.display.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, get_args, get_type_hints

from wizard.text import has, t

SCHEMA = 1
UNKNOWN = "unknown"
MAX_BYTES = 4 << 20  # a real profile is a few KiB
MAX_TEXT = 4096  # PATH_MAX; a GPU name is under 100
MAX_ITEMS = 1024  # GPUs, toolkits, libcuda copies, notes
MAX_INT = 1 << 53
PLATFORMS = ("linux", "wsl2", "wsl1", "windows", "macos", UNKNOWN)


class ProfileError(ValueError):
    """A profile that cannot be used; the message is one line for the user."""


# Where only the kernel module answered (its /proc file, its sysfs version, its loading line): no
# user-space library, so no GPU list and no CUDA from the driver.
MODULE_ONLY_SOURCES = ("proc", "sysfs", "kernel-log")


@dataclass
class OsInfo:
    id: str = UNKNOWN
    version: str = UNKNOWN
    kernel: str = UNKNOWN
    name: str = UNKNOWN  # PRETTY_NAME, for people
    glibc: str = UNKNOWN  # "2.35" (os.confstr CS_GNU_LIBC_VERSION): manylinux wheels need a minimum
    # Debian: the archive URI its apt sources already use (the plan's non-free line reuses it)
    apt_mirror: str = UNKNOWN
    # WSL: the distribution's name as wsl.exe knows it (WSL_DISTRO_NAME), for commands run on Windows
    wsl_distro: str = UNKNOWN


@dataclass
class PythonInfo:
    version: str = UNKNOWN
    executable: str = UNKNOWN
    env: str = UNKNOWN  # "system" | "venv" | "conda"
    env_name: str | None = None
    pip: bool | None = None
    venv_module: bool | None = None  # python3-venv / ensurepip usable
    uv: str | None = None  # uv's path when installed: the plan then makes the env with uv
    uv_version: str | None = None
    # pip's index settings (config files, PIP_*), passed on to uv, which does not read them
    pip_index_url: str | None = None
    pip_extra_index_urls: str | None = None  # space-separated, as in pip.conf
    pip_find_links: str | None = None  # space-separated
    pip_index_private: bool = False  # an index URL holds a password: not kept; the plan uses pip
    uv_index_configured: bool = False  # uv.toml / UV_INDEX_URL name uv's own index: pip's is not passed


@dataclass
class DriverInfo:
    version: str = UNKNOWN
    cuda: str = UNKNOWN  # newest CUDA the driver supports, not a toolkit version
    source: str = UNKNOWN  # which probe layer answered: nvml | nvidia-smi | proc | sysfs | windows-host


@dataclass
class GpuInfo:
    index: int = 0
    name: str = UNKNOWN
    compute_capability: str = UNKNOWN
    memory_mib: int | None = None
    uuid: str | None = None
    pci_bus_id: str | None = None


@dataclass
class PciGpu:
    """An NVIDIA display controller seen on the PCI bus, driver or not: its name and compute
    capability come from its device id (assets/knowledge/gpu_pci_ids.json), never from the driver."""

    bus_id: str = UNKNOWN  # "0000:01:00.0"
    device_id: str = UNKNOWN  # "10de:2503" (vendor:device)
    name: str = UNKNOWN  # the table's name for that id; unknown when the table lacks it
    compute_capability: str = UNKNOWN
    source: str = UNKNOWN  # where it was seen: "sysfs" (/sys/bus/pci/devices) | "lspci" (lspci -nn)


@dataclass
class CudaToolkit:
    version: str = UNKNOWN
    path: str = UNKNOWN
    default: bool = False  # /usr/local/cuda points here


@dataclass
class CudnnInfo:
    version: str = UNKNOWN
    path: str = UNKNOWN


@dataclass
class TensorflowInfo:
    version: str = UNKNOWN
    distribution: str = "tensorflow"  # tensorflow | tensorflow-cpu | tf-nightly | ...
    and_cuda: bool | None = None  # nvidia-* wheels present beside it


@dataclass
class KernelModules:
    nvidia_loaded: bool | None = None
    nouveau_loaded: bool | None = None
    loaded_version: str | None = None  # /sys/module/nvidia/version
    secure_boot: bool | None = None
    # `modinfo -F version nvidia`: an nvidia module is on disk for the running kernel (False: modinfo
    # says none; None: not asked), and its version. Installed but not loaded: a reboot loads it.
    module_for_kernel: bool | None = None
    module_version: str | None = None


@dataclass
class LibCuda:
    path: str
    inside_wsl_lib: bool = False


@dataclass
class Resources:
    ram_mib: int | None = None
    home_free_mib: int | None = None
    cpu_count: int | None = None


# ---- machine states: each layer as works / absent / failing / unreadable / blocked ---------------
WORKS, ABSENT, FAILING, UNREADABLE, BLOCKED = "works", "absent", "failing", "unreadable", "blocked"
STATES = (WORKS, ABSENT, FAILING, UNREADABLE, BLOCKED)
# The layers, bottom up: what a fix of a lower one comes before.
LAYERS = ("container", "wsl", "pci", "module", "libraries", "nvml", "cuda", "gpu")


@dataclass
class Evidence:
    """What decided a state: the command (shell words) or the file read, its exit code, the line."""

    source: str = ""  # "nvidia-smi --query-gpu=..." or "/proc/driver/nvidia/version"
    exit: int | None = None  # the command's exit code; None for a file
    line: str = ""  # the deciding line, whole (both versions of a mismatch, the lost GPU's bus id)


@dataclass
class LayerState:
    """One layer of the GPU stack as the probe found it. `reason` is a stable key of a failure
    ("secure-boot-rejected", "version-mismatch", "gpu-lost", ...; wizard.probe.state_view words it
    and gives its fix); `facts` holds what the failure names (both versions, a bus id, a path)."""

    layer: str = UNKNOWN  # one of LAYERS
    state: str = UNKNOWN  # one of STATES
    reason: str = ""  # "" for works / absent without a known cause
    facts: dict[str, str] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    index: int | None = None  # layer "gpu": the GPU's index (in nvidia-smi's order)
    # The GPU cannot be used until this is fixed (False: a warning, e.g. one lost GPU beside working ones).
    blocks: bool = True

    @property
    def failed(self) -> bool:
        return self.state in (FAILING, UNREADABLE, BLOCKED)

    @property
    def gives_no_gpu(self) -> bool:
        """The GPU layer failing with no cause named: the loaded driver gives no usable GPU
        (nvidia-smi: "No devices were found"). Still a GPU to fix, never a machine without one."""
        return self.layer == "gpu" and self.state == FAILING and not self.reason

    @property
    def blocks_unnamed(self) -> bool:
        """A failure with no cause named that still stops every GPU set: the GPU the driver does not
        give (gives_no_gpu), or CUDA not loaded under a working driver (nvidia-smi's "CUDA Version:
        N/A"). Its words say what failed and the reads that would tell why."""
        return self.gives_no_gpu or (self.layer == "cuda" and self.state == FAILING and not self.reason)


_NOTE_CODE = re.compile(r"probe\.[a-z0-9_]+")


@dataclass(eq=False)
class Note:
    """A probe note as data: a catalogue key under `probe.` and its fields, worded when shown, so a
    profile probed (or shipped) in English reads Chinese in a Chinese session. A note with no code
    is free text kept as it was written (old profiles, hand-written ones)."""

    code: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    text: str = ""

    def __str__(self) -> str:
        return t(self.code, **self.fields) if self.code else self.text

    # A note reads as its text: `"WSL1" in note`, `note == "..."`, as notes did when they were str.
    def __contains__(self, part: str) -> bool:
        return part in str(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Note):
            return (self.code, self.fields, self.text) == (other.code, other.fields, other.text)
        return isinstance(other, str) and str(self) == other

    def __hash__(self) -> int:
        return hash((self.code, tuple(sorted(self.fields.items())), self.text))

    def to_json(self) -> dict[str, Any] | str:
        if not self.code:
            return self.text
        # `text` is for a reader of --json; the wizard reads the code back.
        return {"code": self.code, "fields": dict(self.fields), "text": str(self)}

    @classmethod
    def from_json(cls, value: Any) -> Note | None:
        if isinstance(value, str):
            return cls(text=clean_text(value))
        if not isinstance(value, dict):
            return None
        code, raw, text = value.get("code"), value.get("fields"), value.get("text")
        if isinstance(code, str) and _NOTE_CODE.fullmatch(code) and has(code):
            given = raw if isinstance(raw, dict) else {}
            items = list(given.items())[:32]
            return cls(
                code,
                {
                    clean_text(str(k)): clean_text(str(v))
                    for k, v in items
                    if isinstance(v, (str, int, float))
                },
            )
        return cls(text=clean_text(text)) if isinstance(text, str) else None


def note(code: str, **fields: object) -> Note:
    return Note(code, {k: clean_text(str(v)) for k, v in fields.items()})


@dataclass
class MachineProfile:
    schema: int = SCHEMA
    platform: str = UNKNOWN
    arch: str = UNKNOWN
    os: OsInfo = field(default_factory=OsInfo)
    python: PythonInfo = field(default_factory=PythonInfo)
    driver: DriverInfo | None = None
    gpus: list[GpuInfo] = field(default_factory=list)
    cuda_toolkits: list[CudaToolkit] = field(default_factory=list)
    cudnn: list[CudnnInfo] = field(default_factory=list)
    tensorflow: TensorflowInfo | None = None
    notes: list[Note] = field(default_factory=list)
    # Beyond the required schema: details the doctor and the plan use.
    kernel: KernelModules = field(default_factory=KernelModules)
    libcuda: list[LibCuda] = field(default_factory=list)
    ld_library_path: list[str] = field(default_factory=list)
    nvidia_pci_devices: int | None = None  # NVIDIA display controllers seen on the PCI bus
    # Those controllers one by one, when the probe could read their ids (an older profile has only
    # the count above); the count stays len(pci_gpus) wherever both are known.
    pci_gpus: list[PciGpu] = field(default_factory=list)
    resources: Resources = field(default_factory=Resources)
    probe_layers: dict[str, str] = field(default_factory=dict)  # part -> which layer answered
    # Each layer's state with its evidence (wizard.probe.states); failures are values, not gaps.
    states: list[LayerState] = field(default_factory=list)
    # A probed fact set from outside (TF_GPU_WIZARD_OVERRIDE_*): fact -> "set by NAME=value".
    overrides: dict[str, str] = field(default_factory=dict)
    simulated: bool = False  # loaded from a saved or demo profile, not detected here
    label: str | None = None  # a demo profile's human name
    # The bundled demo this profile is (its file name, what --profile takes): its stable id, in
    # every language (the label is translated). None for a detected or saved profile. Set by
    # wizard.demo.load_demo only: never written to or read from a profile's JSON.
    demo: str | None = field(default=None, compare=False)

    # ---- JSON ---------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["demo"]
        data["notes"] = [n.to_json() if isinstance(n, Note) else str(n) for n in self.notes]
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def save(self, path: Path) -> None:
        """Whole or not at all (wizard.safe.atomic.WriteError, an OSError, when the disk refuses)."""
        from wizard.safe.atomic import write_text_atomic

        write_text_atomic(path, self.to_json() + "\n")

    @classmethod
    def from_dict(cls, data: Any) -> MachineProfile:
        if not isinstance(data, dict):
            raise ProfileError(t("profile.error.not_object"))
        schema = data.get("schema", SCHEMA)
        if type(schema) is not int or schema != SCHEMA:
            raise ProfileError(t("profile.error.schema", schema=repr(schema), supported=SCHEMA))
        return _build(cls, data)

    @classmethod
    def from_json(cls, text: str) -> MachineProfile:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if not text.strip():  # /dev/null, a file cut to nothing: say that, not a JSON position
                raise ProfileError(t("errors.profile_empty")) from None
            from wizard.safe.error_words import json_error

            raise ProfileError(
                t("profile.error.json", line=exc.lineno, column=exc.colno, error=json_error(exc))
            ) from None
        except RecursionError:
            raise ProfileError(t("profile.error.too_deep")) from None
        except ValueError as exc:  # an integer of more than 4300 digits
            raise ProfileError(t("profile.error.bad_number", error=str(exc)[:120])) from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: Path) -> MachineProfile:
        from wizard.safe.atomic import TooLarge, read_bytes_limited

        try:
            # utf-8-sig: Notepad and PowerShell save UTF-8 with a BOM.
            text = read_bytes_limited(path, MAX_BYTES).decode("utf-8-sig")
        except FileNotFoundError:
            raise ProfileError(t("profile.error.no_file", path=path)) from None
        except TooLarge:
            raise ProfileError(t("profile.error.too_large", path=path, limit=MAX_BYTES >> 20)) from None
        except UnicodeDecodeError as exc:
            raise ProfileError(t("profile.error.not_utf8", path=path, offset=exc.start)) from None
        except OSError as exc:
            from wizard.safe.error_words import os_error

            raise ProfileError(t("profile.error.unreadable", path=path, error=os_error(exc))) from None
        try:
            return cls.from_json(text)
        except ProfileError as exc:
            raise ProfileError(t("profile.error.in_file", path=path, error=exc)) from None

    # ---- convenience for every later step ------------------------------
    def states_of(self, layer: str) -> list[LayerState]:
        return [s for s in self.states if s.layer == layer]

    @property
    def failed_states(self) -> list[LayerState]:
        """Layers that are failing, unreadable or blocked, bottom layer first (the order fixes go in)."""
        order = {name: i for i, name in enumerate(LAYERS)}
        found = [s for s in self.states if s.failed]
        return sorted(found, key=lambda s: (order.get(s.layer, len(order)), s.index or 0))

    @property
    def blocking_state(self) -> LayerState | None:
        """The failure whose fix comes first (a reboot before anything that needs the driver). A GPU
        the loaded driver fails to give ("No devices were found") blocks too, with no cause named:
        it is a GPU to plan for (its restart first), not a machine without one."""
        return next((s for s in self.failed_states if s.blocks and (s.reason or s.blocks_unnamed)), None)

    @property
    def has_nvidia_gpu(self) -> bool:
        return bool(self.gpus) or bool(self.nvidia_pci_devices)

    @property
    def is_wsl(self) -> bool:
        return self.platform in ("wsl2", "wsl1")

    @property
    def linux_driver_in_wsl(self) -> tuple[str, ...]:
        """WSL2 only: libcuda copies outside /usr/lib/wsl/lib, a Linux NVIDIA driver installed inside
        WSL that hides the Windows driver's; the plan removes them. Exact paths only, nothing dpkg
        could read as a pattern, nothing odd to pass to a root command."""
        if self.platform != "wsl2":
            return ()
        # The probe's shadowing libraries (libnvidia-ml of a CUDA meta-package too) join libcuda's copies.
        shadow = [
            path
            for s in self.states
            if s.layer == "wsl" and s.reason in ("wsl-linux-driver", "wsl-shadowing-lib")
            for path in s.facts.get("paths", "").splitlines()
        ]
        return tuple(
            sorted(
                {
                    lib.path
                    for lib in self.libcuda
                    if not lib.inside_wsl_lib and "/stubs/" not in lib.path and _exact_path(lib.path)
                }
                | {path for path in shadow if "/stubs/" not in path and _exact_path(path)}
            )
        )

    @property
    def driver_awaiting_reboot(self) -> str | None:
        """The version of an NVIDIA driver that is installed but not loaded, where a restart is all
        it needs: native Linux, no driver answering, the nvidia module not loaded but on disk for
        the running kernel (modinfo), its libcuda of the same version beside it, and Secure Boot
        not on (there an unsigned or unenrolled module is the likelier cause: the install stays).
        None: a restart alone is not known to help, and the driver is installed as before."""
        km = self.kernel
        version = km.module_version
        if self.platform != "linux" or self.driver is not None or km.nvidia_loaded is not False:
            return None
        if km.secure_boot is True or km.module_for_kernel is not True or not version:
            return None
        suffix = "/libcuda.so." + version
        if not any(lib.path.endswith(suffix) and not lib.inside_wsl_lib for lib in self.libcuda):
            return None
        return version


# ---- forgiving construction ----------------------------------------------
# Each nested field is built from its dict by its own dataclass; scalars of the
# wrong type fall back to the default rather than crash the wizard.

_NESTED: dict[str, type] = {
    "os": OsInfo,
    "python": PythonInfo,
    "driver": DriverInfo,
    "tensorflow": TensorflowInfo,
    "kernel": KernelModules,
    "resources": Resources,
}
_LISTS: dict[str, type] = {
    "gpus": GpuInfo,
    "cuda_toolkits": CudaToolkit,
    "cudnn": CudnnInfo,
    "libcuda": LibCuda,
    "pci_gpus": PciGpu,
}


_PATTERN_CHARS = re.compile(r"[*?\[\]\\]")


def _exact_path(path: str) -> bool:
    """One absolute file, nothing dpkg could read as a pattern, nothing odd to pass to a root command."""
    return (
        path.startswith("/")
        and not _PATTERN_CHARS.search(path)
        and path.isprintable()
        and ".." not in path.split("/")
        and len(path) < 4096
    )


_MISSING = object()
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(value: str) -> str:
    """At most MAX_TEXT characters, no lone surrogates (they cannot be written as UTF-8)."""
    return _SURROGATE.sub("\ufffd", value[:MAX_TEXT])


def _coerce(value: Any, hint: Any) -> Any:
    """`value` if it fits the field's declared scalar type, else _MISSING (keep the default)."""
    args = set(get_args(hint)) or {hint}
    if value is None:
        return None if type(None) in args else _MISSING
    if bool in args and isinstance(value, bool):
        return value
    if int in args and isinstance(value, int) and not isinstance(value, bool):
        return value if -MAX_INT <= value <= MAX_INT else _MISSING
    if int in args and isinstance(value, float) and value.is_integer() and str not in args:
        return int(value) if -MAX_INT <= value <= MAX_INT else _MISSING
    if str in args and isinstance(value, str):
        return clean_text(value)
    return _MISSING


def _build(cls: type, data: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {}
    hints = get_type_hints(cls)
    for f in fields(cls):
        name = f.name
        if name not in data or (cls is MachineProfile and name == "demo"):
            continue
        value = data[name]
        if cls is MachineProfile and name in _NESTED:
            if isinstance(value, dict):
                kwargs[name] = _build(_NESTED[name], value)
            elif value is None and name in ("driver", "tensorflow"):
                kwargs[name] = None
            continue
        if cls is MachineProfile and name in _LISTS:
            if isinstance(value, list):
                kwargs[name] = [_build(_LISTS[name], v) for v in value[:MAX_ITEMS] if isinstance(v, dict)]
            continue
        if cls is MachineProfile and name == "notes":
            if isinstance(value, list):
                kwargs[name] = [n for n in map(Note.from_json, value[:MAX_ITEMS]) if n is not None]
            continue
        if name in ("notes", "ld_library_path"):
            if isinstance(value, list):  # text only: str() of a nested list can recurse without end
                kwargs[name] = [clean_text(v) for v in value[:MAX_ITEMS] if isinstance(v, str)]
            continue
        if cls is MachineProfile and name == "states":
            if isinstance(value, list):
                kwargs[name] = [_state(v) for v in value[:MAX_ITEMS] if isinstance(v, dict)]
            continue
        if name in ("probe_layers", "overrides"):
            if isinstance(value, dict):
                items = list(value.items())[:MAX_ITEMS]
                kwargs[name] = {clean_text(k): clean_text(v) for k, v in items if isinstance(v, str)}
            continue
        coerced = _coerce(value, hints[name])
        if coerced is not _MISSING:
            kwargs[name] = coerced
    if cls is LibCuda and "path" not in kwargs:
        kwargs["path"] = UNKNOWN
    return cls(**kwargs)


def _text_dict(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {clean_text(str(k)): clean_text(v) for k, v in list(value.items())[:64] if isinstance(v, str)}


def _state(data: dict[str, Any]) -> LayerState:
    state = _build(LayerState, {k: v for k, v in data.items() if k not in ("facts", "evidence")})
    state.facts = _text_dict(data.get("facts"))
    raw = data.get("evidence")
    if isinstance(raw, list):
        state.evidence = [_build(Evidence, e) for e in raw[:64] if isinstance(e, dict)]
    return state
