"""What a student sees on an 80x24 terminal (and at 120 columns): nothing that carries meaning
is cut, the long parts scroll, plain words come first, and the glossary is on `?`.

Every test reads the screen as drawn (tests.apps.screen_text) or a widget's own region of it.
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Select

from screens.choose_screen import ChooseScreen
from screens.help_screen import GLOSSARY
from screens.monitor_screen import MonitorScreen
from screens.plan_screen import PlanScreen
from screens.widgets.candidate_table import CandidateTable
from screens.widgets.fit import fit_words, head, wrap_words
from screens.widgets.plan_step_table import PlanStepTable, title_text
from screens.widgets.simulated_banner import SimulatedBanner
from tests.apps.monitor_app import MonitorApp, build, settle, still_clock
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, to_choose, to_plan, wait_until
from tests.test_app_snapshots_zh import Zh, zh  # noqa: F401  (the zh fixture: screens imported in Chinese)
from wizard.bench.runner import SimulatedBenchRun
from wizard.demo import load_demo
from wizard.text import t

SMALL = (80, 24)


def flat(text: str) -> str:
    return " ".join(text.split())


def region_lines(app: Any, widget: Widget) -> list[str]:
    """The lines the widget's content occupies on screen, without its scrollbar column."""
    lines = screen_text(app).split("\n")
    region = widget.scrollable_content_region if widget.is_scrollable else widget.content_region
    out = []
    for y in range(region.y, region.y + region.height):
        row = lines[y] if y < len(lines) else ""
        out.append(_cells(row, region.x, region.width))
    return out


def _cells(row: str, x: int, width: int) -> str:
    """Columns x..x+width of a screen line, counted in cells (a CJK character takes two)."""
    out, col = "", 0
    for char in row:
        w = cell_len(char)
        if col >= x and col + w <= x + width:
            out += char
        col += w
    return out.rstrip()


async def read_while_scrolling(pilot: Pilot[Any], widget: Widget, key: str = "down") -> list[str]:
    """Every line the widget shows from its top to its end, as a user scrolling it would read them."""
    widget.focus()
    widget.scroll_home(animate=False)
    await pilot.pause()
    seen = region_lines(pilot.app, widget)
    for _ in range(200):
        if widget.scroll_y >= widget.max_scroll_y:
            break
        await pilot.press(key)
        await pilot.pause()
        lines = region_lines(pilot.app, widget)
        seen.append(lines[-1])  # one line scrolled in at the bottom
    return seen


# ---- Choose ---------------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["ubuntu-24.04-rtx5090", "ubuntu-20.04-gtx1080-driver470"])
async def test_choose_80x24_the_detail_reads_whole_after_scrolling(profile: str) -> None:
    app = build_app(profile)
    async with app.run_test(size=SMALL) as pilot:
        await to_choose(pilot)
        screen = app.screen
        assert isinstance(screen, ChooseScreen)
        cand = screen.query_one(CandidateTable).highlighted()
        assert cand is not None and cand.reasons
        box = screen.query_one("#choose-detail-box")
        assert box.max_scroll_y > 0  # too long for the box: it scrolls, nothing is cut at a line limit
        read = flat(" ".join(await read_while_scrolling(pilot, box)))
        for reason in cand.reasons:
            assert flat(reason) in read
        for pin in cand.pins:  # every exact wheel, its name and version whole
            assert pin in read.replace(",", " ").split()


async def test_choose_80x24_d_shows_the_whole_detail() -> None:
    app = build_app("ubuntu-24.04-rtx5090")
    async with app.run_test(size=SMALL) as pilot:
        await to_choose(pilot)
        cand = app.screen.query_one(CandidateTable).highlighted()
        assert cand is not None
        await pilot.press("d")
        await pilot.pause()
        assert app.screen.maximized is not None
        shown = flat(screen_text(app))
        assert flat(cand.reasons[0]) in shown
        await pilot.press("escape")  # back to the table, not to the previous screen
        await pilot.pause()
        assert isinstance(app.screen, ChooseScreen) and app.screen.maximized is None


