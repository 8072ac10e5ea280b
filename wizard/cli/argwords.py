"""argparse's own error messages in the user's language.

argparse words its errors in English ("unrecognized arguments: --bogus"). `worded(message)`
matches the message against argparse's templates (the msgids of CPython 3.10-3.14) and says
it again through t(), keeping the values it quotes (options, choices) as they were. A message
it does not know is returned unchanged: our own (already worded) or a future argparse's.
"""

from __future__ import annotations

import re

from wizard.text import t

# argparse's template -> our key (assets/text/<lang>/argwords.toml); %s, %r, %(name)s are the values.
TEMPLATES = (
    ("unrecognized arguments: %(args)s", "argwords.unrecognized"),
    ("the following arguments are required: %(args)s", "argwords.required"),
    ("one of the arguments %(args)s is required", "argwords.one_required"),
    ("invalid choice: %(value)s (choose from %(choices)s)", "argwords.invalid_choice"),
    ("invalid %(type)s value: %(value)s", "argwords.invalid_value"),
    ("expected one argument", "argwords.expected_one"),
    ("expected at least one argument", "argwords.expected_at_least_one"),
    ("expected at most one argument", "argwords.expected_at_most_one"),
    ("expected %(count)s arguments", "argwords.expected_n"),
    ("expected %(count)s argument", "argwords.expected_n"),
    ("not allowed with argument %(other)s", "argwords.not_allowed_with"),
    ("ignored explicit argument %(value)s", "argwords.ignored_explicit"),
    ("ambiguous option: %(option)s could match %(matches)s", "argwords.ambiguous"),
    ("unexpected option string: %(option)s", "argwords.unexpected_option"),
    ("can't open '%(filename)s': %(error)s", "argwords.cannot_open"),
    ("unknown parser %(name)s (choices: %(choices)s)", "argwords.unknown_parser"),
)
ARGUMENT = re.compile(r"argument (?P<argument>.+?): (?P<message>.+)", re.DOTALL)


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"%\((\w+)\)s", template)
    out = ""
    for i, part in enumerate(parts):
        out += re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)"
    return re.compile(out + r"\Z", re.DOTALL)


_COMPILED = [(_pattern(template), key) for template, key in TEMPLATES]


def worded(message: str) -> str:
    """argparse's message said through t(); unknown messages as they are."""
    for pattern, key in _COMPILED:
        m = pattern.match(message)
        if m:
            fields = m.groupdict()
            if key == "argwords.invalid_value":  # "invalid _positive value": a function's name, not a word
                key = {"int": "argwords.invalid_int", "float": "argwords.invalid_number"}.get(
                    fields["type"], "argwords.invalid_plain"
                )
            return t(key, **fields)
    m = ARGUMENT.match(message)
    if m:  # "argument --tf: invalid choice: ..." -> the option, then the inner message worded
        return t("argwords.argument", argument=m.group("argument"), message=worded(m.group("message")))
    return message
