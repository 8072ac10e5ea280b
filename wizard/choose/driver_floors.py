"""Choose's driver floors: the lowest NVIDIA driver that runs a CUDA major under minor-version
compatibility (NVIDIA's CUDA release notes, "CUDA Toolkit and Minimum Required Driver Version for
CUDA Minor Version Compatibility"). WSL2: TensorFlow's pip guide asks for >= 528.33 for CUDA 12.

One table, and one reading of a driver's version (normalize_driver), for the choice of a set
(wizard.choose.resolver), the plan's driver step (wizard.plan.common) and the doctor's reading of a
build's CUDA beside a driver version (wizard.doctor.figures).
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

DRIVER_FLOOR_LINUX = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}
DRIVER_FLOOR_WSL = {11: "452.39", 12: "528.33", 13: "580.88"}


def normalize_driver(value: object) -> Version | None:
    """'470.256.02' -> Version; Windows' '32.0.15.6636' -> 566.36; junk -> None."""
    text = str(value).strip()
    m = re.fullmatch(r"[0-9]{2}\.[0-9]+\.([0-9]+)\.([0-9]+)", text, re.ASCII)
    if m:  # Windows driver store form: the last five digits are the NVIDIA version
        digits = (m.group(1) + m.group(2).zfill(4))[-5:]
        text = f"{digits[:3]}.{digits[3:]}"
    if not re.fullmatch(r"[0-9]{2,4}(\.[0-9]{1,4}){0,3}", text, re.ASCII):
        return None
    try:
        v = Version(text)
    except InvalidVersion:
        return None
    return v if v.major >= 100 else None


def driver_at_least(driver: str, floor: str) -> bool:
    """The plan's test of a driver against a floor. False, not an error, for a driver that does
    not parse ("", UNKNOWN, a vendor string): the plan then asks for the driver step."""
    have, need = normalize_driver(driver), normalize_driver(floor)
    return have is not None and need is not None and have >= need


def floor_for(cuda_major: int, windows: bool) -> str | None:
    """The floor of a CUDA major on the platform whose driver it is: Windows' (and WSL2's, whose
    driver is the Windows one) or Linux's; None for a major the table lacks."""
    return (DRIVER_FLOOR_WSL if windows else DRIVER_FLOOR_LINUX).get(cuda_major)


def below_floor(driver: str, cuda_major: int, windows: bool) -> bool:
    """True only where both are known and the driver is older than the CUDA major's floor on its
    platform (floor_for)."""
    floor = floor_for(cuda_major, windows)
    return floor is not None and normalize_driver(driver) is not None and not driver_at_least(driver, floor)


def below_linux_floor(driver: str, cuda_major: int) -> bool:
    """True only where both are known and the driver is older than the CUDA major's Linux floor
    (the lowest of the platforms: a Windows driver is never called too old by it wrongly)."""
    floor = DRIVER_FLOOR_LINUX.get(cuda_major)
    return floor is not None and normalize_driver(driver) is not None and not driver_at_least(driver, floor)
