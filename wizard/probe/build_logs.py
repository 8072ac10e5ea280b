"""What the NVIDIA module's build tools left behind for the running kernel: a failed build.

Each tool keeps its own record, read as it writes it:
- akmods (Fedora): /var/cache/akmods/nvidia/<version>-for-<kernel>.failed.log
  (failure_words.akmods_failed_log).
- DKMS: a failed build leaves /var/lib/dkms/<name>/<version>/build/make.log (DKMS_MODULE's names;
  "Consult ... for more information"), whose first line names the kernel it was for (dkms.in
  prepare_build): "DKMS make.log for <name>-<version> for kernel <kernel> (<arch>)" to DKMS 3.1.1,
  "<name>/<version>" from 3.1.2, "DKMS (dkms-3.1.5) make.log for ..." from 3.1.5; a build that worked
  moves its log under <version>/<kernel>/<arch>/log.
  `dkms status` lists "nvidia/<version>, <kernel>, <arch>: installed" (before DKMS 3: "nvidia,
  <version>, <kernel>, <arch>: installed") for each kernel it built for, and "nvidia/<version>: added"
  where it built for none; other modules' rows show the kernels DKMS builds for.
- nvidia-installer (the .run file): /var/log/nvidia-installer.log holds its last run; a failed build
  says `An error occurred while performing the step: "Building kernel modules"` (kernel.c run_make),
  with --dkms `"Checking to see whether the nvidia kernel module was successfully built"`, or "The
  nvidia kernel module was not created."; it builds for the running kernel unless its
  "Kernel source path: '/lib/modules/<kernel>/build'" names another.

Each proves only that this tool did not build the module for this kernel; the caller names
module-not-built only where no module for the running kernel is found either (modinfo).
"""

from __future__ import annotations

import re

from wizard.probe.context import ProbeContext, command_evidence, file_evidence
from wizard.probe.failure_words import AKMODS_CACHE, akmods_failed_log
from wizard.profile import Evidence

