"""The driver step under Secure Boot says what this distribution needs: Ubuntu's signed modules load
as they are (a MOK screen only for modules built here); Debian's DKMS key must be enrolled by hand
with mokutil before the reboot, or the new driver never loads."""

from __future__ import annotations

import copy

from wizard.choose.knowledge import load_knowledge
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.profile import MachineProfile


def _driver_why(profile: MachineProfile) -> str:
    rec = recommend(profile, load_knowledge())
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended)
    (step,) = [s for s in plan.steps if s.id == "driver"]
    return step.why


def _without_driver(name: str, *, secure_boot: bool) -> MachineProfile:
    p = copy.deepcopy(load_demo(name))
    p.driver = None
    p.kernel.nvidia_loaded = False
    p.kernel.loaded_version = None
    p.kernel.secure_boot = secure_boot
    return p


def test_debian_under_secure_boot_says_to_enrol_dkms_key_with_mokutil() -> None:
    why = _driver_why(_without_driver("debian-12-gtx1060-laptop", secure_boot=True))
    assert "sudo mokutil --import /var/lib/dkms/mok.pub" in why
    assert "before the reboot" in why and "Enroll MOK" in why
    assert "the install asked you" not in why  # Debian's install asks for no password


def test_ubuntu_under_secure_boot_does_not_send_the_student_to_mokutil() -> None:
    why = _driver_why(_without_driver("ubuntu-24.04-rtx4090-fresh", secure_boot=True))
    assert "signed driver modules load as they are" in why and "mokutil" not in why


def test_no_secure_boot_no_mok_words() -> None:
    why = _driver_why(_without_driver("debian-12-gtx1060-laptop", secure_boot=False))
    assert "MOK" not in why
