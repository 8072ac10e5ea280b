"""The routes a student can take when the wheels serve their GPU only in part, ranked, each with
its trade-off in one line; and which verify failure sends them to the next one (issue 33).

1. the recommended pip set (on an RTX 50: TF 2.21 without XLA, jit_compile=False);
2. conda-forge's CUDA 12.8 build of TF 2.19 (machine code for sm_120; XLA should work there);
3. NVIDIA's NGC 25.02 container (TF 2.17, CUDA 12.8; frozen; needs Docker + the toolkit);
4. CPU.
Routes 2 and 3 are builds no artifact on this machine can show: their facts come from
assets/knowledge/routes.toml, cited and shown as such, and their last command runs the wizard's GPU
check inside them (it reads the build's compute capabilities and runs XLA for real). A route is
offered only where it serves a GPU here (its `serves`) and the platform fits. Choose lists them (`o`
picks one, `p` plans it through `route_candidate`, as Run does). The Run screen
offers the next route with one key and `apply` prints it when the verify fails with a kernel
failure (`kernel_failure`): an XLA failure or a slow start is not one.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from wizard.choose.choice import Candidate, Recommendation
from wizard.choose.knowledge import read_table
from wizard.plan.demo_paths import shown_under
from wizard.plan.gpucheck import CHECK_PROGRAM
from wizard.plan.model import Plan
from wizard.plan.programs import program
from wizard.profile import MachineProfile
from wizard.text import t

# The check's failure codes that mean a GPU kernel does not run or computes wrong (INVALID_PTX,
# INVALID_HANDLE, no code for the GPU, a wrong result, a fit that does not learn).
KERNEL_CODES = ("matmul", "conv2d", "wrong-result", "keras-fit", "arch", "gpu-left-out", "cpu-placement")
_FAILED = re.compile(r"tf_gpu_check FAILED \[([a-z0-9-]+)\]")
_CUDA_KERNEL = re.compile(r"CUDA_ERROR_(INVALID_HANDLE|INVALID_PTX|NO_BINARY_FOR_GPU|ILLEGAL_ADDRESS)")


@dataclass(frozen=True)
class Route:
    id: str  # "pip-and-cuda" | "conda-cuda128" | "ngc-container" | "cpu"
    title: str
    tradeoff: str  # one line a student weighs
    commands: tuple[tuple[str, ...], ...] = ()  # whole; the last proves the route (the GPU check)
    source: str | None = None  # cited: no artifact on this machine shows the route's facts
    method: str | None = None  # a set the wizard plans itself: `apply --method` takes it
    notes: tuple[str, ...] = field(default_factory=tuple)

    def lines(self) -> list[str]:
        """The route as text for a terminal or a notice: title, trade-off, source, commands."""
        out = [t("gpuroute.route_line", title=self.title, tradeoff=self.tradeoff)]
        if self.source:
            out.append(t("gpuroute.route_cited", source=self.source))
        out += [f"    {shlex.join(argv)}" for argv in self.commands]
        return out


def kernel_failure(lines: Iterable[str]) -> str | None:
    """The check's failure code when the verify failed because a GPU kernel did not run or ran
    wrong; None for anything else (an XLA failure, a time limit, an import error)."""
    for line in lines:
        m = _FAILED.search(line)
        if m:
            return m.group(1) if m.group(1) in KERNEL_CODES else None
        text = line.split(" ", 1)[-1] if line.startswith(("SIM", "[")) else line
        try:
            event = json.loads(text[text.find("{") :]) if "{" in text else None
        except ValueError:
            event = None
        if isinstance(event, dict) and event.get("event") == "fail":
            code = str(event.get("code", ""))
            return code if code in KERNEL_CODES else None
    return None


def _rows() -> list[dict[str, Any]]:
    try:
        return list(read_table("routes").get("route", []))
    except (OSError, ValueError):
        return []


def _serves(row: dict[str, Any], profile: MachineProfile) -> bool:
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(str(profile.arch).lower(), str(profile.arch).lower())
    if profile.platform not in row.get("platforms", []) or arch not in row.get("arches", ["x86_64"]):
        return False
    serves = {str(c) for c in row.get("serves", [])}
    return any(str(g.compute_capability) in serves for g in profile.gpus)


def _python_for(row: dict[str, Any], profile: MachineProfile) -> str:
    """The machine's Python where the build has it, else the newest the build has."""
    try:
        spec = SpecifierSet(str(row.get("python", "")))
        have = Version(".".join(str(profile.python.version).split(".")[:2]))
        if have in spec:
            return str(have)
    except (InvalidSpecifier, InvalidVersion):
        pass
    return "3.12"


def _check_path() -> str:
    return program(CHECK_PROGRAM)


def _conda_route(row: dict[str, Any], profile: MachineProfile) -> Route:
    env = str(row["env_name"])
    python = _python_for(row, profile)
    create = ("env", str(row["override"]), "conda", "create", "-y", "-n", env, "-c", str(row["channel"]),
              f"python={python}", str(row["spec"]))  # fmt: skip
    check = ("conda", "run", "-n", env, "python", _check_path())
    return Route(
        id="conda-cuda128",
        title=t("gpuroute.route_title_conda", tf=row["tensorflow"], cuda=row["cuda"]),
        tradeoff=t("gpuroute.route_conda", tf=row["tensorflow"], cuda=row["cuda"], python=python),
        commands=(create, check),
        source=str(row.get("source", "")),
    )


