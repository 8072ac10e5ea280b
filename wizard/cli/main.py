"""Command line: `tf-gpu-wizard [COMMAND]`. With no command it starts the Textual app.

Each subcommand lives in its own module (`wizard/cli/<name>.py`) exposing
`register(subparsers)`; only the chosen one's heavy imports are paid for, which
keeps `detect` fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from wizard import __version__
from wizard.cli.common import add_profile_option
from wizard.profile import ProfileError

# Order = order in --help. A module that is not there yet is skipped.
COMMANDS = ("detect", "recommend", "plan", "apply", "monitor", "bench", "doctor")


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand named in argv, found without importing any of them."""
    skip_value = False
    for token in argv:
        if skip_value:
            skip_value = False
        elif token == "--profile":
            skip_value = True
        elif not token.startswith("-"):
            return token
    return None


def build_parser(only: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tf-gpu-wizard",
        description="From an NVIDIA machine to TensorFlow training on its GPU, and proof that it does.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    add_profile_option(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in only:
        try:
            module = importlib.import_module(f"wizard.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"wizard.cli.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Register only the command being run, so `detect` and the app start fast;
    # --help and unknown words get every command, for the listing and the error.
    name = chosen_command(argv)
    only: Sequence[str] = COMMANDS
    if name in COMMANDS:
        only = (name,)
    elif name is None and "-h" not in argv and "--help" not in argv:
        only = ()
    parser = build_parser(only)
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            return _run_app(args)
        return int(args.func(args) or 0)
    except ProfileError as exc:
        print(f"tf-gpu-wizard: profile error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ntf-gpu-wizard: interrupted; nothing was lost (run it again to resume)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _run_app(args: argparse.Namespace) -> int:
    from wizard.cli.common import load_profile_arg

    profile = load_profile_arg(args) if getattr(args, "profile", None) else None
    try:
        from screens.app import run_app
    except ImportError as exc:
        print(f"tf-gpu-wizard: the app cannot start ({exc}); try `tf-gpu-wizard detect`", file=sys.stderr)
        return 1
    return run_app(profile=profile)
