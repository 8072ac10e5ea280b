"""What this GPU can reach at the clock it ran at: SM count x FLOP/clock/SM x SM clock.

A datasheet peak assumes the boost clock of a reference board; a laptop's clock follows its power
limit and its temperature, and TensorFlow's float32 matmul runs as TF32 on Ampere and newer. So a
result is compared with the peak of its own precision at the clock NVML read while it ran, on the
SM count the device reports, with the FLOP per clock per SM of its architecture from a cited table
(assets/knowledge/sm_throughput.toml).

    precision_of(dtype, cc, tf32)           -> "fp32" | "tf32" | "fp16" | "bf16" | None
    flop_per_clock(cc, gpu_name, precision) -> SmRate | None  (the row and its per-SM figure)
    achievable_tflops(sms, clock_mhz, flop_per_clock_sm) -> float
    THROTTLED_BELOW                         a clock under this share of the maximum is held back
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from packaging.version import InvalidVersion, Version

from wizard.assets import asset_text
from wizard.tomlcompat import tomllib

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
# Under 85% of its maximum SM clock while it ran: the GPU was held back (power limit, heat); a
# desktop board under load stays near its boost clock, a laptop on a tight power budget does not.
THROTTLED_BELOW = 0.85


@dataclass(frozen=True)
class SmRate:
    arch: str
    precision: str
    flop_per_clock: int  # per SM, dense
    derived: str
    source: str


@lru_cache(maxsize=1)
def _table() -> dict[str, list[dict[str, object]]]:
    data = tomllib.loads(asset_text("knowledge/sm_throughput.toml"))
    return {"sm": list(data.get("sm", []))}


def _version(text: str | None) -> Version | None:
    try:
        return Version(str(text)) if text else None
    except InvalidVersion:
        return None


def precision_of(dtype: str, cc: str | None, tf32: bool | None = None) -> str | None:
    """The precision a TensorFlow matmul of `dtype` runs in on a GPU of compute capability `cc`;
    float32 is TF32 on Ampere (8.0) and newer unless TF32 was turned off (`tf32=False`)."""
    if dtype == "float16":
        return "fp16"
    if dtype == "bfloat16":
        return "bf16"
    if dtype != "float32":
        return None
    version = _version(cc)
    ampere = version is not None and version >= Version("8.0")
    return "tf32" if ampere and tf32 is not False else "fp32"


def flop_per_clock(cc: str | None, gpu_name: str | None, precision: str) -> SmRate | None:
    version = _version(cc)
    if version is None or precision not in PRECISIONS:
        return None
    segment = "geforce" if "geforce" in (gpu_name or "").lower() else "other"
    for row in _table()["sm"]:
        low, high = _version(str(row.get("cc_min"))), _version(str(row.get("cc_max")))
        if low is None or high is None or not low <= version <= high:
            continue
        if row.get("segment") not in ("all", segment):
            continue
        rate = row.get(precision)
        if not isinstance(rate, int) or rate <= 0:
            return None
        return SmRate(str(row["arch"]), precision, rate, str(row.get("derived", "")), str(row["source"]))
    return None


def achievable_tflops(sms: int, clock_mhz: float, per_sm: int) -> float:
    return sms * per_sm * clock_mhz * 1e6 / 1e12
