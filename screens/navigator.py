"""What a screen may ask of the app: the session, the clock, and the way to the next screen.

Screens depend on this protocol, not on `screens.app`, so the app can import every screen
without a cycle back to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from screens.session import Session
    from wizard.profile import MachineProfile


class Navigator(Protocol):
    session: Session
    detector: Callable[..., MachineProfile] | None
    clock: Callable[[], float]
    blink: bool
    runner_options: dict[str, Any]
    runner_factory: Callable[..., Any] | None
    suggest_mirror: bool
    started_on_profile: bool  # --profile at the start (not a demo picked in the app)

    def start_hint(self) -> str: ...

    def go_detect(self) -> None: ...
    def go_choose(self) -> None: ...
    def go_plan(self) -> None: ...
    def go_run(self) -> None: ...
    def go_monitor(self) -> None: ...
    def go_doctor(self) -> None: ...
    def choose_demo(self, then: Callable[[], None] | None = None) -> None: ...
    def stop_and_exit(self) -> None: ...