@pytest.mark.parametrize("size", [SMALL, (120, 40)])
async def test_choose_why_column_is_a_short_reason_shown_whole(size: tuple[int, int]) -> None:
    """The head of the first reason, every word of it: wrapped onto a second line where the
    column is narrower than it (80 columns), never cut with an ellipsis (tests/test_whole_text_80x24.py
    walks more demos and Chinese)."""
    app = build_app("ubuntu-20.04-gtx1080-driver470")
    async with app.run_test(size=size) as pilot:
        await to_choose(pilot)
        await pilot.press("a")  # every release x method: the most rows and reasons
        await pilot.pause()
        table = app.screen.query_one(CandidateTable)
        assert table.row_count == len(table.candidates) > 10
        assert table.virtual_size.width <= table.size.width  # no sideways scrolling
        width = table.columns[table.ordered_columns[-1].key].width
        for i, cand in enumerate(table.candidates):
            shown = table.get_row_at(i)[-1].plain
            if not cand.reasons:
                continue
            short = head(cand.reasons[0])
            assert "…" not in shown
            assert shown.split("\n") == wrap_words(short, width)
            assert shown.split() == short.split()  # whole words, in order: nothing cut inside one


async def test_choose_method_dropdown_opens_in_a_frame_over_the_labels() -> None:
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=SMALL) as pilot:
        await to_choose(pilot)
        select = app.screen.query_one("#choose-method", Select)
        select.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert select.expanded
        lines = screen_text(app).split("\n")
        first = t("app.choose.method_auto")
        row = next(line for line in lines if first in line and "▼" not in line)
        # The list has its own border: an option never runs into a label's letters.
        before = row[: row.index(first)].rstrip()
        assert before.endswith("│"), row
        await pilot.press("escape")


# ---- Plan -----------------------------------------------------------------------------


async def test_plan_80x24_every_step_title_is_visible_and_uncut() -> None:
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=SMALL) as pilot:
        await to_plan(pilot)
        screen = app.screen
        assert isinstance(screen, PlanScreen)
        table = screen.query_one(PlanStepTable)
        plan = app.session.plan
        assert plan is not None and len(plan.steps) >= 7
        assert table.virtual_size.width <= table.size.width  # titles wrap; they never run off the side
        await app.workers.wait_for_complete()  # the runner's preview marks the steps already there
        await pilot.pause()
        read = flat(" ".join(await read_while_scrolling(pilot, table)))
        for step in plan.steps:  # as the table says them (a step already there has no restart after it)
            assert flat(title_text(step, step.id in table.there)) in read, step.title
        assert "⟳" not in read  # a restart is said in words
        # The selected step's detail is there too, and scrolls.
        assert t("app.plan.why") in screen_text(app)


async def test_plan_120x40_shows_all_steps_at_once_and_never_cuts_a_version() -> None:
    for profile in ("wsl2-rtx4060-laptop", "no-nvidia-gpu"):
        app = build_app(profile)
        async with app.run_test(size=(120, 40)) as pilot:
            await to_plan(pilot)
            table = app.screen.query_one(PlanStepTable)
            plan = app.session.plan
            assert plan is not None
            assert table.max_scroll_y == 0  # every step in sight
            await app.workers.wait_for_complete()  # the runner's preview marks the steps already there
            await pilot.pause()
            read = flat(" ".join(region_lines(app, table)))
            for step in plan.steps:
                assert flat(title_text(step, step.id in table.there)) in read
                for word in title_text(step).split():
                    if "==" in word:  # a pinned version: whole, never tensorflow-cpu==2.2
                        assert word in read.split()


# ---- Welcome --------------------------------------------------------------------------


async def test_welcome_80x24_says_what_it_will_touch_without_scrolling() -> None:
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        seen = screen_text(app)
        assert t("app.welcome.touch_title") in seen
        first_words = " ".join(t("app.welcome.touch", venv="X").split()[:4])
        assert first_words in flat(seen)
        banner = app.screen.query_one(SimulatedBanner)
        # The banner words itself for its width once it has one (a resize): a loaded machine may
        # need more than one pause for that. Then it takes one line, not two.
        await wait_until(pilot, lambda: banner.size.height == 1, timeout=5.0)


# ---- Monitor and benchmark ------------------------------------------------------------


def monitor_for(profile: str) -> MonitorApp:
    p = load_demo(profile)
    return MonitorApp(
        lambda: MonitorScreen(
            p,
            bench_factory=lambda: SimulatedBenchRun(p, delay=0, clock=still_clock),
            interval=3600,
            autostart_bench=True,
            save_results=False,
        )
    )


