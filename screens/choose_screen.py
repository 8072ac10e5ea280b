"""Choose: the setups that work here (from the resolver), the recommended one preselected;
the student may pick another row, another method, Python, or environment folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Select, Static

from screens.base import WizardScreen, toggle_details
from screens.styles import style_paths, style_text
from screens.widgets.candidate_table import CandidateTable, method_label
from screens.widgets.detail_box import DetailBox
from screens.widgets.fit import head
from wizard.plan.lock_view import install_summary
from wizard.safe.display import safe
from wizard.text import t

AUTO = "auto"
DETAIL_MIN = 3  # lines the detail box keeps on the shortest screen (it scrolls; `d` shows it whole)
TABLE_MIN = 5  # CandidateTable's min-height: its header and four rows


class ChooseScreen(WizardScreen):
    _editing: tuple[Input, str] | None = None  # the field being typed in, and its text before
    CSS_PATH = style_paths(["choose.tcss"])  # type: ignore[assignment]
    CSS = style_text(["choose.tcss"])
    BINDINGS = [
        Binding("p", "use", t("app.key.plan")),
        # Native Linux on a working driver: the newer set with its driver step, one key away.
        Binding("u", "upgrade", t("app.key.upgrade")),
        Binding("a", "toggle_all", t("app.key.all_rows")),
        Binding("d", "details", t("app.key.details")),
        # A GPU the wheels serve in part: the ranked routes, one at a time (issue 33).
        Binding("o", "route", t("gpuroute.key_route")),
    ]
    _routes: list[Any] = []  # wizard/plan/routes.py: ranked; [] where no cited build serves the GPU
    _route: Any = None  # the route `o` picked; None: the table's row is the choice
    _route_row: Any = None  # the row highlighted when it was picked: another row drops the route
    show_all = False
    # PageDown and friends read the highlighted row's detail, then the summary; never the table.
    SCROLL_REGIONS = ("#choose-detail-box", "#choose-summary-box")

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
        from wizard.plan.build import default_venv_for

        session = self.session
        yield Header()
        yield self.banner()
        yield Static(t("app.choose.heading"), classes="heading")
        # The recommendation and its tip: on a short terminal a long tip scrolls in its own box.
        with VerticalScroll(id="choose-summary-box"):
            yield Static(t("app.choose.working"), id="choose-summary", classes="status-line")
        yield CandidateTable(id="candidates")
        # The whole reason, pins and caveats: it scrolls (Tab to it, then arrows) when long.
        with DetailBox(id="choose-detail-box"):
            yield Static("", id="choose-detail", markup=False)
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
                default = default_venv_for(session.profile) if session.profile else default_venv()
                venv = Input(value=str(session.venv or default), compact=True, id="choose-venv")
                venv.cursor_blink = self.wizard.blink
                yield venv
                # Beside the folder rather than on a row of its own: one more line for the detail.
                yield Button(t("app.choose.use"), id="use", variant="primary", compact=True, disabled=True)
        yield Footer(show_command_palette=False)

    def on_resize(self) -> None:
        self._refit()

    def scroll_region(self) -> Widget | None:
        """From the table the scroll keys move the detail, never the table (its cursor is the
        choice): the detail of the highlighted row, else the summary, else nothing."""
        if isinstance(self.focused, CandidateTable):
            for selector in self.SCROLL_REGIONS:
                widget = self.query_one(selector, Widget)
                if widget.display and widget.max_scroll_y > 0:
                    return widget
            return None
        return super().scroll_region()

    def _refit(self) -> None:
        """Measure again from the stylesheet's detail height (a resize, a new summary)."""
        self.query_one("#choose-detail-box", DetailBox).styles.max_height = None
        self._fitted: tuple[int, int] | None = None
        self.call_after_refresh(self._fit_detail)
        # Once more after the layout pass: a longer summary is laid out after the refresh above, so
        # that measure can be the old layout's (the options then sat below the footer at 80x24).
        self.set_timer(0.1, self._fit_detail)

    def watch_virtual_size(self) -> None:
        """Measure whenever a layout pass changes what the screen holds: the refresh and timer in
        `_refit` can both fire before a loaded machine lays out the new summary (CI once left the
        options below the footer that way), and this follows the layout itself."""
        if self.is_mounted:
            self.call_after_refresh(self._fit_detail)

    def _fit_detail(self) -> None:
        """The screen itself never scrolls: that put the options below the footer and cut the
        detail at the screen's edge. Where the summary above is long (a tip on an 80x24 terminal),
        the detail box gives up the lines that would not fit, down to DETAIL_MIN; it scrolls, and
        `d` shows it whole. The overflow is measured with the screen's scrollbar showing, which
        narrows the text and can add a line: once it fits, a line the table got too many goes back."""
        if self.maximized is not None:
            return
        box = self.query_one("#choose-detail-box", DetailBox)
        table = self.query_one(CandidateTable)
        height = box.outer_size.height
        over = self.max_scroll_y
        if over > 0 and height > DETAIL_MIN:
            target = max(DETAIL_MIN, height - over)
            if (target, height) == getattr(self, "_fitted", None):
                return  # the box did not shrink last time: no other measure will change (no loop)
            self._fitted = (target, height)
            box.styles.max_height = target
            self.call_after_refresh(self._fit_detail)
        elif over == 0 and box.styles.inline.has_rule("max_height") and box.max_scroll_y > 0:
            spare = table.outer_size.height - TABLE_MIN
            if spare > 0:
                box.styles.max_height = height + spare

    def maximize(self, widget: Widget, container: bool = True) -> bool:
        """`d`: the detail on the whole screen, not at the height it was given above."""
        self.query_one("#choose-detail-box", DetailBox).styles.max_height = None
        return super().maximize(widget, container)

    def minimize(self) -> None:
        super().minimize()
        self._refit()

    def on_mount(self) -> None:
        self.sub_title = t("app.choose.heading")  # the header names the screen; a short one hides the heading
        self.query_one(CandidateTable).focus()
        rec = self.session.recommendation
        if rec is not None:
            self._show(rec)
            self._highlight_choice(rec)
        else:
            self.refresh_recommendation()

    def _highlight_choice(self, rec: Any) -> None:
        """Back on Choose (from Detect after Plan, or a new Choose screen): the row the student
        chose is highlighted again, not the recommended one; "all rows" where only they hold it."""
        from wizard.choose.resolver import useful_candidates

        chosen = self.session.candidate
        if chosen is None or not any(c is chosen for c in rec.candidates):
            return
        if not self.show_all and not any(c is chosen for c in useful_candidates(rec, False)):
            self.show_all = True
            self._show(rec)
        table = self.query_one(CandidateTable)
        row = next((i for i, c in enumerate(table.candidates) if c is chosen), None)
        if row is not None and row != table.cursor_row:
            table.move_cursor(row=row, animate=False, scroll=True)

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
        failed = safe(t("app.failed", error=message.error), 2000)
        self.query_one("#choose-summary", Static).update(Content(failed))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "upgrade":  # shown only when there is a newer set one driver step away
            rec = self.session.recommendation
            return rec is not None and rec.upgrade is not None
        if action == "route":
            return bool(self._routes)
        return True

    def action_upgrade(self) -> None:
        rec = self.session.recommendation
        if rec is None or rec.upgrade is None:
            return
        table = self.query_one(CandidateTable)
        row = next((i for i, c in enumerate(table.candidates) if c is rec.upgrade), None)
        if row is None:
            return
        table.move_cursor(row=row, animate=False, scroll=True)
        self.action_use()

    def _show(self, rec: Any) -> None:
        self._routes, self._route = self._routes_for(rec), None
        table = self.query_one(CandidateTable)
        table.show(rec, self.show_all)
        self._summary(rec, table.highlighted())
        self.refresh_bindings()
        self._detail(table.highlighted())
        self.query_one("#use", Button).disabled = table.highlighted() is None
        self._refit()

    def _summary(self, rec: Any, chosen: Any) -> None:
        """The recommended set, and, when the highlighted row is another, the set `p` plans:
        the screen always shows what will be installed."""
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
            if best.driver is not None and best.driver.step:  # the plan's first step, with the set
                from wizard.choose.driver_view import first_step_line

                line += "\n" + first_step_line(best.driver)
        else:
            line = t("app.choose.nothing")
        if rec.unlock_hint:
            line += "\n" + t("app.choose.unlock", hint=rec.unlock_hint)
        if chosen is not None and chosen is not best:
            c = chosen.set
            cuda = t("app.choose.recommended_cuda", cuda=c.cuda, cudnn=c.cudnn) if c.cuda else ""
            key = "keys.choose.selected" if chosen.ok else "keys.choose.selected_bad"
            chosen_line = t(key, tf=c.tensorflow, python=c.python, method=method_label(c.method), cuda=cuda)
            line = chosen_line + "\n" + line
        if self._route is not None:  # the route `p` acts on, above all
            n = self._routes.index(self._route) + 1
            key = "gpuroute.choose_picked_plan" if self._route.method else "gpuroute.choose_picked_cited"
            line = t(key, n=n, title=self._route.title) + "\n" + line
        summary = self.query_one("#choose-summary", Static)
        content = Content(safe(line, 2000, multiline=True))
        if str(summary.content) != str(content):
            summary.update(content)
            self._refit()  # one more line above: the detail gives it up

    def _detail(self, cand: Any) -> None:
        detail = self.query_one("#choose-detail", Static)
        self.query_one("#choose-detail-box", DetailBox).scroll_home(animate=False)
        if cand is None:
            detail.update("")
            return
        detail.set_class(not cand.ok and self._route is None, "error-text")
        # A Rich Text of safe() strings: reasons quote GPU names.
        row = detail_text(cand, self.session.profile)
        if self._route is not None:  # the route picked first: it is what `p` acts on
            detail.update(Group(routes_text(self._routes, self._route), row))
        elif self._routes:
            detail.update(Group(row, routes_text(self._routes, None)))
        else:
            detail.update(row)
        self._venv_for(cand)

    # ---- the ranked routes (wizard/plan/routes.py), picked with `o` -----------------
    def _routes_for(self, rec: Any) -> list[Any]:
        """As `recommend` lists them: only where a cited build serves this GPU."""
        from wizard.plan.build import machine_home
        from wizard.plan.routes import routes_for

        profile = self.session.profile
        if profile is None:
            return []
        routes = routes_for(profile, rec, machine_home(profile))
        return routes if any(r.source for r in routes) else []

    def action_route(self) -> None:
        """The next route after the one picked (from the recommended set's); after the last, the
        table's row again. Only this key picks a route: scroll keys never do."""
        from wizard.plan.routes import next_route

        rec = self.session.recommendation
        if not self._routes or rec is None:
            return
        current = self._route.id if self._route is not None else "pip-and-cuda"
        self._route = next_route(self._routes, current)
        table = self.query_one(CandidateTable)
        self._route_row = table.highlighted()
        self._summary(rec, self._route_row)
        self._detail(self._route_row)
        self.refresh_bindings()

    def _venv_for(self, cand: Any) -> None:
        """On native Windows a GPU set is installed by the wizard inside Ubuntu: its environment
        is the Linux one the plan names, not a Windows folder (Choose and Plan say the same)."""
        profile = self.session.profile
        if profile is None or profile.platform != "windows":
            return
        from wizard.plan.build import default_venv_for
        from wizard.plan.wsl_setup import LINUX_VENV

        venv = self.query_one("#choose-venv", Input)
        windows = str(self.session.venv or default_venv_for(profile))
        in_wsl = cand.set.method == "pip-and-cuda"
        if venv.value in (windows, LINUX_VENV):  # never overwrite a folder the student typed
            venv.value = LINUX_VENV if in_wsl else windows
        venv.disabled = in_wsl

    def action_details(self) -> None:
        """The whole detail of the highlighted row on the screen, and back (d or Escape)."""
        toggle_details(self, "#choose-detail-box")

    def action_back(self) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        if isinstance(self.focused, Input):
            # Escape while typing cancels the edit and leaves the field, not the screen: the field
            # gets back the text it had when the cursor entered it (a typed folder is read on Use).
            field = self.focused
            if self._editing is not None and self._editing[0] is field:
                field.value = self._editing[1]
            self.query_one(CandidateTable).focus()
            return
        super().action_back()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if isinstance(event.widget, Input):  # where Escape takes the field back to
            self._editing = (event.widget, event.widget.value)

    def action_toggle_all(self) -> None:
        """Every release x method, or only the rows worth reading (the default)."""
        self.show_all = not self.show_all
        rec = self.session.recommendation
        if rec is not None:
            self._show(rec)

    # ---- the student's choices ------------------------------------------
    @on(DataTable.RowHighlighted, "#candidates")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        chosen = self.query_one(CandidateTable).highlighted()
        if chosen is not self._route_row:  # the student chose a row: it is the choice again
            self._route = None
        rec = self.session.recommendation
        if rec is not None:
            self._summary(rec, chosen)
        self._detail(chosen)

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
        if self._route is not None and self._use_route(self._route):
            return
        cand = self.query_one(CandidateTable).highlighted()
        if cand is None:
            return
        if not cand.ok:
            reason = cand.reasons[0] if cand.reasons else ""
            self.notify(t("app.choose.not_ok", reason=reason), severity="warning")
            return
        venv_input = self.query_one("#choose-venv", Input)
        venv_text = venv_input.value.strip()
        if not venv_input.disabled:  # a disabled folder is the plan's own (WSL), not a choice
            # A demo's ~ is the demo user's home: the plan expands it there, never in this one.
            typed = Path(venv_text) if self.session.simulated else Path(venv_text).expanduser()
            self.session.venv = typed if venv_text else None
        if self.session.candidate is not cand:
            self.session.plan = None
        self.session.candidate = cand
        self.wizard.go_plan()

    def _use_route(self, route: Any) -> bool:
        """A route the wizard plans: its set's plan, as Run's `o` makes it; a cited one: its
        commands whole (the wizard does not install it). False: plan the table's row instead."""
        from wizard.plan.routes import route_candidate

        rec = self.session.recommendation
        if not route.method:
            if self.maximized is None:
                self.action_details()
            return True
        cand = route_candidate(route, rec) if rec is not None else None
        if cand is None:
            return False
        if self.session.candidate is not cand:
            self.session.plan = None
        self.session.candidate = cand
        self.wizard.go_plan()
        return True


