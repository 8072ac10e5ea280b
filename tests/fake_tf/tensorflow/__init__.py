"""A stand-in for TensorFlow with the few calls tf_gpu_check.py makes, for tests without a GPU.

It plays a machine, set by environment variables, so the check meets the real faults:
    FAKE_TF_CAPS      build_info cuda_compute_capabilities, comma-separated ("" = CPU build)
    FAKE_TF_GPUS      "name=9.0;name=8.6" (empty: TensorFlow sees no GPU)
    FAKE_TF_FAULT     "" | "wrong-conv" (the GPU's conv gradient is off) | "raise-matmul"
                      (CUDA_ERROR_INVALID_PTX) | "no-gpu-kernel" (a placement error) | "xla" (XLA's
                      ptxas fails) | "cpu-placement" (ops silently run on the CPU); "FAULT@1":
                      on GPU 1 only
    FAKE_TF_SLOW      seconds the first op on a GPU takes (a first-start PTX compile)
    FAKE_TF_CALLS     a file; each import appends one line (how many times the check ran)
    FAKE_TF_BUILD_INFO  JSON: get_build_info() returns it whole (2.22.0rc0's names no compute
                      capabilities nor CUDA version); its is_cuda_build stands for FAKE_TF_CAPS
    FAKE_TF_VERSION   __version__ (default 2.21.0)
    FAKE_TF_DLOPEN    sonames opened by name at import, as TensorFlow's loader does (found through
                      LD_LIBRARY_PATH, the system's folders)
Values are small lists, whatever shape is asked for: the check compares GPU with CPU.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager

__version__ = os.environ.get("FAKE_TF_VERSION") or "2.21.0"
_BUILD_INFO = json.loads(os.environ["FAKE_TF_BUILD_INFO"]) if os.environ.get("FAKE_TF_BUILD_INFO") else None
for _soname in filter(None, os.environ.get("FAKE_TF_DLOPEN", "").split(",")):
    import ctypes

    ctypes.CDLL(_soname)

if os.environ.get("FAKE_TF_CALLS"):
    with open(os.environ["FAKE_TF_CALLS"], "a", encoding="utf-8") as _f:
        _f.write("import\n")

_CAPS = [c for c in os.environ.get("FAKE_TF_CAPS", "").split(",") if c]
_CUDA = bool(_BUILD_INFO.get("is_cuda_build")) if _BUILD_INFO is not None else bool(_CAPS)
_FAULT, _, _FAULT_GPU = os.environ.get("FAKE_TF_FAULT", "").partition("@")
_SLOW = float(os.environ.get("FAKE_TF_SLOW", "0") or 0)
_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
_device = [_CPU]
_warm: set[str] = set()


def _fault(name: str) -> bool:
    """The fault is on, on the GPU the op runs on (every GPU unless FAKE_TF_FAULT names one)."""
    return _FAULT == name and _on_gpu() and (not _FAULT_GPU or _device[-1].endswith(f"GPU:{_FAULT_GPU}"))


def _placed() -> str:
    return _CPU if _fault("cpu-placement") else _device[-1]


def _first_start() -> None:
    if _SLOW and _on_gpu() and _device[-1] not in _warm:
        time.sleep(_SLOW)
        _warm.add(_device[-1])


class _Device:
    def __init__(self, name: str, details: dict) -> None:
        self.name = name
        self.details = details


def _gpus() -> list[_Device]:
    out = []
    for i, item in enumerate(x for x in os.environ.get("FAKE_TF_GPUS", "").split(";") if x):
        name, _, cc = item.partition("=")
        major, minor = (int(p) for p in cc.split("."))
        out.append(
            _Device(f"/physical_device:GPU:{i}", {"device_name": name, "compute_capability": (major, minor)})
        )
    return out


class InternalError(Exception):
    pass


class InvalidArgumentError(Exception):
    pass


class _Tensor:
    def __init__(self, values: list, device: str) -> None:
        self.values = values
        self.device = device

    def numpy(self) -> list:
        return list(self.values)

    def __mul__(self, other: object) -> _Tensor:
        factor = other.values if isinstance(other, _Tensor) else [other] * len(self.values)
        return _Tensor([a * b for a, b in zip(self.values, factor, strict=False)], self.device)

    __rmul__ = __mul__

    def __add__(self, other: object) -> _Tensor:
        if isinstance(other, _Tensor):
            return _Tensor([a + b for a, b in zip(self.values, other.values, strict=False)], self.device)
        return _Tensor([a + float(other) for a in self.values], self.device)  # type: ignore[arg-type]

    __radd__ = __add__


def _on_gpu() -> bool:
    return "GPU" in _device[-1]


class sysconfig:
    @staticmethod
    def get_build_info() -> dict:
        if _BUILD_INFO is not None:
            return dict(_BUILD_INFO)
        return {
            "is_cuda_build": bool(_CAPS),
            "cuda_version": "12.5.1",
            "cudnn_version": "9",
            "cuda_compute_capabilities": list(_CAPS),
        }


class test:
    @staticmethod
    def is_built_with_cuda() -> bool:
        return _CUDA


class _Experimental:
    @staticmethod
    def get_device_details(device: _Device) -> dict:
        return dict(device.details)


class config:
    experimental = _Experimental()

    @staticmethod
    def list_physical_devices(kind: str) -> list[_Device]:
        return _gpus() if kind == "GPU" and _CUDA else []

    @staticmethod
    def set_soft_device_placement(on: bool) -> None:
        pass


@contextmanager
def device(name: str):
    full = "/job:localhost/replica:0/task:0/device:" + name.strip("/").upper()
    _device.append(full)
    try:
        yield
    finally:
        _device.pop()


class random:
    @staticmethod
    def stateless_uniform(shape, seed, minval=0.0, maxval=1.0) -> _Tensor:
        return _Tensor([0.25 * (seed[0] + k) for k in range(4)], _placed())

    @staticmethod
    def stateless_normal(shape, seed) -> _Tensor:
        return _Tensor([0.5 * (seed[1] - k) for k in range(4)], _placed())


def matmul(a: _Tensor, b: _Tensor) -> _Tensor:
    _first_start()
    if _fault("no-gpu-kernel"):
        raise InvalidArgumentError(
            "Cannot assign a device for operation MatMul: Could not satisfy explicit device specification "
            "'/device:GPU:0' because no supported kernel for GPU devices is available."
        )
    if _fault("raise-matmul"):
        raise InternalError("'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'\nmore")
    return _Tensor([x * y for x, y in zip(a.values, b.values, strict=False)], _placed())


def reduce_sum(t: _Tensor) -> _Tensor:
    return _Tensor([sum(t.values)], _device[-1])


class nn:
    @staticmethod
    def relu(x: _Tensor) -> _Tensor:
        return _Tensor([max(0.0, v) for v in x.values], x.device)

    @staticmethod
    def conv2d(x: _Tensor, w: _Tensor, strides=1, padding="SAME") -> _Tensor:
        return _Tensor([a + b for a, b in zip(x.values, w.values, strict=False)], _device[-1])


class GradientTape:
    def __enter__(self) -> GradientTape:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def watch(self, tensors: object) -> None:
        pass

    def gradient(self, loss: _Tensor, sources: list[_Tensor]) -> list[_Tensor]:
        off = 0.5 if _fault("wrong-conv") else 0.0
        return [_Tensor([2.0 * v + off for v in s.values], _device[-1]) for s in sources]


_compiled: list[str] = []  # the devices an XLA function was compiled for (tests read the events)


def function(fn=None, *, jit_compile: bool = False):
    """tf.function: with jit_compile=True the call is "compiled" for the device it runs on; the
    "xla" fault is XLA's ptxas failing for the GPU."""

    def wrap(f):
        def call(*args, **kwargs):
            if jit_compile:
                if _fault("xla"):
                    # ptxas older than this GPU (as CUDA 11.0's for an sm_86 card): the GPU's own sm
                    gpus = _gpus()
                    major, minor = gpus[0].details["compute_capability"] if gpus else (8, 6)
                    raise InternalError(
                        "ptxas exited with non-zero error code 65280, output: ptxas fatal : Value"
                        f" 'sm_{major}{minor}' is not defined for option 'gpu-name'"
                    )
                _compiled.append(_device[-1])
            return f(*args, **kwargs)

        return call

    return wrap(fn) if fn is not None else wrap
