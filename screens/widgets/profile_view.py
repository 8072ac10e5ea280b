"""The machine profile as a two-column table that fills in part by part."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from wizard.profile import UNKNOWN, MachineProfile
from wizard.text import t

DEFAULT_PARTS = ("platform", "python", "nvidia", "kernel", "cuda", "tensorflow", "resources")


def probe_parts() -> tuple[str, ...]:
    """The probe's parts, in the order it runs them."""
    try:
        from wizard.probe import PARTS
    except ImportError:
        return DEFAULT_PARTS
    return tuple(name for name, _ in PARTS)


def _yes_no(value: bool | None) -> str:
    if value is None:
        return t("app.detect.value.unknown")
    return t("app.detect.value.yes") if value else t("app.detect.value.no")


def _known(value: str | None) -> str:
    return value if value and value != UNKNOWN else t("app.detect.value.unknown")


def _mib(value: int | None) -> str:
    if value is None:
        return t("app.detect.value.unknown")
    return t("app.detect.value.mib", gib=value / 1024)


def part_rows(part: str, p: MachineProfile) -> list[tuple[str, str]]:
    """What one probe part found, as (label, value) rows for people."""
    f = "app.detect.field."
    v = "app.detect.value."
    if part == "platform":
        os_name = p.os.name if p.os.name != UNKNOWN else f"{p.os.id} {p.os.version}"
        return [
            (t(f + "platform"), f"{p.platform} · {p.arch}"),
            (t(f + "os"), _known(os_name.strip())),
            (t(f + "kernel"), _known(p.os.kernel)),
        ]
    if part == "python":
        env = p.python.env + (f" ({p.python.env_name})" if p.python.env_name else "")
        return [
            (
                t(f + "python"),
                t(v + "python", version=p.python.version, env=env, executable=p.python.executable),
            ),
            (t(f + "pip_venv"), f"pip: {_yes_no(p.python.pip)} · venv: {_yes_no(p.python.venv_module)}"),
        ]
    if part == "nvidia":
        if p.driver is None:
            rows = [(t(f + "driver"), t(v + "no_driver"))]
        else:
            rows = [
                (
                    t(f + "driver"),
                    t(v + "driver", version=p.driver.version, cuda=p.driver.cuda, source=p.driver.source),
                )
            ]
        for gpu in p.gpus:
            memory = _mib(gpu.memory_mib)
            rows.append(
                (
                    t(f + "gpu", index=gpu.index),
                    t(v + "gpu", name=gpu.name, cc=gpu.compute_capability, memory=memory),
                )
            )
        return rows
    if part == "kernel":
        if p.platform != "linux":
            return []
        km = p.kernel
        rows = [
            (
                t(f + "modules"),
                t(v + "modules", nvidia=_yes_no(km.nvidia_loaded), nouveau=_yes_no(km.nouveau_loaded)),
            )
        ]
        if km.secure_boot is not None:
            rows.append((t(f + "secure_boot"), _yes_no(km.secure_boot)))
        return rows
    if part == "cuda":
        toolkits = ", ".join(
            f"{tk.version}{' *' if tk.default else ''} ({tk.path})" for tk in p.cuda_toolkits
        )
        cudnn = ", ".join(f"{c.version} ({c.path})" for c in p.cudnn)
        rows = [
            (t(f + "toolkits"), toolkits or t(v + "none")),
            (t(f + "cudnn"), cudnn or t(v + "none")),
        ]
        if p.libcuda:
            rows.append((t(f + "libcuda"), ", ".join(lib.path for lib in p.libcuda)))
        return rows
    if part == "tensorflow":
        tf = p.tensorflow
        value = t(v + "not_installed") if tf is None else f"{tf.version} ({tf.distribution})"
        return [(t(f + "tensorflow"), value)]
    if part == "resources":
        r = p.resources
        return [
            (t(f + "ram"), _mib(r.ram_mib)),
            (t(f + "disk"), _mib(r.home_free_mib)),
            (t(f + "cpus"), str(r.cpu_count) if r.cpu_count else t(v + "unknown")),
        ]
    return []


class ProfileView(Static):
    """Shows the parts that are done; the others as a waiting mark."""

    DEFAULT_CSS = """
    ProfileView { height: auto; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.parts = probe_parts()

    def show(self, profile: MachineProfile | None, done: Iterable[str] | None = None) -> None:
        """Render `profile`; `done` names the finished parts (None: all of them)."""
        finished = set(self.parts if done is None else done)
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column("part", no_wrap=True, style="bold", ratio=None)
        table.add_column("value", ratio=1, overflow="fold")
        for part in self.parts:
            if profile is None or part not in finished:
                table.add_row(
                    Text("◌ " + t(f"app.detect.part.{part}"), style="dim"),
                    Text(t("app.detect.waiting"), style="dim"),
                )
                continue
            for label, value in part_rows(part, profile):
                table.add_row(label, value)
        self.update(table)
