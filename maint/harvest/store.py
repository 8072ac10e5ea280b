"""harvest.json: loaded, updated entry by entry, and written deterministically after each step."""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOOL = "maint.harvest"


def today() -> str:
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


def dumps(data: object) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass
class Store:
    path: Path
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Store:
        data: dict[str, Any] = {}
        if path.exists():
            data = json.loads(path.read_text())
        data.setdefault("tool", TOOL)
        data.setdefault("tensorflow", {})
        data.setdefault("nvidia", {})
        return cls(path, data)

    @property
    def tensorflow(self) -> dict[str, Any]:
        return self.data["tensorflow"]  # type: ignore[no-any-return]

    @property
    def nvidia(self) -> dict[str, Any]:
        return self.data["nvidia"]  # type: ignore[no-any-return]

    def done(self, section: str, *keys: str) -> bool:
        """An entry counts as done when it exists and recorded no error (errors are retried)."""
        node: Any = self.data.get(section, {})
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                return False
            node = node[key]
        return isinstance(node, dict) and not node.get("errors")

    def save(self) -> None:
        self.data["harvested"] = today()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(dumps(self.data))
        os.replace(tmp, self.path)
