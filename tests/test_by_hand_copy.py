"""A step done by hand whose text names a command (Secure Boot's MOK key): the command is shown whole
on the run's "Do this yourself" panel and `c` copies it, on the plan too; the runner never runs it.
Debian's DKMS key is at another path than Ubuntu's shim-signed one."""

from __future__ import annotations

from dataclasses import replace

from screens.widgets.windows_host_panel import WindowsHostPanel
from tests.apps.wizard_app import build_app, run_screen, to_windows_step, wait_until
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.plan.model import Step
from wizard.probe.state_view import blocking_words

UBUNTU_KEY = "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der"


def test_the_key_is_named_by_the_distributions_own_path() -> None:
    profile = load_demo("ubuntu-22.04-rtx3060-secure-boot")
    words = blocking_words(profile)
    assert words is not None and words.copy == (UBUNTU_KEY,)
    debian = replace(profile, os=replace(profile.os, id="debian"))
    words = blocking_words(debian)
    assert words is not None and words.copy == ("sudo mokutil --import /var/lib/dkms/mok.pub",)


def test_a_step_keeps_its_commands_to_copy_through_the_journal_and_plans_without_keep_their_form() -> None:
    profile = load_demo("ubuntu-22.04-rtx3060-secure-boot")
    rec = recommend(profile)
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended)
    first = plan.steps[0]
    assert first.manual_copy == (UBUNTU_KEY,) and not first.commands  # never a command the runner runs
    assert Step.from_dict(first.to_dict()) == first
    # A step with nothing to copy by hand writes no such field: a saved plan's fingerprint stays.
    assert all("manual_copy" not in s.to_dict() for s in plan.steps[1:])


async def test_the_run_panel_shows_the_command_and_c_copies_it() -> None:
    app = build_app("ubuntu-22.04-rtx3060-secure-boot")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_windows_step(pilot)
        panel = run_screen(app).query_one(WindowsHostPanel)
        assert f"$ {UBUNTU_KEY}" in str(panel.query_one("#windows-command").render())
        await pilot.press("c")
        await wait_until(pilot, lambda: app.clipboard == UBUNTU_KEY)


async def test_commands_typed_in_powershell_are_shown_after_its_prompt() -> None:
    # A Windows step done by hand (wsl-no-gpu-device's "wsl --update ; wsl --shutdown"): PowerShell's.
    from textual.app import App, ComposeResult

    class PanelApp(App[None]):
        def compose(self) -> ComposeResult:
            yield WindowsHostPanel()

    app = PanelApp()
    async with app.run_test(size=(80, 24)) as pilot:
        panel = app.query_one(WindowsHostPanel)
        panel.show(
            [],
            "Update WSL in PowerShell, then restart it.",
            by_hand=("wsl --update", "wsl --shutdown"),
            by_hand_prompt="PS> ",
        )
        await pilot.pause()
        shown = str(panel.query_one("#windows-command").render())
        assert "PS> wsl --update" in shown and "PS> wsl --shutdown" in shown
        assert panel.commands == ["wsl --update", "wsl --shutdown"]  # copied whole, without the prompt