def detail_text(cand: Any, profile: Any = None) -> Table:
    """Everything about one row: plain words first, each followed by its exact terms.

    The reasons (the first one marked), a different Python, the packages held back for
    the driver (in words, then the pip constraints and why, dimmed), and how the method
    installs (the exact package names, dimmed). A grid, so a wrapped line keeps its indent.
    """
    mark = t("app.choose.mark_ok") if cand.ok else t("app.choose.mark_bad")
    lines: list[tuple[str, str]] = [(line, "") for line in cand.reasons] or [(t("app.choose.ok"), "")]
    if cand.python_change:
        lines.append((t("app.choose.python_change", change=cand.python_change), ""))
    if cand.constraints:
        lines.append((t("app.choose.pins", count=len(cand.constraints)), ""))
        lines.append((t("app.choose.constraints", constraints=", ".join(cand.constraints)), "dim"))
        lines.extend((reason, "dim") for reason in cand.constraint_reasons)
    # What the plan installs, as the plan says it: the whole lock and its installer (uv or pip),
    # or, on native Windows, that nothing is installed there (wizard/plan/lock_view.py).
    summary = install_summary(cand, profile) if profile is not None else ""
    pins = list(getattr(cand, "pins", []) or [])
    if summary:
        lines.append((summary, ""))
        if pins and profile.platform != "windows":
            lines.append((t("plan.lock_view.nvidia_pins"), "dim"))
            lines.append((", ".join(pins), "dim"))
    else:
        if pins:  # the exact nvidia-* wheels: in words first, then the names and versions
            lines.append((t("app.choose.exact_pins", count=len(pins)), ""))
            lines.append((", ".join(pins), "dim"))
        lines.append((t(f"app.method_how.{cand.set.method}"), "dim"))
    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column("mark", no_wrap=True)
    grid.add_column("line", ratio=1, overflow="fold")  # fold: a CJK run has no spaces to wrap at
    for i, (line, style) in enumerate(lines):
        line = safe(line, 2000)
        cell = Text(line, style=style)
        short = head(line)
        if not style and short != line:
            cell.stylize("bold", 0, len(short))  # the plain words first; the exact terms follow
        grid.add_row(mark if i == 0 else ("" if style else "•"), cell)
    return grid


def routes_text(routes: list[Any], picked: Any) -> Table:
    """The ranked routes, one line each with its trade-off (cited ones said so); the picked one
    marked and followed by its whole commands."""
    from wizard.plan.routes import ranked_lines

    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column("mark", no_wrap=True)
    grid.add_column("line", ratio=1, overflow="fold")
    grid.add_row("", Text(safe(t("gpuroute.choose_title"), 2000), style="bold"))
    for route, line in zip(routes, ranked_lines(routes), strict=True):
        cited = t("gpuroute.choose_cited") if route.source else ""
        grid.add_row("▶" if route is picked else "", Text(safe(line.strip() + cited, 2000)))
    if picked is not None:
        grid.add_row("", Text(safe(t("gpuroute.choose_picked_head"), 2000), style="bold"))
        for line in picked.lines():
            grid.add_row("", Text(safe(line.strip(), 2000), style="dim" if line.startswith("    ") else ""))
    return grid
