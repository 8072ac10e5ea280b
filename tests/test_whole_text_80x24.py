"""Every word readable at 80x24, still right at 120x40 (u27): the Choose screen never scrolls as
a whole, its detail reads to the end, its "Why" column is never cut, the finish's "how to use it"
reads whole, the monitor's title and the RAM gauge keep every word and figure, and a log written
while hidden wraps at its own width once it shows.

Each test reads the screen as drawn (tests.apps.screen_text), as a user looking at it would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from screens.choose_screen import DETAIL_MIN, ChooseScreen, detail_text
from screens.monitor_screen import MonitorScreen
from screens.run_screen import RunScreen
from screens.widgets.candidate_table import CandidateTable, short_why
from screens.widgets.fit import wrap_words
from screens.widgets.gauge import Gauge
from screens.widgets.host_panel import HostPanel
from screens.widgets.step_log import StepLog
from tests.apps.monitor_app import MonitorApp, settle, wait_still
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, to_choose, to_plan, wait_until
from tests.test_app_snapshots_zh import Zh, zh  # noqa: F401  (the zh fixture: screens imported in Chinese)
from tests.test_small_terminal import flat, read_while_scrolling, region_lines
from wizard.demo import demo_names, load_demo
from wizard.text import t

SMALL = (80, 24)
LARGE = (120, 40)


def plain_lines(renderable: Any) -> list[str]:
    """A renderable's text, one entry a row, wide enough that nothing wraps."""
    console = Console(width=4000, record=True, color_system=None)
    console.print(renderable)
    return [line.strip() for line in console.export_text().splitlines() if line.strip()]


def screen_fits(app: Any) -> None:
    """Nothing of the screen lies below the footer or off its right edge."""
    screen = app.screen
    assert screen.max_scroll_y == 0 and screen.max_scroll_x == 0, (screen.virtual_size, screen.size)


# ---- Choose -----------------------------------------------------------------------------


@pytest.mark.parametrize("profile", demo_names())
async def test_choose_80x24_the_screen_never_scrolls_and_its_options_are_in_sight(profile: str) -> None:
    app = build_app(profile)
    async with app.run_test(size=SMALL) as pilot:
        await to_choose(pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ChooseScreen)
        screen_fits(app)
        use = screen.query_one("#use")
        assert use.region.bottom <= SMALL[1] - 1  # above the footer, never below it
        assert t("app.choose.use") in screen_text(app)
        box = screen.query_one("#choose-detail-box")
        assert box.outer_size.height >= DETAIL_MIN


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
async def test_choose_gtx1080_detail_reads_to_its_last_word_by_scrolling_and_on_d(
    size: tuple[int, int],
) -> None:
    """The tester's demo: a long tip above, a long detail below. Scrolling the detail box reads
    every line of it; `d` shows it on the whole screen, every line at once."""
    app = build_app("ubuntu-20.04-gtx1080-driver470")
    async with app.run_test(size=size) as pilot:
        await to_choose(pilot)
        await pilot.pause()
        screen = app.screen
        screen_fits(app)
        cand = screen.query_one(CandidateTable).highlighted()
        assert cand is not None
        lines = plain_lines(detail_text(cand, app.session.profile))
        assert len(lines) >= 5
        box = screen.query_one("#choose-detail-box")
        read = flat(" ".join(await read_while_scrolling(pilot, box)))
        for line in lines:
            assert flat(line.lstrip("✓✖•")) in read, line
        await pilot.press("d")
        await pilot.pause()
        assert screen.maximized is box and box.max_scroll_y == 0  # the whole detail at once
        shown = flat(screen_text(app))
        for line in lines:
            assert flat(line.lstrip("✓✖•")) in shown, line
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert screen.maximized is None
        screen_fits(app)  # back in its place at the height that fits


WHY_DEMOS = ["ubuntu-20.04-gtx1080-driver470", "windows11-rtx3070", "ubuntu-24.04-rtx5090", "no-nvidia-gpu"]


