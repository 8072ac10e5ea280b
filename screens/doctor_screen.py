"""Doctor: paste an error (or name a log file) and read what the doctor makes of it.

The twin of `tf-gpu-wizard doctor --log FILE|-`: the same bounded reading (wizard.doctor.logread),
the same diagnosis (wizard.doctor.diagnose.diagnose_lines) and the same grouping
(wizard.doctor.report_view), so the app and the CLI cannot disagree. The reading runs in a worker
thread and posts its report back (a pasted session can be megabytes).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Footer, Header, Input, Static, TextArea

from screens.base import WizardScreen, toggle_details
from screens.styles import style_paths, style_text
from screens.widgets.detail_box import DetailBox
from screens.widgets.doctor_answer import answer_content
from screens.widgets.paste_box import PasteBox, PathInput
from wizard.text import t

if TYPE_CHECKING:
    from wizard.doctor.logread import LogRead
    from wizard.doctor.report_view import DoctorReport


class DoctorScreen(WizardScreen):
    CSS_PATH = style_paths(["doctor.tcss"])  # type: ignore[assignment]
    CSS = style_text(["doctor.tcss"])
    BINDINGS = [
        # Priority: the text field keeps every other key for typing.
        Binding("ctrl+r", "read", t("app.key.doctor_read"), priority=True),
        Binding("escape", "back", t("app.key.back")),
        # The answer on the whole screen (80x24 shows a few lines of it beside the box).
        Binding("d", "details", t("app.key.details")),
    ]
    SCROLL_REGIONS = ("#doctor-report",)

    class Read(Message):
        """The worker's report, or the one line that says why the text could not be read."""

        def __init__(self, report: DoctorReport | None, note: str) -> None:
            super().__init__()
            self.report = report
            self.note = note

    def compose(self) -> ComposeResult:
        yield Header()
        yield self.banner()
        yield Static(t("app.doctor_screen.heading"), classes="heading", id="doctor-heading")
        yield Static(t("app.doctor_screen.intro"), classes="muted", id="doctor-intro", markup=False)
        yield PasteBox(
            id="doctor-text",
            soft_wrap=True,
            placeholder=t("app.doctor_screen.placeholder"),
            highlight_cursor_line=False,
        )
        with Horizontal(id="doctor-file-row"):
            yield PathInput(
                placeholder=t("app.doctor_screen.file_placeholder"), id="doctor-file", compact=True
            )
            yield Button(t("app.doctor_screen.read"), id="doctor-read", variant="primary", compact=True)
        with DetailBox(id="doctor-report", classes="body"):
            yield Static(t("app.doctor_screen.empty"), classes="muted", id="doctor-answer", markup=False)
        yield Footer(show_command_palette=False)

    # Which input the next reading reads: the one edited last (a path typed earlier never wins
    # over a text pasted since, nor the other way round).
    _source = "text"

    _box: TextArea | None = None
    _line: Input | None = None

    def on_mount(self) -> None:
        self._box = box = self.query_one("#doctor-text", TextArea)
        self._line = self.query_one("#doctor-file", Input)
        box.load_text(self.session.doctor_text)  # what was pasted before, on an earlier visit
        self._line.value = self.session.doctor_path
        self._source = "file" if self.session.doctor_path and not self.session.doctor_text else "text"
        box.focus()

    def on_unmount(self) -> None:
        """The box and the line are kept in the session: leaving the screen loses nothing. Kept
        as the screen goes, not on each key (the box's text is rebuilt whole each time it is read)."""
        box, line = self._box, self._line
        if box is not None and line is not None:
            self.session.doctor_text, self.session.doctor_path = box.text, line.value

    @on(TextArea.Changed, "#doctor-text")
    def _text_edited(self) -> None:
        self._source = "text"

    @on(Input.Changed, "#doctor-file")
    def _path_edited(self, event: Input.Changed) -> None:
        if event.value.strip():
            self._source = "file"

    def on_paste(self, event: events.Paste) -> None:
        """A paste where no field has the focus (the answer, a button): it is the next text to read,
        put into the box in place of the last one, never dropped. (The box handles its own.)"""
        if isinstance(self.focused, TextArea):
            return
        event.stop()
        self._into_box(event.text)

    @on(PathInput.TextPasted)
    def _pasted_on_the_line(self, message: PathInput.TextPasted) -> None:
        self._into_box(message.text)

    def _into_box(self, text: str) -> None:
        box = self.query_one("#doctor-text", TextArea)
        box.load_text("")
        box.focus()
        box.post_message(events.Paste(text))

    # ---- keys -----------------------------------------------------------------------
    def action_back(self) -> None:
        """Escape in a field leaves the field (what was typed stays); outside one, goes back."""
        if self.maximized is not None:
            self.minimize()
            return
        if isinstance(self.focused, TextArea | Input):
            self.query_one("#doctor-read", Button).focus()
            return
        super().action_back()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "details":  # a key typed in a field is text; d opens the answer elsewhere
            return not isinstance(self.focused, TextArea | Input)
        return True

    def action_details(self) -> None:
        toggle_details(self, "#doctor-report")

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()  # the footer shows d only outside the fields

    @on(Button.Pressed, "#doctor-read")
    def action_read(self) -> None:
        path = shown_path(self.query_one("#doctor-file", Input).value)
        pasted = self.query_one("#doctor-text", TextArea).text
        if self._source == "text" and pasted.strip():
            path = ""
        if not path and not pasted.strip():
            self._status(t("app.doctor_screen.nothing_given"), "warning")
            return
        self._status(t("app.doctor_screen.reading"), "")
        # The answer has the focus while it is read: a key pressed meanwhile never edits the text.
        self.query_one("#doctor-report").focus()
        self._read(path, pasted)

    @on(Input.Submitted, "#doctor-file")
    def _file_entered(self) -> None:
        self.action_read()

    # ---- the reading (a worker: a pasted session can be long) -------------------------
    @work(thread=True, exclusive=True, group="doctor-read")
    def _read(self, path: str, pasted: str) -> None:
        from wizard.doctor.diagnose import diagnose_lines
        from wizard.doctor.logread import read_log, read_pasted, size_text
        from wizard.doctor.report_view import doctor_report
        from wizard.safe.display import safe
        from wizard.safe.error_words import os_error

        try:
            log: LogRead = read_log(os.path.expanduser(path)) if path else read_pasted(pasted)
        except OSError as exc:
            note = t("app.doctor_screen.cannot_read", path=safe(path), error=os_error(exc))
            self.post_message(self.Read(None, note))
            return
        found = diagnose_lines(log.lines, self.session.profile)
        lines = len(log.lines)
        one = "_one" if lines == 1 else ""  # "1 line", not "1 lines"
        if path:
            note = t("app.doctor_screen.read_file" + one, path=safe(path), lines=lines)
        else:
            note = t("app.doctor_screen.read_text" + one, lines=lines)
        if log.truncated:
            note += " " + t("doctor.log_tail_note", size=size_text(log.tail_bytes))
        self.post_message(self.Read(doctor_report(found, text_given=True), note))

    def on_doctor_screen_read(self, message: Read) -> None:
        if message.report is None:  # a file that cannot be read: back to its line, to correct it
            self._status(message.note, "warning")
            self.query_one("#doctor-file", Input).focus()
            return
        answer = self.query_one("#doctor-answer", Static)
        answer.set_classes("")
        answer.update(answer_content(message.report, self.session.profile, note=message.note))
        report = self.query_one("#doctor-report", VerticalScroll)
        report.scroll_home(animate=False)
        report.focus()  # the answer is what is read next: PageDown and d act on it

    def _status(self, line: str, severity: str) -> None:
        answer = self.query_one("#doctor-answer", Static)
        answer.set_classes(f"muted {severity}".strip())
        answer.update(Content(line))


def shown_path(typed: str) -> str:
    """A log file's path as people type or drop it: spaces around it and one pair of quotes
    (a file manager's drag) taken off; `~` is expanded when it is read."""
    path = typed.strip()
    if len(path) > 1 and path[0] == path[-1] and path[0] in "'\"":
        path = path[1:-1]
    return path
