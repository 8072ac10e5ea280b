"""`tf-gpu-wizard fleet export|plan|report`: the wizard's plans for a lab, as an Ansible project.

fleet export -i INVENTORY -o DIR [--answers FILE]   write the project (DIR/site.yml)
fleet plan DIR --hosts A,B --probed A,B            run by the playbook on the control node
fleet report DIR [--json] [--since WHEN]           the receipts as a table and DIR/report.csv
fleet check DIR [-i INVENTORY] [--json]            every host re-proved against its class's lock
fleet watch DIR [-i INVENTORY] [--json] [--count N]  the TA's board: each host's GPU, live
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wizard.text import t


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("fleet", help=t("fleet.cli.help"), description=t("fleet.cli.help"))
    actions = parser.add_subparsers(dest="fleet_action", metavar="ACTION")

    export = actions.add_parser(
        "export", help=t("fleet.cli.export_help"), description=t("fleet.cli.export_help")
    )
    export.add_argument(
        "-i", "--inventory", type=Path, required=True, metavar="INVENTORY", help=t("fleet.cli.inventory_help")
    )
    export.add_argument("-o", "--out", type=Path, required=True, metavar="DIR", help=t("fleet.cli.out_help"))
    export.add_argument(
        "--answers", type=Path, default=None, metavar="FILE", help=t("fleet.cli.answers_help")
    )
    export.set_defaults(func=run_export)

    plan = actions.add_parser("plan", help=t("fleet.cli.plan_help"), description=t("fleet.cli.plan_help"))
    plan.add_argument("project", type=Path, metavar="DIR", help=t("fleet.cli.project_help"))
    plan.add_argument("--hosts", default="", metavar="A,B", help=t("fleet.cli.hosts_help"))
    plan.add_argument("--probed", default=None, metavar="A,B", help=t("fleet.cli.probed_help"))
    plan.set_defaults(func=run_plan)

    report = actions.add_parser(
        "report", help=t("fleet.cli.report_help"), description=t("fleet.cli.report_help")
    )
    report.add_argument("project", type=Path, metavar="DIR", help=t("fleet.cli.project_help"))
    report.add_argument("--json", action="store_true", help=t("fleet.cli.json_help"))
    report.add_argument("--since", default=None, metavar="WHEN", help=t("fleet.live_cli.since_help"))
    report.set_defaults(func=run_report)

    from wizard.cli.fleet_live import register_live

    register_live(actions)

    def no_action(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=no_action)


def _names(text: str | None) -> list[str]:
    return [n.strip() for n in (text or "").split(",") if n.strip()]


def run_export(args: argparse.Namespace) -> int:
    from wizard.fleet.answers import Answers, AnswersError, load_answers
    from wizard.fleet.project import ExportError, export_project

    try:
        answers = load_answers(args.answers) if args.answers else Answers()
        changed = export_project(args.out, args.inventory, answers)
    except (AnswersError, ExportError) as exc:
        print(t("cli.error", error=exc), file=sys.stderr)
        return 2
    from wizard.safe.display import safe

    print(t("fleet.export.done", path=safe(str(args.out), 300), files=len(changed)))
    print(
        t(
            "fleet.export.next",
            inventory=safe(str(args.inventory), 300),
            site=safe(str(args.out / "site.yml"), 300),
        )
    )
    print(t("fleet.export.report", path=safe(str(args.out), 300)))
    return 0


def run_plan(args: argparse.Namespace) -> int:
    from wizard.fleet.answers import AnswersError
    from wizard.fleet.lockfile import LockError
    from wizard.fleet.planner import plan_fleet

    hosts = _names(args.hosts)
    probed = hosts if args.probed is None else _names(args.probed)
    try:
        result = plan_fleet(args.project, hosts, probed)
    except (AnswersError, LockError) as exc:
        print(t("cli.error", error=exc), file=sys.stderr)
        return 1
    lines = []
    for name, info in result.classes.items():
        if info.get("status") == "planned":
            lines.append(
                t(
                    "fleet.plan.class_line",
                    name=name,
                    hosts=", ".join(info["hosts"]),
                    tensorflow=info["tensorflow"],
                    method=info["method"],
                    packages=info["packages"],
                    digest=info["lock_digest"][:16],
                    source=t(f"fleet.lock.{info['lock_source']}"),
                )
            )
            if info.get("conda_lock_digest"):  # the conda route: the lab's lock, shipped with its files
                lines.append(
                    t(
                        "fleet.conda_ship.class_line",
                        name=name,
                        digest=info["conda_lock_digest"][:16],
                        files=info["conda_files"],
                    )
                )
            if info["lock_source"] == "compiled":  # said, never silent: no lock was recorded
                lines.append(
                    t(
                        "fleet.plan.compiled_line",
                        name=name,
                        tensorflow=info["tensorflow"],
                        python=info["python"],
                        glibc=info["key"]["glibc"],
                        target=info["lock_target"],
                    )
                )
    for host, entry in sorted(result.hosts.items()):
        if entry["status"] != "planned":
            lines.append(t("fleet.plan.left_line", host=host, reason=entry["reason"]))
    lines.append(
        t(
            "fleet.plan.download_line",
            files=result.downloaded_files,
            mib=f"{result.downloaded_bytes / 2**20:.1f}",
            total=result.wheelhouse_files,
            total_mib=f"{result.wheelhouse_bytes / 2**20:.1f}",
        )
    )
    out = result.to_dict()
    out["lines"] = lines
    json.dump(out, sys.stdout, indent=2, ensure_ascii=True)  # read by the playbook, and by people
    sys.stdout.write("\n")
    return 0


def run_report(args: argparse.Namespace) -> int:
    from wizard.fleet.receipts import counts, load_report, table, write_csv
    from wizard.safe.atomic import WriteError
    from wizard.safe.display import safe

    if not (args.project / "plans").is_dir() and not (args.project / "receipts").is_dir():
        # A folder that is not there is a wrong path, not a wrong folder: say which.
        key = (
            "report.not_project"
            if args.project.is_dir()
            else "report_path.no_folder"
            if not args.project.exists()
            else "report_path.not_folder"
        )
        print(t("cli.error", error=t(f"fleet.{key}", path=safe(str(args.project)))), file=sys.stderr)
        return 2
    if args.since is not None:
        from wizard.cli.fleet_live import run_since

        return run_since(args)
    rows = load_report(args.project)
    try:
        csv_path = write_csv(args.project, rows)
    except WriteError as exc:
        print(t("cli.error", error=exc), file=sys.stderr)
        csv_path = None
    n = counts(rows)
    if args.json:
        from wizard.safe.display import visible

        data = {"hosts": [r.to_dict() for r in rows], "counts": n, "csv": str(csv_path) if csv_path else None}
        # Receipts are data from machines: no raw control character reaches a terminal, JSON included.
        print(visible(json.dumps(data, indent=2, ensure_ascii=True), multiline=True))
    else:
        print(table(rows))
        print()
        print(
            t(
                "fleet.report.counts",
                passed=n["passed"],
                total=len(rows),
                failed=n["failed"],
                missing=n["no-receipt"],
                unfit=n["unfit"],
                facts=n["no-facts"],
            )
        )
        if csv_path:
            print(t("fleet.report.csv", path=str(csv_path)))
    return 0 if rows and n["passed"] == len(rows) else 1
