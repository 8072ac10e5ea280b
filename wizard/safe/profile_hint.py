"""A session on a profile never prints a command that would act on this computer.

The wizard's own hints ("run tf-gpu-wizard apply", "tf-gpu-wizard plan --script > ...") are
worded once, in the text catalogue, for this machine. Where the session is about a demo or a
saved profile (the app or a command given --profile), every such hint keeps --profile: t() passes
each message through keep_profile(), so no screen, CLI line or doctor fix can drop it.
"""

from __future__ import annotations

import re
import shlex

# The commands that take --profile (wizard/cli/common.add_profile_option); `mirror` and `fleet`
# act on configuration, not on a machine, and take none.
PROFILE_COMMANDS = ("detect", "recommend", "plan", "apply", "monitor", "bench", "doctor")
# `detect --save FILE` is how a profile is made, on the machine it describes: it keeps no --profile.
_HINT = re.compile(
    r"\btf-gpu-wizard (" + "|".join(PROFILE_COMMANDS) + r")\b(?![-\w])(?! --profile\b)(?! --save\b)"
)

_ref: str | None = None


def set_session_profile(ref: str | None) -> str | None:
    """The --profile value of this session (a demo name or a file), or None on this machine.
    Returns the one it replaces, for a caller that restores it."""
    global _ref
    before, _ref = _ref, (ref or None)
    return before


def session_profile() -> str | None:
    return _ref


def profile_args(ref: str | None = None) -> tuple[str, ...]:
    """("--profile", REF) for the session's profile (or `ref`), else nothing."""
    ref = ref if ref is not None else _ref
    return ("--profile", ref) if ref else ()


def keep_profile(text: str, ref: str | None = None) -> str:
    """Every `tf-gpu-wizard COMMAND` in `text` with `--profile REF` after COMMAND (quoted for the
    shell, control characters never raw), unless it has it already."""
    ref = ref if ref is not None else _ref
    if not ref or "tf-gpu-wizard " not in text:
        return text
    from wizard.safe.display import safe

    quoted = safe(shlex.quote(ref), 400)
    return _HINT.sub(lambda m: f"{m.group(0)} --profile {quoted}", text)
