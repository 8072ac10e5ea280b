"""Rough figures of a GPU for the simulated (demo) monitor and benchmark: FP32 speed and board power.

Demo profiles describe someone else's machine; their simulated readings should still
tell a GTX 1080 from an RTX 5090. The FP32 TFLOP/s is NVIDIA's published peak from
assets/knowledge/gpus.toml when it is there, else the rough figure below (NVIDIA's spec
sheets at boost clock, rounded); board power is the rated board power / TDP (a laptop
GPU: the usual top of its range). A GPU in neither falls back on its compute capability.
Only simulations use these numbers: a real run measures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from wizard.assets import asset_text
from wizard.tomlcompat import tomllib

# name (without "NVIDIA ", lower case) -> (FP32 TFLOP/s, board power W)
ROUGH: dict[str, tuple[float, int]] = {
    "geforce gtx 680": (3.1, 195),
    "tesla k80": (4.1, 150),
    "geforce gtx 750 ti": (1.4, 60),
    "geforce gtx 960m": (1.4, 65),
    "geforce gtx 970": (3.9, 145),
    "geforce gtx 980": (5.0, 165),
    "geforce gtx 980 ti": (6.1, 250),
    "tesla p100-pcie-16gb": (9.3, 250),
    "geforce gtx 1050": (1.9, 75),
    "geforce gtx 1050 ti": (2.1, 75),
    "geforce gtx 1060": (4.4, 120),
    "geforce gtx 1070": (6.5, 150),
    "geforce gtx 1080": (8.9, 180),
    "geforce gtx 1080 ti": (11.3, 250),
    "geforce mx150": (1.1, 25),
    "geforce mx250": (1.2, 25),
    "geforce mx450": (1.6, 28),
    "titan v": (14.9, 250),
    "tesla v100-sxm2-16gb": (15.7, 300),
    "tesla v100-pcie-16gb": (14.0, 250),
    "tesla t4": (8.1, 70),
    "geforce gtx 1650": (3.0, 75),
    "geforce gtx 1650 ti": (3.0, 55),
    "geforce gtx 1660": (5.0, 120),
    "geforce gtx 1660 ti": (5.4, 120),
    "geforce gtx 1660 super": (5.0, 125),
    "geforce rtx 2060": (6.5, 160),
    "geforce rtx 2070": (7.5, 175),
    "geforce rtx 2080": (10.1, 215),
    "geforce rtx 2080 ti": (13.4, 250),
    "a100-sxm4-40gb": (19.5, 400),
    "a100-sxm4-80gb": (19.5, 400),
    "a100-pcie-40gb": (19.5, 250),
    "a100 80gb pcie": (19.5, 300),
    "a10": (31.2, 150),
    "a10g": (31.2, 150),
    "geforce rtx 3050": (9.1, 130),
    "geforce rtx 3050 laptop gpu": (5.5, 80),
    "geforce rtx 3060": (12.7, 170),
    "geforce rtx 3060 laptop gpu": (10.9, 115),
    "geforce rtx 3060 ti": (16.2, 200),
    "geforce rtx 3070": (20.3, 220),
    "geforce rtx 3070 laptop gpu": (16.6, 125),
    "geforce rtx 3080": (29.8, 320),
    "geforce rtx 3080 laptop gpu": (18.7, 150),
    "geforce rtx 3080 ti": (34.1, 350),
    "geforce rtx 3090": (35.6, 350),
    "l4": (30.3, 72),
    "l40s": (91.6, 350),
    "geforce rtx 4050 laptop gpu": (8.9, 115),
    "geforce rtx 4060": (15.1, 115),
    "geforce rtx 4060 laptop gpu": (11.6, 115),
    "geforce rtx 4060 ti": (22.1, 160),
    "geforce rtx 4070": (29.1, 200),
    "geforce rtx 4070 laptop gpu": (15.6, 115),
    "geforce rtx 4070 ti": (40.1, 285),
    "geforce rtx 4080": (48.7, 320),
    "geforce rtx 4080 laptop gpu": (33.0, 150),
    "geforce rtx 4090": (82.6, 450),
    "geforce rtx 4090 laptop gpu": (32.9, 150),
    "h100 80gb hbm3": (67.0, 700),
    "h100 pcie": (51.0, 350),
    "h100 nvl": (60.0, 400),
    "h200": (67.0, 700),
    "h200 nvl": (60.0, 600),
    "geforce rtx 5060": (19.2, 145),
    "geforce rtx 5060 laptop gpu": (14.0, 115),
    "geforce rtx 5070": (30.9, 250),
    "geforce rtx 5070 laptop gpu": (16.0, 115),
    "geforce rtx 5070 ti": (43.9, 300),
    "geforce rtx 5080": (56.3, 360),
    "geforce rtx 5090": (104.8, 575),
}
# compute capability major -> a typical desktop card of that generation (unknown GPUs)
BY_GENERATION: dict[int, tuple[float, int]] = {
    3: (3.0, 190),
    5: (4.0, 150),
    6: (7.0, 170),
    7: (10.0, 200),
    8: (25.0, 250),
    9: (60.0, 500),
    10: (80.0, 700),
    12: (40.0, 300),
}
LAPTOP = (0.6, 115)  # an unknown laptop GPU: this share of the desktop speed, at this power
DEFAULT = (10.0, 170)


@dataclass(frozen=True)
class GpuClass:
    fp32_tflops: float
    watts: int
    source: str  # "published" (gpus.toml), "rough" (the table above) or "generation"


def _key(name: str) -> str:
    return " ".join(name.replace("NVIDIA", " ").split()).lower()


def laptop_gpu(name: str) -> bool:
    """A laptop's GPU by the name NVML gives: "… Laptop GPU", a Max-Q design (Pascal to Turing), an
    older "…M" (GTX 960M)."""
    key = _key(name)
    return "laptop" in key or "max-q" in key or key.endswith("m")


def _major(cc: str | None) -> int | None:
    m = re.match(r"\s*([0-9]+)\.", cc or "")
    return int(m.group(1)) if m else None


def gpu_class(name: str | None, cc: str | None = None) -> GpuClass:
    """FP32 TFLOP/s and board power for a GPU name (as NVML gives it); deterministic."""
    key = _key(name or "")
    rough = ROUGH.get(key)
    published = _published_fp32(name or "")
    if rough is not None:
        return GpuClass(published or rough[0], rough[1], "published" if published else "rough")
    tflops, watts = BY_GENERATION.get(_major(cc) or -1, DEFAULT)
    if laptop_gpu(name or ""):
        tflops, watts = tflops * LAPTOP[0], LAPTOP[1]
    return GpuClass(published or tflops, watts, "published" if published else "generation")


def _published_fp32(name: str) -> float | None:
    from wizard.choose.knowledge import load_knowledge

    try:
        gpu = load_knowledge().gpu(name)
    except Exception:  # a broken table only loses the published figure
        return None
    return float(gpu.fp32_tflops) if gpu is not None and gpu.fp32_tflops else None


# ---- the demo profiles' boards: SM count and clocks for simulated readings and runs ----------------
# (assets/knowledge/sm_throughput.toml, [[board]]). The simulated monitor and the simulated benchmark
# show the same clock: a desktop board under load near its boost clock, a laptop's held well under
# it by its power limit and heat (as real laptops are; the benchmark then says it was held back).
DESKTOP_CLOCK, LAPTOP_CLOCK = 0.97, 0.62


@dataclass(frozen=True)
class Board:
    name: str
    sms: int
    boost_mhz: int
    laptop: bool
    source: str

    @property
    def busy_clock_mhz(self) -> int:
        return round(self.boost_mhz * (LAPTOP_CLOCK if self.laptop else DESKTOP_CLOCK))


@lru_cache(maxsize=1)
def _boards() -> list[dict[str, object]]:
    return list(tomllib.loads(asset_text("knowledge/sm_throughput.toml")).get("board", []))


def board(gpu_name: str | None) -> Board | None:
    """A demo profile's board (SMs, boost clock, laptop or not), by the name NVML gives."""
    want = (gpu_name or "").removeprefix("NVIDIA ").strip()
    for row in _boards() if want else ():
        if row.get("name") == want:
            sms, boost = row["sms"], row["boost_mhz"]
            assert isinstance(sms, int) and isinstance(boost, int)
            return Board(want, sms, boost, bool(row.get("laptop", False)), str(row["source"]))
    return None
