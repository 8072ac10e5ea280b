"""The words for what the resolver carries as data: a set's driver need, and the reports of
failures on a GPU. One function per fact, used by Detect, Choose, Plan, Run, the CLI and the
doctor, so a floor is worded once in each language (assets/text/*/recommend.toml, need_*).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from packaging.version import InvalidVersion, Version

from wizard.choose.choice import (
    GPU_GENERATION,
    MINOR,
    TOOLKIT,
    Candidate,
    DriverNeed,
    FailureReport,
    GpuReport,
    XlaLimit,
)
from wizard.probe.state_view import StateWords
from wizard.text import t


def need_sentence(need: DriverNeed, *, fix: bool = True) -> str:
    """ "TF 2.21 uses CUDA 12.5; on Windows a CUDA 12.0 driver runs it from 528.33 on (CUDA
    minor-version compatibility); yours is 527.41: update the Windows driver"."""
    what = need_floor_words(need)
    if need.fix is not None:  # a stopped machine: the state's fix, never an install
        if not fix:
            return t("recommend.need_state_nothing", title=need.fix.title, need=what)
        return t("recommend.need_state", title=need.fix.title, fix=need.fix.fix, need=what)
    if need.restart_only:  # installed, not loaded: a restart, not an install
        if not fix:
            return t("recommend.need_have_installed_nothing", need=what, installed=need.installed)
        fix_words = t("recommend.need_fix_restart")
        return t("recommend.need_have_installed", need=what, installed=need.installed, fix=fix_words)
    if need.met or not fix:  # a caller that words the fix itself (a finding) takes the facts only
        if need.have is None:
            return t("recommend.need_have_nothing", need=what, none=t(f"recommend.need_none_{need.side}"))
        return t("recommend.need_have_ok", need=what, have=need.have)
    how = t(f"recommend.need_fix_{need.side}")
    if need.have is None:
        return t("recommend.need_have_none", need=what, none=t(f"recommend.need_none_{need.side}"), fix=how)
    return t("recommend.need_have_old", need=what, have=need.have, fix=how)


def need_floor_words(need: DriverNeed) -> str:
    """The floor and why, nothing about this machine: "TF 2.21 uses CUDA 12.5; on Linux a CUDA
    12.0 driver runs it from 525.60.13 on (CUDA minor-version compatibility)". A finding headed by
    the machine's state says this after it, not the state's title again."""
    side = t(f"recommend.need_side_{need.side}")
    key = "need_minor" if need.basis == MINOR else "need_toolkit" if need.basis == TOOLKIT else "need_ptx"
    area = "recommend"
    if need.basis == GPU_GENERATION:  # the GPU's own floor (RTX 50: the 570 branch)
        area, key = "gpuroute", "need_gpu"
    return t(
        f"{area}.{key}",
        tf=need.tf,
        cuda=need.cuda,
        basis_cuda=need.basis_cuda,
        floor=need.floor,
        side=side,
    )


def need_paragraph(need: DriverNeed) -> str:
    """The sentence as a whole sentence (its full stop), for a plan step's why."""
    return need_sentence(need) + t("recommend.need_end")


def need_reason(need: DriverNeed) -> str:
    """The same sentence as the first reason of a set with a driver step (a short head first)."""
    if need.fix is not None:
        return t("recommend.need_reason_state", sentence=need_sentence(need))
    key = "need_reason_restart" if need.restart_only else "need_reason"
    return t(f"recommend.{key}", sentence=need_sentence(need))


def step_title(need: DriverNeed) -> str:
    """ "Windows: NVIDIA driver 528.33 or newer": the plan's step and the finding's title;
    "Restart to load NVIDIA driver 550.120" where the driver is installed but not loaded."""
    if need.fix is not None:
        return fix_step_title(need.fix)
    if need.restart_only:
        return t("recommend.need_step_restart", installed=need.installed, floor=need.floor)
    return t(f"recommend.need_step_{need.side}", floor=need.floor)


def fix_step_title(fix: StateWords) -> str:
    """The plan step that fixes a machine state, named by the state (its fix is the step's why)."""
    return t("recommend.need_step_state", title=fix.title)


def first_step_line(need: DriverNeed) -> str:
    """The recommendation's first step, under it (Choose's summary, `recommend`)."""
    if need.fix is not None:
        return t("recommend.first_step_state", step=need.fix.title)
    key = "first_step_restart" if need.restart_only else f"first_step_{need.side}"
    return t(f"recommend.{key}", step=step_title(need))


