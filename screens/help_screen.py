"""Help: the keys, the screens, and a glossary of the words the wizard uses; on `?` or F1."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from wizard.paths import start_command
from wizard.text import t

# The order a student meets them in: the driver first, the benchmark's units last.
GLOSSARY = (
    "driver",
    "cuda",
    "cudnn",
    "compute_capability",
    "ptx",
    "wheel",
    "pip",
    "venv",
    "conda",
    "wsl2",
    "xla",
    "tflops",
)


def pin_example(recommendation: Any = None) -> str:
    """A pin the wizard really makes: the recommended set's first NVIDIA pin when Choose has one
    (picked for this GPU and driver), else the newest TensorFlow release the tables know."""
    from wizard.choose.knowledge import load_knowledge

    best = getattr(recommendation, "recommended", None)
    pins = [p for p in getattr(best, "pins", ()) or () if p.startswith("nvidia-")]
    if pins:
        return str(pins[0])
    releases = load_knowledge().releases
    return f"tensorflow=={releases[0].version}" if releases else "tensorflow"


def glossary_table(example: str | None = None) -> Table:
    """Term and meaning side by side; Rich wraps the meaning by display cells (CJK is 2 wide)."""
    table = Table.grid(padding=(0, 2, 1, 0))
    table.add_column("term", style="bold", no_wrap=True)
    table.add_column("meaning", ratio=1, overflow="fold")  # a CJK run has no spaces to wrap at
    for key in GLOSSARY:
        meaning = t(f"app.glossary.meaning.{key}", example=example or pin_example())
        table.add_row(Text(t(f"app.glossary.term.{key}")), Text(meaning))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "close", t("app.key.close")),
        Binding("g", "glossary", t("app.glossary.title")),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog"):
            yield Static(t("app.help.title"), classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(t("app.glossary.hint"), id="help-glossary-hint", classes="muted", markup=False)
                body = t("app.help.body", command=start_command()).strip("\n")
                yield Static(body, id="help-body", markup=False)
                yield Static(t("app.glossary.title"), id="glossary-title", classes="section-title")
                session = getattr(self.app, "session", None)
                example = pin_example(getattr(session, "recommendation", None))
                yield Static(glossary_table(example), id="glossary")
            yield Button(t("app.help.close"), id="help-close", compact=True)

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_glossary(self) -> None:
        self.query_one("#help-scroll", VerticalScroll).scroll_to_widget(
            self.query_one("#glossary-title"), top=True, animate=False
        )

    def action_close(self) -> None:
        self.dismiss(None)
