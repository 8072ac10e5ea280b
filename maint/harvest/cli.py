"""python -m maint.harvest: read TF and nvidia-* wheels, write assets/knowledge/harvest.json."""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from maint.harvest import lock, nvidia, tensorflow
from maint.harvest.context import LINUX_X86_64, PYTHONS, Context
from maint.harvest.resolve import OTHER_PLATFORMS, Pip, canonical
from maint.harvest.store import Store

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "assets" / "knowledge" / "harvest.json"
LOCKS_NAME = "locks.json"  # beside --out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m maint.harvest", description=__doc__)
    p.add_argument(
        "--tf", nargs="*", metavar="MINOR", help="TF minors, e.g. 2.10 2.21 (default: 2.10 and newer)"
    )
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output JSON (default: %(default)s)")
    p.add_argument(
        "--work", type=Path, help="scratch folder for one or two wheels at a time (default: a temp dir)"
    )
    p.add_argument("--force", action="store_true", help="harvest again what the output already holds")
    p.add_argument("--pythons", nargs="*", default=list(PYTHONS), help="Python versions to probe")
    p.add_argument("--pip", default=f"{shlex.quote(sys.executable)} -m pip", help="pip command line to run")
    p.add_argument(
        "--no-fast-deps",
        action="store_true",
        help="do not pass --use-feature=fast-deps (then dry runs download whole wheels)",
    )
    p.add_argument(
        "--stages",
        nargs="+",
        choices=tensorflow.STAGES,
        default=list(tensorflow.STAGES),
        help="TF steps to run; a subset refreshes just those steps of harvested versions, "
        "e.g. --stages and_cuda to re-resolve tensorflow[and-cuda] without downloading TF",
    )
    p.add_argument("--skip-tf", action="store_true", help="only the nvidia-* wheels")
    p.add_argument("--skip-nvidia", action="store_true", help="only the TensorFlow wheels")
    p.add_argument(
        "--nvidia-extra",
        nargs="*",
        default=list(nvidia.DEFAULT_EXTRAS),
        metavar="NAME==VERSION",
        help="nvidia wheels to read besides TF's pins and pip's resolution (default: %(default)s)",
    )
    p.add_argument("--no-nvidia-newest", action="store_true", help="do not add the newest cu12 wheel of each")
    p.add_argument("--nvidia-all", action="store_true", help="read every nvidia-* package TF names")
    p.add_argument("--skip-locks", action="store_true", help="do not resolve the whole-environment locks")
    p.add_argument("--uv", default=None, help="uv command line for the locks (default: uv on PATH)")
    p.add_argument("-v", "--verbose", action="store_true", help="print each pip command")
    return p.parse_args(argv)


def _stop(signum: int, _frame: object) -> None:
    # Turn SIGTERM into an exception so the scratch folder (wheels) is removed on the way out.
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)
    pip = Pip(tuple(shlex.split(args.pip)), fast_deps=not args.no_fast_deps, verbose=args.verbose)
    store = Store.load(args.out)
    with tempfile.TemporaryDirectory(prefix="harvest-", dir=args.work) as work:
        ctx = Context(pip=pip, store=store, workdir=Path(work), pythons=tuple(args.pythons), force=args.force)
        ctx.log(f"pip {pip.version()}; output {args.out}; scratch {work}")
        store.data["pip"] = pip.version()
        if not args.skip_tf:
            harvest_tensorflow(ctx, args.tf, tuple(s for s in tensorflow.STAGES if s in args.stages))
        if not args.skip_nvidia:
            harvest_nvidia(ctx, args)
        store.save()
        errors = count_errors(store.data)
        if not args.skip_locks:
            errors += harvest_locks(ctx, args)
        ctx.log(f"done; {errors} recorded error(s); wrote {args.out}")
    return 1 if errors else 0


def harvest_tensorflow(ctx: Context, minors: list[str] | None, stages: tuple[str, ...]) -> None:
    linux = tensorflow.Availability.probe(ctx, LINUX_X86_64, "linux_x86_64")
    others = {
        name: tensorflow.Availability.probe(ctx, tags, name) for name, tags in sorted(OTHER_PLATFORMS.items())
    }
    targets = tensorflow.newest_patches(set(linux.by_version), minors or None)
    ctx.log(f"TensorFlow versions: {', '.join(targets.values())}")
    for minor, version in targets.items():
        stale = [v for v, e in ctx.store.tensorflow.items() if e.get("minor") == minor and v != version]
        existing = ctx.store.tensorflow.get(version)
        run = stages_to_run(existing, stages, ctx.force)
        if not run:
            ctx.log(f"{version}: already harvested (use --force to redo)")
            continue
        ctx.log(f"{version}: harvesting ({', '.join(run)})")
        base = None if existing is None or run == tensorflow.STAGES else dict(existing)
        entry = tensorflow.harvest_version(ctx, version, linux, others, run, base)
        for old in stale:  # a newer patch of the minor replaces the older one
            del ctx.store.tensorflow[old]
        ctx.store.tensorflow[version] = entry
        ctx.store.save()


def harvest_locks(ctx: Context, args: argparse.Namespace) -> int:
    """Whole-environment locks (uv) for every harvested TF x Python, into locks.json beside --out."""
    uv = lock.Uv(tuple(shlex.split(args.uv)) if args.uv else lock.find_uv(), verbose=args.verbose)
    store = lock.LockStore.load(args.out.parent / LOCKS_NAME)
    ctx.log(f"locks: uv {uv.version()}; output {store.path}")
    versions = None
    if args.tf:
        versions = {v for v, e in ctx.store.tensorflow.items() if e.get("minor") in args.tf}
    errors = lock.harvest_locks(ctx.store.tensorflow, store, uv, ctx.log, force=args.force, versions=versions)
    return len(errors)


def stages_to_run(existing: dict[str, Any] | None, stages: tuple[str, ...], force: bool) -> tuple[str, ...]:
    """All stages for a new version or with --force; named stages refresh; else only what failed."""
    if existing is None or (force and stages == tensorflow.STAGES):
        return tensorflow.STAGES
    if stages != tensorflow.STAGES:
        return stages
    failed = set(existing.get("errors") or {})
    if "wheel" in failed:
        failed.add("and_cuda")  # the and-cuda lines come from the wheel
    return tuple(s for s in tensorflow.STAGES if s in failed)


def harvest_nvidia(ctx: Context, args: argparse.Namespace) -> None:
    wanted = nvidia.plan(ctx, args.nvidia_extra, not args.no_nvidia_newest, args.nvidia_all)
    ctx.log(f"nvidia wheels to read: {len(wanted)}")
    for (package, version), why in sorted(wanted.items()):
        section: dict[str, Any] = ctx.store.nvidia.setdefault(canonical(package), {})
        if ctx.store.done("nvidia", package, version) and not ctx.force:
            section[version]["why"] = sorted(why)
            continue
        ctx.log(f"{package} {version}: harvesting ({'; '.join(sorted(why))})")
        section[version] = nvidia.harvest_wheel(ctx, package, version, why)
        ctx.store.save()


def count_errors(data: dict[str, Any]) -> int:
    n = sum(len(e.get("errors") or {}) for e in data.get("tensorflow", {}).values())
    for versions in data.get("nvidia", {}).values():
        n += sum(len(e.get("errors") or {}) for e in versions.values())
    return n
