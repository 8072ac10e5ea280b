"""A plan whose package downloads come from a chosen mirror.

`with_mirror(plan, mirror)` rewrites the commands, so what the user reads is what runs and
what the exported script holds:

    python -m pip install ...   ->  python -m pip install --index-url URL ...
    uv pip install / uv add ... ->  uv pip install --default-index URL ...
    conda create / install ...  ->  conda create --override-channels -c URL ...  (any -c X dropped)
    PY condalock.py create ...  ->  PY condalock.py create --channel URL ...  (solve and lock on URL)

An http (not https) index on another machine also gets pip's --trusted-host / uv's
--allow-insecure-host, which they require for it. Checks are left alone: they prove what
is installed, not where it came from.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PureWindowsPath
from urllib.parse import urlsplit

from wizard.mirror.catalogue import Mirror
from wizard.mirror.secret import masked, password_host, without_password
from wizard.plan.model import Plan, Step
from wizard.text import t

CONDA_TOOLS = ("conda", "conda.exe", "mamba", "micromamba")
CONDA_SUBCOMMANDS = ("create", "install", "update")
UV_SUBCOMMANDS = (("pip", "install"), ("pip", "sync"), ("pip", "compile"), ("add",), ("sync",), ("lock",))
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def _tool(path: str) -> PureWindowsPath:
    # A Windows plan names C:\...\conda.exe; PureWindowsPath splits on both \ and /
    return PureWindowsPath(path)


def _insecure_host(url: str) -> str | None:
    """The host pip/uv must be told to trust: an http index that is not this machine."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname or parts.hostname in LOOPBACK:
        return None
    return parts.hostname


def _without_options(argv: list[str], options: tuple[str, ...], flags: tuple[str, ...] = ()) -> list[str]:
    """argv without `options` (and their values, `-o V` or `--opt=V`) and without `flags`."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in options:
            skip = True
        elif arg in flags or any(arg.startswith(o + "=") for o in options if o.startswith("--")):
            continue
        else:
            out.append(arg)
    return out


def _pip(argv: tuple[str, ...], url: str) -> tuple[str, ...] | None:
    """`... -m pip install ...` or `pip install ...` with the index; None when not a pip install."""
    words = list(argv)
    tool = _tool(words[0]).name if words else ""
    if len(words) >= 4 and words[1:4] == ["-m", "pip", "install"]:
        at = 4
    elif tool.startswith("pip") and len(words) >= 2 and words[1] == "install":
        at = 2
    else:
        return None
    rest = _without_options(words[at:], ("-i", "--index-url", "--trusted-host"))
    extra = ["--index-url", url]
    host = _insecure_host(url)
    if host:
        extra += ["--trusted-host", host]
    return (*words[:at], *extra, *rest)


def _uv(argv: tuple[str, ...], url: str) -> tuple[str, ...] | None:
    words = list(argv)
    if not words or _tool(words[0]).name not in ("uv", "uv.exe"):
        return None
    for sub in UV_SUBCOMMANDS:
        if tuple(words[1 : 1 + len(sub)]) == sub:
            at = 1 + len(sub)
            options = ("--index-url", "-i", "--default-index", "--allow-insecure-host")
            rest = _without_options(words[at:], options)
            extra = ["--default-index", url]
            host = _insecure_host(url)
            if host:
                extra += ["--allow-insecure-host", host]
            return (*words[:at], *extra, *rest)
    return None


def _conda(argv: tuple[str, ...], url: str) -> tuple[str, ...] | None:
    words = list(argv)
    if len(words) < 2 or _tool(words[0]).name not in CONDA_TOOLS:
        return None
    if words[1] not in CONDA_SUBCOMMANDS:
        return None  # conda run / env export ...: no channels involved
    at = 2
    rest = _without_options(words[at:], ("-c", "--channel"), ("--override-channels",))
    return (*words[:at], "--override-channels", "-c", url, *rest)


def _condalock(argv: tuple[str, ...], url: str) -> tuple[str, ...] | None:
    """The conda route's `PY condalock.py create ...` (assets/programs/condalock.py) on `url`."""
    words = list(argv)
    if len(words) < 3 or _tool(words[1]).name != "condalock.py" or words[2] != "create":
        return None
    rest = _without_options(words[3:], ("--channel",))
    return (*words[:3], "--channel", url, *rest)


def rewrite_command(argv: tuple[str, ...], mirror: Mirror) -> tuple[str, ...]:
    """One command with the mirror's index or channel; any other command unchanged. A password in
    the address is left out: commands are shown, saved in the journal and the script, and land in
    argv; pip and uv take it from the user's ~/.netrc or keyring (the plan's note says so)."""
    if mirror.pypi:
        for rewrite in (_pip, _uv):
            changed = rewrite(argv, without_password(mirror.pypi))
            if changed is not None:
                return changed
    if mirror.conda:
        for rewrite in (_conda, _condalock):
            changed = rewrite(argv, without_password(mirror.conda))
            if changed is not None:
                return changed
    return argv


def _step(step: Step, mirror: Mirror) -> Step:
    commands = tuple(rewrite_command(c, mirror) for c in step.commands)
    return step if commands == step.commands else replace(step, commands=commands)


def with_mirror(plan: Plan, mirror: Mirror | None) -> Plan:
    """The same plan with every pip/uv install and conda environment command on `mirror`."""
    if mirror is None:
        return plan
    steps = tuple(_step(s, mirror) for s in plan.steps)
    sources = [f"PyPI: {masked(mirror.pypi)}"] if mirror.pypi else []
    sources += [f"conda-forge: {masked(mirror.conda)}"] if mirror.conda else []
    notes = [t("mirror.plan_note", name=mirror.name, sources=", ".join(sources))]
    for url in (mirror.pypi, mirror.conda):
        secret = password_host(url) if url else None
        if secret is not None:
            user, host = secret
            notes.append(t("mirror.plan_secret_note", host=host, user=user))
    return replace(plan, steps=steps, notes=(*plan.notes, *dict.fromkeys(notes)))
