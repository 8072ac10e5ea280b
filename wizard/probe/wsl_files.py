"""What the library folders prove inside WSL2 and inside a container, and no more.

- /usr/lib/wsl/lib is Windows' folder mapped into WSL (C:\\Windows\\System32\\lxss\\lib): it always
  holds Microsoft's own DirectX libraries (libd3d12.so, libdxcore.so), and the Windows NVIDIA driver
  adds libcuda.so.1 and libnvidia-ml.so.1 to it. Only a folder that is there and holds files, but no
  libcuda, shows a Windows side without the NVIDIA driver; a folder that is missing or empty (a
  container, a pasted output) decides nothing.
- A Linux NVIDIA driver installs its libraries with its own version as their suffix
  (libnvidia-tls.so.470.57.02, libnvoptix.so.470.57.02, libcuda.so.470.57.02): one such file
  outside /usr/lib/wsl/lib is that driver, installed inside WSL. CUDA's, cuDNN's and TensorRT's
  libraries carry their own one- or two-digit majors (libnvrtc.so.12.2.140), never a driver's three.
- A container gets the driver's libraries from the runtime by capability: "utility" mounts
  libnvidia-ml.so.1 (and, in WSL2, libdxcore.so), "compute" mounts libcuda.so.1. One of the first
  without libcuda is a GPU passed in with its compute libraries left out.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from wizard.probe.cuda import LIB_DIRS
from wizard.probe.os_platform import WSL_LIB
from wizard.sysio import System

# A Linux driver's user-space library: its file name ends in the driver's version (3-digit major).
_DRIVER_LIB = re.compile(
    r"^lib(?:nvidia-[\w-]+|nvoptix|nvcuvid|cuda|GLX_nvidia|EGL_nvidia|GLESv[12]\w*_nvidia|vdpau_nvidia)"
    r"\.so\.([0-9]{3}\.[0-9]+(?:\.[0-9]+)?)$"
)
# The runtime's "utility" capability (nvidia-container-cli's utility_libs; libdxcore.so in WSL2).
UTILITY_LIBS = ("libnvidia-ml.so.1", "libdxcore.so")
COMPUTE_LIBS = ("libcuda.so.1", "libcuda.so")


def windows_folder_read(system: System) -> list[str]:
    """The files of /usr/lib/wsl/lib, where it is there and holds any (Windows mapped it in)."""
    return [name for name in system.listdir(WSL_LIB) if name]


def windows_folder_without_nvidia(system: System) -> list[str]:
    """Windows' folder where it holds files and none of the NVIDIA driver's (libcuda, libnvidia-ml,
    nvidia-smi, libnvwgf2umx...): the Windows side has no NVIDIA driver. [] where it does not show it."""
    names = windows_folder_read(system)
    nvidia = [n for n in names if re.search(r"cuda|nvidia|^libnv", n, re.IGNORECASE)]
    return [] if nvidia else names


def linux_driver_libraries(system: System) -> dict[str, str]:
    """path -> version of each Linux NVIDIA driver library outside /usr/lib/wsl/lib."""
    found: dict[str, str] = {}
    for d in LIB_DIRS:
        if d == WSL_LIB:
            continue
        for path in system.glob(d, "lib*.so.*"):
            name = PurePosixPath(path).name
            if "/stubs/" in path or PurePosixPath(path).parent == PurePosixPath(WSL_LIB):
                continue
            if m := _DRIVER_LIB.match(name):
                found[path] = m.group(1)
    return found


def first_in_lib_dirs(system: System, names: tuple[str, ...]) -> str:
    """The first of these library files found in the library folders (the path, or "")."""
    for d in LIB_DIRS:
        for name in names:
            path = f"{d}/{name}"
            if system.exists(path):
                return path
    return ""
