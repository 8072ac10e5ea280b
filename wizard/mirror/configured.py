"""The package indexes this machine's own pip, uv and conda configuration already names.

When pip.conf (or PIP_INDEX_URL, uv.toml, ~/.condarc ...) already points at a mirror, the
plan's plain `pip install` uses it: the wizard shows it as "configured" and adds nothing.
Read through `System` (tests give a fixture tree) and an environment mapping; nothing is
written and nothing is run.
"""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wizard.sysio import System
from wizard.tomlcompat import tomllib


@dataclass(frozen=True)
class Setting:
    value: str
    source: str  # a file path or an environment variable name


@dataclass(frozen=True)
class Configured:
    pip_index: Setting | None = None
    pip_extra: tuple[Setting, ...] = ()
    uv_index: Setting | None = None
    conda_channels: tuple[Setting, ...] = ()
    conda_alias: Setting | None = None

    @property
    def any(self) -> bool:
        return bool(
            self.pip_index or self.pip_extra or self.uv_index or self.conda_channels or self.conda_alias
        )

    def to_dict(self) -> dict[str, object]:
        def one(s: Setting | None) -> dict[str, str] | None:
            from wizard.mirror.secret import masked  # a password in pip.conf is not shown

            return None if s is None else {"value": masked(s.value), "source": s.source}

        return {
            "pip_index": one(self.pip_index),
            "pip_extra": [one(s) for s in self.pip_extra],
            "uv_index": one(self.uv_index),
            "conda_channels": [one(s) for s in self.conda_channels],
            "conda_alias": one(self.conda_alias),
        }


def _config_home(env: Mapping[str, str], home: Path) -> Path:
    xdg = env.get("XDG_CONFIG_HOME")
    return Path(xdg) if xdg else home / ".config"


def pip_files(env: Mapping[str, str], home: Path) -> list[Path]:
    """pip's configuration files, lowest precedence first (pip's own order: global, user, PIP_CONFIG_FILE)."""
    files = [Path("/etc/xdg/pip/pip.conf"), Path("/etc/pip.conf")]
    files += [home / ".pip" / "pip.conf", _config_home(env, home) / "pip" / "pip.conf"]
    if env.get("PIP_CONFIG_FILE") and env["PIP_CONFIG_FILE"] != os.devnull:
        files.append(Path(env["PIP_CONFIG_FILE"]))
    return files


def _pip_option(parser: configparser.RawConfigParser, section: str, name: str) -> str | None:
    for key in (name, name.replace("-", "_")):
        if parser.has_option(section, key):
            return parser.get(section, key).strip()
    return None


def read_pip(system: System, env: Mapping[str, str], home: Path) -> tuple[Setting | None, list[Setting]]:
    index: Setting | None = None
    extra: list[Setting] = []
    for path in pip_files(env, home):
        text = system.read_text(path)
        if not text:
            continue
        parser = configparser.RawConfigParser()
        try:
            parser.read_string(text, str(path))
        except configparser.Error:
            continue  # pip would refuse this file too; the doctor is the place to say so
        for section in ("global", "install"):  # [install] wins for `pip install`
            if not parser.has_section(section):
                continue
            value = _pip_option(parser, section, "index-url")
            if value:
                index = Setting(value, str(path))
            more = _pip_option(parser, section, "extra-index-url")
            if more:
                extra = [Setting(v, str(path)) for v in more.split()]
    if env.get("PIP_INDEX_URL"):
        index = Setting(env["PIP_INDEX_URL"].strip(), "PIP_INDEX_URL")
    if env.get("PIP_EXTRA_INDEX_URL"):
        extra = [Setting(v, "PIP_EXTRA_INDEX_URL") for v in env["PIP_EXTRA_INDEX_URL"].split()]
    return index, extra


def read_uv(system: System, env: Mapping[str, str], home: Path) -> Setting | None:
    found: Setting | None = None
    for path in (Path("/etc/uv/uv.toml"), _config_home(env, home) / "uv" / "uv.toml"):
        text = system.read_text(path)
        if not text:
            continue
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            continue
        value = data.get("index-url")
        for index in data.get("index", []) if isinstance(data.get("index"), list) else []:
            if isinstance(index, dict) and index.get("default") and isinstance(index.get("url"), str):
                value = index["url"]
        if isinstance(value, str) and value:
            found = Setting(value, str(path))
    for name in ("UV_INDEX_URL", "UV_DEFAULT_INDEX"):  # the newer name wins
        if env.get(name):
            found = Setting(env[name].strip(), name)
    return found


_YAML_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*(?:#.*)?$")
_YAML_ITEM = re.compile(r"^\s+-\s*(.+?)\s*(?:#.*)?$")


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_condarc(text: str) -> tuple[list[str], str | None]:
    """`channels` and `channel_alias` of a .condarc (the two keys, block or flow lists; no YAML library)."""
    channels: list[str] = []
    alias: str | None = None
    current: str | None = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key = _YAML_KEY.match(line)
        if key:
            current, value = key.group(1), key.group(2)
            if current == "channel_alias" and value:
                alias = _unquote(value)
            elif current == "channels" and value.startswith("["):
                channels = [_unquote(v) for v in value.strip("[]").split(",") if v.strip()]
            elif current == "channels":
                channels = []
            continue
        item = _YAML_ITEM.match(line)
        if item and current == "channels":
            channels.append(_unquote(item.group(1)))
    return channels, alias


def read_conda(system: System, env: Mapping[str, str], home: Path) -> tuple[list[Setting], Setting | None]:
    files = [
        Path("/etc/conda/.condarc"),
        Path("/etc/conda/condarc"),
        _config_home(env, home) / "conda" / ".condarc",
    ]
    files += [home / ".condarc"]
    if env.get("CONDARC"):
        files.append(Path(env["CONDARC"]))
    channels: list[Setting] = []
    alias: Setting | None = None
    for path in files:
        text = system.read_text(path)
        if not text:
            continue
        found, found_alias = parse_condarc(text)
        if found:
            channels = [Setting(c, str(path)) for c in found]
        if found_alias:
            alias = Setting(found_alias, str(path))
    return channels, alias


def read_configured(
    system: System | None = None, env: Mapping[str, str] | None = None, home: Path | None = None
) -> Configured:
    system = system or System()
    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or Path.home())
    pip_index, pip_extra = read_pip(system, env, home)
    channels, alias = read_conda(system, env, home)
    return Configured(
        pip_index=pip_index,
        pip_extra=tuple(pip_extra),
        uv_index=read_uv(system, env, home),
        conda_channels=tuple(channels),
        conda_alias=alias,
    )
