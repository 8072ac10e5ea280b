"""`fleet export`: the Ansible project a lab runs with `ansible-playbook -i INVENTORY DIR/site.yml`.

DIR/site.yml and DIR/roles/tf_gpu (assets/ansible), DIR/answers.toml (the choices), DIR/group_vars/
all.yml (the wizard on this control node, the folder on the hosts), DIR/files/: the probe as one zip
the host's python3 runs (the wizard's probe and the pure-Python packages it needs: nothing is
installed on a host beforehand), the plans' programs and the receipt program, and uv. Every file is
written whole and only when it differs, so exporting again changes nothing a host would copy.
"""

from __future__ import annotations

import importlib.util
import io
import os
import sys
import zipfile
from importlib.abc import Traversable
from pathlib import Path

from wizard.assets import asset
from wizard.fleet.answers import Answers
from wizard.fleet.hostplan import REMOTE_DIR
from wizard.fleet.tools import control_uv
from wizard.plan.programs import names as program_names
from wizard.plan.programs import program_bytes
from wizard.safe.atomic import write_bytes_atomic
from wizard.safe.error_words import os_error
from wizard.text import t

PROBE_ZIP = "tf-gpu-wizard-probe.pyz"
RECEIPT_PROGRAM = "fleet_receipt.py"
CHECK_PROGRAM = "fleet_check.py"  # `fleet check` runs it on each host (check.yml)
HOST_PROGRAMS = (RECEIPT_PROGRAM, CHECK_PROGRAM)
# Pure-Python packages the probe imports, carried inside its zip (psutil is optional there).
PROBE_PACKAGES = ("platformdirs", "packaging", "pynvml", "tomli")
ZIP_TIME = (2020, 1, 1, 0, 0, 0)  # fixed: the same wizard makes the same zip, byte for byte
ANSIBLE_CFG = """[defaults]
# tf-gpu-wizard's lab project
interpreter_python = auto_silent
retry_files_enabled = false
roles_path = roles

[connection]
# One connection round trip a task instead of three (needs no `requiretty` in sudoers).
pipelining = True
"""


def ansible_cfg(inventory: Path) -> str:
    """ansible.cfg, naming the inventory (`fleet check` and `fleet watch` read it back) where its
    path reads back whole from an INI value."""
    path = str(inventory.resolve())
    if any(c in path for c in "%;#\n\r") or path != path.strip():
        return ANSIBLE_CFG
    return ANSIBLE_CFG.replace("[defaults]\n", f"[defaults]\ninventory = {path}\n", 1)


class ExportError(RuntimeError):
    """The project cannot be written; one line for the user."""


def _put(path: Path, data: bytes, mode: int = 0o644) -> bool:
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_bytes_atomic(path, data, mode=mode, make_parents=True)
    return True


def _walk(node: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    out: list[tuple[str, Traversable]] = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        rel = f"{prefix}{child.name}"
        if child.name == "__pycache__" or child.name.endswith(".pyc"):
            continue
        if child.is_dir():
            out += _walk(child, rel + "/")
        else:
            out.append((rel, child))
    return out


def _package_files(name: str) -> list[tuple[str, bytes]]:
    """The files of an importable pure-Python package or module, as (path in zip, bytes)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return []
    origin = Path(spec.origin)
    if spec.submodule_search_locations:  # a package: its folder
        root = origin.parent
        return [
            (f"{name}/{p.relative_to(root).as_posix()}", p.read_bytes())
            for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and p.suffix in (".py", ".typed", ".toml")
        ]
    return [(origin.name, origin.read_bytes())] if origin.suffix == ".py" else []


def probe_zip() -> bytes:
    """The probe as a zip application: `python3 tf-gpu-wizard-probe.pyz --out FILE`."""
    import wizard

    entries: list[tuple[str, bytes]] = [("__main__.py", asset("ansible/probe_main.py").read_bytes())]
    wizard_root = Path(wizard.__file__).parent
    for p in sorted(wizard_root.rglob("*.py")):
        if "__pycache__" not in p.parts:
            entries.append((f"wizard/{p.relative_to(wizard_root).as_posix()}", p.read_bytes()))
    for rel, node in _walk(asset("")):
        if rel.split("/")[0] in ("__init__.py", "text", "knowledge", "profiles"):
            entries.append((f"assets/{rel}", node.read_bytes()))
    for name in PROBE_PACKAGES:
        entries += _package_files(name)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return buf.getvalue()


def programs_tar() -> tuple[bytes, str]:
    """The plans' programs and the receipt program as one tar (copied to a host in one task), with
    a marker named by their digest: the role unpacks it only when the programs changed."""
    import hashlib
    import tarfile

    files = [(name, program_bytes(name)) for name in program_names()]
    files += [(name, asset(f"ansible/{name}").read_bytes()) for name in HOST_PROGRAMS]
    digest = hashlib.sha256(b"".join(n.encode() + b"\0" + d for n, d in files)).hexdigest()[:16]
    marker = f".programs-{digest}"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in [*files, (marker, b"")]:
            entry = tarfile.TarInfo(name)
            entry.size, entry.mode, entry.mtime = len(data), 0o644, 0
            tar.addfile(entry, io.BytesIO(data))
    return buf.getvalue(), marker


def _group_vars(programs_marker: str) -> str:
    wizard = [sys.executable, "-m", "wizard"]
    quoted = ", ".join('"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"' for a in wizard)
    return (
        "---\n"
        "# Written by `tf-gpu-wizard fleet export`.\n"
        "# The wizard on this control node: the playbook runs `fleet plan` with it.\n"
        f"tf_gpu_wizard: [{quoted}]\n"
        "# The wizard's folder on each host (the plans' commands name it).\n"
        f"tf_gpu_remote_dir: {REMOTE_DIR}\n"
        "# Marks the programs' tar as unpacked on a host (its name changes with the programs).\n"
        f"tf_gpu_programs_marker: {programs_marker}\n"
        "# Steps run as root through become: set tf_gpu_become=false in the inventory where the\n"
        "# connection is root already (a chroot, ssh as root).\n"
    )


def export_project(out: Path, inventory: Path, answers: Answers) -> list[str]:
    """Write the project into `out`; returns the files that changed (relative paths)."""
    if not inventory.is_file():
        raise ExportError(t("fleet.export.no_inventory", path=str(inventory)))
    uv = control_uv()
    if uv is None:
        raise ExportError(t("fleet.lock.no_uv"))
    files: dict[str, tuple[bytes, int]] = {}
    for rel, node in _walk(asset("ansible")):
        if rel in ("probe_main.py", *HOST_PROGRAMS):
            continue
        files[rel] = (node.read_bytes(), 0o644)
    files["ansible.cfg"] = (ansible_cfg(inventory).encode(), 0o644)
    files["answers.toml"] = (answers.to_toml().encode(), 0o644)
    programs, marker = programs_tar()
    files["group_vars/all.yml"] = (_group_vars(marker).encode(), 0o644)
    files[f"files/{PROBE_ZIP}"] = (probe_zip(), 0o644)
    files["files/programs.tar"] = (programs, 0o644)
    files["files/uv"] = (Path(uv).read_bytes(), 0o755)
    changed = []
    try:
        for rel, (data, mode) in files.items():
            if _put(out / rel, data, mode):
                changed.append(rel)
        for folder in ("profiles", "plans", "locks", "receipts", "wheelhouse", "conda"):
            os.makedirs(out / folder, exist_ok=True)
    except OSError as exc:
        raise ExportError(t("fleet.export.failed", path=str(out), error=os_error(exc))) from None
    return changed
