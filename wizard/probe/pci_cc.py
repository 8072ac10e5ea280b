"""A GPU's compute capability from its PCI device id, where the driver does not report it (NVML and
nvidia-smi before R510): assets/knowledge/gpu_pci_ids.json (maint/harvest/pci_ids.py: pci.ids names
matched to gpus.toml's sourced compute capabilities). Unknown ids stay unknown."""

from __future__ import annotations

import json
from functools import cache

from wizard.probe.context import ProbeContext
from wizard.profile import GpuInfo, MachineProfile


@cache
def _table() -> dict[str, dict[str, str]]:
    from wizard.assets import asset_text

    try:
        data = json.loads(asset_text("knowledge/gpu_pci_ids.json"))
        devices = data.get("devices", {})
        return devices if isinstance(devices, dict) else {}
    except (OSError, ValueError):
        return {}


def lookup(device: str) -> tuple[str, str] | None:
    """An NVIDIA device id ("2503", "0x2503") -> (the table's name, its compute capability)."""
    found = _table().get(device.strip().lower().removeprefix("0x"))
    if not found or not isinstance(found.get("cc"), str):
        return None
    return str(found.get("name") or "unknown"), found["cc"]


def sysfs_bus(bus_id: str) -> str | None:
    """ "00000000:01:00.0" (NVML, nvidia-smi) -> "0000:01:00.0" (sysfs); None when it is not one."""
    parts = bus_id.strip().lower().split(":")
    if len(parts) != 3 or not all(parts) or "." not in parts[2]:
        return None
    domain = parts[0][-4:].rjust(4, "0")
    return f"{domain}:{parts[1]}:{parts[2]}"


def fill_cc(ctx: ProbeContext, profile: MachineProfile) -> None:
    """Every GPU of unknown compute capability whose PCI device id the table knows gets its CC."""
    # The bus as the probe read it (sysfs, or `lspci -nn` in a dump without /sys): bus id -> device.
    on_bus = {g.bus_id: g.device_id.split(":")[-1] for g in profile.pci_gpus}
    for gpu in profile.gpus:
        if gpu.compute_capability != "unknown" or not gpu.pci_bus_id:
            continue
        _fill(ctx, gpu, on_bus)


def _fill(ctx: ProbeContext, gpu: GpuInfo, on_bus: dict[str, str]) -> None:
    bus = sysfs_bus(gpu.pci_bus_id or "")
    if bus is None:
        return
    path = f"/sys/bus/pci/devices/{bus}/device"
    device = (ctx.system.read_text(path) or on_bus.get(bus, "")).strip().lower().removeprefix("0x")
    found = _table().get(device)
    if found and isinstance(found.get("cc"), str):
        gpu.compute_capability = found["cc"]
        ctx.note(
            "probe.cc_from_pci",
            index=gpu.index,
            cc=found["cc"],
            device=f"0x{device}",
            name=found.get("name", ""),
        )
