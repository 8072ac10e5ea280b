"""Probed facts set from outside, the way uv reads UV_CUDA_DRIVER_VERSION and conda CONDA_OVERRIDE_CUDA:
a build box or CI without the GPU it builds for says what the probe would have read.

  TF_GPU_WIZARD_DRIVER_VERSION=570.133.07   the NVIDIA driver's version
  TF_GPU_WIZARD_DRIVER_CUDA=12.8            the newest CUDA that driver runs
  TF_GPU_WIZARD_GPUS="NVIDIA GeForce RTX 5090=12.0;Tesla T4=7.5"   the GPUs, each NAME=CC

Each one that is set replaces the probed fact and is noted in `profile.overrides` (fact -> the
variable and its value), so every view can say "set by ..."; a value that does not parse is refused
with a note and the probed fact stays.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TypeVar

from wizard.profile import DriverInfo, GpuInfo, MachineProfile, clean_text, note

DRIVER_VERSION = "TF_GPU_WIZARD_DRIVER_VERSION"
DRIVER_CUDA = "TF_GPU_WIZARD_DRIVER_CUDA"
GPUS = "TF_GPU_WIZARD_GPUS"
_VERSION = re.compile(r"[0-9]{2,4}(\.[0-9]{1,3}){1,2}")
_CUDA = re.compile(r"[0-9]{1,2}\.[0-9]{1,2}")
_CC = re.compile(r"[0-9]{1,2}\.[0-9]{1,2}")
T = TypeVar("T")


def _driver(profile: MachineProfile) -> DriverInfo:
    if profile.driver is None:
        profile.driver = DriverInfo(source="override")
    return profile.driver


def apply_overrides(profile: MachineProfile, env: Mapping[str, str]) -> None:
    version = _overridden(profile, env, DRIVER_VERSION, "driver.version", _matching(_VERSION))
    if version is not None:
        _driver(profile).version = version
    cuda = _overridden(profile, env, DRIVER_CUDA, "driver.cuda", _matching(_CUDA))
    if cuda is not None:
        _driver(profile).cuda = cuda
    gpus = _overridden(profile, env, GPUS, "gpus", parse_gpus)
    if gpus is not None:
        profile.gpus = gpus


def _overridden(
    profile: MachineProfile, env: Mapping[str, str], name: str, fact: str, parse: Callable[[str], T | None]
) -> T | None:
    """Variable `name`'s value, parsed, noted in profile.overrides as setting `fact`; None where it is
    unset, or does not parse (refused with a note: the probed fact stays)."""
    value = (env.get(name) or "").strip()
    if not value:
        return None
    parsed = parse(value)
    if parsed is None:
        profile.notes.append(note("probe.override_bad", name=name, value=value))
        return None
    profile.overrides[fact] = f"{name}={value}"
    return parsed


def _matching(pattern: re.Pattern[str]) -> Callable[[str], str | None]:
    return lambda value: value if pattern.fullmatch(value) else None


def parse_gpus(value: str) -> list[GpuInfo] | None:
    """ "NAME=CC;NAME=CC" -> the GPUs; None when any part does not parse."""
    out: list[GpuInfo] = []
    for i, part in enumerate(p for p in value.split(";") if p.strip()):
        name, sep, cc = part.rpartition("=")
        if not sep or not name.strip() or not _CC.fullmatch(cc.strip()):
            return None
        out.append(GpuInfo(index=i, name=clean_text(name.strip()[:200]), compute_capability=cc.strip()))
    return out or None
