"""Problems in the profile, each with its one line of why, coloured by severity."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from wizard.safe.display import safe
from wizard.text import t

SEVERITIES = ("error", "warning", "info")


class FindingsView(Vertical):
    """One block per finding: an icon and title in the severity's colour, the why below."""

    DEFAULT_CSS = """
    FindingsView { height: auto; }
    FindingsView > .finding-title { text-style: bold; color: $text-muted; }
    FindingsView > .finding-title.-error { color: $error; }
    FindingsView > .finding-title.-warning { color: $warning; }
    FindingsView > .finding-why { padding-left: 2; color: $text-muted; margin-bottom: 1; }
    FindingsView > .finding-none { color: $success; }
    FindingsView > .finding-more { color: $text-muted; text-style: italic; }
    """

    explain = False  # `w` on Detect: each finding whole, with its evidence and sources
    more = False  # a finding says more than its lead (the key is worth offering)

    def show(self, findings: Sequence[Any]) -> None:
        """`findings` are wizard.findings.Finding (severity, title, why). Each leads with one line
        (wizard.doctor.finding_view.lead); the whole text when `explain` is on."""
        from wizard.doctor.finding_view import has_more, lead

        self._findings = list(findings)
        self.remove_children()
        if not findings:
            self.mount(Static(t("app.detect.no_problems"), classes="finding-none", markup=False))
            return
        widgets: list[Static] = []
        self.more = False
        for finding in findings:
            severity = finding.severity if finding.severity in SEVERITIES else "info"
            icon = t(f"app.severity.{severity}")
            widgets.append(Static(_title(icon, finding.title), classes=f"finding-title -{severity}"))
            why: str = finding.why if self.explain else lead(finding.why)
            source = str(getattr(finding, "source", "") or "")
            self.more = self.more or has_more(finding.why) or bool(source)
            if self.explain and source:
                why += "\n" + source
            widgets.append(Static(Content(safe(why, 2000, multiline=True)), classes="finding-why"))
        if self.more:
            key = "keys.findings.less_app" if self.explain else "keys.findings.more_app"
            widgets.append(Static(Content(t(key)), classes="finding-more"))
        self.mount_all(widgets)

    def toggle_explain(self) -> None:
        self.explain = not self.explain
        self.show(getattr(self, "_findings", []))

    def clear(self) -> None:
        self.remove_children()


def _title(icon: str, title: str) -> Table:
    """The icon, then the title; a long (or Chinese) title wraps under itself, not under the icon.
    Plain Text cells: a GPU name in a title is data, never markup."""
    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row(Text(icon), Text(safe(title, 2000)))
    return grid
