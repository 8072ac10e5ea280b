"""Command line: `tf-gpu-wizard [COMMAND]`. With no command it starts the Textual app.

Each subcommand lives in its own module (`wizard/cli/<name>.py`) exposing
`register(subparsers)`; only the chosen one's heavy imports are paid for, which
keeps `detect` fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from wizard import __version__
from wizard.cli.common import add_profile_option, error_line
from wizard.profile import ProfileError
from wizard.safe.atomic import WriteError
from wizard.text import LANG_ENV, LANGUAGES, language, parse_language, set_language, t

# Order = order in --help. A module that is not there yet is skipped.
COMMANDS = ("detect", "recommend", "plan", "apply", "monitor", "bench", "doctor", "mirror", "fleet")

# Options the top-level parser takes before a command; their value is not the command.
GLOBAL_VALUE_OPTIONS = ("--profile", "--lang", "--mirror")


class UsageError(ValueError):
    """A bad global option: one line for the user, exit status 2."""


class _HelpFormatter(argparse.HelpFormatter):
    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, t("cli.usage") if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """argparse with its own words (usage, headings, -h, error) in the user's language;
    subcommands' parsers are of this class too (add_subparsers uses the parent's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._positionals.title = t("cli.positionals")
        self._optionals.title = t("cli.options")
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help=t("cli.help_help"))

    def error(self, message: str) -> NoReturn:
        from wizard.cli.argwords import worded

        self.print_usage(sys.stderr)
        self.exit(2, t("cli.usage_error", prog=self.prog, error=worded(message)) + "\n")


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand named in argv, found without importing any of them."""
    skip_value = False
    for token in argv:
        if skip_value:
            skip_value = False
        elif token in GLOBAL_VALUE_OPTIONS:
            skip_value = True
        elif not token.startswith("-"):
            return token
    return None


def language_arg(argv: Sequence[str], env: dict[str, str] | None = None) -> str | None:
    """The language `--lang` asks for (it may stand before or after the command; the last
    one wins), checked before any help text is built, since the parser's texts use it."""
    value: str | None = None
    for i, token in enumerate(argv):
        if token in ("--", "--run"):  # after `doctor --run` the words are the student's command
            break
        if token == "--lang":
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                raise UsageError(t("cli.missing_value", option="--lang"))
            value = argv[i + 1]
        elif token.startswith("--lang="):
            value = token.split("=", 1)[1]
    if value is not None:
        if value.strip().lower() not in LANGUAGES:
            raise UsageError(t("cli.bad_lang", value=value, choices=", ".join(LANGUAGES)))
        return value.strip().lower()
    env_value = (os.environ if env is None else env).get(LANG_ENV, "")
    if env_value and parse_language(env_value) is None:
        raise UsageError(t("cli.bad_lang_env", name=LANG_ENV, value=env_value, choices=", ".join(LANGUAGES)))
    return None


def add_language_option(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's parser must not reset what the top-level one read.
    parser.add_argument(
        "--lang", choices=LANGUAGES, default=argparse.SUPPRESS, help=t("cli.lang_help", env=LANG_ENV)
    )


def build_parser(only: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    parser = Parser(prog="tf-gpu-wizard", description=t("cli.description"))
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help=t("cli.version_help")
    )
    add_profile_option(parser)
    add_language_option(parser)
    parser.add_argument(
        "--mirror", metavar="NAME|URL", default=argparse.SUPPRESS, help=t("mirror.cli.option_help")
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in only:
        try:
            module = importlib.import_module(f"wizard.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"wizard.cli.{name}":
                continue
            raise
        module.register(sub)
    for command_parser in sub.choices.values():
        _add_language_everywhere(command_parser)
    return parser


def _add_language_everywhere(parser: argparse.ArgumentParser) -> None:
    """--lang after the command too, and after a sub-action (`mirror list --lang zh`)."""
    add_language_option(parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for nested in action.choices.values():
                _add_language_everywhere(nested)


def main(argv: Sequence[str] | None = None) -> int:
    from wizard.cli.streams import prepare_streams, quiet_broken_pipe, say

    streams = prepare_streams()  # any locale, closed fds: before anything is printed or opened
    try:
        if streams.stdout_closed:
            # Nothing could be shown: say so where it can be seen, change nothing.
            _language_quietly(sys.argv[1:] if argv is None else argv)
            say(t("cli.stdout_closed"))
            return 1
        code = _main(argv, stdin_closed=streams.stdin_closed)
        if sys.stdout is not None:
            sys.stdout.flush()  # here, not in the interpreter's exit, where a broken pipe is noise
        return code
    except BrokenPipeError:  # `plan --script | head -1`: the reader had what it wanted
        quiet_broken_pipe()
        return 0


def _language_quietly(argv: Sequence[str]) -> None:
    try:
        lang = language_arg(list(argv))
    except UsageError:
        return
    if lang:
        set_language(lang)


def _main(argv: Sequence[str] | None, *, stdin_closed: bool = False) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        lang = language_arg(argv)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    if lang:
        set_language(lang)
    if language() == "zh":  # Rich output: Chinese lines break between characters
        from wizard.cjk import install_cjk_wrapping

        install_cjk_wrapping()
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
    args.stdin_closed = stdin_closed
    try:
        if args.command is None:
            return _run_app(args)
        return int(args.func(args) or 0)
    except ProfileError as exc:
        print(t("cli.profile_error", error=exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\n" + t("cli.interrupted"), file=sys.stderr)
        return 130
    except WriteError as exc:  # a full or read-only disk: one line, never a traceback
        print(error_line(exc), file=sys.stderr)
        return 1


def _run_app(args: argparse.Namespace) -> int:
    from wizard.cli.common import load_profile_arg

    profile = load_profile_arg(args) if getattr(args, "profile", None) else None
    mirror = getattr(args, "mirror", None)
    if mirror is not None:  # a name the catalogue does not have is said here, in one line
        from wizard.mirror.advice import resolve
        from wizard.mirror.catalogue import MirrorError, load_catalogue

        try:
            mirror = None if resolve(mirror, load_catalogue()) is None else mirror
        except MirrorError as exc:
            print(error_line(exc), file=sys.stderr)
            return 2
    from wizard.cli.streams import stdin_is_terminal

    if not stdin_is_terminal():
        # Textual reads its keys from the terminal: with stdin closed or a file, one line.
        print(t("cli.app_needs_terminal"), file=sys.stderr)
        return 2
    try:
        from screens.app import run_app
    except ImportError as exc:
        print(t("cli.app_cannot_start", error=exc), file=sys.stderr)
        return 1
    return run_app(profile=profile, mirror=mirror, profile_ref=getattr(args, "profile", None))