async def test_monitor_80x24_verdict_and_matmul_rows_in_sight_with_two_gpus() -> None:
    app = build()  # two GPUs, a finished benchmark: the fullest monitor
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        seen = screen_text(app)
        verdict = flat(" ".join(region_lines(app, app.screen.query_one("#bench-verdict"))))
        assert "times as fast as the CPU" in verdict and "with XLA" in verdict
        panel = app.screen.query_one("#bench-results")
        table = [line.strip() for line in region_lines(app, panel)]
        header = table[0].split()
        # The % of this GPU at the clock it ran at (issue 37), each precision named (TF32 too).
        cols = [t("bench.col." + c) for c in ("device", "dtype", "n", "tflops")] + [
            t("bench.clock.col_at_clock")
        ]
        assert header == cols
        rows = {tuple(line.split()[:2]): line.split() for line in table[1:] if line}
        assert {("GPU", "FP32"), ("GPU", "TF32"), ("GPU", "FP16"), ("GPU", "BF16"), ("CPU", "FP32")} <= set(
            rows
        )
        assert not rows[("CPU", "FP32")][-1].endswith("%")  # a CPU has no such peak: an empty cell
        assert rows[("GPU", "FP32")][-1].endswith("%")
        # One fact, one place: the GPU's rows show their %, and nothing says there is none.
        assert t("bench.no_peak") not in flat(seen) and "no published peak" not in flat(seen)
        assert "GPU+XLA" in seen  # the XLA bar
        assert f"{t('monitor.cpu')} " in seen and f"{t('monitor.ram')} " in seen  # CPU and RAM on top


async def test_monitor_gpu_without_a_published_peak_has_no_percent_and_says_so_once() -> None:
    app = monitor_for("ubuntu-22.04-gtx960m-laptop")  # a laptop GPU the knowledge has no peak for
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        table = [line.strip() for line in region_lines(app, app.screen.query_one("#bench-results"))]
        assert table[0].split() == [t("bench.col." + c) for c in ("device", "dtype", "n", "tflops")]
        assert ("GPU", "FP32") in {tuple(line.split()[:2]) for line in table[1:]}
        assert not any("%" in line for line in table)
        note = flat(" ".join(region_lines(app, app.screen.query_one("#bench-no-peak"))))
        assert note == t("bench.no_peak")


async def test_monitor_cpu_only_verdict_names_tensorflow_against_numpy() -> None:
    app = monitor_for("no-nvidia-gpu")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.report is not None
        tf = max(r.tflops for r in screen.report.matmul if r.device == "CPU") * 1000
        numpy = max(r.tflops for r in screen.report.matmul if r.device == "numpy") * 1000
        verdict = t("bench.verdict.cpu", tf=tf, numpy=numpy)
        shown = region_lines(app, screen.query_one("#bench-verdict"))
        assert flat(" ".join(shown)) == verdict  # first in the panel, every word of it


async def test_monitor_banner_is_one_line_at_80_columns() -> None:
    app = build(profile="wsl2-rtx4060-laptop", bench=False)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        banner = app.screen.query_one(SimulatedBanner)
        assert banner.size.height == 1 and "SIMULATED" in screen_text(app).split("\n")[0]
        notes = app.screen.query_one("#monitor-notes")
        assert not notes.display  # the banner and the process section already say it


