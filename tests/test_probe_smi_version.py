"""`nvidia-smi --version` is one of nvidia-smi's formats: a dump that holds only it (a TA asked for
"the driver version", a bug report pasted it) gives the driver and its CUDA; beside `nvidia-smi -L`
it names the driver the list does not. It prints no GPU, so it never makes one up."""

from __future__ import annotations

from pathlib import Path

from tests.dump_corpus import materialize
from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204
from wizard.probe.dump import detect_dump
from wizard.probe.nvidia import SMI_FIELDS
from wizard.probe.smi_formats import parse_smi_version
from wizard.profile import MachineProfile

# As R595's nvidia-smi prints it (NixOS/nixpkgs#525475, corpus round 20).
VERSION_595 = (
    "NVIDIA-SMI version  : 595.71.05\n"
    "NVML version        : 595.71\n"
    "DRIVER version      : 595.71.05\n"
    "CUDA Version        : 13.2\n"
)
LIST_1650 = "GPU 0: NVIDIA GeForce GTX 1650 Ti (UUID: GPU-dba9c788-0930-b476-97a6-3ab75f765397)\n"
FILES = {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204}


def replay(tmp_path: Path, commands: list[tuple[list[str], str]]) -> MachineProfile:
    """A dump as the corpus writes one: each command's argv and output (exit not shown, as pasted)."""
    rows = [{"argv": argv, "stdout": text, "stderr": "", "exit": None} for argv, text in commands]
    return detect_dump(
        materialize({"slug": "case", "source": "test", "files": FILES, "commands": rows}, tmp_path)
    )


def test_the_version_block_gives_the_driver_and_its_cuda() -> None:
    assert parse_smi_version(VERSION_595) == ("595.71.05", "13.2")
    # The renamed lines of R610's banner, and a broken CUDA kept as printed.
    assert parse_smi_version("KMD version : 610.57.04\nCUDA UMD Version : ERR!\n") == ("610.57.04", "ERR!")
    assert parse_smi_version("NVIDIA-SMI version  : 595.71.05\n") == ("", "")


def test_a_dump_of_only_the_version_block_reads_driver_and_cuda_and_no_gpu(tmp_path: Path) -> None:
    p = replay(tmp_path, [(["nvidia-smi", "--version"], VERSION_595)])
    assert p.driver is not None
    assert (p.driver.version, p.driver.cuda) == ("595.71.05", "13.2")
    assert p.gpus == []


def test_the_gpu_list_beside_the_version_block_gives_both(tmp_path: Path) -> None:
    p = replay(tmp_path, [(["nvidia-smi", "-L"], LIST_1650), (["nvidia-smi", "--version"], VERSION_595)])
    assert p.driver is not None
    assert (p.driver.version, p.driver.cuda) == ("595.71.05", "13.2")
    assert [g.name for g in p.gpus] == ["NVIDIA GeForce GTX 1650 Ti"]


def test_the_gpu_list_alone_names_no_driver(tmp_path: Path) -> None:
    p = replay(tmp_path, [(["nvidia-smi", "-L"], LIST_1650)])
    assert p.driver is not None and p.driver.version == "unknown"
    assert len(p.gpus) == 1


def test_the_query_s_driver_wins_over_a_version_block(tmp_path: Path) -> None:
    """The block is read only where nvidia-smi's query, table and list named no driver."""
    row = "0, NVIDIA GeForce RTX 4090, 8.9, 24564, GPU-1, 00000000:01:00.0, 550.54.15\n"
    query = ["nvidia-smi", f"--query-gpu={SMI_FIELDS}", "--format=csv,noheader,nounits"]
    p = replay(tmp_path, [(query, row), (["nvidia-smi", "--version"], VERSION_595)])
    assert p.driver is not None and p.driver.version == "550.54.15"
    assert [g.name for g in p.gpus] == ["NVIDIA GeForce RTX 4090"]
