"""NVIDIA's PCI device ids -> compute capability, for drivers that do not report it (before R510).

    python -m maint.harvest.pci_ids PATH/TO/pci.ids COMMIT > assets/knowledge/gpu_pci_ids.json

Reads the pci.ids database (github.com/pciutils/pciids) for vendor 10de and keeps a device id only
where one of its product names (the [A / B] part) is a GPU of assets/knowledge/gpus.toml, exactly or
with a memory size or "Lite Hash Rate" after it ("GeForce GTX 1060 6GB", "GeForce RTX 3060 Lite Hash
Rate"), or a laptop part of one ("GeForce RTX 5090 Max-Q / Mobile" is the GeForce RTX 5090 Laptop GPU;
"GeForce GTX 1060 Mobile" a GTX 1060): the compute capability is that table's (sourced there, by
product line), never guessed from a chip name.
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


# pci.ids names a laptop part "<product> Mobile", "<product> Max-Q", "<product> Mobile / Max-Q" or
# "<product> Max-Q / Mobile" (a Refresh or Rev. after it); NVIDIA's driver and table say "<product>
# Laptop GPU" (RTX 30 on) or the product itself, and the compute capability table goes by product line.
LAPTOP = re.compile(r"\s+(?:Mobile|Max-Q|Laptop GPU)(?:\s+(?:Refresh|Rev\. \d+))?$")


def _match(name: str, cc: dict[str, str]) -> tuple[str, str] | None:
    """(the name to show, the table row that gives its compute capability) for one product name."""
    name = re.sub(r"^Geforce\b", "GeForce", name.strip())
    for candidate in (name, MEMORY.sub("", name)):
        if candidate in cc:
            return candidate, candidate
    line = MEMORY.sub("", LAPTOP.sub("", MEMORY.sub("", name)))
    if line == name or not line:
        return None
    laptop = f"{line} Laptop GPU"
    if laptop in cc:
        return laptop, laptop
    # The product line's row: a laptop part has its line's compute capability (the table is by line).
    return (laptop, line) if line in cc else None


def table(pci_ids: str, commit: str) -> dict[str, object]:
    gpus = tomllib.loads((ROOT / "assets/knowledge/gpus.toml").read_text(encoding="utf-8"))["gpu"]
    cc = {g["name"]: g["compute_capability"] for g in gpus}
    devices: dict[str, dict[str, str]] = {}
    for dev, label in sorted(nvidia_devices(pci_ids).items()):
        inner = re.search(r"\[(.+)\]", label)
        for name in (inner.group(1) if inner else "").split(" / "):
            hit = _match(name, cc)
            if hit:
                devices[dev] = {"name": hit[0], "cc": cc[hit[1]], "pci_ids": label}
                break
    return {
        "source": f"https://github.com/pciutils/pciids/blob/{commit}/pci.ids (vendor 10de), "
        "compute capability from assets/knowledge/gpus.toml by product name",
        "devices": devices,
    }


if __name__ == "__main__":
    text = Path(sys.argv[1]).read_text(encoding="utf-8", errors="replace")
    print(json.dumps(table(text, sys.argv[2]), indent=1, ensure_ascii=False))