DKMS_TREE = "/var/lib/dkms"
DKMS_STATUS = ["dkms", "status"]
NVIDIA_INSTALLER_LOG = "/var/log/nvidia-installer.log"
# The DKMS names NVIDIA's driver module goes by: "nvidia" (NVIDIA's own packages, Ubuntu, Arch),
# "nvidia-open"; Ubuntu's packages before 18.04 by branch ("nvidia-384", "nvidia-340-updates",
# "nvidia-current-updates"); Debian's nvidia-graphics-drivers by variant: "nvidia-current" (the
# nvidia-kernel-dkms package), "nvidia-current-open", "nvidia-tesla-470", "nvidia-legacy-390xx".
# Not "nvidia-fs" (GPUDirect Storage) or another module named after NVIDIA.
DKMS_MODULE = (
    r"nvidia(?:-[0-9]+|-(?:open|current|tesla|legacy|experimental)(?:-[0-9]+(?:xx)?)?(?:-open)?)?"
    r"(?:-updates)?"
)
_DKMS_MODULE_DIR = re.compile(rf"{DKMS_MODULE}")
_DKMS_HEADER = re.compile(
    rf"^#?\s*DKMS (?:\(dkms-[^)\s]*\) )?make\.log for {DKMS_MODULE}[-/]([0-9][^\s]*) for kernel (\S+)",
    re.MULTILINE,
)
# A make.log read without its header (a pasted tail): make's last word is its failure ("make: ***
# [Makefile:80: modules] Error 2"; "Chyba 2", "Fehler 2" in other languages), and the kernel is the
# headers tree make entered ("Leaving directory '/usr/src/linux-headers-6.8.0-45-generic'", Void's
# "/usr/src/kernel-headers-6.12.7_1", "/lib/modules/<kernel>/build").
_MAKE_FAILED = re.compile(r"^make(?:\[[0-9]+\])?: \*\*\* \[[^\]\n]*\] \S+ [0-9]+\s*\Z", re.MULTILINE)
_MAKE_KERNEL = re.compile(
    r"directory '(?:/usr/src/(?:linux-headers-|kernel-headers-|kernels/)([^/']+)|"
    r"(?:/usr)?/lib/modules/([^/']+)/build)'"
)
_DKMS_PATH = re.compile(rf"^{DKMS_TREE}/{DKMS_MODULE}/([0-9][^/]*)/build/make\.log$")
# A make.log read from its middle (no header, no make's last line): the compiler's error in one of the
# driver's own sources ("/var/lib/dkms/nvidia/396.54.09/build/nvidia-drm/nvidia-drm-encoder.c:219:11:
# error: implicit declaration ..."), which stops the build (DKMS keeps this log only for a failed one).
_SOURCE_ERROR = re.compile(r"^\S*/build/\S+\.[ch]:[0-9]+:[0-9]+: (?:fatal )?error: ", re.MULTILINE)
# akmods' failed log is named "<kmod version>-<release>-for-<kernel>.failed.log" (akmods: kmodlogfile).
_AKMODS_NAME = re.compile(r"^([0-9][^/]*?)-for-(.+)\.failed\.log$")
_DRIVER_VERSION = re.compile(r"^[0-9]+(?:\.[0-9]+)+")
# "nvidia/580.95.05, 6.17.9-arch1-1, x86_64: installed", "nvidia, 390.157: added"
_DKMS_ROW = re.compile(
    rf"^({DKMS_MODULE})[/,]\s*([^,:\s]+)(?:,\s*([^,:\s]+))?(?:,\s*([^,:\s]+))?:\s*([a-z]+)", re.MULTILINE
)
_INSTALLER_FAILED = re.compile(
    r'An error occurred while performing the step: "(?:Building kernel modules|'
    r'Checking to see whether the nvidia kernel module was successfully built)"|'
    r"The nvidia kernel module was not created|Unable to build the NVIDIA kernel module"
)
_INSTALLER_KERNEL = re.compile(
    r"Kernel (?:source|output) path: '(?:/lib/modules/([^/']+)/|/usr/src/(?:linux-headers-|kernels/)([^/']+))"
)


def failed_builds(ctx: ProbeContext) -> list[tuple[Evidence, str, str]]:
    """Every failed build of an NVIDIA driver's module that akmods or DKMS left a record of: (the
    record as evidence, the kernel it was built for, the driver's version)."""
    out: list[tuple[Evidence, str, str]] = []
    for name in ("nvidia", "nvidia-open"):
        for path in ctx.system.glob(f"{AKMODS_CACHE}/{name}", "*-for-*.failed.log"):
            akmods = _AKMODS_NAME.match(path.rsplit("/", 1)[-1])
            version = _DRIVER_VERSION.match(akmods.group(1)) if akmods else None
            if akmods:
                out.append(
                    (file_evidence(path, "present"), akmods.group(2), version.group(0) if version else "")
                )
    for path in ctx.system.glob(DKMS_TREE, "*/*/build/make.log"):
        if not _DKMS_MODULE_DIR.fullmatch(path[len(DKMS_TREE) + 1 :].split("/", 1)[0]):
            continue
        text = ctx.system.read_text(path, 4096) or ""
        m = _DKMS_HEADER.search(text)
        if m:
            version = _DRIVER_VERSION.match(m.group(1))
            out.append(
                (
                    file_evidence(path, m.group(0).lstrip("# ")),
                    m.group(2),
                    version.group(0) if version else "",
                )
            )
        elif (failed := _MAKE_FAILED.search(text)) and (kernel := _MAKE_KERNEL.search(text)):
            out.append(
                (
                    file_evidence(path, failed.group(0).strip()),
                    kernel.group(1) or kernel.group(2),
                    _path_version(path),
                )
            )
        elif error := _SOURCE_ERROR.search(text):
            # The build failed; the kernel it was for is not in what was kept ("").
            line = text[error.start() :].split("\n", 1)[0].strip()
            out.append((file_evidence(path, line), "", _path_version(path)))
    return out