async def test_monitor_pstate_reads_in_words() -> None:
    app = build(bench=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        seen = screen_text(app)
        assert t("monitor.pstate.busy", p=2) in seen and t("monitor.pstate.idle", p=8) in seen
        assert "State P" not in seen


# ---- Help and glossary ----------------------------------------------------------------


async def test_help_has_a_glossary_on_g() -> None:
    from screens.help_screen import pin_example  # before Choose: the newest release's own pin

    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        await pilot.press("g")
        await pilot.pause()
        assert t("app.glossary.title") in screen_text(app)
        scroll = app.screen.query_one("#help-scroll")
        read = flat(" ".join(await read_while_scrolling(pilot, scroll)))
        for key in GLOSSARY:
            assert flat(t(f"app.glossary.term.{key}")) in read
            assert flat(t(f"app.glossary.meaning.{key}", example=pin_example())) in read
        for word in ("Driver", "CUDA", "cuDNN", "Compute capability", "PTX", "Wheel", "venv"):
            assert word in read


# ---- Chinese: two cells a character ---------------------------------------------------


async def test_zh_plan_titles_wrap_between_characters_and_never_run_off_the_side(zh: Zh) -> None:  # noqa: F811
    """A Chinese title is one long run without spaces: the title column is sized by the units the
    app's wrapping breaks at (a character), not by spaces, so no title runs past the screen's edge
    (the shadowing-library demo lost "后重" of "之后重启 WSL" there)."""
    from tests.apps.screen_text import screen_text as zh_text

    app = zh.app("wsl2-rtx4070-shadowing-library")
    async with app.run_test(size=SMALL) as pilot:
        await zh.wizard.to_plan(pilot)
        table = app.screen.query_one("PlanStepTable")
        assert table.virtual_size.width <= table.size.width
        shown = "".join(zh_text(app).split())
        plan = app.session.plan
        assert plan is not None
        for step in plan.steps[:3]:  # those in sight before any scroll
            assert "".join(step.title.split()) in shown, step.title


async def test_zh_80x24_nothing_overflows_and_the_glossary_is_chinese(zh: Zh) -> None:  # noqa: F811
    from tests.apps.screen_text import screen_text as zh_text  # imported in Chinese by the fixture

    app = zh.app("wsl2-rtx4060-laptop")
    async with app.run_test(size=SMALL) as pilot:
        await zh.wizard.to_plan(pilot)
        for line in zh_text(app).split("\n"):
            assert cell_len(line) <= SMALL[0], line  # CJK counted as two cells: no line runs over
        table = app.screen.query_one("PlanStepTable")
        assert table.virtual_size.width <= table.size.width
        await pilot.press("question_mark")
        await pilot.pause()
        await pilot.press("g")
        await pilot.pause()
        assert t("app.glossary.title") in zh_text(app) and t("app.glossary.title") != "Words you will meet"


async def test_zh_monitor_gauges_fit_their_width(zh: Zh) -> None:  # noqa: F811
    app = zh.monitor.build()
    async with app.run_test(size=SMALL) as pilot:
        await zh.monitor.settle(pilot)
        from screens.widgets.gauge import Gauge

        for gauge in app.screen.query(Gauge):
            if gauge.display and gauge.size.width:
                rendered = gauge.render()
                assert rendered.cell_len <= gauge.size.width
                label = gauge.label
                assert rendered.plain.startswith(label)  # "GPU 占用" whole, not "GPU 占"


async def test_monitor_80x24_a_long_process_name_gives_way_to_its_gpu_memory() -> None:
    from wizard.monitor.host import FixedHost
    from wizard.monitor.nvml_source import NvmlSource
    from wizard.monitor.sampler import Sampler
    from wizard.nvml_fake import FakeGpu, FakeNvml

    command = "python3 /home/student/projects/train_a_big_model.py --epochs 100"

    def sampler() -> Sampler:
        gpus = [FakeGpu(name="NVIDIA GeForce RTX 3060", procs=[(4242, 3 * 1024**3)])]
        source = NvmlSource(
            FakeNvml(gpus), process_name=lambda pid: command, clock=lambda: 0.0, shadow_check=lambda: None
        )
        return Sampler(source, FixedHost())

    app = MonitorApp(lambda: MonitorScreen(None, sampler_factory=sampler, interval=3600, save_results=False))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#processes")
        assert table.virtual_size.width <= table.size.width  # no sideways scrolling
        row = " ".join(region_lines(app, table))
        assert "3072 MiB" in row  # the number a student compares, always in sight
        words = [w.removesuffix("…") for w in row.split()]
        assert "python3" in words and "…" in row  # cut between words, and it says so
        path = "/home/student/projects/train_a_big_model.py"
        assert not any(w.startswith("/home") and w != path for w in words)  # no half of a path


def test_a_chinese_reason_fills_its_column_and_english_keeps_whole_words() -> None:
    from rich.cells import cell_len

    zh_reason = "在 WSL2（Ubuntu）里，使用这台电脑的 Windows 驱动"
    shown = fit_words(zh_reason, 20)
    assert shown.startswith("在 WSL2（Ubuntu）") and shown.endswith("…")
    assert 16 <= cell_len(shown) <= 20  # not "在…": Chinese may break between characters
    assert fit_words("driver too old for TensorFlow 2.21", 14) == "driver too…"
    assert fit_words("tensorflow-cpu==2.21.0 is pinned", 12) == "…"  # a version is never cut
