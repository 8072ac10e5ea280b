"""The frame every wizard screen shares: header, the SIMULATED banner, footer, back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.screen import Screen
from textual.widget import Widget

from screens.cjk_compositor import install as install_cjk_compositor
from screens.widgets.simulated_banner import SimulatedBanner
from wizard.text import t

if TYPE_CHECKING:
    from screens.navigator import Navigator
    from screens.session import Session


class WizardScreen(Screen[Any]):
    """A step of the flow. Subclasses compose their body between the banner and the footer."""

    BINDINGS = [
        Binding("escape", "back", t("app.key.back")),
        # Every scrolling region scrolls by keyboard, wherever the focus is (a button, most often):
        # the focused widget's own keys come first (a table's, an input's), these after.
        Binding("pagedown", "scroll_region('page_down')", t("story.key.scroll"), show=False),
        Binding("pageup", "scroll_region('page_up')", show=False),
        Binding("end,ctrl+end", "scroll_region('end')", show=False),
        Binding("home,ctrl+home", "scroll_region('home')", show=False),
    ]
    # The regions the scroll keys move when the focus is not in one, in order of preference:
    # the first that has something to scroll. Empty: the largest that has.
    SCROLL_REGIONS: tuple[str, ...] = ()
    # `d` shows a detail on the whole screen: a demo's banner stays over it (a demo must never
    # look like this machine, on any view), and the footer keeps saying how to go back.
    ALLOW_IN_MAXIMIZED_VIEW = "SimulatedBanner, Footer"
    DEFAULT_CSS = "WizardScreen.-maximized-view > SimulatedBanner { dock: top; }"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        install_cjk_compositor(self)  # a Select's list over other widgets keeps its Chinese
        self._focus_before_maximize: Widget | None = None

    def maximize(self, widget: Widget, container: bool = True) -> bool:
        """Remember where the focus was, so that Escape (or `d`) gives it back there."""
        if self.maximized is None:
            self._focus_before_maximize = self.focused
        return super().maximize(widget, container)

    def minimize(self) -> None:
        super().minimize()
        before, self._focus_before_maximize = self._focus_before_maximize, None
        # Focus comes back where it was: a table's arrows work again after Escape.
        if before is not None and before.is_attached and before.focusable:
            self.set_focus(before, scroll_visible=False)

    def on_screen_resume(self) -> None:
        """Back from a later screen (Escape on Plan): a maximized detail is put back and the
        focus returns to where the student left it, never to a box that only scrolls."""
        if self.maximized is not None:
            self.minimize()

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

    def scroll_region(self) -> Widget | None:
        """What PageDown, End... move: the scrollable around the focus, else the screen's own."""
        node = self.focused
        while isinstance(node, Widget) and node is not self:
            if node.allow_vertical_scroll and node.max_scroll_y > 0:
                return node
            node = node.parent  # type: ignore[assignment]
        for selector in self.SCROLL_REGIONS:
            for widget in self.query(selector).results(Widget):
                if widget.display and widget.allow_vertical_scroll and widget.max_scroll_y > 0:
                    return widget
        regions = [
            w
            for w in self.query(ScrollableContainer).results(Widget)
            if w.display and w.allow_vertical_scroll and w.max_scroll_y > 0
        ]
        return max(regions, key=lambda w: w.size.height, default=None)

    def action_scroll_region(self, how: str) -> None:
        region = self.scroll_region()
        if region is None:
            return
        if how == "page_down":
            region.scroll_page_down(animate=False)
        elif how == "page_up":
            region.scroll_page_up(animate=False)
        elif how == "end":
            region.scroll_end(animate=False)
        elif how == "home":
            region.scroll_home(animate=False)
        elif how == "down":
            region.scroll_down(animate=False)
        elif how == "up":
            region.scroll_up(animate=False)


def toggle_details(screen: Screen[Any], selector: str) -> None:
    """A detail box on the whole screen, or back to its place: a short terminal shows only a
    few lines of it, and reading a long reason or command there should not need a bigger one."""
    if screen.maximized is not None:
        screen.minimize()
        return
    box = screen.query_one(selector)
    if screen.maximize(box, container=False):
        box.focus()
