"""The machine profile as a two-column table that fills in part by part."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from wizard.probe import PARTS
from wizard.profile import MachineProfile
from wizard.profile_view import part_rows
from wizard.safe.display import text as safe_text
from wizard.text import t


class ProfileView(Static):
    """Shows the parts that are done; the others as a waiting mark."""

    DEFAULT_CSS = """
    ProfileView { height: auto; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.parts = tuple(name for name, _ in PARTS)

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
                table.add_row(Text(label), safe_text(value, limit=400))  # data, never markup
        self.update(table)