def _ngc_route(row: dict[str, Any], home: PurePath) -> Route:
    image = str(row["image"])
    cache = f"{home / '.nv'}:/root/.nv"  # the driver's compile cache lives on the host, kept
    programs = f"{PurePath(_check_path()).parent}:/programs:ro"
    check = ("docker", "run", "--gpus", "all", "--rm", "-v", cache, "-v", programs, image,
             "python", f"/programs/{CHECK_PROGRAM}")  # fmt: skip
    work = (
        "docker",
        "run",
        "--gpus",
        "all",
        "--rm",
        "-it",
        "-v",
        cache,
        "-v",
        f"{home}:/workspace/home",
        image,
    )
    return Route(
        id="ngc-container",
        title=t("gpuroute.route_title_ngc", tf=row["tensorflow"], cuda=row["cuda"]),
        tradeoff=t("gpuroute.route_ngc", tf=row["tensorflow"], size=row.get("size_gb", "?")),
        commands=(check, work),
        source=str(row.get("source", "")),
    )


def _jetpack_route(row: dict[str, Any], profile: MachineProfile) -> Route:
    """NVIDIA's own route for a Jetson's GPU: named, cited, and said to be unmaintained; no command
    (its wheels come from NVIDIA's Jetson index, which this machine's pip does not name)."""
    name = profile.gpus[0].name if profile.gpus else "Jetson"
    return Route(
        id="jetpack",
        title=t("gpuroute.route_title_jetpack", name=name),
        tradeoff=t("gpuroute.route_jetpack", image=row.get("image", "")),
        source=str(row.get("source", "")),
    )


def _wizard_command(profile: MachineProfile, method: str) -> tuple[str, ...]:
    """`apply` of another set: a demo's names the demo, so it never acts on this machine."""
    demo = ("--profile", profile.demo) if profile.simulated and profile.demo else ()
    return ("tf-gpu-wizard", "apply", *demo, "--new", "--method", method)


def routes_for(profile: MachineProfile, rec: Recommendation, home: PurePath) -> list[Route]:
    """The ranked routes for this machine; [] when it has no GPU set to fall back from."""
    best = rec.recommended
    if best is None:
        return []
    # A demo's routes name the demo user's programs folder, as its plan does.
    with shown_under(home if profile.simulated else None):
        return _routes(profile, rec, best, home)


def _routes(profile: MachineProfile, rec: Recommendation, best: Candidate, home: PurePath) -> list[Route]:
    out = [_pip_route(best, profile)] if best.set.method == "pip-and-cuda" else []
    for row in _rows():
        if not _serves(row, profile):
            continue
        if row.get("id") == "conda-cuda128":
            out.append(_conda_route(row, profile))
        elif row.get("id") == "ngc-container":
            out.append(_ngc_route(row, home))
        elif row.get("id") == "jetpack":
            out.append(_jetpack_route(row, profile))
    cpu = next((c for c in rec.candidates if c.ok and c.set.method == "cpu"), None)
    if cpu is not None:
        out.append(
            Route(
                id="cpu",
                title=t("gpuroute.route_title_cpu", tf=cpu.set.tensorflow),
                tradeoff=t("gpuroute.route_cpu"),
                commands=(_wizard_command(profile, "cpu"),),
                method="cpu",
            )
        )
    return out


def _pip_route(best: Candidate, profile: MachineProfile) -> Route:
    key = "gpuroute.route_pip_no_xla" if best.xla_limit else "gpuroute.route_pip"
    return Route(
        id="pip-and-cuda",
        title=t("gpuroute.route_title_pip", tf=best.set.tensorflow),
        tradeoff=t(key, tf=best.set.tensorflow),
        commands=(_wizard_command(profile, "pip-and-cuda"),),
        method="pip-and-cuda",
    )


def next_route(routes: Sequence[Route], current: str) -> Route | None:
    """The route after `current` (a route id or a plan's method), or the first when it is none."""
    ids = [r.id for r in routes]
    if current not in ids:  # another set of the same wheels (the wizard's conda set): not pip again
        return next((r for r in routes if r.id != "pip-and-cuda"), None)
    at = ids.index(current) + 1
    return routes[at] if at < len(routes) else None


def route_candidate(route: Route, rec: Recommendation) -> Candidate | None:
    """The wizard's own set a route plans (its `method`); None for a cited route, which the
    wizard shows whole but does not plan. Run's `o` and Choose's `o` then `p` both plan this."""
    if not route.method:
        return None
    return next((c for c in rec.candidates if c.ok and c.set.method == route.method), None)


def ranked_lines(routes: Sequence[Route]) -> list[str]:
    """`recommend`'s list: one line a route, numbered."""
    return [
        t("gpuroute.ranked_line", n=i + 1, title=r.title, tradeoff=r.tradeoff) for i, r in enumerate(routes)
    ]


def next_route_for(plan: Plan, profile: MachineProfile | None) -> Route | None:
    """The route after this plan's, for the machine the plan is for (this one, detected, when the
    plan came without a profile)."""
    from wizard.choose.resolver import recommend
    from wizard.plan.build import machine_home

    if profile is None:
        from wizard.probe.detect import detect

        profile = detect()
    routes = routes_for(profile, recommend(profile), machine_home(profile))
    return next_route(routes, plan.set.method)
