"""Run: the plan's steps one by one through wizard.runner, in a worker thread.

Step list with statuses, the live log of the current step, elapsed time; the sudo
password in a modal; windows-host steps shown with a copy action and "I ran it";
the restart notice; a failed step offers retry, skip (optional steps) and the doctor.
The runner's callbacks come from the worker thread: plain events are posted as
messages, questions wait for the user's answer without blocking the UI.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Static

from screens.base import WizardScreen
from screens.styles import style_paths, style_text
from screens.widgets.path_text import PathText
from screens.widgets.run_step_list import RunStepList, clock_text
from screens.widgets.step_log import StepLog
from screens.widgets.windows_host_panel import WindowsHostPanel
from wizard.plan.model import Plan, Step
from wizard.run.runner import RunnerEvents, RunResult, StepResult
from wizard.safe.display import safe
from wizard.text import t


class _Events(RunnerEvents):
    """The runner's callbacks, forwarded to the screen (called in the worker thread)."""

    def __init__(self, screen: RunScreen) -> None:
        self.screen = screen

    def step_started(self, step: Step, index: int, total: int) -> None:
        self.screen.post_message(RunScreen.StepStarted(step, index, total))

    def output_line(self, step: Step, line: str, progress: bool = False) -> None:
        self.screen.post_message(RunScreen.Output(line, progress))

    def step_finished(self, step: Step, result: StepResult) -> None:
        self.screen.post_message(RunScreen.StepFinished(step, result))

    def needs_password(self, step: Step, attempt: int) -> str | None:
        from screens.password_modal import PasswordModal
        from wizard.plan.build import machine_user

        screen = self.screen
        simulated = screen.plan.simulated
        profile = screen.session.profile
        # A demo's root step runs as the demo machine's user, not as the one at this keyboard.
        user = machine_user(profile) if simulated and profile is not None else None
        answer = screen.ask(
            lambda: PasswordModal(
                step.title, attempt=attempt, simulated=simulated, blink=screen.wizard.blink, user=user
            )
        )
        return answer if isinstance(answer, str) else None

    def confirm(self, step: Step, question: str) -> bool:
        from screens.confirm_step_modal import ConfirmStepModal

        return self.screen.ask(lambda: ConfirmStepModal(step.title, question)) is True

    def wait_for_windows_host(self, step: Step, text: str) -> bool:
        return self.screen.wait_windows(step)

    def needs_restart(self, step: Step, kind: str, message: str) -> None:
        self.screen.post_message(RunScreen.RestartNeeded(step, kind, message))


