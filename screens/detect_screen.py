"""Detect: the profile appears part by part as the probe runs (in a worker thread),
then the problems in it, each with one line of why."""

from __future__ import annotations

import copy
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Footer, Header, Static

from screens.base import WizardScreen
from screens.styles import style_paths, style_text
from screens.widgets.findings_view import FindingsView
from screens.widgets.profile_view import ProfileView
from wizard.profile import MachineProfile
from wizard.text import t


class DetectScreen(WizardScreen):
    CSS_PATH = style_paths(["detect.tcss"])  # type: ignore[assignment]
    CSS = style_text(["detect.tcss"])
    BINDINGS = [
        Binding("n", "next", t("app.key.next")),
        Binding("r", "redetect", t("app.key.redetect")),
        Binding("d", "demo", t("app.key.demo")),
        # Each finding leads with one line; its evidence and sources are one key away.
        Binding("w", "explain", t("keys.key.explain")),
    ]

    class PartDone(Message):
        def __init__(self, part: str, profile: MachineProfile) -> None:
            super().__init__()
            self.part = part
            self.profile = profile

    class Finished(Message):
        def __init__(self, profile: MachineProfile, findings: list[Any]) -> None:
            super().__init__()
            self.profile = profile
            self.findings = findings

    class Failed(Message):
        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def __init__(self) -> None:
        super().__init__()
        self.done: list[str] = []
        self.running = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield self.banner()
        with VerticalScroll(classes="body", id="detect-body"):
            yield Static(self._heading(), classes="heading", id="detect-heading")
            yield Static("", classes="status-line", id="detect-status")
            # Problems first: on a small terminal they must not hide below the fold.
            with Horizontal(id="detect-columns"):
                with Vertical(id="detect-problems-box"):
                    yield Static(t("app.detect.problems"), classes="section-title")
                    yield FindingsView(id="detect-findings")
                    yield Static(t("app.detect.no_gpu"), id="detect-no-gpu", classes="warning-text")
                with Vertical(id="detect-profile-box"):
                    yield ProfileView(id="detect-profile")
        with Horizontal(classes="button-row"):
            yield Button(t("app.detect.continue"), id="next", variant="primary", compact=True, disabled=True)
            yield Button(t("app.detect.redetect"), id="redetect", compact=True)
            yield Button(t("app.detect.demo"), id="demo", compact=True)
        yield Footer(show_command_palette=False)

    def _heading(self) -> str:
        return t("app.detect.heading_simulated" if self.session.simulated else "app.detect.heading")

    def on_mount(self) -> None:
        self.query_one("#detect-no-gpu").display = False
        profile = self.session.profile
        if profile is not None and self.session.detected:
            self.query_one(ProfileView).show(profile)
            if self.session.findings:
                self._show_findings(profile, self.session.findings)
            else:
                self.start(profile)
        else:
            self.start(None)

    # ---- detection ----------------------------------------------------
    def start(self, profile: MachineProfile | None) -> None:
        """Detect this machine (profile None) or just find the problems in a given one."""
        self.running = True
        self.done = []
        self.query_one("#next", Button).disabled = True
        self.query_one("#redetect", Button).disabled = True
        if profile is None:
            self.query_one(ProfileView).show(None, [])
            self._status(t("app.detect.running", done=0, total=len(self.query_one(ProfileView).parts)))
        self.detect(profile)

    @work(thread=True, exclusive=True, exit_on_error=False, group="detect")
    def detect(self, given: MachineProfile | None) -> None:
        from wizard.doctor.findings import find_problems

        try:
            if given is None:
                detector = self.wizard.detector
                if detector is None:
                    from wizard.probe import detect

                    detector = detect

                def on_part(part: str, profile: MachineProfile) -> None:
                    # The probe keeps filling the same object: hand the UI a snapshot.
                    self.post_message(self.PartDone(part, copy.deepcopy(profile)))

                profile = detector(on_part=on_part)
            else:
                profile = given
            findings = find_problems(profile)
        except Exception as exc:  # the probe fails soft; this is the last guard for the UI
            self.post_message(self.Failed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(self.Finished(profile, findings))

    def on_detect_screen_part_done(self, message: PartDone) -> None:
        if message.part not in self.done:
            self.done.append(message.part)
        view = self.query_one(ProfileView)
        view.show(message.profile, self.done)
        self._status(t("app.detect.running", done=len(self.done), total=len(view.parts)))

    def on_detect_screen_finished(self, message: Finished) -> None:
        self.running = False
        session = self.session
        if session.profile is not message.profile:
            session.profile = message.profile
            session.reset_choice()
        session.detected = True
        session.findings = message.findings
        self.query_one(ProfileView).show(message.profile)
        self._show_findings(message.profile, message.findings)

    def on_detect_screen_failed(self, message: Failed) -> None:
        self.running = False
        self._status(t("app.detect.failed", error=message.error))
        self.query_one("#redetect", Button).disabled = False

    def _show_findings(self, profile: MachineProfile, findings: list[Any]) -> None:
        self._status(t("app.detect.done"))
        self.query_one(FindingsView).show(findings)
        self.refresh_bindings()
        no_gpu = not profile.has_nvidia_gpu and profile.platform not in ("macos",)
        self.query_one("#detect-no-gpu").display = no_gpu and not profile.simulated
        nxt = self.query_one("#next", Button)
        nxt.disabled = False
        self.query_one("#redetect", Button).disabled = False
        if no_gpu and not profile.simulated:
            self.query_one("#demo", Button).focus()
        else:
            nxt.focus()

    def _status(self, text: str) -> None:
        self.query_one("#detect-status", Static).update(Text(text))  # an error message is data, not markup

    # ---- actions ------------------------------------------------------
    def action_explain(self) -> None:
        self.query_one(FindingsView).toggle_explain()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "explain":  # offered only where a finding says more than its line
            return self.query_one(FindingsView).more
        return True

    @on(Button.Pressed, "#next")
    def action_next(self) -> None:
        if self.running or not self.session.detected:
            return
        self.wizard.go_choose()

    @on(Button.Pressed, "#redetect")
    def action_redetect(self) -> None:
        if self.running:
            return
        self.query_one(FindingsView).clear()
        profile = self.session.profile
        if self.session.simulated and profile is not None:
            # A demo never turns into this machine without the user's say: detecting again
            # replays the demo's own detection, part by part, and stays simulated.
            # Started on --profile: start without it; a demo picked in the app: start again.
            started = self.wizard.started_on_profile
            key = "story.detect.redetect_simulated" if started else "keys.detect.redetect_picked"
            self.notify(t(key), markup=False)
            self.start_simulated(profile)
            return
        self.session.profile = None
        self.session.detected = False
        self.session.reset_choice()
        self.refresh_banner()
        self.query_one("#detect-heading", Static).update(self._heading())
        self.start(None)

    def start_simulated(self, profile: MachineProfile) -> None:
        """The demo profile's detection again: each part appears in turn, then its problems."""
        self.running = True
        self.done = []
        self.query_one("#next", Button).disabled = True
        self.query_one("#redetect", Button).disabled = True
        view = self.query_one(ProfileView)
        view.show(profile, [])
        self._status(t("app.detect.running", done=0, total=len(view.parts)))
        self.replay(profile, view.parts)

    @work(thread=True, exclusive=True, exit_on_error=False, group="detect")
    def replay(self, profile: MachineProfile, parts: tuple[str, ...]) -> None:
        import time

        from wizard.doctor.findings import find_problems

        for part in parts:
            time.sleep(0.05)  # long enough to be seen, short enough not to wait for
            self.post_message(self.PartDone(part, profile))
        try:
            findings = find_problems(profile)
        except Exception as exc:  # the last guard for the UI
            self.post_message(self.Failed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(self.Finished(profile, findings))

    @on(Button.Pressed, "#demo")
    def action_demo(self) -> None:
        if self.running:
            return
        self.wizard.choose_demo(then=self._demo_chosen)

    def _demo_chosen(self) -> None:
        self.refresh_banner()
        self.query_one("#detect-heading", Static).update(self._heading())
        profile = self.session.profile
        if profile is not None:
            self.query_one(ProfileView).show(profile)
            self.start(profile)
