"""Helpers every subcommand shares: the --profile option and JSON output."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from wizard.profile import MachineProfile
from wizard.text import t


def add_profile_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        metavar="NAME|FILE",
        default=argparse.SUPPRESS,
        help=t("cli.profile_help"),
    )


def load_profile_arg(args: argparse.Namespace) -> MachineProfile:
    """The profile named by --profile, or this machine's, detected now."""
    ref = getattr(args, "profile", None)
    if ref:
        import os

        from wizard.demo import load_profile
        from wizard.probe.overrides import apply_overrides

        profile = load_profile(ref)
        apply_overrides(profile, os.environ)  # CI and builds: a saved machine with another driver
        return profile
    from wizard.probe import detect

    return detect()


def error_line(error: object) -> str:
    """`tf-gpu-wizard: ERROR` with the error's text made safe: it often quotes a profile, a path or
    a GPU name, whose control characters must not reach the terminal."""
    from wizard.safe.display import safe

    return t("cli.error", error=safe(str(error), 4000, multiline=True))


def print_json(data: Any) -> None:
    """Readable JSON (CJK as it is), but no bidi or C1 control from the data reaches the terminal raw
    (json.dumps escapes only C0): they travel as \\uXXXX escapes, the same data for a reader."""
    from wizard.safe.display import json_safe

    sys.stdout.write(json_safe(json.dumps(data, indent=2, ensure_ascii=False)) + "\n")
