"""A session on a profile never prints a command that would act on this computer.

The wizard's own hints ("run tf-gpu-wizard apply", "tf-gpu-wizard plan --script > ...") are
worded once, in the text catalogue, for this machine. Where the session is about a demo or a
saved profile (the app or a command given --profile), every such hint keeps --profile: t() passes
each message through keep_profile(), so no screen, CLI line or doctor fix can drop it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# The commands that take --profile (wizard/cli/common.add_profile_option); `mirror` and `fleet`
# act on configuration, not on a machine, and take none.
PROFILE_COMMANDS = ("detect", "recommend", "plan", "apply", "monitor", "bench", "doctor")
# `detect --save FILE` is how a profile is made, on the machine it describes: it keeps no --profile.
_HINT = re.compile(
    r"\btf-gpu-wizard (" + "|".join(PROFILE_COMMANDS) + r")\b(?![-\w])(?! --profile\b)(?! --save\b)"
)

_ref: str | None = None
# A piece of work that speaks for another machine (the exported script) overrides the session's
# profile in its own context only: never by swapping the process-wide value, which the app's
# worker threads read meanwhile (a run's failure notice, made in its worker while the Plan
# screen rendered the script for its footer, lost its --profile: a demo hint that acted on
# this machine, and a notice one line shorter, drawn with or without its scrollbar).
_override: ContextVar[tuple[str | None] | None] = ContextVar("profile_hint_override", default=None)


def set_session_profile(ref: str | None) -> str | None:
    """The --profile value of this session (a demo name or a file), or None on this machine.
    Returns the one it replaces, for a caller that restores it."""
    global _ref
    before, _ref = _ref, (ref or None)
    return before


@contextmanager
def profile_for(ref: str | None) -> Iterator[None]:
    """Within the block, in this thread or task only, hints keep `ref` (None: this machine's)."""
    token = _override.set((ref or None,))
    try:
        yield
    finally:
        _override.reset(token)


def session_profile() -> str | None:
    override = _override.get()
    return override[0] if override is not None else _ref


def profile_args(ref: str | None = None) -> tuple[str, ...]:
    """("--profile", REF) for the session's profile (or `ref`), else nothing."""
    ref = ref if ref is not None else session_profile()
    return ("--profile", ref) if ref else ()


def keep_profile(text: str, ref: str | None = None) -> str:
    """Every `tf-gpu-wizard COMMAND` in `text` with `--profile REF` after COMMAND (quoted for the
    shell, control characters never raw), unless it has it already."""
    ref = ref if ref is not None else session_profile()
    if not ref or "tf-gpu-wizard " not in text:
        return text
    from wizard.safe.display import safe

    quoted = safe(shlex.quote(ref), 400)
    return _HINT.sub(lambda m: f"{m.group(0)} --profile {quoted}", text)
