"""English the Chinese UI still showed (u27): the footer's keys, Textual's own words (the Ctrl+C
hint, the command palette), a simulated command's "ok" in the Run log, and "Secure Boot" without
its Chinese name. Each test looks at what a student sees with `--lang zh`."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.test_app_snapshots_zh import Zh, zh  # noqa: F401  (the zh fixture: screens imported in Chinese)
from tests.test_runner_helpers import Recorder
from tests.test_story_zh import english_sentences
from tests.test_text_parity import catalogue
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.run.runner import Runner
from wizard.text import set_language, t

# Latin words a Chinese label may keep: names of things, as Chinese users meet them.
NAMES = {"TF", "GPU", "CPU", "TensorFlow", "CUDA", "NVIDIA"}
WORD = re.compile(r"[A-Za-z]{2,}")


def english_words(text: str) -> list[str]:
    return [w for w in WORD.findall(text) if w not in NAMES]


def footer_of(app: Any) -> str:
    from tests.apps.screen_text import screen_text

    return screen_text(app).split("\n")[-1]


def check_footer(app: Any, where: str) -> None:
    """Every key the footer shows is described in Chinese, and the drawn line holds no English
    once the keys' own names (esc, space, ^q...) are taken out."""
    line = footer_of(app)
    assert line.strip(), where
    for key, active in app.screen.active_bindings.items():
        binding = active.binding
        if not binding.show or not active.enabled:
            continue
        assert english_words(binding.description) == [], (where, key, binding.description)
        line = line.replace(app.get_key_display(binding), " ")
    assert english_words(line) == [], (where, line)


async def _walk(pilot: Pilot[Any], zh: Zh) -> None:  # noqa: F811
    app = pilot.app
    await zh.wizard.wait_until(
        pilot, lambda: bool(footer_of(app).strip())
    )  # drawn (a loaded machine is slow)
    check_footer(app, "welcome")
    await zh.wizard.to_detect(pilot)
    check_footer(app, "detect")
    await pilot.press("n")
    await zh.wizard.settle(pilot)
    check_footer(app, "choose")
    await pilot.press("p")
    await zh.wizard.settle(pilot)
    check_footer(app, "plan")
    await pilot.press("r")
    run: Any = next(s for s in app.screen_stack if s.__class__.__name__ == "RunScreen")
    await zh.wizard.wait_until(pilot, lambda: run.state == "finished")
    await pilot.pause(0.1)
    check_footer(app, "finish")
    await pilot.press("m")
    await zh.wizard.settle(pilot)
    check_footer(app, "monitor")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_zh_footer_keys_are_chinese_from_welcome_to_the_monitor(zh: Zh, size: tuple[int, int]) -> None:  # noqa: F811
    app = zh.app("debian-12-gtx1060-laptop")  # a run with no password and no Windows step
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await _walk(pilot, zh)
        assert t("app.key.quit") == "退出" and t("app.key.quit") in footer_of(app)


async def test_zh_ctrl_c_says_how_to_quit_in_chinese(zh: Zh) -> None:  # noqa: F811
    app = zh.app("debian-12-gtx1060-laptop")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        notes = list(app._notifications)
        assert notes, "no hint"
        note = notes[-1]
        assert note.title == t("app.textual.quit_title") and "^q" in note.message
        assert english_words(note.message.replace("^q", "")) == [] and english_words(note.title) == []
        assert "quit" not in (note.message + note.title).lower()


async def test_zh_command_palette_is_chinese(zh: Zh) -> None:  # noqa: F811
    from tests.apps.screen_text import screen_text

    app = zh.app("debian-12-gtx1060-laptop")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        shown = screen_text(app)
        assert t("app.textual.search") in shown
        for key in ("theme", "help", "quit", "screenshot"):
            assert t(f"app.textual.{key}") in shown and t(f"app.textual.{key}_help") in shown
        for english in ("Search for commands", "Keys", "Quit the application", "Change the current theme"):
            assert english not in shown
        # A search that matches nothing: Textual's "No matches found", in Chinese.
        await pilot.press(*"zzzq")
        for _ in range(40):
            await pilot.pause(0.05)
            if t("app.textual.no_matches") in screen_text(app):
                break
        shown = screen_text(app)
        assert t("app.textual.no_matches") in shown and "No matches" not in shown
        await pilot.press("escape")


