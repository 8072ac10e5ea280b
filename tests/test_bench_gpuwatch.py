"""tf_bench.py's GpuWatch reads the SM count and maximum clock from the driver (libcuda) and the SM
clock, power and temperature from NVML while a result is measured, through ctypes.

No GPU here: a stand-in libcuda.so.1 and libnvidia-ml.so.1 are compiled from C (the real calls'
signatures, a laptop RTX 3080's answers: 48 SMs, 1710 MHz maximum, running at 1050 MHz, 94 W,
87 °C) and found by the dynamic loader as the real ones would be. The readings, folded into a
report as the wizard folds a real run's, give the throttled laptop's figure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.bench.events import validate_event
from wizard.bench.report import BenchReport
from wizard.bench.runner import script_path

FAKE_DRIVER = r"""
#include <string.h>
#include <stdlib.h>
typedef int CUresult; typedef int CUdevice;
CUresult cuInit(unsigned int flags) { return 0; }
CUresult cuDeviceGet(CUdevice *dev, int ordinal) { *dev = ordinal; return 0; }
CUresult cuDeviceGetAttribute(int *value, int attr, CUdevice dev) {
    if (attr == 16) { *value = 48; return 0; }        /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
    if (attr == 13) { *value = 1710000; return 0; }   /* CU_DEVICE_ATTRIBUTE_CLOCK_RATE, kHz */
    return 1;
}
CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice dev) { strncpy(buf, "0000:01:00.0", len); return 0; }
"""
FAKE_NVML = r"""
#include <string.h>
#include <stdlib.h>
static int device;
int nvmlInit_v2(void) { return 0; }
int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **handle) {
    if (strcmp(bus, "0000:01:00.0") != 0) return 2;
    *handle = &device; return 0;
}
int nvmlDeviceGetMaxClockInfo(void *h, int type, unsigned int *mhz) { if (type != 1) return 2; *mhz = 1710; return 0; }
int nvmlDeviceGetClockInfo(void *h, int type, unsigned int *mhz) {
    if (type != 1) return 2; *mhz = (unsigned int)atoi(getenv("FAKE_SM_CLOCK")); return 0;
}
int nvmlDeviceGetPowerUsage(void *h, unsigned int *mw) { *mw = 94000; return 0; }
int nvmlDeviceGetTemperature(void *h, int sensor, unsigned int *c) { if (sensor != 0) return 2; *c = 87; return 0; }
"""
PROBE = """
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("tf_bench", sys.argv[1])
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
watch = bench.GpuWatch()
readings = {}
with watch.sample(readings):
    time.sleep(0.2)
print(json.dumps(readings))
"""


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build the stand-in driver libraries")
    folder = tmp_path_factory.mktemp("fake-driver")
    for name, source in (("libcuda.so.1", FAKE_DRIVER), ("libnvidia-ml.so.1", FAKE_NVML)):
        src = folder / (name + ".c")
        src.write_text(source)
        subprocess.run([cc, "-shared", "-fPIC", "-o", str(folder / name), str(src)], check=True)
    return folder


def _probe(libs: Path | None, clock: int = 1050) -> dict[str, object]:
    env = {**os.environ, "FAKE_SM_CLOCK": str(clock)}
    if libs is not None:
        env["LD_LIBRARY_PATH"] = str(libs)
    with script_path() as script:
        done = subprocess.run(
            [sys.executable, "-c", PROBE, str(script)], env=env, capture_output=True, text=True, check=True
        )
    return dict(json.loads(done.stdout))


def test_the_clocks_a_result_ran_at_are_read_from_the_driver_and_nvml(libs: Path) -> None:
    readings = _probe(libs)
    assert readings["sm_count"] == 48 and readings["max_clock_mhz"] == 1710.0
    assert readings["clock_mhz"] == 1050.0 and readings["clock_min_mhz"] == 1050.0
    assert readings["power_w"] == 94.0 and readings["temperature_c"] == 87.0
    assert isinstance(readings["samples"], int) and readings["samples"] >= 3  # every 20 ms, 0.2 s

    # Folded into a report as a real run's result: the laptop held at 61% of its clock says so.
    report = BenchReport()
    for raw in (
        {"event": "start", "schema": 1},
        {"event": "phase_start", "phase": "environment", "title": "env"},
        {
            "event": "result",
            "phase": "environment",
            "kind": "environment",
            "data": {
                "tf_version": "2.21.0",
                "devices": [],
                "gpus": [{"device_name": "NVIDIA GeForce RTX 3080 Laptop GPU", "compute_capability": "8.6"}],
            },
        },
        {"event": "phase_start", "phase": "matmul", "title": "matmul"},
        {
            "event": "result",
            "phase": "matmul",
            "kind": "matmul",
            "data": {
                "device": "GPU",
                "dtype": "float16",
                "n": 8192,
                "seconds": 0.046,
                "tflops": 24.0,
                "precision": "fp16",
                **readings,
            },
        },
    ):
        report.apply(validate_event(raw))
    row = report.matmul[0]
    assert row.achievable_tflops == pytest.approx(48 * 512 * 1050e6 / 1e12)
    assert row.throttled and report.throttled() is row


def test_no_driver_library_gives_no_clocks_and_no_crash() -> None:
    readings = _probe(None)
    assert readings["clock_mhz"] is None and readings["samples"] == 0
