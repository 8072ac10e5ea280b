"""What the probe reads for the wheels and the apt steps: the C library (os.confstr), kept in the
profile, and on Debian the archive mirror its apt sources already name (the plan reuses it)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tests.machines import LINUX_PY, NATIVE_PROC_VERSION, context, tree
from wizard.choose.choice import Candidate, VersionSet
from wizard.demo import demo_names, load_demo
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.plan.build import build_plan
from wizard.probe import detect
from wizard.probe.context import running_python
from wizard.probe.os_platform import glibc_of
from wizard.profile import MachineProfile

NO_NVML = FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND)
DEBIAN_12 = (
    'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\nID=debian\n'
)
MIRROR = "http://ftp.lab.example/debian"


def probe(tmp_path: Path, files: dict[str, str], libc: str = "glibc 2.36") -> MachineProfile:
    root = tree(tmp_path, {"/proc/version": NATIVE_PROC_VERSION, **files})
    python = dataclasses.replace(LINUX_PY, libc=libc)
    return detect(context=context(root, python=python), nvml=NO_NVML)


def test_the_running_python_reports_its_c_library() -> None:
    libc = running_python().libc
    assert libc.startswith("glibc 2.") or libc == ""  # musl / macOS answer nothing


@pytest.mark.parametrize(
    ("libc", "glibc"),
    [("glibc 2.35", "2.35"), ("glibc 2.27", "2.27"), ("", "unknown"), ("musl 1.2", "unknown")],
)
def test_glibc_is_kept_in_the_profile(tmp_path: Path, libc: str, glibc: str) -> None:
    assert glibc_of(libc) == glibc
    profile = probe(tmp_path, {"/etc/os-release": DEBIAN_12}, libc=libc)
    assert profile.os.glibc == glibc
    again = MachineProfile.from_json(profile.to_json())
    assert again.os.glibc == glibc


def test_demo_profiles_carry_their_distribution_glibc() -> None:
    want = {
        ("ubuntu", "20.04"): "2.31",
        ("ubuntu", "22.04"): "2.35",
        ("ubuntu", "24.04"): "2.39",
        ("debian", "12"): "2.36",
    }
    seen = set()
    for name in demo_names():
        p = load_demo(name)
        key = (p.os.id, p.os.version)
        if key in want:
            assert p.os.glibc == want[key], name
            seen.add(key)
    assert seen == set(want)


def test_debian_mirror_from_a_one_line_list(tmp_path: Path) -> None:
    sources = (
        "# deb cdrom:[Debian GNU/Linux 12]/ bookworm main\n"
        f"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] {MIRROR}/ bookworm main\n"
        "deb http://security.lab.example/debian-security bookworm-security main\n"
    )
    profile = probe(tmp_path, {"/etc/os-release": DEBIAN_12, "/etc/apt/sources.list": sources})
    assert profile.os.apt_mirror == MIRROR


def test_debian_mirror_from_deb822_sources(tmp_path: Path) -> None:
    deb822 = (
        "Types: deb\nURIs: http://security.lab.example/debian-security\nSuites: bookworm-security\n"
        "Components: main\n\n"
        f"Types: deb deb-src\nURIs: {MIRROR}\nSuites: bookworm bookworm-updates\nComponents: main\n"
    )
    files = {"/etc/os-release": DEBIAN_12, "/etc/apt/sources.list.d/debian.sources": deb822}
    assert probe(tmp_path, files).os.apt_mirror == MIRROR


def test_no_debian_archive_line_leaves_the_mirror_unknown(tmp_path: Path) -> None:
    files = {
        "/etc/os-release": DEBIAN_12,
        "/etc/apt/sources.list": "deb http://repo.lab.example/tools stable main\n",
    }
    assert probe(tmp_path, files).os.apt_mirror == "unknown"


def _debian_plan(mirror: str):
    profile = load_demo("debian-12-gtx1060-laptop")
    profile = dataclasses.replace(profile, driver=None, gpus=[], nvidia_pci_devices=1)
    profile.os.apt_mirror = mirror
    cand = Candidate(VersionSet("2.21.0", "3.11", "12.5", "9.3", "pip-and-cuda"), True)
    return build_plan(profile, cand, home="/home/student")


def test_the_debian_non_free_line_reuses_the_machines_mirror() -> None:
    step = _debian_plan(MIRROR).step("debian-non-free")
    line = step.commands[0][-1]
    assert line == f"deb {MIRROR} bookworm main contrib non-free non-free-firmware"
    assert MIRROR in step.why


@pytest.mark.parametrize(
    "mirror", ["unknown", "http://x.example/debian\ndeb http://evil.example/ bookworm main"]
)
def test_without_a_usable_mirror_the_step_is_done_by_hand(mirror: str) -> None:
    step = _debian_plan(mirror).step("debian-non-free")
    assert step.commands == () and step.manual and "contrib non-free" in step.manual
    assert "evil" not in json.dumps(step.to_dict())