async def _why_column_whole(pilot: Pilot[Any], lines_at_most: int) -> None:
    app = pilot.app
    await to_choose(pilot)
    await pilot.press("a")  # every release x method: every reason there is
    await pilot.pause()
    table: Any = app.screen.query_one("CandidateTable")  # the zh test's class is another import of it
    width = table.columns[table.ordered_columns[-1].key].width
    assert table.virtual_size.width <= table.size.width  # no sideways scrolling
    for i, cand in enumerate(table.candidates):
        cell = table.get_row_at(i)[-1].plain
        assert "…" not in cell
        assert cell.split("\n") == wrap_words(cand_why(cand), width)
        assert flat(cell) == flat(cand_why(cand))  # every word, in order
        assert all(cell_len(line) <= width for line in cell.split("\n")), cell
        assert len(cell.split("\n")) <= lines_at_most, cell


def cand_why(cand: Any) -> str:
    return str(short_why(cand))


@pytest.mark.parametrize("profile", WHY_DEMOS)
@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
async def test_choose_why_column_shows_every_word_of_its_reason(profile: str, size: tuple[int, int]) -> None:
    app = build_app(profile)
    async with app.run_test(size=size) as pilot:
        await _why_column_whole(pilot, lines_at_most=2 if size == SMALL else 1)
        # What the screen shows of the first rows: the same words.
        table = app.screen.query_one(CandidateTable)
        table.scroll_home(animate=False)
        await pilot.pause()
        shown = flat(" ".join(region_lines(app, table)))
        first = table.candidates[0]
        assert flat(short_why(first)) in shown


@pytest.mark.parametrize("profile", WHY_DEMOS)
async def test_choose_why_column_in_chinese_shows_every_word(zh: Zh, profile: str) -> None:  # noqa: F811
    app = zh.app(profile)
    async with app.run_test(size=SMALL) as pilot:
        await _why_column_whole(pilot, lines_at_most=1)


def test_every_short_reason_of_every_demo_has_words_a_column_can_hold() -> None:
    """The why column at 80 columns is about 17 cells: a reason's head is a short phrase, and no
    word of it (a package name, a version) is wider than the column, so wrapping never cuts one."""
    from wizard.choose.resolver import recommend, useful_candidates

    for name in demo_names():
        rec = recommend(load_demo(name))
        for cand in useful_candidates(rec, True):
            why = short_why(cand)
            assert cell_len(why) <= 34, (name, why)  # two lines at 80 columns
            assert all(cell_len(word) <= 17 for word in why.split()), (name, why)


# ---- Run: the finish ----------------------------------------------------------------------

FINISH_DEMOS = ["debian-12-gtx1060-laptop", "ubuntu-20.04-gtx1080-driver470"]


async def _finish(pilot: Pilot[Any]) -> Any:
    from screens.password_modal import PasswordModal

    await to_plan(pilot)
    await pilot.press("r")
    run: Any = next(s for s in pilot.app.screen_stack if s.__class__.__name__ == "RunScreen")
    # 180 s, not wait_until's 60: a fresh-clone CI run with other heavy tests beside it once took longer
    # than 60 s to finish this simulated run (79 s in all; it passes alone in a few seconds).
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, PasswordModal) or run.state == "finished", timeout=180
    )
    if isinstance(pilot.app.screen, PasswordModal):
        await pilot.press(*"secret", "enter")
    await wait_until(pilot, lambda: run.state == "finished", timeout=180)
    # Until the log shows its whole path, then until the screen is still: a fixed 0.4 s once left
    # the path's last line undrawn on a loaded machine (a fresh-clone CI).
    await wait_until(pilot, lambda: _log_path_drawn(pilot.app, run))
    await wait_still(pilot)
    return run


def _log_path_drawn(app: Any, run: Any) -> bool:
    try:
        _log_shows_its_path(app, run)
    except AssertionError:
        return False
    return True


def _finish_lines(run: Any) -> list[str]:
    return [line for line in run._finished_text().split("\n") if line.strip()]


def unfold(text: str) -> str:
    """`flat`, with a path's break after a "/" joined again (the notice breaks paths only there)."""
    return flat(text).replace("/ ", "/")