def _path_version(path: str) -> str:
    """The driver version in a DKMS build's path (/var/lib/dkms/nvidia/<version>/build/make.log)."""
    m = _DKMS_PATH.match(path)
    version = _DRIVER_VERSION.match(m.group(1)) if m else None
    return version.group(0) if version else ""


def dkms_failed_log(ctx: ProbeContext, kernel: str) -> Evidence | None:
    return next(
        (
            ev
            for ev, built_for, _ in failed_builds(ctx)
            if built_for == kernel and ev.source.startswith(DKMS_TREE)
        ),
        None,
    )


def build_version(ev: Evidence) -> str:
    """The driver version a failed build's record names (DKMS's make.log header, akmods' log name)."""
    dkms = _DKMS_HEADER.search(ev.line)
    akmods = _AKMODS_NAME.match(ev.source.rsplit("/", 1)[-1])
    named = dkms.group(1) if dkms else akmods.group(1) if akmods else ""
    version = _DRIVER_VERSION.match(named)
    return version.group(0) if version else _path_version(ev.source)


def failed_build_of_unread_kernel(ctx: ProbeContext) -> tuple[Evidence, str, str] | None:
    """Where the running kernel was not read (a pasted output): the failed build records, where they
    all name one kernel and one driver (the build DKMS ran at a kernel's install or at boot, for the
    kernel to boot): (the record, that kernel, the version). None where there are none, or several."""
    builds = failed_builds(ctx)
    if len({(kernel, version) for _, kernel, version in builds}) != 1:
        return None
    return builds[0]


def dkms_status_unbuilt(ctx: ProbeContext, kernel: str) -> Evidence | None:
    """`dkms status` where it shows the nvidia module built for no kernel ("added" only), or DKMS
    built other modules for the running kernel and not nvidia. Rows for other kernels alone decide
    nothing: the running kernel's module may come from elsewhere (a distribution's prebuilt one)."""
    if "dkms" not in ctx.seen:  # one run of `dkms status` per probe (states reads it too)
        ctx.seen["dkms"] = (DKMS_STATUS, ctx.system.run(DKMS_STATUS, timeout=10.0))
    result = ctx.seen["dkms"][1]
    if result.missing or result.timed_out:
        return None
    rows = list(_DKMS_ROW.finditer(result.stdout))
    if not rows:
        return None
    built = [r for r in rows if r.group(5) in ("built", "installed")]
    if any(kernel in (r.group(3), r.group(4)) for r in built):
        return None
    others = [line for line in result.stdout.splitlines() if f", {kernel}," in line and ": " in line]
    if built and not others:
        return None
    return command_evidence(DKMS_STATUS, result, rows[0].group(0))


def installer_failed_build(ctx: ProbeContext, kernel: str) -> Evidence | None:
    text = ctx.system.read_text(NVIDIA_INSTALLER_LOG) or ""
    said = _INSTALLER_FAILED.search(text)
    if not said:
        return None
    named = {m.group(1) or m.group(2) for m in _INSTALLER_KERNEL.finditer(text)}
    if named and kernel not in named:
        return None
    return file_evidence(NVIDIA_INSTALLER_LOG, said.group(0))


def failed_module_build(ctx: ProbeContext, kernel: str) -> Evidence | None:
    """The record of a build of the nvidia module that failed for the running kernel, or None."""
    if not kernel or kernel == "unknown":
        return None
    akmods = akmods_failed_log(ctx.system, kernel)
    if akmods:
        return file_evidence(akmods, "present")
    return (
        dkms_failed_log(ctx, kernel)
        or dkms_status_unbuilt(ctx, kernel)
        or installer_failed_build(ctx, kernel)
    )
