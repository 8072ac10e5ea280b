"""A DKMS make.log read from its middle (a pasted part: no "DKMS make.log for ..." header, no make's
last line): a compiler error in one of the driver's own sources shows the build failed, for a kernel
the part does not name (the log pasted alone, as tk-glitch/PKGBUILDS#133 did). The probe says the build failed, keeps the driver's version from the build's
path, and names no kernel (its words say so). Build lines alone, with no error, decide nothing."""

from __future__ import annotations

from pathlib import Path

from tests.dump_corpus import materialize
from wizard.probe.dump import detect_dump
from wizard.probe.state_view import unsure_key, words

LOG = "/var/lib/dkms/nvidia/396.54.09/build/make.log"
COMPILED = "  CC [M]  /var/lib/dkms/nvidia/396.54.09/build/nvidia-drm/nvidia-drm-helper.o\n"
ERROR = (
    "/var/lib/dkms/nvidia/396.54.09/build/nvidia-drm/nvidia-drm-encoder.c:219:11: error: implicit "
    "declaration of function 'drm_mode_connector_attach_encoder' [-Werror=implicit-function-declaration]\n"
)


def _profile(tmp_path: Path, log: str):  # type: ignore[no-untyped-def]
    case = {"slug": "dkms", "source": "a test", "files": {LOG: log}, "commands": []}
    return detect_dump(materialize(case, tmp_path))


def test_a_compiler_error_in_the_drivers_source_is_a_failed_build(tmp_path: Path) -> None:
    profile = _profile(tmp_path, COMPILED + ERROR + "cc1: some warnings being treated as errors\n")
    module = next(s for s in profile.states if s.layer == "module")
    assert unsure_key(module) == "module-build-failed"
    assert module.facts.get("version") == "396.54.09"
    assert [e.source for e in module.evidence][-1] == LOG
    said = words(module, profile)
    assert "396.54.09" in said.title and "failed to build" in said.title
    assert "{" not in said.title + said.fix  # no kernel to fill in: its own words, none left open
    assert "sudo dkms autoinstall -k $(uname -r)" in said.fix


def test_build_lines_without_an_error_decide_nothing(tmp_path: Path) -> None:
    profile = _profile(tmp_path, COMPILED * 3)
    assert all(unsure_key(s) != "module-build-failed" for s in profile.states)
