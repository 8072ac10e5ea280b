"""A windows-host step: the PowerShell command to copy, and "I ran it" to run the check."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static

from wizard.safe.display import safe
from wizard.text import t


class WindowsHostPanel(Vertical):
    DEFAULT_CSS = """
    WindowsHostPanel {
        height: auto;
        border: round $warning;
        border-title-color: $warning;
        padding: 0 1;
    }
    WindowsHostPanel > #windows-command { color: $accent; text-style: bold; margin-bottom: 1; }
    WindowsHostPanel > #windows-intro { color: $text-muted; }
    WindowsHostPanel Horizontal { height: auto; }
    WindowsHostPanel Button { margin-right: 2; width: auto; }
    /* The by-hand text can be long (a driver from a web page): it scrolls in its own box,
       below the button, so "I ran it" stays on screen however short the terminal. */
    WindowsHostPanel > #windows-manual-box {
        height: auto;
        max-height: 8;
        margin-top: 1;
        scrollbar-size-vertical: 1;
    }
    """

    class RanIt(Message):
        """The user says the Windows command ran: time to run the check."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.commands: list[str] = []
        self.border_title = t("app.run.windows_title")

    def compose(self) -> ComposeResult:
        yield Static("", id="windows-command")
        with Horizontal():
            yield Button(t("app.run.ran_it"), id="windows-ran", variant="primary", compact=True)
            yield Button(t("app.run.copy"), id="windows-copy", compact=True)
        yield Static(t("app.run.windows_intro"), id="windows-intro", markup=False)
        with VerticalScroll(id="windows-manual-box"):
            yield Static("", id="windows-manual")

    def show(
        self,
        commands: list[str],
        manual: str | None = None,
        native: bool = False,
        by_hand: tuple[str, ...] = (),
        by_hand_prompt: str = "$ ",
    ) -> None:
        """`commands` are PowerShell lines to copy; `manual` what to do by hand instead, and `by_hand`
        the commands it names (Secure Boot's key), shown and copied whole after the prompt of the shell
        they are typed in (`by_hand_prompt`); `native`: the wizard runs on Windows itself (it checks
        there, not from inside WSL)."""
        self.commands = list(commands) or list(by_hand)
        prompt = "PS> " if commands else by_hand_prompt
        command = self.query_one("#windows-command", Static)
        command.update(Content(safe("\n".join(f"{prompt}{c}" for c in self.commands), None, multiline=True)))
        command.display = bool(self.commands)
        self.query_one("#windows-copy", Button).display = bool(self.commands)
        text = self.query_one("#windows-manual", Static)
        text.update(Content(safe(manual or "", 2000, multiline=True)))  # may quote a GPU name
        text.display = bool(manual)
        self.query_one("#windows-manual-box").display = bool(manual)
        self.query_one("#windows-ran", Button).disabled = False
        # A step with no PowerShell command (install a driver from a web page) is done by hand.
        done_by_hand = not commands
        self.border_title = t("app.run.manual_title" if done_by_hand else "app.run.windows_title")
        windows_intro = "app.run.windows_intro_native" if native else "app.run.windows_intro"
        intro = t("app.run.manual_intro" if done_by_hand else windows_intro)
        self.query_one("#windows-intro", Static).update(Content(intro))

    def checking(self) -> None:
        self.query_one("#windows-ran", Button).disabled = True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "windows-copy":
            self.copy()
        elif event.button.id == "windows-ran":
            self.post_message(self.RanIt())

    def copy(self) -> None:
        if not self.commands:
            return
        self.app.copy_to_clipboard("\n".join(self.commands))
        self.notify(t("app.run.copied"))
