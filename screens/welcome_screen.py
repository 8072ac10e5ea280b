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
        Binding("e", "doctor", t("app.key.doctor_open")),
        Binding("n", "start_over", t("app.key.start_over")),  # only while a demo remembers a run
        Binding("q", "app.quit", t("app.key.quit"), show=False),
        Binding("escape", "back", show=False),
        # The buttons are one row: the arrows and PageDown read on (the footer says so when the
        # page is longer than the screen); Tab and the left/right arrows move between buttons.
        Binding("pagedown", "scroll_region('page_down')", t("story.key.scroll")),
        Binding("down", "scroll_region('down')", show=False),
        Binding("up", "scroll_region('up')", show=False),
    ]

    def compose(self) -> ComposeResult:
        session = self.session
        yield Header()
        yield self.banner()
        with VerticalScroll(classes="body", id="welcome-body"):
            yield Static(t("app.welcome.heading"), classes="heading", id="welcome-heading")
            yield Static(t("app.welcome.intro"), id="welcome-intro", markup=False)
            # A demo keeps what its earlier simulated runs finished: said first, with the way out.
            yield Static("", id="welcome-demo-memory", classes="muted", markup=False)
            with Horizontal(id="welcome-columns"):
                with Vertical(id="welcome-what"):
                    yield Static(t("app.welcome.steps_title"), classes="section-title")
                    yield Static(welcome_steps(session.simulated), id="welcome-steps", markup=False)
                # What it touches comes before how long: on 80x24 it must show without scrolling.
                with Vertical(id="welcome-touch"):
                    yield Static(t("app.welcome.touch_title"), classes="section-title")
                    yield Static(
                        t("app.welcome.touch", venv=welcome_venv(session.profile)),
                        classes="para",
                        markup=False,
                        id="welcome-touch-text",
                    )
                    yield Static(t("app.welcome.no_touch_title"), classes="section-title")
                    yield Static(t("app.welcome.no_touch"), classes="para", markup=False)
                    yield Static(t("app.welcome.time_title"), classes="section-title")
                    yield Static(t("app.welcome.time", size=gpu_set_size()), classes="para", markup=False)
            hint = Static(t("app.welcome.no_gpu_hint"), classes="muted", id="welcome-demo-hint")
            hint.display = not session.simulated
            yield hint
        with Horizontal(classes="button-row"):
            yield Button(start_label(session.simulated), id="start", variant="primary", compact=True)
            yield Button(t("app.welcome.demo"), id="demo", compact=True)
            yield Button(t("app.welcome.doctor"), id="doctor", compact=True)
            yield Button(t("app.welcome.quit"), id="quit", compact=True)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#start", Button).focus()
        self._show_memory()

    def on_screen_resume(self) -> None:
        self._show_memory()  # after the resume offer, a demo picked, a run walked
        self._show_machine()

    def _show_machine(self) -> None:
        """A demo picked inside the app: Welcome now speaks of it, never "detect this machine"."""
        session = self.session
        self.query_one("#start", Button).label = start_label(session.simulated)
        self.query_one("#welcome-steps", Static).update(welcome_steps(session.simulated))
        self.query_one("#welcome-touch-text", Static).update(
            t("app.welcome.touch", venv=welcome_venv(session.profile))
        )
        self.query_one("#welcome-demo-hint", Static).display = not session.simulated

    def _show_memory(self, fresh: bool = False) -> None:
        from wizard.run.journal import demo_memory, memory_fields

        memory = demo_memory(self.session.profile) if self.session.simulated else None
        self._remembered = memory is not None
        line = self.query_one("#welcome-demo-memory", Static)
        if memory is not None:
            line.update(t("app.welcome.demo_memory", **memory_fields(*memory)))
        elif fresh:
            line.update(t("app.welcome.demo_fresh"))
        line.display = memory is not None or fresh
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start_over":
            return bool(getattr(self, "_remembered", False))  # False: hidden, not greyed
        if action == "scroll_region" and parameters == ("page_down",):
            return self.query_one("#welcome-body").max_scroll_y > 0  # the hint only where it reads on
        return True

    def on_resize(self) -> None:
        self.call_after_refresh(self.refresh_bindings)

    def action_start_over(self) -> None:
        """A fresh demo machine: what earlier simulated runs finished is forgotten."""
        from wizard.run.journal import forget_demo
        from wizard.safe.lock import LockBusy

        if not self.session.simulated:
            return
        try:
            forget_demo(self.session.profile)
        except LockBusy as busy:  # a run of this demo is going on elsewhere: its journal stays
            self.notify(str(busy), severity="warning", markup=False)
            return
        self._show_memory(fresh=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "demo":
            self.action_demo()
        elif event.button.id == "doctor":
            self.action_doctor()
        elif event.button.id == "quit":
            self.app.exit(return_code=0)

    def action_start(self) -> None:
        self.wizard.go_detect()

    def action_doctor(self) -> None:
        self.wizard.go_doctor()

    def action_demo(self) -> None:
        self.wizard.choose_demo(then=self._demo_chosen)

    def _demo_chosen(self) -> None:
        self.refresh_banner()
        self.wizard.go_detect()

    def action_back(self) -> None:
        """The first screen has nowhere to go back to."""


def start_label(simulated: bool) -> str:
    return t("app.welcome.start_simulated" if simulated else "app.welcome.start")


def welcome_steps(simulated: bool) -> str:
    """What will happen; under a demo the first step reads the demo profile, not this machine."""
    lines = t("app.welcome.steps").strip("\n").split("\n")
    if simulated:
        lines[0] = t("app.welcome.detect_simulated")
    return "\n".join(lines)


def welcome_venv(profile: Any) -> str:
    """The environment folder as Choose and the plan will name it: on a Windows machine it is made
    in Ubuntu (WSL2), in the Linux home, never in this machine's home."""
    from wizard.paths import default_venv
    from wizard.plan.build import default_venv_for
    from wizard.plan.wsl_setup import LINUX_VENV

    if profile is not None and getattr(profile, "platform", "") == "windows":
        return LINUX_VENV
    # A demo's folder is in the demo machine's home, as its plan names it, never in this one.
    return str(default_venv_for(profile) if profile is not None else default_venv())


def gpu_set_size() -> str:
    """TensorFlow with its CUDA wheels, from the plan's own size table and in its own units."""
    from wizard.plan.common import SIZE_MIB
    from wizard.plan.view import size_text

    return size_text(SIZE_MIB["tensorflow"] + SIZE_MIB["and-cuda"])