def upgrade_hint(upgrade: Candidate) -> str:
    """The newer set one key away (native Linux): its TF and its driver need, in one line."""
    need = upgrade.driver
    assert need is not None
    return t(
        "recommend.need_upgrade",
        tf=need.tf,
        step=step_title(need),
        sentence=need_sentence(need),
    )


# ---- reports of failures on a GPU -------------------------------------------------


def reported_text(report: GpuReport, kb: Any = None) -> str:
    """Why Blackwell is a gamble on pip TensorFlow, with the counts the harvest read from the
    wheels: which releases carry their generated (kernel_gen) kernels' PTX only for one
    architecture, and the first that carries it portable."""
    facts = kernel_gen_facts()
    return t(
        "recommend.reported_fail",
        name=report.name,
        cc=report.cc,
        arch=report.arch,
        reports=t("recommend.citation.join").join(citation_text(r) for r in report.reports),
        old=facts.get("old", "2.16-2.20"),
        specific=facts.get("specific", "compute_90a"),
        count=facts.get("count", "?"),
        first=facts.get("first", "2.21"),
        portable=facts.get("portable", "compute_90"),
        isa=facts.get("isa", "8.5"),
    )


def citation_text(report: FailureReport) -> str:
    """One report in this language: its issue as the citation, then what it says, e.g.
    "tensorflow/tensorflow#90291 (TF 2.18, RTX 5070 Ti on WSL2: CUDA_ERROR_INVALID_HANDLE)"."""
    if not (report.releases or report.gpu or report.error):
        return report.issue
    gpu = (
        t("recommend.citation.on", gpu=report.gpu, platform=report.platform)
        if report.platform
        else report.gpu
    )
    error = (
        t("recommend.citation.in", error=report.error, where=report.where) if report.where else report.error
    )
    return t(
        "recommend.citation.report",
        issue=report.issue,
        releases=t("recommend.citation.and").join(report.releases),
        gpu=gpu,
        error=error,
    )


@cache
def kernel_gen_facts() -> dict[str, str]:
    """From harvest.json: the releases whose largest library carries arch-specific PTX
    (compute_90a), how many kernels carry only that, and the first later release whose same
    kernels carry portable PTX. Empty when the harvest does not say."""
    try:
        from wizard.assets import asset_text

        raw = json.loads(asset_text("knowledge/harvest.json"))["tensorflow"]
        rows = sorted(((Version(v), e) for v, e in raw.items()), key=lambda r: r[0])
    except (KeyError, ValueError, TypeError, InvalidVersion, OSError):
        return {}
    specific: list[tuple[Version, str, int]] = []
    for version, entry in rows:
        for lib in (entry.get("libs") or {}).values():
            for ptx in lib.get("ptx") or []:
                arch = str(ptx.get("arch", ""))
                if arch.endswith("a"):
                    specific.append((version, arch, int(ptx.get("entries") or 0)))
    if not specific:
        return {}
    last = max(v for v, _, _ in specific)
    first_old = min(v for v, _, _ in specific)
    arch, count = max(((a, n) for _, a, n in specific), key=lambda x: x[1])
    out = {
        "old": f"{first_old.major}.{first_old.minor}-{last.major}.{last.minor}",
        "specific": arch,
        "count": f"{count:,}",
    }
    for version, entry in rows:
        if version <= last:
            continue
        for lib in (entry.get("libs") or {}).values():
            for ptx in lib.get("ptx") or []:
                if int(ptx.get("entries") or 0) == count and not str(ptx.get("arch", "")).endswith("a"):
                    out.update(
                        first=f"{version.major}.{version.minor}",
                        portable=str(ptx.get("arch")),
                        isa=str(ptx.get("isa")),
                    )
                    return out
    return out


def xla_limit_text(limit: XlaLimit) -> str:
    """The one line a student reads wherever this set is shown: XLA cannot compile for the GPU,
    so Keras models need jit_compile=False, and why."""
    return t(
        "gpuroute.xla_limit",
        name=limit.name,
        cc=limit.cc,
        tf=limit.tf,
        isa=limit.isa,
        needs=limit.needs,
        sm=limit.cc.replace(".", ""),
    )
