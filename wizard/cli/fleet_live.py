"""`tf-gpu-wizard fleet check|watch` and `fleet report --since`: the lab after its setup.

fleet check DIR [-i INVENTORY] [--json] [--limit S]   every host re-proved against its class's lock
fleet watch DIR [-i INVENTORY] [--json] [--count N] [--interval S]
                                                     the TA's board (a screen; JSON lines with --json)
fleet report DIR --since WHEN                        what changed in the receipts since WHEN
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wizard.text import t


def register_live(actions: argparse._SubParsersAction) -> None:
    check = actions.add_parser(
        "check", help=t("fleet.live_cli.check_help"), description=t("fleet.live_cli.check_help")
    )
    _common(check)
    check.add_argument(
        "--limit", type=_seconds, default=None, metavar="S", help=t("fleet.live_cli.limit_help")
    )
    check.set_defaults(func=run_check)

    watch = actions.add_parser(
        "watch", help=t("fleet.live_cli.watch_help"), description=t("fleet.live_cli.watch_help")
    )
    _common(watch)
    watch.add_argument("--count", type=_count, default=None, metavar="N", help=t("fleet.live_cli.count_help"))
    watch.add_argument(
        "--interval", type=_seconds, default=None, metavar="S", help=t("fleet.live_cli.interval_help")
    )
    watch.add_argument(
        "--limit", type=_seconds, default=None, metavar="S", help=t("fleet.live_cli.round_limit_help")
    )
    watch.set_defaults(func=run_watch)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", type=Path, metavar="DIR", help=t("fleet.cli.project_help"))
    parser.add_argument(
        "-i",
        "--inventory",
        type=Path,
        default=None,
        metavar="INVENTORY",
        help=t("fleet.live_cli.inventory_help"),
    )
    parser.add_argument("--json", action="store_true", help=t("fleet.cli.json_help"))


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(t("fleet.live_cli.bad_seconds", value=text))
    return value


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(t("fleet.live_cli.bad_count", value=text))
    return int(text)


def _fail(message: object, code: int = 2) -> int:
    from wizard.cli.common import error_line

    print(error_line(message), file=sys.stderr)
    return code


def _inventory(args: argparse.Namespace) -> Path | None:
    """The inventory asked for, else the one `fleet export` recorded; None after saying why."""
    from wizard.fleet.ansible_lines import recorded_inventory
    from wizard.safe.display import safe

    project: Path = args.project
    if not project.is_dir():
        _fail(t("fleet.report_path.no_folder" if not project.exists() else "fleet.report_path.not_folder",
                path=safe(str(project))))  # fmt: skip
        return None
    if not (project / "plans" / "summary.json").is_file():
        _fail(t("fleet.live.not_run", path=safe(str(project))))
        return None
    inventory = args.inventory or recorded_inventory(project)
    if inventory is None:
        _fail(t("fleet.live.no_inventory", path=safe(str(project))))
        return None
    if not inventory.exists():
        _fail(t("fleet.export.no_inventory", path=safe(str(inventory))))
        return None
    return inventory.resolve()


def run_check(args: argparse.Namespace) -> int:
    from wizard.cli.common import print_json
    from wizard.fleet.ansible_lines import AnsibleError
    from wizard.fleet.check import DEFAULT_LIMIT_S, check_fleet
    from wizard.fleet.live_view import check_table

    inventory = _inventory(args)
    if inventory is None:
        return 2
    try:
        result = check_fleet(args.project.resolve(), inventory, args.limit or DEFAULT_LIMIT_S)
    except AnsibleError as exc:
        return _fail(exc)
    if args.json:
        print_json(result.to_dict())
    else:
        print(check_table(result))
    return 0 if result.hosts and all(h.status == "clean" for h in result.hosts) else 1


def run_watch(args: argparse.Namespace) -> int:
    from wizard.fleet.ansible_lines import AnsibleError
    from wizard.fleet.watch import DEFAULT_INTERVAL_S, ROUND_LIMIT_S, watch

    inventory = _inventory(args)
    if inventory is None:
        return 2
    from wizard.fleet.ansible_lines import end_with_this_process

    end_with_this_process()
    interval = args.interval or DEFAULT_INTERVAL_S
    limit = args.limit or ROUND_LIMIT_S
    project = args.project.resolve()
    if not args.json:
        if not sys.stdout.isatty():
            args.count = args.count or 1  # a pipe gets the table, once per round, not a screen
            from wizard.fleet.live_view import board_table

            try:
                for board in watch(
                    project, inventory, interval=interval, count=args.count, round_limit_s=limit
                ):
                    print(board_table(board))
            except AnsibleError as exc:
                return _fail(exc)
            return 0
        from screens.fleet_watch_app import run_board

        return run_board(project, inventory, interval, limit)
    from wizard.safe.display import json_safe

    try:
        for board in watch(project, inventory, interval=interval, count=args.count, round_limit_s=limit):
            for row in board.ordered():
                record = {"type": "host", "round": board.round, **row.to_dict()}
                # Hosts' words (process names, reasons) are data: no raw control character leaves.
                sys.stdout.write(json_safe(json.dumps(record, ensure_ascii=False)) + "\n")
            sys.stdout.flush()
    except AnsibleError as exc:
        return _fail(exc)
    except KeyboardInterrupt:
        return 0
    return 0


def run_since(args: argparse.Namespace) -> int:
    from wizard.cli.common import print_json
    from wizard.fleet.history import SinceError, changes_since, parse_when
    from wizard.fleet.live_view import since_table

    try:
        when = parse_when(args.since)
    except SinceError as exc:
        return _fail(exc)
    rows = changes_since(args.project, when)
    if args.json:
        print_json({"since": when.isoformat(), "hosts": [r.to_dict() for r in rows]})
    else:
        print(since_table(rows, when))
    return 0
