"""Credentials inside an index address (`https://user:password@host/simple`): never shown, never
put on a command line, in a plan, a script, a journal or a log.

    masked(url)            the address as shown: https://user:****@host/simple (no password: as is)
    without_password(url)  the address commands carry: https://user@host/simple; pip and uv then
                           take the password from the user's own config (~/.netrc, or the keyring)
    password_host(url)     (user, host) when the address holds a password, else None
    mask_text(text)        every such address inside a longer text, masked
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

MASK = "****"
_IN_TEXT = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://)([^/@\s:]*):([^/@\s]*)@")


def password_host(url: str) -> tuple[str, str] | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.password is None or not parts.hostname:
        return None
    return parts.username or "", parts.hostname


def _netloc(url: str, password: str | None) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    user = parts.netloc.rpartition("@")[0].partition(":")[0]
    if not user and password is None:
        return host
    return f"{user}{':' + password if password is not None else ''}@{host}"


def masked(url: str) -> str:
    if password_host(url) is None:
        return mask_text(url)
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=_netloc(url, MASK)))


def without_password(url: str) -> str:
    if password_host(url) is None:
        return url
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=_netloc(url, None)))


def mask_text(text: str) -> str:
    return _IN_TEXT.sub(lambda m: f"{m.group(1)}{m.group(2)}:{MASK}@", text)
