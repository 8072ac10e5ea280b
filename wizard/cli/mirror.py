"""`tf-gpu-wizard mirror list|add|remove|probe`: the package mirrors this machine knows.

The catalogue is the machine's (/etc/tf-gpu-wizard/mirrors.toml, from lab IT) plus the
user's (their config dir); `plan --mirror NAME` and `apply --mirror NAME` use it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wizard.cli.common import error_line, print_json
from wizard.mirror.catalogue import Catalogue, MirrorError, load_catalogue, system_file, user_file
from wizard.mirror.configured import Configured, read_configured
from wizard.mirror.probe import TIMEOUT
from wizard.mirror.secret import mask_text, masked
from wizard.safe.display import safe
from wizard.text import t


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("mirror", help=t("mirror.cli.help"), description=t("mirror.cli.help"))
    actions = parser.add_subparsers(dest="mirror_action", metavar="ACTION")

    listing = actions.add_parser(
        "list", help=t("mirror.cli.list_help"), description=t("mirror.cli.list_help")
    )
    listing.add_argument("--json", action="store_true", help=t("mirror.cli.json_help"))
    listing.set_defaults(func=run_list)

    add = actions.add_parser("add", help=t("mirror.cli.add_help"), description=t("mirror.cli.add_help"))
    add.add_argument("name", metavar="NAME", help=t("mirror.cli.name_help"))
    add.add_argument("--pypi", metavar="URL", help=t("mirror.cli.pypi_help"))
    add.add_argument("--conda", metavar="URL", help=t("mirror.cli.conda_help"))
    add.add_argument("--note", default="", help=t("mirror.cli.note_help"))
    add.add_argument("--file", type=Path, default=None, help=t("mirror.cli.file_help"))
    add.set_defaults(func=run_add)

    remove = actions.add_parser(
        "remove", help=t("mirror.cli.remove_help"), description=t("mirror.cli.remove_help")
    )
    remove.add_argument("name", metavar="NAME", help=t("mirror.cli.name_help"))
    remove.add_argument("--file", type=Path, default=None, help=t("mirror.cli.file_help"))
    remove.set_defaults(func=run_remove)

    probe = actions.add_parser(
        "probe", help=t("mirror.cli.probe_help"), description=t("mirror.cli.probe_help")
    )
    probe.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT,
        metavar="S",
        help=t("mirror.cli.timeout_help", seconds=TIMEOUT),
    )
    probe.add_argument("--json", action="store_true", help=t("mirror.cli.json_help"))
    probe.set_defaults(func=run_probe)

    parser.set_defaults(func=run_list, json=False)


def _catalogue() -> Catalogue:
    cat = load_catalogue()
    for problem in cat.problems:
        print(error_line(problem), file=sys.stderr)
    return cat


def _configured_rows(conf: Configured) -> list[tuple[str, str, str]]:
    rows = []
    if conf.pip_index:
        rows.append(("pip index-url", conf.pip_index.value, conf.pip_index.source))
    rows += [("pip extra-index-url", s.value, s.source) for s in conf.pip_extra]
    if conf.uv_index:
        rows.append(("uv default-index", conf.uv_index.value, conf.uv_index.source))
    if conf.conda_alias:
        rows.append(("conda channel_alias", conf.conda_alias.value, conf.conda_alias.source))
    rows += [("conda channels", s.value, s.source) for s in conf.conda_channels]
    return rows


def run_list(args: argparse.Namespace) -> int:
    cat, conf = _catalogue(), read_configured()
    if getattr(args, "json", False):
        print_json({"mirrors": [m.to_dict() for m in cat.mirrors.values()], "configured": conf.to_dict()})
        return 0
    print(t("mirror.cli.catalogue", system=system_file(), user=user_file()))
    if not cat.mirrors:
        print(t("mirror.cli.empty"))
    for m in cat.mirrors.values():
        print(t("mirror.cli.entry", name=m.name, origin=t(f"mirror.origin.{m.origin}")))
        if m.pypi:
            print(t("mirror.cli.entry_pypi", url=safe(masked(m.pypi))))
        if m.conda:
            print(t("mirror.cli.entry_conda", url=safe(masked(m.conda))))
        if m.note:
            print(t("mirror.cli.entry_note", note=safe(m.note)))
    print()
    print(t("mirror.cli.configured"))
    rows = _configured_rows(conf)
    if not rows:
        print(t("mirror.cli.configured_none"))
    for what, value, source in rows:
        print(t("mirror.cli.configured_row", what=what, value=safe(masked(value)), source=safe(source)))
    return 0


def run_add(args: argparse.Namespace) -> int:
    from wizard.mirror.catalogue import add_mirror

    path = args.file or user_file()
    try:
        mirror = add_mirror(args.name, args.pypi, args.conda, args.note, path=path)
    except MirrorError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    print(t("mirror.cli.added", name=mirror.name, path=path))
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from wizard.mirror.catalogue import remove_mirror

    path = args.file or user_file()
    try:
        found = remove_mirror(args.name, path=path)
    except MirrorError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    if not found:
        print(
            t("cli.error", error=t("mirror.cli.not_found", path=path, name=safe(args.name, 60))),
            file=sys.stderr,
        )
        return 1
    print(t("mirror.cli.removed", name=args.name, path=path))
    return 0


def run_probe(args: argparse.Namespace) -> int:
    from wizard.mirror.advice import probe_targets, suggest
    from wizard.mirror.probe import probe_all

    cat, conf = _catalogue(), read_configured()
    targets = probe_targets(cat, conf)
    if not targets:
        print(t("mirror.cli.nothing_to_probe"), file=sys.stderr)
        return 1
    timeout = max(0.1, args.timeout)
    if not args.json:
        print(t("mirror.cli.probing", count=len(targets), seconds=f"{timeout:g}"), flush=True)
    results = probe_all(targets, timeout=timeout)
    advice = suggest(cat, conf, results=results)
    if args.json:
        print_json(
            {
                "results": [r.to_dict() for r in results],
                "suggested": advice.mirror.name if advice and advice.mirror else None,
                "message": advice.message if advice else "",
            }
        )
        return 0
    for r in results:
        url = safe(masked(r.target.url))
        if r.ok:
            print(t("mirror.cli.probe_ok", name=r.name, seconds=r.seconds, url=url))
        else:
            print(t("mirror.cli.probe_failed", name=r.name, error=safe(mask_text(r.error), 80), url=url))
    if advice:
        print()
        print(advice.message)
    return 0
