"""tomllib on 3.11+, the tomli backport on 3.10."""

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["tomllib"]
