"""The frame every wizard screen shares: header, the SIMULATED banner, footer, back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.binding import Binding
from textual.screen import Screen

from screens.widgets.simulated_banner import SimulatedBanner
from wizard.text import t

if TYPE_CHECKING:
    from screens.navigator import Navigator
    from screens.session import Session


class WizardScreen(Screen[Any]):
    """A step of the flow. Subclasses compose their body between the banner and the footer."""

    BINDINGS = [Binding("escape", "back", t("app.key.back"))]

    @property
    def wizard(self) -> Navigator:
        return cast("Navigator", self.app)

    @property
    def session(self) -> Session:
        return self.wizard.session

    def banner(self) -> SimulatedBanner:
        banner = SimulatedBanner(id="simulated-banner")
        banner.show_for(self.session.label if self.session.simulated else None)
        return banner

    def refresh_banner(self) -> None:
        banner = self.query_one(SimulatedBanner)
        banner.show_for(self.session.label if self.session.simulated else None)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()


def toggle_details(screen: Screen[Any], selector: str) -> None:
    """A detail box on the whole screen, or back to its place: a short terminal shows only a
    few lines of it, and reading a long reason or command there should not need a bigger one."""
    if screen.maximized is not None:
        screen.minimize()
        return
    box = screen.query_one(selector)
    if screen.maximize(box, container=False):
        box.focus()
