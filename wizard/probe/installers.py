"""The package installers here: uv and pip's package-index settings.

uv comes with the wizard (the `uv` package, a dependency, ships the binary; `find_uv_bin()` names it),
so every machine the wizard runs on has one; a uv on PATH or in ~/.local/bin is the fallback.
uv installs TensorFlow several times faster than pip, but it does not read pip's
configuration; a machine whose pip is set to a mirror or a private index must get
the same settings passed to uv, or uv would go elsewhere. So the probe reads them
the way pip does (its config files in pip's order, `[global]` then `[install]`, then
PIP_* variables) and keeps them in the profile for the plan to pass on, unless uv has
an index of its own configured. An index URL that carries a password is never kept:
the profile says so, and the plan uses pip.
"""

from __future__ import annotations

import configparser
import os
import re
from pathlib import Path, PurePath
from urllib.parse import urlsplit

from wizard.mirror.configured import read_uv
from wizard.probe.context import ProbeContext
from wizard.profile import PythonInfo

_UV_VERSION = re.compile(r"^uv ([0-9]+\.[0-9]+\.[0-9]+)")
PIP_KEYS = ("index-url", "extra-index-url", "find-links")


def bundled_uv() -> str | None:
    """The uv binary the wizard's own `uv` dependency installed, or None."""
    try:
        from uv import find_uv_bin
    except ImportError:
        return None
    try:
        return str(find_uv_bin())
    except (FileNotFoundError, OSError):  # the package without its binary: a broken install
        return None


def find_uv(ctx: ProbeContext) -> tuple[str, str] | None:
    """(path, version) of a working uv: the wizard's own first (a version it was tested with), then
    on PATH, beside the wizard's own Python, or where uv's installer puts it (~/.local/bin,
    ~/.cargo/bin) even when that is not on PATH yet."""
    env = ctx.system.environ
    if ctx.bundled_uv is not None:  # a dump: the uv the machine's wizard had
        own = ctx.bundled_uv()
    else:
        own = bundled_uv() if ctx.system.root == Path("/") else None  # a fixture machine has its own files
    dirs = [str(PurePath(own).parent)] if own else []
    dirs += [d for d in env.get("PATH", "").split(os.pathsep) if d]
    dirs.append(str(PurePath(ctx.python.executable).parent))
    home = env.get("HOME") or str(ctx.system.home)
    dirs += [str(PurePath(home) / ".local" / "bin"), str(PurePath(home) / ".cargo" / "bin")]
    seen: set[str] = set()
    for d in dirs:
        path = str(PurePath(d) / "uv")
        if path in seen or not PurePath(path).is_absolute():
            continue
        seen.add(path)
        if not ctx.system.exists(path) or ctx.system.is_dir(path):
            continue
        result = ctx.system.run([path, "--version"], timeout=5.0)
        m = _UV_VERSION.match(result.stdout.strip()) if result.ok else None
        if m:
            return path, m.group(1)
    return None


def _config_files(ctx: ProbeContext) -> list[str]:
    """pip's configuration files, lowest priority first (pip's documented order)."""
    env = ctx.system.environ
    home = env.get("HOME") or str(ctx.system.home)
    xdg_dirs = env.get("XDG_CONFIG_DIRS", "/etc/xdg").split(":")
    files = [str(PurePath(d) / "pip" / "pip.conf") for d in reversed(xdg_dirs) if d]
    files.append("/etc/pip.conf")
    files.append(str(PurePath(home) / ".pip" / "pip.conf"))
    xdg_home = env.get("XDG_CONFIG_HOME") or str(PurePath(home) / ".config")
    files.append(str(PurePath(xdg_home) / "pip" / "pip.conf"))
    if env.get("PIP_CONFIG_FILE"):
        files.append(env["PIP_CONFIG_FILE"])
    return files


def pip_index_settings(ctx: ProbeContext) -> dict[str, str]:
    """index-url / extra-index-url / find-links as pip would use them for `pip install`."""
    found: dict[str, str] = {}
    for path in _config_files(ctx):
        text = ctx.system.read_text(path, limit=64 * 1024)
        if not text:
            continue
        parser = configparser.RawConfigParser(strict=False)
        try:
            parser.read_string(text)
        except configparser.Error:
            continue
        for section in ("global", "install"):
            if not parser.has_section(section):
                continue
            for key, value in parser.items(section):
                name = key.replace("_", "-")
                if name in PIP_KEYS:
                    found[name] = " ".join(value.split())
    env = ctx.system.environ
    for name in PIP_KEYS:
        from_env = env.get("PIP_" + name.upper().replace("-", "_"))
        if from_env:
            found[name] = " ".join(from_env.split())
    return found


def has_secret(value: str) -> bool:
    """A URL with a user or password in it (https://user:token@host/simple)."""
    return any(urlsplit(part).username is not None for part in value.split())


def probe_installers(ctx: ProbeContext, info: PythonInfo) -> None:
    uv = find_uv(ctx)
    if uv is not None:
        info.uv, info.uv_version = uv
    env = ctx.system.environ
    home = env.get("HOME") or str(ctx.system.home)
    if read_uv(ctx.system, env, Path(home)) is not None:
        # uv has an index of its own (uv.toml, UV_INDEX_URL): it is the person's choice for uv.
        info.uv_index_configured = True
        return
    settings = pip_index_settings(ctx)
    if any(has_secret(v) for v in settings.values()):
        info.pip_index_private = True
        return
    info.pip_index_url = settings.get("index-url")
    info.pip_extra_index_urls = settings.get("extra-index-url")
    info.pip_find_links = settings.get("find-links")