async def _read_notice(pilot: Pilot[Any], run: Any) -> str:
    """The finish's notice as a user reads it: whole when it fits; else the footer offers PageDown,
    and pressing it shows the rest (each row of the text taken once, where it scrolled into sight)."""
    app = pilot.app
    box = run.query_one("#run-notice-box")
    keys = {b.binding.action for b in run.active_bindings.values()}
    if box.max_scroll_y == 0:
        assert "scroll_notice" not in keys  # nothing more to read: no PageDown hint
        return flat(" ".join(region_lines(app, run.query_one("#run-notice"))))
    assert "scroll_notice" in keys and t("story.key.scroll") in screen_text(app).split("\n")[-1]
    rows: dict[int, str] = {}
    for _ in range(20):
        top = int(box.scroll_y)
        for i, line in enumerate(region_lines(app, box)):
            rows.setdefault(top + i, line.replace("█", " "))  # without the notice's bar at its left
        if box.scroll_y >= box.max_scroll_y:
            break
        await pilot.press("pagedown")
        await pilot.pause()
    assert box.scroll_y >= box.max_scroll_y
    return flat(" ".join(rows[y] for y in sorted(rows)))


def _log_shows_its_path(app: Any, run: Any) -> None:
    """The log's last lines: "Full log:" and the whole path, as the student finds the log."""
    from wizard.paths import shown

    assert run.result is not None and run.result.log_path is not None
    log = [line.strip() for line in region_lines(app, run.query_one(StepLog)) if line.strip()]
    assert t("app.run.log") in log, log
    at = log.index(t("app.run.log"))
    assert "".join(log[at + 1 :]) == shown(run.result.log_path), log


@pytest.mark.parametrize("profile", FINISH_DEMOS)
async def test_the_finish_at_80x24_every_word_readable_and_the_log_path_in_sight(profile: str) -> None:
    """Whatever the length of the homes in its paths and of the log's path (under pytest a long
    temporary folder, two lines): the log keeps its label and path, every word of the finish reads
    (whole, or by PageDown when the footer says so), and nothing is off the screen."""
    app = build_app(profile)
    async with app.run_test(size=SMALL) as pilot:
        run = await _finish(pilot)
        assert isinstance(run, RunScreen)
        _log_shows_its_path(app, run)
        assert t("app.run.monitor") in flat(screen_text(app))  # and the next step's button
        screen_fits(app)
        notice = unfold(await _read_notice(pilot, run))
        for line in _finish_lines(run):
            assert unfold(line) in notice, line
        _log_shows_its_path(app, run)  # still, after reading to the end
        screen_fits(app)


