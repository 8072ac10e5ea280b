"""`monitor --json`'s lines: one sample a line, the first also saying what the source says up front.

One writer for the monitor CLI and for the probe zip on a lab host (`fleet watch` reads these lines
back from each host), so both speak the same record.
"""

from __future__ import annotations

import json
from typing import Any

from wizard.monitor.model import Sample, SourceInfo


def source_header(info: SourceInfo) -> dict[str, Any]:
    return {
        "driver": info.driver,
        "notes": info.notes,
        "simulated": info.simulated,
        "processes_available": info.processes_available,
    }


def sample_line(sample: Sample, header: dict[str, Any] | None = None) -> str:
    """The JSON line of one sample; `header` (source_header) goes on the first line only."""
    record: dict[str, Any] = {"type": "sample", **sample.to_dict()}
    if header is not None:
        record["source"] = header
    return json.dumps(record) + "\n"
