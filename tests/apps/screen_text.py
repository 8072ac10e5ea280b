"""What a user sees: the current screen's text, line by line (for Pilot assertions)."""

from __future__ import annotations

from typing import Any

from textual.app import App


def screen_text(app: App[Any]) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text.rstrip() for strip in strips)