class RunScreen(WizardScreen):
    CSS_PATH = style_paths(["run.tcss"])  # type: ignore[assignment]
    CSS = style_text(["run.tcss"])
    BINDINGS = [
        Binding("r", "retry", t("app.key.retry")),
        Binding("s", "skip", t("app.key.skip")),
        Binding("d", "doctor", t("app.key.doctor")),
        Binding("c", "copy", t("app.key.copy")),
        Binding("i", "ran_it", t("app.key.ran_it")),
        Binding("n", "continue_run", t("app.key.continue")),  # after a simulated restart
        # While a restart is pending Escape does not go back: the footer says so, the key says why.
        # A screen's own binding of a key replaces its base's, so Back is named here again.
        Binding("escape", "restart_pending", t("app.key.restart_first")),
        Binding("escape", "back", t("app.key.back")),
        Binding("m", "monitor", t("app.key.monitor")),
        Binding("o", "next_route", t("gpuroute.key_next_route")),  # after a kernel failure (issue 33)
        # The finish's "how to use it" longer than its box (a short terminal): the footer says that
        # PageDown reads on. Otherwise PageDown scrolls as on every screen (the second binding).
        Binding("pagedown", "scroll_notice", t("story.key.scroll")),
        Binding("pagedown", "scroll_region('page_down')", show=False),
    ]
    # The notice (the finish's "how to use it", a failure) before the log, the log before the steps.
    # A by-hand step's long text first: it is what the user reads while the run waits.
    SCROLL_REGIONS = ("#windows-manual-box", "#run-notice-box", "#run-log", "#run-steps-box")

    class StepStarted(Message):
        def __init__(self, step: Step, index: int, total: int) -> None:
            super().__init__()
            self.step, self.index, self.total = step, index, total

    class Output(Message):
        def __init__(self, line: str, progress: bool) -> None:
            super().__init__()
            self.line, self.progress = line, progress

    class StepFinished(Message):
        def __init__(self, step: Step, result: StepResult) -> None:
            super().__init__()
            self.step, self.result = step, result

    class RestartNeeded(Message):
        def __init__(self, step: Step, kind: str, message: str) -> None:
            super().__init__()
            self.step, self.kind, self.message = step, kind, message

    class WindowsWaiting(Message):
        def __init__(self, step: Step) -> None:
            super().__init__()
            self.step = step

    class Finished(Message):
        def __init__(self, result: RunResult) -> None:
            super().__init__()
            self.result = result

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan
        self.runner: Any = None
        self.state = "idle"  # idle | running | failed | restart | finished | cancelled
        self.result: RunResult | None = None
        self.skip: set[str] = set()
        self.started_at: float | None = None
        self._stopped_at: float | None = None  # when the run last stopped (restart, failure, Ctrl+C)
        self.failed_output: list[str] = []
        self._numbers: dict[str, int] = {}  # each started step's number, for a proof that ends later
        self._current_step = ""
        self._stopping = threading.Event()
        self._windows_event = threading.Event()
        self._windows_ok = False
        self._windows_step: Step | None = None

    # ---- layout ------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield self.banner()
        heading = "app.run.heading_simulated" if self.plan.simulated else "app.run.heading"
        with Horizontal(id="run-head"):
            yield Static(t(heading), classes="heading", id="run-heading")
            yield Static("", id="run-elapsed")
        with Horizontal(id="run-columns"):
            with VerticalScroll(id="run-steps-box"):
                yield RunStepList(self.plan.active_steps, self.wizard.clock, id="run-steps")
            with Vertical(id="run-right"):
                yield WindowsHostPanel(id="run-windows")
                with VerticalScroll(id="run-notice-box"):
                    yield PathText(id="run-notice")  # its paths broken only after a "/"
                yield StepLog(id="run-log")
                yield Static("", id="run-progress")
        with Horizontal(classes="button-row", id="run-buttons"):
            yield Button(t("app.run.retry"), id="retry", variant="primary", compact=True)
            yield Button(t("app.run.skip"), id="skip", compact=True)
            yield Button(t("app.run.doctor"), id="doctor", compact=True)
            yield Button(t("app.run.restart_continue"), id="continue", variant="primary", compact=True)
            yield Button(t("app.run.quit_now"), id="quit", compact=True)
            label = t("app.run.monitor_cpu" if self._cpu_plan else "app.run.monitor")
            yield Button(label, id="monitor", variant="success", compact=True)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(WindowsHostPanel).display = False
        self.query_one("#run-notice-box").display = False
        self.session.stop_run = self.stop
        self.set_interval(1.0, self._tick)
        self._start()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_notice)
        self.call_after_refresh(self.query_one("#run-notice", PathText).rewrap)

    @on(StepLog.FloorChanged)
    def _log_floor_changed(self) -> None:
        self.call_after_refresh(self._fit_notice)

    def _fit_notice(self) -> None:
        """The log keeps "Full log:" and its whole path in sight (StepLog's floor, as long as the
        path is); the notice gets at most what the log leaves it, and scrolls past that (the
        footer then offers PageDown), rather than pushing the log's last lines off the screen."""
        box = self.query_one("#run-notice-box")
        log = self.query_one(StepLog)
        right = self.query_one("#run-right")
        floor = log.styles.inline.min_height
        if not box.display or not log.display or floor is None or not right.size.height:
            if box.styles.inline.has_rule("max_height"):
                box.styles.max_height = None
            self.refresh_bindings()
            return
        others = sum(
            child.outer_size.height for child in right.children if child.display and child not in (box, log)
        )
        room = right.size.height - others - int(floor.value) - box.styles.margin.height
        css = box.styles.base.max_height
        if css is not None:
            room = min(room, int(css.resolve(right.size, self.app.size)))
        if box.styles.max_height is None or box.styles.max_height.value != max(room, 1):
            box.styles.max_height = max(room, 1)
        self.call_after_refresh(self.refresh_bindings)  # PageDown's hint, once the box has its height

    def on_unmount(self) -> None:
        self.stop()
        if self.session.stop_run == self.stop:
            self.session.stop_run = None

    # ---- running -------------------------------------------------------------
    def _make_runner(self) -> Any:
        from wizard.run.runner import Runner

        factory: Callable[..., Any] = self.wizard.runner_factory or Runner
        options = dict(self.wizard.runner_options)
        return factory(
            self.plan,
            _Events(self),
            simulate=self.plan.simulated,
            confirm_root=False,  # the plan screen showed every ROOT step; the password is the consent
            profile=self.session.profile,
            start_command=self.wizard.start_hint(),
            **options,
        )

    def _start(self) -> None:
        if self.runner is None:
            self.runner = self._make_runner()
        now = self.wizard.clock()
        if self.started_at is None:
            self.started_at = now
        elif self._stopped_at is not None:
            # Elapsed is time spent running: the wait at a restart notice or a failure is not.
            self.started_at += now - self._stopped_at
        self._stopped_at = None
        self.state = "running"
        self._show_elapsed()
        self.session.step_running = True
        self._set_notice(None)
        self._update_buttons()
        self.run_plan(frozenset(self.skip))

    @work(thread=True, exclusive=True, exit_on_error=False, group="run")
    def run_plan(self, skip: frozenset[str]) -> None:
        try:
            result = self.runner.run(skip=skip)
        except Exception as exc:  # the runner reports failures as results; last guard for the UI
            result = RunResult("failed", t("app.failed", error=f"{type(exc).__name__}: {exc}"))
        self.post_message(self.Finished(result))

    def stop(self) -> None:
        """Stop the run (quit, leaving the screen): the journal keeps its place."""
        self._stopping.set()
        self._windows_event.set()
        if self.runner is not None and self.state == "running":
            self.runner.cancel()

    # ---- questions from the worker thread -------------------------------------
    def ask(self, make_screen: Callable[[], Screen[Any]]) -> Any:
        """Push a modal from the worker thread and wait for its answer (None when stopping)."""
        done = threading.Event()
        answer: list[Any] = [None]

        def answered(result: Any) -> None:
            answer[0] = result
            done.set()

        try:
            self.app.call_from_thread(self._push_modal, make_screen, answered)
        except RuntimeError:
            return None
        while not done.wait(0.1):
            if self._stopping.is_set():
                return None
        return answer[0]

    def _push_modal(self, make_screen: Callable[[], Screen[Any]], answered: Callable[[Any], None]) -> None:
        """Built and pushed on the app's thread; the worker only waits for the answer."""
        self.app.push_screen(make_screen(), answered)

    def wait_windows(self, step: Step) -> bool:
        """Show the windows-host panel and wait for "I ran it" (True) or a stop (False)."""
        self._windows_event.clear()
        self._windows_ok = False
        self.post_message(self.WindowsWaiting(step))
        while not self._windows_event.wait(0.1):
            if self._stopping.is_set():
                return False
        return self._windows_ok and not self._stopping.is_set()

    # ---- messages from the runner ------------------------------------------------
    def on_run_screen_step_started(self, message: StepStarted) -> None:
        self._numbers[message.step.id] = message.index + 1
        self._current_step = message.step.id
        steps = self.query_one(RunStepList)
        steps.set_status(message.step.id, "running")
        log = self.query_one(StepLog)
        log.reset()
        log.add(t("app.run.step_header", n=message.index + 1, total=message.total, title=message.step.title))
        self.query_one("#run-progress", Static).update("")

    def on_run_screen_output(self, message: Output) -> None:
        if message.progress:
            self.query_one("#run-progress", Static).update(Content(message.line))
        else:
            self.query_one("#run-progress", Static).update("")
            self.query_one(StepLog).add(message.line)

    def on_run_screen_step_finished(self, message: StepFinished) -> None:
        status = message.result.status
        shown = {"restart-pending": "restart"}.get(status, status)
        self.query_one(RunStepList).set_status(message.step.id, shown)
        if message.step.where == "windows-host":
            self.query_one(WindowsHostPanel).display = False
            self.remove_class("-windows")
        if status == "failed":
            self.failed_output = list(message.result.output)
        if message.result.message and status != "restart-pending":  # the notice says that one
            text = message.result.message
            if message.step.id != self._current_step and message.step.id in self._numbers:
                # An earlier step's proof that ran alongside this one: say whose it is.
                number = self._numbers[message.step.id]
                text = t("runner.cli.earlier_step", number=number, title=message.step.title) + text
            self.query_one(StepLog).add(text)

    def on_run_screen_windows_waiting(self, message: WindowsWaiting) -> None:
        self._windows_step = message.step
        self.query_one(RunStepList).set_status(message.step.id, "waiting")
        panel = self.query_one(WindowsHostPanel)
        native = self.plan.platform == "windows"
        step = message.step
        prompt = "PS> " if step.in_powershell else "$ "  # the shell the commands done by hand are typed in
        panel.show(
            step.command_lines(), step.manual, native=native, by_hand=step.manual_copy, by_hand_prompt=prompt
        )
        panel.display = True
        self.add_class("-windows")
        panel.query_one("#windows-ran", Button).focus()
        self.refresh_bindings()

    @on(WindowsHostPanel.RanIt)
    def _ran_it(self) -> None:
        if self._windows_step is None:
            return
        self.query_one(WindowsHostPanel).checking()
        self.remove_class("-windows")
        self.refresh_bindings()
        self.query_one(RunStepList).set_status(self._windows_step.id, "running")
        self._windows_ok = True
        self._windows_event.set()

    def on_run_screen_restart_needed(self, message: RestartNeeded) -> None:
        self._set_notice(message.message, "warning")

    def on_run_screen_finished(self, message: Finished) -> None:
        result = message.result
        self.result = result
        self._show_elapsed()
        self._stopped_at = self.wizard.clock()
        self.session.step_running = False
        self.query_one(WindowsHostPanel).display = False
        self.remove_class("-windows")
        self._windows_step = None
        self.state = {"finished": "finished", "failed": "failed", "restart": "restart"}.get(
            result.outcome, "cancelled"
        )
        if self.state == "finished":
            self._set_notice(self._finished_text(), "success")
            self.add_class("-finished")
            self.call_after_refresh(self.refresh_bindings)  # PageDown's hint, once the text is laid out
        elif self.state == "failed":
            self._set_notice(result.message + self._route_offer(result), "error")
        elif self.state == "restart":
            self._set_notice(result.message, "warning")
        else:
            # Retry is on screen: say what stopped and what the keys do, not "start again".
            step = self._failed_step()
            if step is not None and result.outcome == "cancelled":
                title, command = safe(step.title, 200), self.wizard.start_hint()
                self._set_notice(t("story.run.stopped", title=title, command=command), "warning")
            else:  # locked (another run holds it, by pid), or stopped before any step: its own words
                self._set_notice(result.message, "warning")
        if result.log_path is not None:
            self.query_one(StepLog).add_path(t("app.run.log"), result.log_path)
        self._update_buttons()

    # ---- the screen's own state ----------------------------------------------------
    def _tick(self) -> None:
        if self.state == "running":
            self._show_elapsed()
            self.query_one(RunStepList).redraw()

    def _show_elapsed(self) -> None:
        if self.started_at is not None:
            elapsed = clock_text(self.wizard.clock() - self.started_at)
            self.query_one("#run-elapsed", Static).update(t("app.run.elapsed", elapsed=elapsed))

    @property
    def _cpu_plan(self) -> bool:
        """A CPU plan: the finish offers the benchmark on the CPU, not a GPU monitor."""
        return self.plan.set.method == "cpu"

    def _finished_text(self) -> str:
        """The finish: what was proven, then how to use the environment (wizard.plan.next_steps)."""
        from wizard.demo import gpu_only_simulated
        from wizard.plan.next_steps import next_steps

        exists = None if self.plan.simulated else os.path.exists
        # Native Windows: these steps only set WSL2 up; TensorFlow is installed inside Ubuntu next.
        head = t(
            "app.run.finished_wsl"
            if self.plan.hands_over
            else "app.run.finished_cpu"
            if self._cpu_plan
            else "app.run.finished"
        )
        # A short terminal keeps every line for the "how to use it" words (a profile session's hints
        # are longer by their --profile): no blank line between the two parts there.
        gap = [] if self.has_class("-short") else [""]
        # The note speaks of the monitor and the benchmark that come next: a WSL hand-off has neither.
        simulated_gpu = self.plan.simulated and not self._cpu_plan and not self.plan.hands_over
        if simulated_gpu and gpu_only_simulated(self.session.profile):
            head += "\n" + t("demogpu.finish_note")
        return "\n".join([head, *gap, *next_steps(self.plan, exists=exists)])

    def _set_notice(self, text: str | None, kind: str = "warning") -> None:
        notice = self.query_one("#run-notice", PathText)
        self.query_one("#run-notice-box").display = bool(text)
        notice.set_classes(f"-{kind}")
        notice.set_text(text or "")

    def _failed_step(self) -> Step | None:
        if self.result is None or self.result.failed_step is None:
            return None
        try:
            step: Step = self.plan.step(self.result.failed_step)
        except KeyError:
            return None
        return step

    def _can_skip(self) -> bool:
        step = self._failed_step()
        return self.state == "failed" and step is not None and step.optional

    def _can_continue(self) -> bool:
        """A simulated restart: the run goes on in place (a real one is restarted by the user)."""
        return self.state == "restart" and self.plan.simulated

    def _update_buttons(self) -> None:
        failed = self.state == "failed"
        show = {
            "retry": failed or self.state == "cancelled",
            "skip": self._can_skip(),
            "doctor": failed,
            "continue": self._can_continue(),
            "quit": self.state == "restart",
            # Handed over to Ubuntu: no TensorFlow here to monitor or benchmark.
            "monitor": self.state == "finished" and not self.plan.hands_over,
        }
        for button_id, visible in show.items():
            self.query_one(f"#{button_id}", Button).display = visible
        for button_id in ("monitor", "retry", "continue"):
            button = self.query_one(f"#{button_id}", Button)
            if button.display:
                button.focus()
                break
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry":
            return self.state in ("failed", "cancelled")
        if action == "skip":
            return self._can_skip()
        if action == "doctor":  # failed: the step's output; finished: a pasted error (the screen)
            return self.state in ("failed", "finished")
        if action == "copy":
            if self._windows_step is not None and bool(self.query_one(WindowsHostPanel).commands):
                return True  # its PowerShell lines, or the commands a step done by hand names
            # The finish's commands (activate, hello, the lock): long ones are copied whole by key.
            notice = self.query_one("#run-notice", PathText)
            return self.state == "finished" and bool(notice.commands)
        if action == "ran_it":
            return self._windows_step is not None and self.has_class("-windows")
        if action == "back":
            return self.state not in ("running", "restart")
        if action == "restart_pending":
            return self.state == "restart"
        if action == "monitor":
            return self.state == "finished" and not self.plan.hands_over
        if action == "continue_run":
            return self._can_continue()
        if action == "next_route":
            return self.state == "failed" and self._route is not None
        if action == "scroll_notice":
            box = self.query_one("#run-notice-box")
            return self.state == "finished" and box.display and box.max_scroll_y > 0
        return True

    # ---- actions --------------------------------------------------------------------
    # ---- the next route after a kernel failure (wizard/plan/routes.py) ---------------------
    _route: Any = None  # the route the notice offers; o shows the one after it, or plans it

    def _route_offer(self, result: RunResult) -> str:
        from wizard.plan.routes import kernel_failure, next_route_for

        self._route = None
        code = kernel_failure(self.failed_output) if result.failed_step == "verify" else None
        if code is None or self.session.profile is None:
            return ""
        self._route = next_route_for(self.plan, self.session.profile)
        if self._route is None:
            return "\n\n" + t("gpuroute.next_none", code=code)
        return "\n\n" + t("gpuroute.next_title", code=code) + "\n" + self._route_text(self._route)

    def _route_text(self, route: Any) -> str:
        key = "gpuroute.next_key_plan" if route.method else "gpuroute.next_key"
        return "\n".join([*route.lines(), "", t(key)])

    def action_next_route(self) -> None:
        """A route the wizard plans itself (CPU): its plan; a cited one: the route after it."""
        from wizard.choose.resolver import recommend
        from wizard.plan.build import machine_home
        from wizard.plan.routes import next_route, route_candidate, routes_for

        route, profile = self._route, self.session.profile
        if self.state != "failed" or route is None or profile is None:
            return
        rec = self.session.recommendation or recommend(profile)
        if route.method:
            cand = route_candidate(route, rec)
            if cand is not None:
                self.session.candidate, self.session.plan = cand, None
                self.wizard.go_plan()
            return
        following = next_route(routes_for(profile, rec, machine_home(profile)), route.id)
        if following is not None:
            self._route = following
            self._set_notice(t("gpuroute.next_shown") + "\n" + self._route_text(following), "error")
            self.query_one("#run-notice-box").scroll_home(animate=False)  # the route's name first
        self.refresh_bindings()

    @on(Button.Pressed, "#retry")
    def action_retry(self) -> None:
        if self.state in ("failed", "cancelled"):
            self._stopping.clear()
            self._start()

    @on(Button.Pressed, "#continue")
    def action_continue_run(self) -> None:
        if self._can_continue():
            self._start()

    @on(Button.Pressed, "#skip")
    def action_skip(self) -> None:
        step = self._failed_step()
        if step is None or not self._can_skip():
            self.notify(t("app.run.cant_skip"), severity="warning")
            return
        self.skip.add(step.id)
        self._start()

    @on(Button.Pressed, "#doctor")
    def action_doctor(self) -> None:
        from screens.doctor_modal import DoctorModal
        from wizard.doctor.diagnose import diagnose

        if self.state != "failed":  # a run that finished: the doctor reads what the student pastes
            self.wizard.go_doctor()
            return
        output = "\n".join(self.failed_output)
        profile = self.session.profile
        # The step ran on the profile's machine (a demo's own simulated run): its platform is the text's.
        found = diagnose(profile, output=output, written_there=True)
        self.app.push_screen(DoctorModal(found, profile))

    @on(Button.Pressed, "#quit")
    def _quit(self) -> None:
        self.wizard.stop_and_exit()

    def action_ran_it(self) -> None:
        """The footer's key for the panel's "I ran it" button (the same message)."""
        if self._windows_step is not None and self.has_class("-windows"):
            self.query_one(WindowsHostPanel).post_message(WindowsHostPanel.RanIt())

    def action_copy(self) -> None:
        if self._windows_step is not None and self.query_one(WindowsHostPanel).commands:
            self.query_one(WindowsHostPanel).copy()  # its PowerShell lines, or the commands done by hand
            return
        commands = self.query_one("#run-notice", PathText).commands
        if self.state == "finished" and commands:
            self.app.copy_to_clipboard("\n".join(commands))  # whole, however the screen wraps them
            self.notify(t("keys.copied", count=len(commands)), markup=False)

    def action_scroll_notice(self) -> None:
        self.query_one("#run-notice-box").scroll_page_down(animate=False)

    @on(Button.Pressed, "#monitor")
    def action_monitor(self) -> None:
        if self.state == "finished" and not self.plan.hands_over:
            self.wizard.go_monitor()

    def action_restart_pending(self) -> None:
        # Escape never skips a restart: the run goes on only after it (n, simulated) or a new start.
        key = "keys.run.restart_pending_sim" if self.plan.simulated else "keys.run.restart_pending"
        self.notify(t(key), severity="warning", markup=False)

    def action_back(self) -> None:
        if self.state == "running":
            return  # ctrl+q stops a run; going back would hide it
        if self.state == "restart":
            self.action_restart_pending()
            return
        super().action_back()
