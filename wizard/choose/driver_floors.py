"""Choose's driver floors: the lowest NVIDIA driver that runs a CUDA major under minor-version
compatibility (NVIDIA's CUDA release notes, "CUDA Toolkit and Minimum Required Driver Version for
CUDA Minor Version Compatibility"). WSL2: TensorFlow's pip guide asks for >= 528.33 for CUDA 12.

One table for the plan's driver step (wizard.plan.common) and the doctor's reading of a build's
CUDA beside a driver version (wizard.doctor.figures).
"""

from __future__ import annotations

DRIVER_FLOOR_LINUX = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}
DRIVER_FLOOR_WSL = {11: "452.39", 12: "528.33", 13: "580.88"}


def driver_numbers(version: str) -> tuple[int, ...] | None:
    """'450.80.02' -> (450, 80, 2); None for a version that is not dotted ASCII numbers."""
    parts = version.strip().split(".")
    if not parts or not all(p.isascii() and p.isdigit() for p in parts):
        return None
    return tuple(int(p) for p in parts)


def driver_at_least(driver: str, floor: str) -> bool:
    """The plan's test of a driver against a floor. False, not an error, for a driver that does
    not parse ("", UNKNOWN, a vendor string): the plan then asks for the driver step."""
    have, need = driver_numbers(driver), driver_numbers(floor)
    return have is not None and need is not None and have >= need


def below_linux_floor(driver: str, cuda_major: int) -> bool:
    """True only where both are known and the driver is older than the CUDA major's Linux floor
    (the lowest of the platforms: a Windows driver is never called too old by it wrongly)."""
    floor = DRIVER_FLOOR_LINUX.get(cuda_major)
    return floor is not None and driver_numbers(driver) is not None and not driver_at_least(driver, floor)
