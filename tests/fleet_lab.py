"""A lab of stock Debian 12 hosts for the real fleet test (and the README's try-out).

Each host is a root made by `debootstrap --variant=minbase --include=python3 bookworm` (once; kept
as a tarball in a cache folder outside the repository and unpacked per host), reached through
Ansible's chroot connection. Its chroot command (`chroot-offline`) gives the host a network
namespace of its own with no interface up: whatever the host installs can only come from the
control node, so "bytes downloaded from outside" is 0 by construction, and a request to a public
index would fail the run. The Debian mirror is the one this machine's own apt sources name.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

SUITE = "bookworm"
TARBALL = f"debian-{SUITE}-minbase-python3.tar.gz"
CHROOT_OFFLINE = """#!/bin/sh
# A lab host for the trial: its root, its own /proc, and no network at all.
root="$1"; shift
exec unshare --net --mount --pid --fork --kill-child \\
  sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
"""


def cache_dir() -> Path:
    return Path(os.environ.get("TF_GPU_WIZARD_FLEET_CACHE", "/var/tmp/tf-gpu-wizard-fleet"))


def apt_mirror(etc: Path = Path("/etc/apt")) -> str | None:
    """The Debian archive this machine's apt sources name (deb822 .sources or sources.list)."""
    texts = []
    for path in [etc / "sources.list", *sorted((etc / "sources.list.d").glob("*"))]:
        try:
            texts.append((path.suffix, path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    for suffix, text in texts:
        if suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                uris = re.search(r"^URIs:\s*(\S+)", stanza, re.M)
                suites = re.search(r"^Suites:\s*(.+)$", stanza, re.M)
                if uris and suites and SUITE in suites.group(1).split():
                    return uris.group(1)
        else:
            m = re.search(rf"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+{SUITE}\s", text, re.M)
            if m:
                return m.group(1)
    return None


def stock_root_tarball(cache: Path | None = None) -> Path:
    """The tarball of a stock minbase root with python3 (what Ansible needs); debootstrap once."""
    cache = cache or cache_dir()
    tarball = cache / TARBALL
    if tarball.is_file():
        return tarball
    mirror = apt_mirror()
    if mirror is None:
        raise RuntimeError(f"no {SUITE} mirror in this machine's apt sources")
    cache.mkdir(parents=True, exist_ok=True)
    root = cache / "root.tmp"
    shutil.rmtree(root, ignore_errors=True)
    subprocess.run(
        ["debootstrap", "--variant=minbase", "--include=python3", SUITE, str(root), mirror],
        check=True, capture_output=True, timeout=1800,
    )  # fmt: skip
    part = tarball.with_suffix(".part")
    subprocess.run(
        ["tar", "-C", str(root), "--numeric-owner", "-czf", str(part), "."], check=True, timeout=900
    )
    os.replace(part, tarball)
    shutil.rmtree(root, ignore_errors=True)
    return tarball


def stock_root(cache: Path | None = None) -> Path:
    """The stock root unpacked once beside its tarball; hosts are copies of it."""
    tarball = stock_root_tarball(cache)
    root = tarball.parent / "root"
    if not (root / "usr" / "bin" / "python3").exists():
        shutil.rmtree(root, ignore_errors=True)
        part = tarball.parent / "root.part"
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir()
        subprocess.run(
            ["tar", "-C", str(part), "--numeric-owner", "-xzf", str(tarball)], check=True, timeout=900
        )
        os.replace(part, root)
    return root


def make_host(stock: Path, root: Path, *, python3: bool = True) -> Path:
    root.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", "--reflink=auto", str(stock), str(root)], check=True, timeout=900)
    if not python3:  # the fault: a host Ansible cannot run a module on
        for p in (root / "usr" / "bin").glob("python3*"):
            p.unlink()
    return root


def write_lab(folder: Path, hosts: dict[str, Path]) -> Path:
    """The chroot command and the inventory; returns the inventory's path."""
    exe = folder / "chroot-offline"
    exe.write_text(CHROOT_OFFLINE, encoding="utf-8")
    exe.chmod(0o755)
    lines = ["[lab]"] + [f"{name} ansible_host={root}" for name, root in hosts.items()]
    lines += [
        "",
        "[lab:vars]",
        "ansible_connection=community.general.chroot",
        f"ansible_chroot_exe={exe}",
        "ansible_python_interpreter=/usr/bin/python3",
        "tf_gpu_become=false",
    ]
    inventory = folder / "inventory.ini"
    inventory.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return inventory


RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def recap(output: str) -> dict[str, dict[str, int]]:
    return {
        m.group(1): {"ok": int(m.group(2)), "changed": int(m.group(3)), "unreachable": int(m.group(4)),
                     "failed": int(m.group(5))}
        for m in RECAP.finditer(output)
    }  # fmt: skip
