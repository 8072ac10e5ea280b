"""Plan: every step with why, the exact commands, where it runs, and the download;
optional steps toggle on and off; the plan exports as a bash script."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, DataTable, Footer, Header, Static

from screens.base import WizardScreen
from screens.styles import style_paths, style_text
from screens.widgets.plan_step_table import PlanStepTable, size_text, where_text
from wizard.text import t

SCRIPT_NAME = "tf-gpu-wizard-install.sh"


class PlanScreen(WizardScreen):
    CSS_PATH = style_paths(["plan.tcss"])  # type: ignore[assignment]
    CSS = style_text(["plan.tcss"])
    BINDINGS = [
        Binding("space", "toggle_step", t("app.key.toggle")),
        Binding("e", "export", t("app.key.export")),
        Binding("r", "run", t("app.key.run")),
    ]

    class Built(Message):
        def __init__(self, plan: Any) -> None:
            super().__init__()
            self.plan = plan

    class Failed(Message):
        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def compose(self) -> ComposeResult:
        yield Header()
        yield self.banner()
        yield Static(t("app.plan.heading"), classes="heading")
        yield Static(t("app.plan.building"), id="plan-summary", classes="status-line")
        with Horizontal(id="plan-columns"):
            yield PlanStepTable(id="plan-steps")
            with VerticalScroll(id="plan-detail-box"):
                yield Static("", id="plan-detail")
        with Horizontal(classes="button-row"):
            yield Button(t("app.plan.run"), id="run", variant="primary", compact=True, disabled=True)
            yield Button(t("app.plan.export"), id="export", compact=True, disabled=True)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(PlanStepTable).focus()
        if self.session.plan is not None:
            self._show(self.session.plan)
        else:
            self.build()

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan")
    def build(self) -> None:
        session = self.session
        if session.profile is None or session.candidate is None:
            return
        try:
            from wizard.plan.build import build_plan
            from wizard.plan.model import PlanError
        except ImportError as exc:
            self.post_message(self.Failed(str(exc)))
            return
        try:
            plan = build_plan(session.profile, session.candidate, venv=session.venv)
        except PlanError as exc:
            self.post_message(self.Failed(str(exc)))
            return
        except Exception as exc:  # last guard for the UI
            self.post_message(self.Failed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(self.Built(plan))

    def on_plan_screen_built(self, message: Built) -> None:
        self.session.plan = message.plan
        self._show(message.plan)

    def on_plan_screen_failed(self, message: Failed) -> None:
        self.query_one("#plan-summary", Static).update(Content.from_markup("[$error]$e[/]", e=message.error))

    def _show(self, plan: Any) -> None:
        self.query_one("#plan-summary", Static).update(
            t(
                "app.plan.summary",
                count=len(plan.active_steps),
                off=_off_text(len(plan.steps) - len(plan.active_steps)),
                download=size_text(plan.download_mib),
                venv=plan.venv,
            )
        )
        table = self.query_one(PlanStepTable)
        table.show(plan)
        self._detail(table.highlighted())
        self.query_one("#run", Button).disabled = False
        self.query_one("#export", Button).disabled = False

    def _detail(self, step: Any) -> None:
        box = self.query_one("#plan-detail", Static)
        if step is None:
            box.update("")
            return
        p = "app.plan."
        where = where_text(step.where).plain
        status = t(p + "optional") if step.optional else t(p + "required")
        head = Content.from_markup(
            "[bold]$title[/]  [$text-muted]($where · $status)[/]",
            title=step.title,
            where=where,
            status=status,
        )
        parts = [
            head,
            Content.from_markup("[$primary bold]$h[/]\n$why", h=t(p + "why"), why=step.why),
            Content.from_markup("[$primary bold]$h[/]", h=t(p + "commands")),
        ]
        prompt = "PS> " if step.where == "windows-host" else "$ "
        for line in step.command_lines():
            parts.append(Content.from_markup("[$accent]$line[/]", line=prompt + line))
        if step.manual:
            parts.append(Content(step.manual))
        parts.append(
            Content.from_markup(
                "[$primary bold]$h[/]\n$proves\n[$text-muted]$cmd[/]",
                h=t(p + "check"),
                proves=step.check.proves,
                cmd="$ " + step.check.shell(),
            )
        )
        if step.restart == "reboot":
            parts.append(Content.from_markup("[$warning]⟳ $r[/]", r=t(p + "reboot")))
        elif step.restart == "wsl-shutdown":
            parts.append(Content.from_markup("[$warning]⟳ $r[/]", r=t(p + "wsl_shutdown")))
        box.update(Content("\n").join(parts))

    @on(DataTable.RowHighlighted, "#plan-steps")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail(self.query_one(PlanStepTable).highlighted())

    @on(DataTable.RowSelected, "#plan-steps")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_toggle_step()

    def action_toggle_step(self) -> None:
        plan = self.session.plan
        step = self.query_one(PlanStepTable).highlighted()
        if plan is None or step is None or not step.optional:
            return
        self.session.plan = plan.with_enabled(step.id, not step.enabled)
        self._show(self.session.plan)

    @on(Button.Pressed, "#export")
    def action_export(self) -> None:
        plan = self.session.plan
        if plan is None:
            return
        from wizard.plan.model import PlanError
        from wizard.plan.script import render_script

        target = _free_name(Path.cwd() / SCRIPT_NAME)
        try:
            target.write_text(render_script(plan), encoding="utf-8")
            target.chmod(0o755)
        except (OSError, PlanError) as exc:
            self.notify(t("app.plan.export_failed", error=str(exc)), severity="error")
            return
        self.notify(t("app.plan.exported", path=str(target)))

    @on(Button.Pressed, "#run")
    def action_run(self) -> None:
        if self.session.plan is None:
            return
        self.wizard.go_run()


def _free_name(path: Path) -> Path:
    """Never overwrite an earlier export (or anything else): add -2, -3, ... instead."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


def _off_text(off: int) -> str:
    return t("app.plan.summary_off", off=off) if off else ""
