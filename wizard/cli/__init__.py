"""Command line: `tf-gpu-wizard [COMMAND]`; with no command it starts the Textual app.

`main.main` parses and dispatches; each subcommand lives in its own module with `register(subparsers)`.
"""

from wizard.cli.main import main

__all__ = ["main"]