@pytest.mark.parametrize("profile", FINISH_DEMOS)
async def test_the_finish_at_80x24_with_a_users_log_path_reads_whole_without_scrolling(
    profile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log where a user's is (~/.local/state/..., one line): the finish fits, no PageDown."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(tmp_path / ".local" / "state" / "tf-gpu-wizard"))
    app = build_app(profile)
    async with app.run_test(size=SMALL) as pilot:
        run = await _finish(pilot)
        assert run.result is not None and str(run.result.log_path).startswith(str(tmp_path))
        assert run.query_one("#run-notice-box").max_scroll_y == 0
        notice = unfold(await _read_notice(pilot, run))
        for line in _finish_lines(run):
            assert unfold(line) in notice, line
        _log_shows_its_path(app, run)
        screen_fits(app)


async def test_the_finish_at_80x24_in_chinese_reads_whole(zh: Zh) -> None:  # noqa: F811
    app = zh.app("debian-12-gtx1060-laptop")
    async with app.run_test(size=SMALL) as pilot:
        run = await _finish(pilot)
        assert run.query_one("#run-notice-box").max_scroll_y == 0
        notice = flat(" ".join(region_lines(app, run.query_one("#run-notice"))))
        for line in _finish_lines(run):
            # CJK lines break between characters: compare without the spaces a break leaves
            assert line.replace(" ", "") in notice.replace(" ", ""), line


async def test_the_finish_at_120x40_keeps_its_step_list() -> None:
    app = build_app("debian-12-gtx1060-laptop")
    async with app.run_test(size=LARGE) as pilot:
        run = await _finish(pilot)
        steps = run.query_one("#run-steps-box")
        assert steps.display and steps.max_scroll_y == 0
        listed = flat(" ".join(region_lines(app, steps)))
        for n, step in enumerate(run.plan.active_steps, 1):
            assert f"{n}. " + " ".join(step.title.split()[:2]) in listed
        lines = region_lines(app, run.query_one("#run-notice"))
        notice = unfold(" ".join(lines))
        for line in _finish_lines(run):
            assert unfold(line) in notice, line
        # A path wider than the column is broken only after a "/": every piece on a line is a
        # whole word of the text, or a path's part that starts after a "/" and ends at one (or
        # at the file name's end), never "hello_gp" / "u.py".
        words = set(run._finished_text().split())
        paths = [word for word in words if "/" in word]
        for piece in " ".join(lines).split():
            assert piece in words or any(_path_part(piece, path) for path in paths), piece


def _path_part(piece: str, path: str) -> bool:
    at = path.find(piece)
    while at >= 0:
        if (at == 0 or path[at - 1] == "/") and (piece.endswith("/") or at + len(piece) == len(path)):
            return True
        at = path.find(piece, at + 1)
    return False


async def test_a_finish_longer_than_its_box_says_pagedown_reads_on() -> None:
    app = build_app("debian-12-gtx1060-laptop")
    async with app.run_test(size=(80, 22)) as pilot:
        run = await _finish(pilot)
        box = run.query_one("#run-notice-box")
        assert box.max_scroll_y > 0
        footer = screen_text(app).split("\n")[-1]
        assert t("story.key.scroll") in footer
        last = _finish_lines(run)[-1]
        notice = run.query_one("#run-notice")

        def seen() -> str:  # the box's lines, without the notice's bar at their left
            return flat(" ".join(region_lines(app, box)).replace("█", " "))

        assert flat(last) not in seen()
        for _ in range(10):
            await pilot.press("pagedown")
        await pilot.pause()
        assert flat(last) in seen()
        assert notice.region.x >= 0
        screen_fits(app)


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StepLog(id="log")


async def test_a_log_written_while_hidden_wraps_at_its_width_when_shown() -> None:
    """The Run screen hides its log while a Windows step waits on a short terminal: what is written
    then (the log's path) once came back in 20-cell pieces, RichLog's minimum width."""
    path = "/home/student/.local/state/tf-gpu-wizard/logs/apply-20261202-064846-simulated.log"
    app = LogApp()
    async with app.run_test(size=SMALL) as pilot:
        log = app.query_one(StepLog)
        log.add("first line")
        await pilot.pause()
        log.display = False
        await pilot.pause()
        log.add_path(t("app.run.log"), path)
        log.add("a line written while hidden, long enough to wrap at twenty cells but not at eighty")
        log.display = True
        await pilot.pause()
        await pilot.pause()
        lines = [line.strip() for line in screen_text(app).split("\n") if line.strip()]
        width = log.scrollable_content_region.width
        # Broken where the log's own width needs it (after a "/", between words), not at 20 cells.
        assert "/home/student/.local/state/tf-gpu-wizard/logs/" in lines
        assert "apply-20261202-064846-simulated.log" in lines
        sentence = next(line for line in lines if line.startswith("a line written"))
        assert cell_len(sentence) > 40 and cell_len(sentence) <= width


# ---- Monitor --------------------------------------------------------------------------------


def monitor_for(profile: str) -> MonitorApp:
    p = load_demo(profile)
    return MonitorApp(lambda: MonitorScreen(p, interval=3600, save_results=False))


@pytest.mark.parametrize("profile", demo_names())
async def test_monitor_80x24_every_gauge_shows_its_whole_value(profile: str) -> None:
    app = monitor_for(profile)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        for gauge in app.screen.query(Gauge):
            if not gauge.display or not gauge.size.width or not gauge.text:
                continue
            line = gauge.render().plain
            assert cell_len(line) <= gauge.size.width
            assert line.startswith(gauge.label) and line.endswith(" " + gauge.text), (line, gauge.size)
            assert line[len(gauge.label) :].strip() != gauge.text or gauge.percent is None  # a bar too
        host = " ".join(region_lines(app, app.screen.query_one(HostPanel)))
        assert app.screen.query_one("#ram", Gauge).text in host  # on top, in sight


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
async def test_monitor_a100_ram_reads_whole_on_its_own_line_only_where_needed(size: tuple[int, int]) -> None:
    app = monitor_for("ubuntu-22.04-2x-a100-server")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(HostPanel)
        ram = panel.query_one("#ram", Gauge)
        assert ram.text.endswith(" GiB") and ram.text in screen_text(app)
        # 80 columns: CPU and RAM one above the other; 120: side by side, as before.
        assert panel.has_class("-stacked") is (size == SMALL)
        assert panel.query_one("#cpu", Gauge).region.y != ram.region.y or size == LARGE


async def test_monitor_a100_ram_in_chinese_reads_whole(zh: Zh) -> None:  # noqa: F811
    from tests.apps.screen_text import screen_text as zh_text

    p = load_demo("ubuntu-22.04-2x-a100-server")
    app = zh.monitor.MonitorApp(lambda: zh.monitor.MonitorScreen(p, interval=3600, save_results=False))
    async with app.run_test(size=SMALL) as pilot:
        await zh.monitor.settle(pilot)
        ram = app.screen.query_one("#ram")
        line = ram.render().plain
        assert line.startswith("内存") and line.endswith(ram.text) and "GiB" in zh_text(app)


@pytest.mark.parametrize("profile", ["no-nvidia-gpu", "macos-arm64", "wsl1-ubuntu-22.04"])
async def test_monitor_title_reads_whole_and_the_note_says_there_is_no_gpu(profile: str) -> None:
    app = monitor_for(profile)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        top = screen_text(app).split("\n")
        title = t("monitor.title_host")
        border = next(line for line in top if "╭" in line)
        assert title in border and "…" not in border
        notes = flat(" ".join(region_lines(app, app.screen.query_one("#monitor-notes"))))
        assert "NVIDIA" in notes or "GPU" in notes  # what the title used to say in brackets, said in the note
        if profile.startswith("wsl1"):  # WSL1 cannot see a GPU: never "this machine has no NVIDIA GPU"
            assert "WSL2" in notes and "has no NVIDIA GPU" not in notes


async def test_monitor_title_in_chinese_reads_whole(zh: Zh) -> None:  # noqa: F811
    from tests.apps.screen_text import screen_text as zh_text

    p = load_demo("no-nvidia-gpu")
    app = zh.monitor.MonitorApp(lambda: zh.monitor.MonitorScreen(p, interval=3600, save_results=False))
    async with app.run_test(size=SMALL) as pilot:
        await zh.monitor.settle(pilot)
        border = next(line for line in zh_text(app).split("\n") if "╭" in line)
        assert t("monitor.title_host") in border and "…" not in border


async def test_a_commands_line_with_a_path_breaks_after_a_slash_and_its_table_keeps_its_spacing() -> None:
    """pip's "Requirement already satisfied: … in /home/…/site-packages (…)" was folded at the log's
    edge, mid-name ("site-pack" / "ages"); now it breaks between words and after a "/". A line
    without a path (nvidia-smi's table) keeps its spacing."""
    venv = "/home/student/.venvs/tf-gpu/lib/python3.11/site-packages"
    said = f"Requirement already satisfied: tensorflow-cpu==2.21.0 in {venv} (2.21.0)"
    table = "|   0  NVIDIA GeForce RTX 4090   Off |"
    app = LogApp()
    async with app.run_test(size=(40, 24)) as pilot:
        log = app.query_one(StepLog)
        log.add(said)
        log.add(table)
        await pilot.pause()
        assert cell_len(venv) > log.scrollable_content_region.width  # the path needs two lines
        lines = [line.strip() for line in screen_text(app).split("\n") if line.strip()]
        assert "".join(lines[:-1]).replace(" ", "") == said.replace(" ", ""), lines  # all of it
        for name in ("tensorflow-cpu==2.21.0", *venv.strip("/").split("/")):
            assert any(name in line for line in lines), (name, lines)  # each name whole
        assert lines[-1] == table, lines
