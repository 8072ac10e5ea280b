"""Choose: the setups that work here (from the resolver), the recommended one preselected;
the student may pick another row, another method, Python, or environment folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Select, Static

from screens.base import WizardScreen
from screens.styles import style_paths, style_text
from screens.widgets.candidate_table import CandidateTable, method_label
from wizard.text import t

AUTO = "auto"


class ChooseScreen(WizardScreen):
    CSS_PATH = style_paths(["choose.tcss"])  # type: ignore[assignment]
    CSS = style_text(["choose.tcss"])
    BINDINGS = [
        Binding("p", "use", t("app.key.plan")),
        Binding("a", "toggle_all", t("app.key.all_rows")),
    ]
    show_all = False

    class Ready(Message):
        def __init__(self, recommendation: Any) -> None:
            super().__init__()
            self.recommendation = recommendation

    class Failed(Message):
        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def compose(self) -> ComposeResult:
        from wizard.choose.choice import METHODS
        from wizard.paths import default_venv

        session = self.session
        yield Header()
        yield self.banner()
        yield Static(t("app.choose.heading"), classes="heading")
        yield Static(t("app.choose.working"), id="choose-summary", classes="status-line")
        yield CandidateTable(id="candidates")
        yield Static("", id="choose-detail")
        with Vertical(id="choose-options"):
            with Horizontal(id="choose-options-1"):
                yield Label(t("app.choose.method_label"), classes="option-label")
                options = [(t("app.choose.method_auto"), AUTO)] + [(method_label(m), m) for m in METHODS]
                yield Select(
                    options,
                    value=session.prefer_method or AUTO,
                    allow_blank=False,
                    compact=True,
                    id="choose-method",
                )
                yield Label(t("app.choose.python_label"), classes="option-label")
                python = Input(
                    value=session.python or "",
                    placeholder=t("app.choose.python_placeholder"),
                    compact=True,
                    id="choose-python",
                )
                python.cursor_blink = self.wizard.blink
                yield python
            with Horizontal(id="choose-options-2"):
                yield Label(t("app.choose.venv_label"), classes="option-label")
                venv = Input(value=str(session.venv or default_venv()), compact=True, id="choose-venv")
                venv.cursor_blink = self.wizard.blink
                yield venv
        with Horizontal(classes="button-row"):
            yield Button(t("app.choose.use"), id="use", variant="primary", compact=True, disabled=True)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(CandidateTable).focus()
        rec = self.session.recommendation
        if rec is not None:
            self._show(rec)
        else:
            self.refresh_recommendation()

    # ---- the resolver, in a worker ----------------------------------------
    def refresh_recommendation(self) -> None:
        self.query_one("#choose-summary", Static).update(t("app.choose.working"))
        self.query_one("#use", Button).disabled = True
        self.resolve(self.session.prefer_method, self.session.python or None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="resolve")
    def resolve(self, prefer_method: str | None, python: str | None) -> None:
        profile = self.session.profile
        if profile is None:
            return
        try:
            from wizard.choose.resolver import recommend

            rec = recommend(profile, prefer_method=prefer_method, python=python)
        except Exception as exc:  # the resolver gives reasons, not exceptions; last guard for the UI
            self.post_message(self.Failed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(self.Ready(rec))

    def on_choose_screen_ready(self, message: Ready) -> None:
        self.session.recommendation = message.recommendation
        self._show(message.recommendation)

    def on_choose_screen_failed(self, message: Failed) -> None:
        self.query_one("#choose-summary", Static).update(t("app.failed", error=message.error))

    def _show(self, rec: Any) -> None:
        best = rec.recommended
        if best is not None:
            s = best.set
            cuda = t("app.choose.recommended_cuda", cuda=s.cuda, cudnn=s.cudnn) if s.cuda else ""
            line = t(
                "app.choose.recommended",
                tf=s.tensorflow,
                python=s.python,
                method=method_label(s.method),
                cuda=cuda,
            )
        else:
            line = t("app.choose.nothing")
        if rec.unlock_hint:
            line += "\n" + t("app.choose.unlock", hint=rec.unlock_hint)
        self.query_one("#choose-summary", Static).update(line)
        table = self.query_one(CandidateTable)
        table.show(rec, self.show_all)
        self._detail(table.highlighted())
        self.query_one("#use", Button).disabled = table.highlighted() is None

    def _detail(self, cand: Any) -> None:
        detail = self.query_one("#choose-detail", Static)
        if cand is None:
            detail.update("")
            return
        lines = list(cand.reasons) or [t("app.choose.ok")]
        if cand.python_change:
            lines.append(t("app.choose.python_change", change=cand.python_change))
        if cand.constraints:
            lines.append(t("app.choose.constraints", constraints=", ".join(cand.constraints)))
        lines.extend(cand.constraint_reasons)
        mark = t("app.choose.mark_ok") if cand.ok else t("app.choose.mark_bad")
        detail.set_class(not cand.ok, "error-text")
        detail.update("\n".join(f"{mark} {line}" if i == 0 else f"  {line}" for i, line in enumerate(lines)))

    def action_toggle_all(self) -> None:
        """Every release x method, or only the rows worth reading (the default)."""
        self.show_all = not self.show_all
        rec = self.session.recommendation
        if rec is not None:
            self._show(rec)

    # ---- the student's choices ------------------------------------------
    @on(DataTable.RowHighlighted, "#candidates")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail(self.query_one(CandidateTable).highlighted())

    @on(DataTable.RowSelected, "#candidates")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_use()

    @on(Select.Changed, "#choose-method")
    def _method_changed(self, event: Select.Changed) -> None:
        value = event.value
        method = None if value == AUTO or value is Select.NULL else str(value)
        if method != self.session.prefer_method:
            self.session.prefer_method = method
            self.refresh_recommendation()

    @on(Input.Submitted, "#choose-python")
    def _python_changed(self, event: Input.Submitted) -> None:
        value = event.value.strip() or None
        if value != self.session.python:
            self.session.python = value
            self.refresh_recommendation()
        self.query_one(CandidateTable).focus()

    @on(Input.Submitted, "#choose-venv")
    def _venv_submitted(self, event: Input.Submitted) -> None:
        self.query_one(CandidateTable).focus()

    @on(Button.Pressed, "#use")
    def action_use(self) -> None:
        cand = self.query_one(CandidateTable).highlighted()
        if cand is None:
            return
        if not cand.ok:
            reason = cand.reasons[0] if cand.reasons else ""
            self.notify(t("app.choose.not_ok", reason=reason), severity="warning")
            return
        venv_text = self.query_one("#choose-venv", Input).value.strip()
        self.session.venv = Path(venv_text).expanduser() if venv_text else None
        if self.session.candidate is not cand:
            self.session.plan = None
        self.session.candidate = cand
        self.wizard.go_plan()
