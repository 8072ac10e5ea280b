"""Python's own error messages (json, OSError) worded through t(), so a Chinese session reads
Chinese: `Expecting value` and `[Errno 2] No such file or directory` are English from the library.

    json_error(exc) -> str   what is wrong at that place in the JSON text
    os_error(exc) -> str     what the system refused (by errno), without Python's "[Errno N]" prefix
"""

from __future__ import annotations

import errno
import json

from wizard.text import t

# json.decoder's messages (CPython 3.10-3.14) -> a key; anything else keeps the library's words.
_JSON = (
    ("Expecting value", "errors.json.value"),
    ("Expecting property name enclosed in double quotes", "errors.json.property"),
    ("Expecting ',' delimiter", "errors.json.comma"),
    ("Expecting ':' delimiter", "errors.json.colon"),
    ("Extra data", "errors.json.extra"),
    ("Unterminated string", "errors.json.string"),
    ("Invalid control character", "errors.json.control"),
    ("Invalid \\escape", "errors.json.escape"),
    ("Invalid \\uXXXX escape", "errors.json.escape"),
    ("Illegal trailing comma", "errors.json.trailing_comma"),
)

_ERRNO = {
    errno.ENOENT: "errors.os.no_such_file",
    errno.EACCES: "errors.os.permission",
    errno.EPERM: "errors.os.permission",
    errno.EISDIR: "errors.os.is_directory",
    errno.ENOTDIR: "errors.os.not_directory",
    errno.ELOOP: "errors.os.loop",
    errno.EIO: "errors.os.io",
    errno.ENOSPC: "errors.os.no_space",
    errno.EROFS: "errors.os.read_only",
    errno.ENAMETOOLONG: "errors.os.name_too_long",
    errno.ENXIO: "errors.os.no_device",
    errno.ENODEV: "errors.os.no_device",
}


def json_error(exc: json.JSONDecodeError) -> str:
    key = next((k for prefix, k in _JSON if exc.msg.startswith(prefix)), None)
    return t(key) if key else exc.msg


def os_error(exc: OSError) -> str:
    key = _ERRNO.get(exc.errno or 0)
    if key:
        return t(key)
    return exc.strerror or type(exc).__name__
