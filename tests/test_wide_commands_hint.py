"""A check or a command wider than the screen (a `bash -c '...'` script is one argument: it cannot
wrap) never scrolls out of sight unsaid: at 80x24 a hint under it says how to read it (d, then →)
and how to copy it whole (k: the check, c: the commands), in English and Chinese; `k` copies the
check exactly as the runner runs it; where everything fits, no hint."""

from __future__ import annotations

import itertools
import shlex

from rich.cells import cell_len

from screens.plan_screen import PlanScreen
from screens.widgets.path_text import PathText
from screens.widgets.plan_step_table import PlanStepTable
from tests.apps import both_languages
from tests.apps.both_languages import flat as _flat
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, to_plan
from wizard.text import t

lang = both_languages.lang  # the fixture, run in English and in Chinese


async def test_a_check_wider_than_80_columns_says_so_and_k_copies_it_whole(lang: str) -> None:
    app = build_app("ubuntu-24.04-rtx4090-fresh")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_plan(pilot)
        screen = app.screen
        assert isinstance(screen, PlanScreen)
        step = screen.query_one(PlanStepTable).highlighted()
        assert step is not None and step.id.startswith("driver")
        check = screen.query_one("#plan-check", PathText)
        whole = step.before_check.shell()
        assert cell_len(whole) > 80 and check.too_wide
        assert check.hint == t("wide.check_hint")  # in its place: "press d, then →"
        await pilot.press("d")  # the detail on the whole screen: the hint is in sight, whole
        await pilot.pause()
        # ...and says how to scroll there, not "press d" again (a tmux walk read that in the d view)
        assert _flat(t("wide.check_hint_open")) in _flat(screen_text(app))
        assert _flat(t("wide.check_hint")) not in _flat(screen_text(app))
        await pilot.press("k")
        await pilot.pause()
        assert app.clipboard == whole
        assert shlex.split(app.clipboard) == list(step.before_check.argv)
        await pilot.press("c")  # c still copies the step's commands, whole
        await pilot.pause()
        assert app.clipboard == "\n".join(step.command_lines())
        await pilot.press("escape")  # back in its place: "press d, then →" again
        await pilot.pause()
        assert check.hint == t("wide.check_hint") and isinstance(app.screen, PlanScreen)


async def test_no_hint_where_every_line_fits() -> None:
    app = build_app("ubuntu-24.04-rtx4090-fresh")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_plan(pilot)
        screen = app.screen
        table = screen.query_one(PlanStepTable)
        check = screen.query_one("#plan-check", PathText)
        seen = 0
        for _ in range(len(app.session.plan.steps)):
            step = table.highlighted()
            room = check.parent.scrollable_content_region.width  # type: ignore[union-attr]
            if all(cell_len(shlex.quote(a)) + 4 <= room for a in step.before_check.argv):  # "  $ " + it
                seen += 1
                assert not check.too_wide
                assert _flat(t("wide.check_hint")) not in _flat(str(check.render()))
            await pilot.press("down")
            await pilot.pause()
        assert seen >= 1


async def test_every_too_wide_line_in_a_plan_has_its_hint_at_80x24() -> None:
    app = build_app("wsl2-rtx4070-shadowing-library")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_plan(pilot)
        screen = app.screen
        table = screen.query_one(PlanStepTable)
        hinted = 0
        for _ in range(len(app.session.plan.steps)):
            for part in screen.query(PathText).results(PathText):
                room = part.parent.scrollable_content_region.width  # type: ignore[union-attr]
                lines = str(part.render()).split("\n")
                if any(cell_len(line) > room for line in lines):
                    assert part.too_wide and _flat(part.hint) in _flat("".join(lines))
                    hinted += 1
            await pilot.press("down")
            await pilot.pause()
        assert table.cursor_row > 0 and hinted >= 1


async def test_c_on_a_step_done_by_hand_copies_the_command_its_text_names_and_k_its_check() -> None:
    app = build_app("ubuntu-22.04-rtx3060-secure-boot")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_plan(pilot)
        step = app.screen.query_one(PlanStepTable).highlighted()
        assert step is not None and not step.command_lines() and step.manual  # Secure Boot's MOK
        await pilot.press("c")
        await pilot.pause()
        # The key's command, whole, by Ubuntu's path (the demo is Ubuntu); never run by the wizard.
        assert app.clipboard == "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der"
        assert app.clipboard in step.manual
        await pilot.press("k")
        await pilot.pause()
        assert app.clipboard == step.check_line()


async def test_c_on_a_step_with_nothing_to_paste_says_so() -> None:
    # The Windows driver from a download page: nothing to type, so nothing to copy.
    app = build_app("wsl2-rtx3080-laptop-driver527")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_plan(pilot)
        step = app.screen.query_one(PlanStepTable).highlighted()
        assert step is not None and step.id == "windows-driver" and not step.command_lines()
        await pilot.press("c")
        await pilot.pause()
        assert t("wide.no_commands") in [str(n.message) for n in app._notifications]
        assert app.clipboard == ""


async def test_the_hint_is_wrapped_again_when_the_box_beside_a_table_narrows() -> None:
    """The box's width changes while its too-wide text keeps its own (held by the long argument):
    the hint is wrapped again for the box as it is now, not left at the width it had first
    (the 120x40 plan snapshot that failed when the preview widened the table after the wrap)."""
    from textual.app import App, ComposeResult
    from textual.containers import Horizontal
    from textual.widgets import Static

    from screens.widgets.detail_box import DetailBox

    hint = "The check is too wide to show here: press d, then the arrow to scroll it, or k to copy it whole."

    class Beside(App[None]):
        def compose(self) -> ComposeResult:
            with Horizontal():
                yield Static("table", id="left")
                with DetailBox(id="box"):
                    yield PathText("  $ bash -c " + "x" * 90, id="text", hint=hint)

    def hint_lines(text: PathText) -> list[str]:
        lines = str(text.render()).split("\n")
        return lines[next(i for i, line in enumerate(lines) if line.startswith("The check")) :]

    app = Beside()
    async with app.run_test(size=(100, 20)) as pilot:
        left = app.query_one("#left", Static)
        left.styles.width = 20
        await pilot.pause()
        await pilot.pause()
        text = app.query_one("#text", PathText)
        assert text.too_wide
        for width in (40, 26, 33):  # the table beside it widens, narrows, widens again
            left.styles.width = width
            for _ in range(4):
                await pilot.pause()
            room = app.query_one("#box", DetailBox).scrollable_content_region.width
            lines = hint_lines(text)
            assert " ".join(lines).split() == hint.split()
            assert max(cell_len(line) for line in lines) <= room
            # wrapped for this width: the next word would not have fit on any line but the last
            assert all(cell_len(a) + 1 + cell_len(b.split()[0]) > room for a, b in itertools.pairwise(lines))


async def test_the_detail_back_in_its_place_starts_at_its_left_edge() -> None:
    # A walk scrolled the whole-screen detail sideways (→), went back (Escape): the pane beside the
    # table stayed scrolled, every line's first letters cut off.
    app = build_app("ubuntu-22.04-rtx3060-secure-boot")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_plan(pilot)
        await pilot.press("d", "right", "right", "right", "right")
        await pilot.pause()
        box = app.screen.query_one("#plan-detail-box")
        assert box.scroll_x > 0  # the whole-screen detail did scroll
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None and box.scroll_x == 0
