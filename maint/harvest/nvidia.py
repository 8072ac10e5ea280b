"""The nvidia-* wheels a plan can install: which versions to read, and the archs each library holds."""

from __future__ import annotations

import os
import platform
import re
import stat
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from maint.harvest import resolve
from maint.harvest.context import LINUX_X86_64, PREFERRED_PYTHON, Context
from maint.harvest.fatbin import Scan, arch_key
from maint.harvest.store import today
from maint.harvest.tensorflow import ptx_list
from maint.harvest.wheelinfo import exact_pin, file_facts, scan_wheel_libraries

# Families read by default ("-cu11"/"-cu12" follow); --nvidia-all reads every nvidia-* a TF names.
DEFAULT_FAMILIES = (
    "nvidia-cudnn",
    "nvidia-cublas",
    "nvidia-cuda-runtime",
    "nvidia-cuda-nvrtc",
    "nvidia-nvjitlink",
    "nvidia-cuda-nvcc",
    # The other libraries TF loads: their GPU code bounds the set like cuDNN's (issue 20 point 4).
    "nvidia-cufft",
    "nvidia-curand",
    "nvidia-cusolver",
    "nvidia-cusparse",
    "nvidia-nccl",
    "nvidia-cuda-cupti",
)
# Versions read besides those TF pins and pip resolves (cuDNN releases that differ in arch floor).
DEFAULT_EXTRAS = ("nvidia-cudnn-cu12==9.3.0.75", "nvidia-cudnn-cu12==9.10.2.21")
CUDA_SUFFIX = re.compile(r"-cu\d+$")


def family(package: str) -> str:
    return CUDA_SUFFIX.sub("", package)


def plan(
    ctx: Context, extras: list[str], newest: bool, every_package: bool
) -> dict[tuple[str, str], set[str]]:
    """(package, version) -> why it is read: a TF pin, a pip resolution, a named extra, or the newest."""
    wanted: dict[tuple[str, str], set[str]] = {}

    def want(pkg: str, version: str, why: str) -> None:
        if every_package or family(pkg) in DEFAULT_FAMILIES:
            wanted.setdefault((resolve.canonical(pkg), version), set()).add(why)

    for tf_version, entry in ctx.store.tensorflow.items():
        for line in entry.get("and_cuda_requires") or []:
            pinned = exact_pin(line)
            if pinned:
                want(pinned[0], pinned[1], f"pinned by tensorflow[and-cuda]=={tf_version}")
        for pkg, info in (entry.get("pip_resolved_and_cuda") or {}).items():
            want(pkg, info["version"], f"resolved for tensorflow[and-cuda]=={tf_version}")
    for line in extras:
        pinned = exact_pin(line)
        if not pinned:
            raise ValueError(f"--nvidia-extra needs NAME==VERSION, got {line!r}")
        wanted.setdefault((resolve.canonical(pinned[0]), pinned[1]), set()).add("named extra")
    if newest:
        packages = sorted({pkg for pkg, _ in wanted if pkg.endswith("-cu12")})
        for pkg in packages:
            got = resolve.dry_run(ctx.pip, pkg, PREFERRED_PYTHON, LINUX_X86_64)
            if got:
                wanted.setdefault((pkg, got[0].version), set()).add("newest")
    return wanted


def harvest_wheel(ctx: Context, package: str, version: str, why: set[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"harvested": today(), "why": sorted(why)}

    def read() -> None:
        wheel = resolve.download(
            ctx.pip, f"{package}=={version}", PREFERRED_PYTHON, LINUX_X86_64, ctx.workdir
        )
        try:
            entry["wheel"] = file_facts(wheel).to_json()
            libs = scan_wheel_libraries(wheel, ctx.workdir, progress=lambda m: ctx.log(f"  {package}: {m}"))
            total = Scan()
            for found in libs.values():
                total.merge(found)
            entry["sass"] = sorted(total.sass, key=arch_key)
            entry["ptx"] = ptx_list(total.ptx)
            if total.notes:
                entry["notes"] = sorted(total.notes)
            entry["libs"] = {
                name: {"sass": sorted(found.sass, key=arch_key), "ptx": ptx_list(found.ptx)}
                for name, found in sorted(libs.items())
                if not found.empty
            }
            if family(package) == "nvidia-cuda-nvcc":
                entry["ptxas"] = ptxas_facts(wheel, ctx.workdir)
        finally:
            ctx.discard(wheel)
        ctx.log(f"  {package} {version}: SASS {entry['sass']}")

    ctx.stage(entry, "wheel", read)
    return entry


PTXAS_RELEASE = re.compile(r"release (\d+\.\d+), V([\d.]+)")
PTXAS_CURRENT = re.compile(r"current version is '(\d+\.\d+)'")
PTXAS_ARCHS = re.compile(r"'(sm_\d+[a-z]?)'")
# A PTX ISA no ptxas knows: the error names the newest one it accepts.
PROBE_PTX = ".version 99.9\n.target sm_52\n.address_size 64\n"


def ptxas_facts(wheel: Path, workdir: Path) -> dict[str, Any]:
    """Ask the wheel's own ptxas for its release, the newest PTX ISA it takes, and its sm_ targets."""
    with zipfile.ZipFile(wheel) as zf:
        members = [n for n in zf.namelist() if n.endswith("/bin/ptxas")]
        if not members:
            return {"error": "no bin/ptxas in the wheel"}
        if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
            return {"error": "ptxas is a Linux x86_64 program; not run on this host"}
        with tempfile.TemporaryDirectory(dir=workdir) as tmp:
            exe = Path(tmp) / "ptxas"
            exe.write_bytes(zf.read(members[0]))
            exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
            probe = Path(tmp) / "probe.ptx"
            probe.write_text(PROBE_PTX)
            env = {**os.environ, "LC_ALL": "C"}
            version = _run([str(exe), "--version"], env)
            errors = _run([str(exe), "-arch=sm_52", str(probe), "-o", os.devnull], env)
            helptext = _run([str(exe), "--help"], env)
    facts: dict[str, Any] = {}
    if m := PTXAS_RELEASE.search(version):
        facts.update(release=m.group(1), version=m.group(2))
    if m := PTXAS_CURRENT.search(errors):
        facts["ptx_isa"] = m.group(1)
    allowed = helptext.split("Allowed values for this option:", 1)[1] if "Allowed values" in helptext else ""
    archs = sorted(set(PTXAS_ARCHS.findall(allowed.split("--", 1)[0])), key=arch_key)
    if archs:
        facts["sm_targets"] = archs
    return facts or {"error": "ptxas printed nothing usable"}


def _run(cmd: list[str], env: dict[str, str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, check=False)
    return proc.stdout + proc.stderr
