"""The NVIDIA GPUs on the PCI bus, one by one, whether or not a driver answers: bus id, device id,
and the name and compute capability the PCI id table gives that device id (wizard.probe.pci_cc).

Read from /sys/bus/pci/devices/*/{vendor,device,class}; where that folder is missing (a replayed
dump, a container), from `lspci -nn` ("01:00.0 VGA compatible controller [0300]: NVIDIA ...
[10de:2503] (rev a1)"), else a pasted plain `lspci` or `lspci -n`. The driver is never asked: this is
what Choose uses when it does not answer.
"""

from __future__ import annotations

import re

from wizard.probe.context import ProbeContext
from wizard.probe.pci_cc import lookup
from wizard.profile import UNKNOWN, PciGpu

NVIDIA_VENDOR = "0x10de"
SYSFS = "/sys/bus/pci/devices"
LSPCI_ARGV = ["lspci", "-nn"]
# A display controller (class 03xx: VGA, 3D, Display) of vendor 10de, with its slot and device id.
_LSPCI = re.compile(
    r"^(?P<slot>(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])\s+"
    r"(?:VGA compatible controller|3D controller|Display controller)\b[^:]*:"
    r".*\[10de:(?P<device>[0-9a-f]{4})\]",
    re.IGNORECASE | re.ASCII,
)
_DEVICE = re.compile(r"[0-9a-f]{4}", re.ASCII)
_SLOT = r"(?P<slot>(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])"
# `lspci -n`: the class and vendor:device as numbers ("00:04.0 0302: 10de:20b0 (rev a1)").
_LSPCI_N = re.compile(
    _SLOT + r"\s+03(?:00|02|80):\s+10de:(?P<device>[0-9a-f]{4})\b", re.IGNORECASE | re.ASCII
)
# Plain `lspci`: names only, the device id where pci.ids names none ("NVIDIA Corporation Device 2237"),
# else the chip and product ("NVIDIA Corporation GA102 [GeForce RTX 3090]").
_LSPCI_PLAIN = re.compile(
    _SLOT
    + r"\s+(?:VGA compatible controller|3D controller|Display controller):\s+"
    + r"NVIDIA Corporation\b(?P<rest>.*)$",
    re.IGNORECASE | re.ASCII,
)
_PLAIN_DEVICE = re.compile(r"\bDevice (?P<device>[0-9a-f]{4})\b", re.IGNORECASE | re.ASCII)
_PLAIN_NAME = re.compile(r"\[(?P<name>[^\]]+)\]")


def read_pci_gpus(ctx: ProbeContext) -> list[PciGpu]:
    """The NVIDIA display controllers this machine shows, sysfs first, then `lspci -nn`."""
    if ctx.system.is_dir(SYSFS):
        return _from_sysfs(ctx)
    return _from_lspci(ctx)


def pci_gpu(bus_id: str, device: str, source: str, shown: str = "") -> PciGpu:
    """One GPU with what the table says of its device id (unknown name and CC where it says none);
    `shown`, the product name plain `lspci` printed where it printed no id."""
    device = device.strip().lower().removeprefix("0x")
    known = lookup(device) if _DEVICE.fullmatch(device) else None
    name, cc = known if known else (shown or UNKNOWN, UNKNOWN)
    device_id = f"10de:{device}" if _DEVICE.fullmatch(device) else UNKNOWN
    return PciGpu(bus_id=bus_id, device_id=device_id, name=name, compute_capability=cc, source=source)


def _from_sysfs(ctx: ProbeContext) -> list[PciGpu]:
    out = []
    for dev in sorted(ctx.system.listdir(SYSFS)):
        base = f"{SYSFS}/{dev}"
        vendor = (ctx.system.read_text(f"{base}/vendor") or "").strip().lower()
        klass = (ctx.system.read_text(f"{base}/class") or "").strip().lower()
        # 0x03xxxx: display controllers (VGA 0x0300, 3D 0x0302); skip NVIDIA audio/USB functions.
        if vendor == NVIDIA_VENDOR and klass.startswith("0x03"):
            device = (ctx.system.read_text(f"{base}/device") or "").strip()
            out.append(pci_gpu(dev, device, "sysfs"))
    return out


def _from_lspci(ctx: ProbeContext) -> list[PciGpu]:
    result = ctx.system.run(LSPCI_ARGV, timeout=3.0)
    for other in (["lspci"], ["lspci", "-n"]):
        if result.missing:
            # A dump made from a pasted output may hold plain `lspci` (or `-nn`'s text under it), or
            # `lspci -n`: each is read for the same device lines.
            result = ctx.system.run(other, timeout=3.0)
    # The device lines are the answer, whatever the exit code (a pasted output shows none): lspci
    # prints a device only after it read it.
    if result.missing or result.timed_out:
        return []
    return lspci_gpus(result.stdout)


def lspci_gpus(text: str) -> list[PciGpu]:
    """`lspci -nn` (or -Dnn) text -> its NVIDIA display controllers, slots as sysfs names them."""
    out = []
    for line in text.splitlines():
        m = _LSPCI.match(line.strip()) or _LSPCI_N.match(line.strip())
        plain = None if m else _LSPCI_PLAIN.match(line.strip())
        found = m or plain
        if found is None:
            continue
        slot = found.group("slot").lower()
        bus = slot if slot.count(":") == 2 else f"0000:{slot}"
        device, shown = (m.group("device"), "") if m else _plain_device(found.group("rest"))
        out.append(pci_gpu(bus, device, "lspci", shown))
    return out


def _plain_device(rest: str) -> tuple[str, str]:
    """(the device id, the product name) a plain `lspci` line prints after "NVIDIA Corporation"; ""
    for what it does not print."""
    device = _PLAIN_DEVICE.search(rest)
    name = _PLAIN_NAME.search(rest)
    return (device.group("device") if device else "", name.group("name") if name else "")
