"""Textual's command palette, its one hard-coded sentence in the app's language.

Textual shows "No matches found" after a search that matches nothing; the rest of the palette
(placeholder, commands) already comes from the catalogue (screens/app.py).
"""

from __future__ import annotations

from rich.align import Align
from rich.text import Text
from textual.command import CommandList, CommandPalette
from textual.widgets.option_list import Option

from wizard.text import t


class WizardPalette(CommandPalette):
    def _start_no_matches_countdown(self, search_value: str) -> None:
        # A private hook of Textual's: where this Textual lacks it, its own English is left as is.
        if not all(hasattr(self, a) for a in ("_no_matches_timer", "_NO_MATCHES", "_list_visible")):
            super()._start_no_matches_countdown(search_value)
            return
        self._stop_no_matches_countdown()

        def show_no_matches() -> None:
            if search_value:
                self.query_one(CommandList).add_option(
                    Option(
                        Align.center(Text(t("app.textual.no_matches"), style="not bold")),
                        disabled=True,
                        id=self._NO_MATCHES,
                    )
                )
                self._list_visible = True
            else:
                self._list_visible = False

        self._no_matches_timer = self.set_timer(self._NO_MATCHES_COUNTDOWN, show_no_matches)
