"""Welcome: what will happen, how long, what the wizard will and will not touch."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Header, Static

from screens.base import WizardScreen
from wizard.text import t


class WelcomeScreen(WizardScreen):
    BINDINGS = [
        Binding("enter,s", "start", t("app.key.start"), priority=False),
        Binding("d", "demo", t("app.key.demo")),
        Binding("q", "app.quit", t("app.key.quit"), show=False),
        Binding("escape", "back", show=False),
    ]

    def compose(self) -> ComposeResult:
        session = self.session
        yield Header()
        yield self.banner()
        with VerticalScroll(classes="body", id="welcome-body"):
            yield Static(t("app.welcome.heading"), classes="heading", id="welcome-heading")
            yield Static(t("app.welcome.intro"), id="welcome-intro", markup=False)
            with Horizontal(id="welcome-columns"):
                with Vertical(id="welcome-what"):
                    yield Static(t("app.welcome.steps_title"), classes="section-title")
                    yield Static(t("app.welcome.steps").strip("\n"), id="welcome-steps", markup=False)
                # What it touches comes before how long: on 80x24 it must show without scrolling.
                with Vertical(id="welcome-touch"):
                    yield Static(t("app.welcome.touch_title"), classes="section-title")
                    yield Static(
                        t("app.welcome.touch", venv=welcome_venv(session.profile)),
                        classes="para",
                        markup=False,
                    )
                    yield Static(t("app.welcome.no_touch_title"), classes="section-title")
                    yield Static(t("app.welcome.no_touch"), classes="para", markup=False)
                    yield Static(t("app.welcome.time_title"), classes="section-title")
                    yield Static(t("app.welcome.time", size=gpu_set_size()), classes="para", markup=False)
            if not session.simulated:
                yield Static(t("app.welcome.no_gpu_hint"), classes="muted", id="welcome-demo-hint")
        with Horizontal(classes="button-row"):
            if session.simulated:
                label = t("app.welcome.start_simulated")
            else:
                label = t("app.welcome.start")
            yield Button(label, id="start", variant="primary", compact=True)
            yield Button(t("app.welcome.demo"), id="demo", compact=True)
            yield Button(t("app.welcome.quit"), id="quit", compact=True)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#start", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "demo":
            self.action_demo()
        elif event.button.id == "quit":
            self.app.exit(return_code=0)

    def action_start(self) -> None:
        self.wizard.go_detect()

    def action_demo(self) -> None:
        self.wizard.choose_demo(then=self._demo_chosen)

    def _demo_chosen(self) -> None:
        self.refresh_banner()
        self.wizard.go_detect()

    def action_back(self) -> None:
        """The first screen has nowhere to go back to."""


def welcome_venv(profile: Any) -> str:
    """The environment folder as Choose and the plan will name it: on a Windows machine it is made
    in Ubuntu (WSL2), in the Linux home, never in this machine's home."""
    from wizard.paths import default_venv
    from wizard.plan.wsl_setup import LINUX_VENV

    if profile is not None and getattr(profile, "platform", "") == "windows":
        return LINUX_VENV
    return str(default_venv())


def gpu_set_size() -> str:
    """TensorFlow with its CUDA wheels, from the plan's own size table and in its own units."""
    from wizard.plan.common import SIZE_MIB
    from wizard.plan.view import size_text

    return size_text(SIZE_MIB["tensorflow"] + SIZE_MIB["and-cuda"])
