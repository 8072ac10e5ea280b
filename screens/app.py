"""The wizard app: Welcome -> Detect -> Choose -> Plan -> Run -> Monitor.

The App holds the shared `Session` and moves between screens; every decision
is made by `wizard/` (probe, findings, resolver, plan, runner). Screens are
imported only when first shown, so launching stays fast.

Blocking work (detection, the resolver, the runner) runs in thread workers
(`@work(thread=True, exclusive=True, exit_on_error=False)`) that post messages
back to their screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from textual.app import App, SystemCommand
from textual.binding import Binding

from screens.session import Session
from screens.styles import style_paths, style_text
from wizard.cjk import install_cjk_wrapping
from wizard.text import t

install_cjk_wrapping()  # Chinese lines break between characters, not only at spaces

if TYPE_CHECKING:
    from textual.screen import Screen

    from wizard.profile import MachineProfile

# The frame, the first screen and the modals load with the app; each other screen loads
# its own file when first shown (Screen.CSS_PATH), which keeps the launch fast.
# monitor.tcss belongs to the monitor screen, which expects the app to load it.
APP_STYLES = ("app.tcss", "welcome.tcss", "modals.tcss", "monitor.tcss")


Detector = Callable[..., "MachineProfile"]


def _word_textual_keys() -> None:
    """Textual's own Select list names its Escape key "Dismiss menu" in the footer: in English.
    Its bindings are class data, merged when the class is made; word them and merge again."""
    try:
        from textual.binding import Binding as _Binding
        from textual.widgets._select import SelectOverlay

        SelectOverlay.BINDINGS = [_Binding("escape", "dismiss", t("app.select.dismiss"))]
        SelectOverlay._merged_bindings = SelectOverlay._merge_bindings()
    except (ImportError, AttributeError):  # another Textual: its own words, nothing breaks
        pass


class WizardApp(App[int]):
    """The whole flow. `profile` replaces detection (a demo or saved profile, simulated)."""

    TITLE = t("app.title")
    SUB_TITLE = t("app.sub_title")
    CSS_PATH = style_paths(APP_STYLES)  # type: ignore[assignment]
    CSS = style_text(APP_STYLES)
    # Screens get -narrow / -wide classes by width: wide layouts put panels side by side.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    BINDINGS = [
        Binding("ctrl+q", "quit", t("app.key.quit"), priority=True),
        Binding("question_mark,f1", "help", t("app.key.help"), key_display="?"),
    ]

    def __init__(
        self,
        profile: MachineProfile | None = None,
        *,
        detector: Detector | None = None,
        clock: Callable[[], float] | None = None,
        blink: bool = True,
        offer_resume: bool = True,
        runner_options: dict[str, Any] | None = None,
        runner_factory: Callable[..., Any] | None = None,
        mirror: str | None = None,
        suggest_mirror: bool = True,
        profile_ref: str | None = None,
    ) -> None:
        super().__init__()
        # Worded now, in the session's language (the class attributes were read at import).
        self.title, self.sub_title = t("app.title"), t("app.sub_title")
        _word_textual_keys()
        # What --profile named (a demo or a file): every hint keeps it (wizard.safe.profile_hint).
        demo = profile.demo if profile is not None and profile.simulated else None
        self.profile_ref = profile_ref or demo
        self._hint_before: str | None = None
        self.started_on_profile = profile is not None  # --profile; not a demo picked in the app
        self.session = Session(profile=profile, detected=profile is not None, mirror=mirror)
        self.suggest_mirror = suggest_mirror  # tests turn the locale/probe suggestion off
        self.detector = detector  # None: wizard.probe.detect
        self.clock: Callable[[], float] = clock or time.monotonic
        self.blink = blink  # tests turn cursor blink off for stable snapshots
        self.offer_resume = offer_resume
        self.runner_options = dict(runner_options or {})  # extra Runner arguments (sim_delay, ...)
        self.runner_factory = runner_factory  # None: wizard.runner.Runner (tests inject their own)
        self.ready_at: float | None = None

    # ---- start ---------------------------------------------------------
    def on_mount(self) -> None:
        from screens.welcome_screen import WelcomeScreen
        from wizard.safe.profile_hint import set_session_profile

        self._hint_before = set_session_profile(self.hint_ref())
        self.push_screen(WelcomeScreen())
        self.ready_at = time.perf_counter()
        if self.offer_resume:
            self.call_after_refresh(self._offer_resume)

    def on_unmount(self) -> None:
        from wizard.safe.profile_hint import set_session_profile

        set_session_profile(self._hint_before)

    def hint_ref(self) -> str | None:
        """The --profile every hint of this session keeps: none on this machine."""
        return self.profile_ref if self.session.simulated else None

    def _offer_resume(self) -> None:
        """A run that stopped half-way (reboot, quit, kill -9) is offered first."""
        from wizard.run.journal import journal_for, unfinished
        from wizard.safe.lock import LockBusy, holder

        profile = self.session.profile if self.session.simulated else None
        journal = journal_for(self.session.simulated, profile)  # a demo resumes only its own runs
        busy = holder(journal.lock_path)
        if busy is not None:  # another apply (or app) is running it: say so, touch nothing
            self.notify(str(LockBusy(journal.lock_path, busy or None)), severity="warning", markup=False)
            return
        try:
            state, notice = unfinished(simulated=self.session.simulated, profile=profile)
        except Exception as exc:  # the journal sets bad files aside; this is the last guard
            state, notice = None, str(exc)
        if notice:
            self.notify(notice, severity="warning", timeout=10, markup=False)
        if state is None:
            return
        from screens.resume_modal import ResumeModal

        def answered(resume: bool | None) -> None:
            if resume:
                self.session.plan = state.plan
                self.go_run()
            elif resume is False:
                journal.discard()  # "Start over": the next run begins fresh, nothing is offered again

        self.push_screen(ResumeModal(state), answered)

    # ---- navigation (each screen calls these; imports stay lazy) --------
    def go_detect(self) -> None:
        from screens.detect_screen import DetectScreen

        self.push_screen(DetectScreen())

    def go_choose(self) -> None:
        from screens.choose_screen import ChooseScreen

        self.push_screen(ChooseScreen())

    def go_plan(self) -> None:
        from screens.plan_screen import PlanScreen

        self.push_screen(PlanScreen())

    def go_run(self) -> None:
        from screens.run_screen import RunScreen

        if self.session.plan is not None:
            self.push_screen(RunScreen(self.session.plan))

    def go_monitor(self) -> None:
        try:
            from screens.monitor_screen import MonitorScreen
        except ImportError as exc:
            self.notify(t("app.not_ready", what=str(exc)), severity="warning")
            return
        self.push_screen(_make_monitor(MonitorScreen, self))

    def go_doctor(self) -> None:
        """The doctor's screen for a pasted error; from Welcome, a finished run or the palette."""
        from screens.doctor_screen import DoctorScreen

        if not isinstance(self.screen, DoctorScreen):
            self.push_screen(DoctorScreen())

    def choose_demo(self, then: Callable[[], None] | None = None) -> None:
        """Ask which demo machine to use; on a choice, start over with that profile."""
        from screens.demo_picker_modal import DemoPickerModal

        def picked(profile: MachineProfile | None) -> None:
            if profile is None:
                return
            from wizard.safe.profile_hint import set_session_profile

            self.session.profile = profile
            self.session.detected = True
            self.session.reset_choice()
            self.profile_ref = profile.demo or self.profile_ref  # its hints name this demo now
            set_session_profile(self.hint_ref())
            if then is not None:
                then()

        self.push_screen(DemoPickerModal(), picked)

    def start_hint(self) -> str:
        """What to type to come back to this run: the start command, with --profile on a demo and
        --lang where the language was chosen by it."""
        from wizard.plan.wsl_setup import start_line
        from wizard.safe.display import safe
        from wizard.text import language_flag

        args: tuple[str, ...] = ()
        ref = self.hint_ref()
        if ref:
            args += ("--profile", safe(ref, 400))
        lang = language_flag()
        if lang:  # started with --lang: the next start reads the same language
            args += ("--lang", lang)
        # The machine's own words: PowerShell and the wizard's .exe for a Windows plan.
        return start_line(self.session.profile, args)

    # ---- Textual's own words, from the catalogue ------------------------
    def action_help_quit(self) -> None:
        """Ctrl+C (a reflex) says how to quit: Textual words it in English."""
        quits = [a.binding for a in self.active_bindings.values() if a.binding.action in ("quit", "app.quit")]
        # Ctrl+Q first: it quits on every screen (Welcome's own q is one key among its others).
        quits.sort(key=lambda binding: binding.key != "ctrl+q")
        if quits:
            shown = self.get_key_display(quits[0]) or quits[0].key
            self.notify(
                t("app.textual.quit_hint", key=shown), title=t("app.textual.quit_title"), markup=False
            )

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette's entries (Ctrl+P) in the user's language. Textual's "Keys" panel
        (its widgets' English key names) is replaced by the wizard's own help, which has them all."""
        yield SystemCommand(t("app.textual.theme"), t("app.textual.theme_help"), self.action_change_theme)
        yield SystemCommand(t("app.textual.quit"), t("app.textual.quit_help"), self.action_quit)
        yield SystemCommand(t("app.textual.help"), t("app.textual.help_help"), self.action_help)
        yield SystemCommand(t("app.textual.doctor"), t("app.textual.doctor_help"), self.go_doctor)
        if screen.maximized is not None:
            yield SystemCommand(
                t("app.textual.minimize"), t("app.textual.minimize_help"), screen.action_minimize
            )
        elif screen.focused is not None and screen.focused.allow_maximize:
            yield SystemCommand(
                t("app.textual.maximize"), t("app.textual.maximize_help"), screen.action_maximize
            )
        yield SystemCommand(
            t("app.textual.screenshot"),
            t("app.textual.screenshot_help"),
            lambda: self.set_timer(0.1, self.deliver_screenshot),
        )

    def action_command_palette(self) -> None:
        from textual.command import CommandPalette

        from screens.command_palette import WizardPalette

        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(WizardPalette(id="--command-palette", placeholder=t("app.textual.search")))

    def search_themes(self) -> None:
        from textual.theme import ThemeProvider

        from screens.command_palette import WizardPalette

        self.push_screen(WizardPalette(providers=[ThemeProvider], placeholder=t("app.textual.search_themes")))

    # ---- app-wide actions ---------------------------------------------
    def action_help(self) -> None:
        from screens.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def stop_and_exit(self) -> None:
        if self.session.stop_run is not None:
            self.session.stop_run()
        self.exit(return_code=0)

    async def action_quit(self) -> None:
        if not self.session.step_running:
            self.stop_and_exit()
            return
        from screens.confirm_quit_modal import ConfirmQuitModal

        if isinstance(self.screen, ConfirmQuitModal):
            return

        def answered(quit_now: bool | None) -> None:
            if quit_now:
                self.stop_and_exit()

        self.push_screen(ConfirmQuitModal(), answered)


def _make_monitor(cls: type[Screen[Any]], app: WizardApp) -> Screen[Any]:
    """The monitor screen, given what it can use (its constructor is its engineer's to define)."""
    import inspect

    params = inspect.signature(cls).parameters
    kwargs: dict[str, Any] = {}
    session = app.session
    if "profile" in params:
        kwargs["profile"] = session.profile
    if "simulated" in params:
        kwargs["simulated"] = session.simulated
    if "venv" in params and session.venv is not None:
        kwargs["venv"] = session.venv
    if "candidate" in params and session.candidate is not None:
        kwargs["candidate"] = session.candidate
    return cls(**kwargs)


def run_app(
    profile: MachineProfile | None = None, mirror: str | None = None, profile_ref: str | None = None
) -> int:
    """Start the app; returns the exit code for the command line."""
    options = {"sim_delay": 0.15}
    app = WizardApp(profile=profile, runner_options=options, mirror=mirror, profile_ref=profile_ref)
    try:
        app.run()
    finally:
        if app.session.stop_run is not None:  # an exit that did not pass through ctrl+q
            app.session.stop_run()
    return app.return_code or 0
