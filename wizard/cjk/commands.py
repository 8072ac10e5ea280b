"""Commands inside prose, kept whole when the prose is wrapped.

A fix reads "... the CPU set trains correctly: tf-gpu-wizard plan --profile X --method cpu";
wrapped at spaces like the words around it, the command was split over two lines and a copied
half did something else. Here each command's spaces are marked as no break points, so
wizard.cjk.wrap moves a command whole to the next line (or gives it a line of its own). A
command is a `quoted` span, or one of the programs below with the arguments that follow it:
its subcommand, each -flag and the one value after a flag (a "quoted" value whole).
"""

from __future__ import annotations

import re

KEEP = "\ue000"  # a private-use character: a space that is not a break point (as wizard.cjk.wrap)

# The programs our texts tell a person to run (the catalogue's fixes, hints and the doctor's).
PROGRAMS = (
    "tf-gpu-wizard",
    "sudo",
    "wsl",
    "nvidia-smi",
    "pip",
    "python",
    "python3",
    "uv",
    "conda",
    "unset",
    "export",
)
_BACKTICK = re.compile(r"`[^`\n]+`")
# A program by name or by path (~/.venvs/tf-gpu/bin/python), followed by an argument.
_START = re.compile(
    r"(?<![\w./~-])(?:[~\w.-]*/)*(?:" + "|".join(re.escape(p) for p in PROGRAMS) + r")(?= (?:-|[a-z]))"
)
# A token: a "quoted" or 'quoted' value whole, else up to a space or Chinese punctuation.
_TOKEN = re.compile(r" (\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'，。；：）]+)")
_END = ",;:)）。，；："  # punctuation that ends a command written inside a sentence
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*\Z")


def _command_end(text: str, start: int) -> int:
    """Where the command that starts at `start` (its program name) ends."""
    end = text.index(" ", start) if " " in text[start:] else len(text)
    if text[start:end].endswith(tuple(_END)):
        return end
    first, value_due, module = True, False, False
    while (m := _TOKEN.match(text, end)) is not None:
        token = m.group(1)
        bare = token.rstrip(_END + ".")
        if token in ("|", "&&"):  # a pipe: the next program and its subcommand belong to it
            end, first, value_due = m.end(), True, False
            continue
        if token.startswith("-"):
            value_due, module, first = True, token == "-m", False
        elif first and _SUBCOMMAND.match(bare):  # a subcommand, or the program after a pipe
            value_due, first = False, False
        elif value_due:  # python -m pip: the module takes a subcommand of its own
            value_due, first, module = False, module, False
        else:
            break
        end = m.end()
        if bare != token:  # "plan," / "cpu." closes the command with its sentence
            break
    return end


def keep_commands(text: str) -> str:
    """`text` with the spaces inside each command marked as no break points (KEEP)."""
    text = _BACKTICK.sub(lambda m: m.group(0).replace(" ", KEEP), text)
    out, position = [], 0
    for m in _START.finditer(text):
        if m.start() < position:
            continue
        end = _command_end(text, m.start())
        out.append(text[position : m.start()])
        out.append(text[m.start() : end].replace(" ", KEEP))
        position = end
    out.append(text[position:])
    return "".join(out)
