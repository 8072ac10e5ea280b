"""Plan: every step with why, the exact commands, where it runs, and the download;
optional steps toggle on and off; the plan exports as a bash script."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, DataTable, Footer, Header, Label, Select, Static

from screens.base import WizardScreen, toggle_details
from screens.styles import style_paths, style_text
from screens.widgets.detail_box import DetailBox
from screens.widgets.mirror_select import MirrorSelect
from screens.widgets.path_text import PathText
from screens.widgets.plan_step_table import PlanStepTable, size_text, where_text
from wizard.safe.display import safe
from wizard.text import t

SCRIPT_NAME = "tf-gpu-wizard-install.sh"


def exportable(plan: Any) -> bool:
    """Whether the plan has a bash script (render_script is the one that decides)."""
    from wizard.plan.model import PlanError
    from wizard.plan.script import render_script

    try:
        render_script(plan)
    except PlanError:
        return False
    return True


class PlanScreen(WizardScreen):
    CSS_PATH = style_paths(["plan.tcss"])  # type: ignore[assignment]
    CSS = style_text(["plan.tcss"])
    BINDINGS = [
        Binding("space", "toggle_step", t("app.key.toggle")),
        Binding("e", "export", t("app.key.export")),
        Binding("r", "run", t("app.key.run")),
        Binding("d", "details", t("app.key.details")),
        Binding("c", "copy", t("app.key.copy")),  # the step's commands, whole
        # The check, whole (a bash -c script is one argument wider than 80 columns): its hint says so.
        Binding("k", "copy_check", t("wide.key_copy_check"), show=False),
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
            with DetailBox(id="plan-detail-box"):
                # Prose wraps between words; the commands between their arguments only, never
                # inside a path (PathText): the box scrolls sideways to an argument wider than it.
                yield Static("", id="plan-detail")
                yield PathText(id="plan-commands", hint=t("wide.commands_hint"))
                yield Static("", id="plan-detail-rest")
                yield PathText(id="plan-check", hint=t("wide.check_hint"))
                yield Static("", id="plan-restart")
        with Horizontal(classes="button-row"):
            yield Button(t("app.plan.run"), id="run", variant="primary", compact=True, disabled=True)
            yield Button(t("app.plan.export"), id="export", compact=True, disabled=True)
            yield Label(t("mirror.app.label"), id="plan-mirror-label")
            yield MirrorSelect(self.session.mirror, id="plan-mirror")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = t("app.plan.heading")  # the header names the screen; a short one hides the heading
        self.query_one(PlanStepTable).focus()
        if self.session.plan is not None:
            self._show(self.session.plan)
        else:
            self.build()
        # Native Windows plans download nothing with pip here (that happens inside WSL): no tip.
        on_windows = self.session.profile is not None and self.session.profile.platform == "windows"
        if self.wizard.suggest_mirror and not self.session.mirror_advised and not on_windows:
            self.session.mirror_advised = True
            self.advise_mirror(probe=not self.session.simulated and self.session.mirror is None)

    @work(thread=True, exit_on_error=False, group="mirror")
    def advise_mirror(self, probe: bool) -> None:
        """Suggest a mirror (zh_CN locale, or a speed probe of the catalogue's mirrors on a real machine)."""
        from wizard.mirror.advice import probe_targets, suggest
        from wizard.mirror.catalogue import load_catalogue
        from wizard.mirror.configured import read_configured
        from wizard.mirror.probe import probe_all
        from wizard.text import locale_name

        catalogue, configured = load_catalogue(), read_configured()
        results = probe_all(probe_targets(catalogue, configured)) if probe and catalogue.mirrors else None
        advice = suggest(catalogue, configured, locale=locale_name(), results=results)
        if advice is not None and advice.reason != "default_fast":
            self.app.call_from_thread(self.notify, short_advice(advice.message), timeout=10, markup=False)

    def on_screen_suspend(self) -> None:
        """The suggestion is the Plan screen's: it never follows onto Run over the steps."""
        self.app.clear_notifications()

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
            from wizard.mirror.advice import resolve
            from wizard.mirror.catalogue import MirrorError, load_catalogue
            from wizard.plan.mirror import with_mirror

            plan = build_plan(session.profile, session.candidate, venv=session.venv)
            plan = with_mirror(plan, resolve(session.mirror, load_catalogue()))
        except (PlanError, MirrorError) as exc:
            self.post_message(self.Failed(str(exc)))
            return
        except Exception as exc:  # last guard for the UI
            self.post_message(self.Failed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(self.Built(plan))

    def on_plan_screen_built(self, message: Built) -> None:
        plan, old = message.plan, self.session.plan
        for step in old.steps if old is not None else ():  # a rebuilt plan keeps the optional steps' switches
            if step.optional and any(s.id == step.id and s.enabled != step.enabled for s in plan.steps):
                plan = plan.with_enabled(step.id, step.enabled)
        self.session.plan = plan
        self._show(plan)

    def on_plan_screen_failed(self, message: Failed) -> None:
        self.query_one("#plan-summary", Static).update(Content.from_markup("[$error]$e[/]", e=message.error))

    class Previewed(Message):
        def __init__(self, plan: Any, statuses: dict[str, str]) -> None:
            super().__init__()
            self.plan = plan
            self.statuses = statuses

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan-preview")
    def preview(self, plan: Any) -> None:
        """The runner's own preview (its checks, run now): the count says what Run will do."""
        from wizard.run.runner import Runner

        try:
            statuses = Runner(plan, simulate=plan.simulated, profile=self.session.profile).preview()
        except Exception:  # a check that cannot run: the count stays the plain one
            statuses = {}
        self.post_message(self.Previewed(plan, statuses))

    def on_plan_screen_previewed(self, message: Previewed) -> None:
        if message.plan is self.session.plan:
            self.previewed = True
            self._summary(message.plan, message.statuses)
            table = self.query_one(PlanStepTable)
            table.mark_there(message.statuses)
            self._detail(table.highlighted())

    # The runner's preview has landed for the plan shown (its [✓] and count are Run's): until then
    # the table may still change (a title without its restart, one line shorter).
    previewed = False

    def _show(self, plan: Any) -> None:
        self.previewed = False
        self._summary(plan, {})
        self.preview(plan)
        table = self.query_one(PlanStepTable)
        table.show(plan)
        self._detail(table.highlighted())
        self.query_one("#run", Button).disabled = False
        export = self.query_one("#export", Button)
        export.disabled = False
        export.display = self._can_export(plan)  # native Windows: no bash script; not offered
        self.refresh_bindings()

    def _summary(self, plan: Any, statuses: dict[str, str]) -> None:
        """N steps to run: the steps Run will carry out; those already there are counted apart."""
        there = sum(1 for s in plan.active_steps if statuses.get(s.id) in ("done", "satisfied"))
        off = _off_text(len(plan.steps) - len(plan.active_steps))
        if there:
            off += t("story.status.plan_satisfied", count=there)
        self.query_one("#plan-summary", Static).update(
            Content(  # the venv path is data: "x[/b]" in it must not be read as markup
                t(
                    "app.plan.summary",
                    count=len(plan.active_steps) - there,
                    off=off,
                    download=size_text(plan.download_mib),
                    venv=safe(plan.venv, 400),
                )
                + (
                    f"\n{t('mirror.app.plan_source', name=safe(self.session.mirror))}"
                    if self.session.mirror
                    else ""
                )
            )
        )

    def _detail(self, step: Any) -> None:
        box = self.query_one("#plan-detail", Static)
        commands = self.query_one("#plan-commands", PathText)
        rest = self.query_one("#plan-detail-rest", Static)
        check = self.query_one("#plan-check", PathText)
        restart_line = self.query_one("#plan-restart", Static)
        if step is None:
            box.update("")
            for part in (commands, check):
                part.set_text("")
            rest.update("")
            restart_line.update("")
            return
        p = "app.plan."
        where = where_text(step.where).plain
        status = t(p + "optional") if step.optional else t(p + "required")
        head = Content.from_markup(
            "[bold]$title[/]  [$text-muted]($where · $status)[/]",
            title=safe(step.title, 400),
            where=where,
            status=status,
        )
        parts = [head]
        there = step.enabled and step.id in self.query_one(PlanStepTable).there
        if there:
            # Run checks it and does not run it: say so before its commands, which are not for now.
            words = t("story.status.satisfied_because", proves=safe(step.check.proves, 400))
            parts.append(Content.from_markup("[$success]✓ $words[/]", words=words))
        parts += [
            Content.from_markup(
                "[$primary bold]$h[/]  $why", h=t(p + "why"), why=safe(step.why, None, multiline=True)
            ),
        ]
        if step.command_lines():  # the heading only over commands (a by-hand step has none)
            parts.append(Content.from_markup("[$primary bold]$h[/]", h=t(p + "commands")))
        box.update(Content("\n").join(parts))
        prompt = "PS> " if step.where == "windows-host" else "$ "
        # Each command an indented line: wrapped only between its arguments (PathText).
        commands.set_text(
            "\n".join("  " + safe(prompt + line, None, multiline=True) for line in step.command_lines())
        )
        commands.display = bool(step.command_lines())
        tail: list[Content] = []
        if step.manual:  # it may quote a GPU name: escapes are shown, not sent
            tail.append(Content(safe(step.manual, None, multiline=True)))
        tail.append(
            Content.from_markup(
                "[$primary bold]$h[/]  $proves", h=t(p + "check"), proves=safe(step.check.proves, 400)
            )
        )
        rest.update(Content("\n").join(tail))
        check.set_text("  " + _check_line(step))
        restart = "" if there else step.restart  # a step not run has no restart after it
        if restart == "reboot":
            restart_line.update(Content.from_markup("[$warning]⟳ $r[/]", r=t(p + "reboot")))
        elif restart == "wsl-shutdown":
            restart_line.update(Content.from_markup("[$warning]⟳ $r[/]", r=t(p + "wsl_shutdown")))
        else:
            restart_line.update("")

    def detail_text(self) -> str:
        """The highlighted step's whole detail as plain text (tests, and `c`'s neighbours)."""
        ids = ("#plan-detail", "#plan-commands", "#plan-detail-rest", "#plan-check", "#plan-restart")
        return "\n".join(str(self.query_one(i, Static).render()) for i in ids)

    def action_copy(self) -> None:
        """The highlighted step's commands, whole (however the screen wraps them), to the clipboard."""
        step = self.query_one(PlanStepTable).highlighted()
        lines = step.copy_lines() if step is not None else []
        if lines:
            self.app.copy_to_clipboard("\n".join(lines))
            self.notify(t("keys.copied", count=len(lines)), markup=False)
        elif step is not None:  # a key that does nothing says why, and what it can copy instead
            self.notify(t("wide.no_commands"), markup=False)

    def action_copy_check(self) -> None:
        """The highlighted step's check, whole, as the shell it runs in reads it."""
        step = self.query_one(PlanStepTable).highlighted()
        if step is not None:
            self.app.copy_to_clipboard(step.check_line())
            self.notify(t("keys.copied", count=1), markup=False)

    def action_details(self) -> None:
        """The selected step's detail on the whole screen, and back (d or Escape)."""
        toggle_details(self, "#plan-detail-box")

    def action_back(self) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        super().action_back()

    def watch_maximized(self, maximized: object) -> None:
        # The detail on the whole screen (d): its hint says how to scroll there, not "press d".
        opened = "_open" if maximized is not None else ""
        self.query_one("#plan-commands", PathText).set_hint(t("wide.commands_hint" + opened))
        self.query_one("#plan-check", PathText).set_hint(t("wide.check_hint" + opened))
        if maximized is None:  # back in its place: from its left edge, not where → left it scrolled
            self.query_one("#plan-detail-box").scroll_to(x=0, animate=False)

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "export":
            plan = self.session.plan
            return plan is None or self._can_export(plan)  # hidden from the footer where it cannot be done
        return super().check_action(action, parameters)

    def _can_export(self, plan: Any) -> bool:
        """exportable(plan), decided once per plan: the footer asks on every redraw, and rendering
        the whole script there each time ran on the UI thread (25-140 ms)."""
        known = getattr(self, "_export_known", None)
        if known is None or known[0] is not plan:
            known = (plan, exportable(plan))
            self._export_known = known
        return bool(known[1])

    @on(Button.Pressed, "#export")
    def action_export(self) -> None:
        plan = self.session.plan
        if plan is None:
            return
        from wizard.plan.model import PlanError
        from wizard.plan.script import render_script

        target = _free_name(Path.cwd() / SCRIPT_NAME)
        try:
            from wizard.safe.atomic import write_text_atomic

            write_text_atomic(target, render_script(plan), mode=0o755)  # whole or not at all
        except (OSError, PlanError) as exc:
            self.notify(t("app.plan.export_failed", error=safe(exc, 400)), severity="error", markup=False)
            return
        self.notify(t("app.plan.exported", path=safe(target, 400)), markup=False)

    @on(Select.Changed, "#plan-mirror")
    def _mirror_changed(self, event: Select.Changed) -> None:
        from wizard.mirror.advice import DEFAULT

        mirror = None if event.value in (DEFAULT, Select.NULL) else str(event.value)
        if mirror != self.session.mirror:
            self.session.mirror = mirror
            self.query_one("#run", Button).disabled = True
            self.build()

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


def _check_line(step: Any) -> str:
    """The check's one line (Step.check_line) with its shell's prompt, display-safe."""
    prompt = "PS> " if step.check_console == "powershell" else "$ "
    return prompt + safe(step.check_line(), None, multiline=True)


SHORT_ADVICE = 100  # cells: about two lines of a toast at 80x24


def short_advice(message: str) -> str:
    """A toast never covers the steps (a zh toast once hid half the screen at 80x24): a long
    suggestion is said in its first sentence, with where the rest is."""
    from rich.cells import cell_len

    if cell_len(message) <= SHORT_ADVICE:
        return message
    import re

    first = re.split(r"(?<=[.。])\s*", message, maxsplit=1)[0]
    return first + " " + t("keys.mirror.more")
