"""The error catalogues harvested from the wheels' headers (assets/knowledge/error_codes.json):
every CUresult and cudaError_t is explained by number and by name, with its documented meaning and
the wheel (file name and sha256) it was read from; a log's codes are read by name and bare number."""

from __future__ import annotations

import json
import re

import pytest

from maint.harvest.error_codes import nvml_class_name, parse_cuda_h, parse_driver_types_h, parse_pynvml
from wizard.assets import asset_text
from wizard.doctor.catalogue import pattern
from wizard.doctor.codes import codes_in, explain_name, explain_number, tables
from wizard.text import has

RAW = json.loads(asset_text("knowledge/error_codes.json"))
WHEEL = re.compile(r"^[A-Za-z0-9_.]+-[0-9][^-]*-.+\.whl$")


def _ids(table: str) -> list[str]:
    return [f"{c['name']}={c['number']}" for c in RAW[table]["codes"]]


@pytest.mark.parametrize("table", ["curesult", "cudaerror", "cudnn", "nvml"])
def test_each_table_cites_the_wheel_it_was_read_from(table: str) -> None:
    src = RAW[table]["source"]
    assert WHEEL.match(src["wheel"]), src["wheel"]
    assert re.fullmatch(r"[0-9a-f]{64}", src["sha256"])
    assert src["path"].endswith((".h", ".py"))


def test_the_tables_hold_every_code_of_their_headers() -> None:
    # Counted in the harvested headers (cuda.h of CUDA 12.5: 97 CUresult; driver_types.h: 129
    # cudaError_t; cudnn_graph.h of cuDNN 9.3: 50 statuses with their deprecated aliases).
    counts = {t: len(RAW[t]["codes"]) for t in ("curesult", "cudaerror", "cudnn", "nvml")}
    assert counts["curesult"] >= 97 and counts["cudaerror"] >= 129 and counts["cudnn"] >= 40
    assert counts["nvml"] >= 30


@pytest.mark.parametrize("entry", _ids("curesult") + _ids("cudaerror"))
def test_every_curesult_and_cudaerror_is_explained_by_name_and_by_number(entry: str) -> None:
    name, number = entry.rsplit("=", 1)
    code = explain_name(name)
    assert code is not None and code.name == name and code.number == int(number)
    # Documented in the header, a sentence: never a name turned into words.
    assert code.meaning.endswith(".") and len(code.meaning) > 20, code.meaning
    assert code.wheel.startswith("nvidia_cuda_runtime") and len(code.sha256) == 64
    assert code.path.endswith(("cuda.h", "driver_types.h")) and code.path in code.source()
    by_number = explain_number(int(number), code.table)
    assert by_number is not None and by_number.number == int(number)
    # An alias shares its number; the number explains the first name the header gives it.
    assert by_number.meaning
    # Its source, as a person reads it: the wheel's file name and sha256 the table cites.
    cited = RAW[code.table]["source"]
    for shown in (code, by_number):
        assert (shown.wheel, shown.sha256) == (cited["wheel"], cited["sha256"])
        assert cited["wheel"] in shown.source() and cited["sha256"] in shown.source()
    # A log line naming it is read as that code (the doctor's fact line); success is no error.
    read = codes_in(f"RuntimeError: failed: {name}")
    if int(number) == 0:
        assert read == []
    else:
        assert read and (read[0].name, read[0].number, read[0].meaning) == (name, int(number), code.meaning)


def test_a_decided_family_is_a_diagnosis_the_doctor_can_show() -> None:
    for table in tables().values():
        for code in table:
            if code.decides:
                assert pattern(code.decides) is not None or has(f"doctor.{code.decides}.title"), code.name
            assert not (code.decides and code.decide_with), code.name


@pytest.mark.parametrize(
    ("line", "name", "number"),
    [
        (
            "E cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
            "CUDA_ERROR_NO_DEVICE",
            100,
        ),
        ("RuntimeError: CUDA error: cudaErrorInsufficientDriver", "cudaErrorInsufficientDriver", 35),
        ("RuntimeError: CUDA error 700", "cudaErrorIllegalAddress", 700),
        (
            "Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable",
            "cudaErrorDevicesUnavailable",
            46,
        ),
        (
            "RuntimeError: cuda runtime error (802) : system not yet initialized",
            "cudaErrorSystemNotReady",
            802,
        ),
        (
            "... NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted",
            "cudaErrorCompatNotSupportedOnDevice",
            804,
        ),
        ("cudaGetDeviceCount returned 35", "cudaErrorInsufficientDriver", 35),
        ("could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED", "CUDNN_STATUS_NOT_INITIALIZED", 1001),
        (
            "pynvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.",
            "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
            18,
        ),
        ("nvmlInit_v2: NVML_ERROR_NO_PERMISSION", "NVML_ERROR_NO_PERMISSION", 4),
    ],
)
def test_a_log_line_names_its_code(line: str, name: str, number: int) -> None:
    found = codes_in(line)
    assert found and found[0].name == name and found[0].number == number


def test_a_number_that_is_not_an_error_code_is_not_read_as_one() -> None:
    assert codes_in("Epoch 46/100 - loss 0.35") == []
    assert codes_in("Driver Version: 535.104.05   CUDA Version: 12.2") == []


HEADER = """
typedef enum cudaError_enum {
    /**
     * The API call returned with no errors.
     */
    CUDA_SUCCESS                              = 0,

    /**
     * This indicates that no CUDA-capable devices were detected by the installed
     * CUDA driver.
     */
    CUDA_ERROR_NO_DEVICE                      = 100,
} CUresult;
"""

RUNTIME = """
enum __device_builtin__ cudaError
{
    /**
     * This indicates that the installed NVIDIA CUDA driver is older than the
     * CUDA runtime library.
     */
    cudaErrorInsufficientDriver           =     35,
    /**
     * \\deprecated
     * This error return is deprecated as of CUDA 4.1.
     */
    , cudaErrorApiFailureBase               =  10000
};
"""


def test_the_harvester_reads_a_header_code_with_its_comment() -> None:
    codes = parse_cuda_h(HEADER)
    assert [(c.name, c.number) for c in codes] == [("CUDA_SUCCESS", 0), ("CUDA_ERROR_NO_DEVICE", 100)]
    assert (
        codes[1].meaning
        == "This indicates that no CUDA-capable devices were detected by the installed CUDA driver."
    )
    runtime = parse_driver_types_h(RUNTIME)
    assert [(c.name, c.number) for c in runtime] == [
        ("cudaErrorInsufficientDriver", 35),
        ("cudaErrorApiFailureBase", 10000),
    ]
    assert runtime[1].meaning.startswith("Deprecated:")


def test_the_harvester_names_nvml_codes_as_pynvml_does() -> None:
    codes = parse_pynvml("NVML_SUCCESS = 0\nNVML_ERROR_LIB_RM_VERSION_MISMATCH   = 18\n")
    assert [(c.name, c.number) for c in codes] == [
        ("NVML_SUCCESS", 0),
        ("NVML_ERROR_LIB_RM_VERSION_MISMATCH", 18),
    ]
    assert nvml_class_name("NVML_ERROR_LIB_RM_VERSION_MISMATCH") == "NVMLError_LibRmVersionMismatch"
    assert nvml_class_name("NVML_ERROR_NO_PERMISSION") == "NVMLError_NoPermission"