@pytest.fixture
def chinese() -> Any:
    set_language("zh")
    yield
    set_language("en")


@pytest.mark.parametrize("name", ["debian-12-gtx1060-laptop", "no-nvidia-gpu", "ubuntu-24.04-rtx4090-fresh"])
def test_zh_a_simulated_run_log_holds_no_english_status_word(chinese: None, name: str) -> None:
    """A simulated command that prints nothing of its own said "ok"; TensorFlow's line said
    "(simulated)". What real programs print (apt, pip, the check's own lines) stays theirs."""
    profile = load_demo(name)
    rec = recommend(profile)
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended)
    events = Recorder(password="secret")
    runner = Runner(plan, events, profile=profile)
    for step in plan.active_steps:
        for argv in step.commands:
            runner._execute(step, argv)
    sim = t("app.simulated_short")
    said = [line.removeprefix(sim).strip() for line in events.lines]
    assert t("runner.sim.ok") in said  # the simulated commands did say something, in Chinese
    assert "ok" not in said and not any("(simulated)" in line for line in said), said


def test_zh_secure_boot_has_its_chinese_name_beside_it() -> None:
    """What Chinese firmware menus and guides call it (安全启动), with the English name once where
    a student may meet it in English firmware; never the English alone."""
    zh_texts = catalogue("zh")
    mentions = {key: text for key, text in zh_texts.items() if "Secure Boot" in text}
    assert mentions
    for key, text in mentions.items():
        assert text.count("Secure Boot") == 1, key
        assert "安全启动（Secure Boot）" in text or "安全启动，即 Secure Boot" in text, (key, text)
    # A finding's title glosses it; its why, shown right below, says 安全启动 alone.
    title, why = zh_texts["findings.secure_boot.title"], zh_texts["findings.secure_boot.why"]
    assert "安全启动（Secure Boot）" in title and "安全启动" in why and "Secure Boot" not in why


async def test_zh_detect_says_secure_boot_in_chinese(zh: Zh) -> None:  # noqa: F811
    from tests.apps.screen_text import screen_text

    app = zh.app("ubuntu-24.04-rtx4090-fresh")  # Secure Boot on, no driver yet
    async with app.run_test(size=(120, 40)) as pilot:
        await zh.wizard.to_detect(pilot)
        shown = screen_text(app)
        assert "安全启动（Secure Boot）" in shown
        assert "Secure Boot 已开启" not in shown


@pytest.mark.parametrize("name", ["ubuntu-20.04-gtx1080-driver470", "ubuntu-22.04-2x-a100-server"])
async def test_zh_screens_from_welcome_to_the_monitor_hold_no_english_sentence(zh: Zh, name: str) -> None:  # noqa: F811
    from tests.apps.screen_text import screen_text

    profile = load_demo(name)
    data = set(english_sentences(profile.label or ""))
    app = zh.app(name)
    seen: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        seen.append(screen_text(app))
        await zh.wizard.to_detect(pilot)
        seen.append(screen_text(app))
        await pilot.press("n")
        await zh.wizard.settle(pilot)
        seen.append(screen_text(app))
        await pilot.press("p")
        await zh.wizard.settle(pilot)
        seen.append(screen_text(app))
        await pilot.press("r")
        run: Any = next(s for s in app.screen_stack if s.__class__.__name__ == "RunScreen")
        await zh.wizard.wait_until(
            pilot,
            lambda: app.screen.__class__.__name__ == "PasswordModal" or run.state == "finished",
        )
        if app.screen.__class__.__name__ == "PasswordModal":
            await pilot.press(*"secret", "enter")
        await zh.wizard.wait_until(pilot, lambda: run.state == "finished")
        await pilot.pause(0.1)
        seen.append(screen_text(app))
        await pilot.press("m")
        await zh.wizard.settle(pilot)
        seen.append(screen_text(app))
    for text in seen:
        found = [s for s in english_sentences(text) if not any(s in d or d in s for d in data)]
        assert found == [], found
        assert not re.search(r"(?m)(^|\s)ok(\s|$)", text), text
