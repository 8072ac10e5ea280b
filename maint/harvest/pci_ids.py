"""NVIDIA's PCI device ids -> compute capability, for drivers that do not report it (before R510).

    python -m maint.harvest.pci_ids PATH/TO/pci.ids COMMIT > assets/knowledge/gpu_pci_ids.json

Reads the pci.ids database (github.com/pciutils/pciids) for vendor 10de and keeps a device id only
where one of its product names (the [A / B] part) is a GPU of assets/knowledge/gpus.toml, exactly or
with a memory size or "Lite Hash Rate" after it ("GeForce GTX 1060 6GB", "GeForce RTX 3060 Lite Hash
Rate"): the compute capability is that table's (sourced there), never guessed from a chip name.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from wizard.tomlcompat import tomllib

ROOT = Path(__file__).resolve().parents[2]
DEVICE = re.compile(r"^\t([0-9a-f]{4})\s+(.+)$")
VENDOR = re.compile(r"^([0-9a-f]{4})\s")
# A memory size, or "Lite Hash Rate" (the LHR boards: the same chip and product, its hash rate capped
# by firmware): the product name of gpus.toml without it.
MEMORY = re.compile(r" (?:[0-9]+ ?GB|Lite Hash Rate)$")


def nvidia_devices(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        if VENDOR.match(line):
            inside = line.startswith("10de ")
            continue
        m = DEVICE.match(line) if inside else None
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def table(pci_ids: str, commit: str) -> dict[str, object]:
    gpus = tomllib.loads((ROOT / "assets/knowledge/gpus.toml").read_text(encoding="utf-8"))["gpu"]
    cc = {g["name"]: g["compute_capability"] for g in gpus}
    devices: dict[str, dict[str, str]] = {}
    for dev, label in sorted(nvidia_devices(pci_ids).items()):
        inner = re.search(r"\[(.+)\]", label)
        for name in (inner.group(1) if inner else "").split(" / "):
            name = name.strip()
            base = MEMORY.sub("", name)
            hit = name if name in cc else base if base in cc else None
            if hit:
                devices[dev] = {"name": hit, "cc": cc[hit], "pci_ids": label}
                break
    return {
        "source": f"https://github.com/pciutils/pciids/blob/{commit}/pci.ids (vendor 10de), "
        "compute capability from assets/knowledge/gpus.toml by product name",
        "devices": devices,
    }


if __name__ == "__main__":
    text = Path(sys.argv[1]).read_text(encoding="utf-8", errors="replace")
    print(json.dumps(table(text, sys.argv[2]), indent=1, ensure_ascii=False))
