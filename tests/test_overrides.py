"""Probed facts set from outside (TF_GPU_WIZARD_DRIVER_VERSION, _DRIVER_CUDA, _GPUS), the way uv and
conda take theirs: they replace the probed fact and every view says who set it."""

from __future__ import annotations

from pathlib import Path

from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, context, tree
from wizard.choose.resolver import recommend
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.profile_view import part_rows

FILES = {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204}


def test_overrides_replace_the_probed_facts_and_say_so(tmp_path: Path) -> None:
    env = {
        "TF_GPU_WIZARD_DRIVER_VERSION": "570.133.07",
        "TF_GPU_WIZARD_DRIVER_CUDA": "12.8",
        "TF_GPU_WIZARD_GPUS": "NVIDIA GeForce RTX 5090=12.0;Tesla T4=7.5",
    }
    ctx = context(tree(tmp_path, FILES), env=env)
    p = detect(context=ctx, nvml=FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND))
    assert p.driver is not None and (p.driver.version, p.driver.cuda) == ("570.133.07", "12.8")
    assert [(g.name, g.compute_capability) for g in p.gpus] == [
        ("NVIDIA GeForce RTX 5090", "12.0"),
        ("Tesla T4", "7.5"),
    ]
    assert p.overrides["driver.version"] == "TF_GPU_WIZARD_DRIVER_VERSION=570.133.07"
    rows = dict(part_rows("nvidia", p))
    assert any("set by TF_GPU_WIZARD_DRIVER_VERSION=570.133.07" in v for v in rows.values())
    assert any("set by TF_GPU_WIZARD_GPUS=" in v for v in rows.values())
    notes = recommend(p).notes
    assert any("set by TF_GPU_WIZARD_DRIVER_CUDA=12.8" in n for n in notes)


def test_a_bad_override_is_refused_and_the_probed_fact_stays(tmp_path: Path) -> None:
    env = {"TF_GPU_WIZARD_DRIVER_VERSION": "latest", "TF_GPU_WIZARD_GPUS": "RTX 5090"}
    ctx = context(tree(tmp_path, FILES), env=env)
    p = detect(context=ctx, nvml=FakeNvml(driver="550.120", cuda=12040))
    assert p.driver is not None and p.driver.version == "550.120"
    assert p.gpus and p.gpus[0].name != "RTX 5090"
    assert p.overrides == {}
    assert sum("is not a value the wizard can use" in n for n in p.notes) == 2
