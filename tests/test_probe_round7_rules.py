"""Rules read from the training side of the seventh round of real dumps, each tested on a minimal
machine of its own (the lines are copied from the round's texts or from nvidia-smi's own layouts): a
state is named only where the text proves it, and the GPU count is what the machine printed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.dump_corpus import judge, materialize
from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, context, fail, tree
from tests.probe_case import reasons
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.probe.dump import detect_dump
from wizard.probe.state_view import words
from wizard.profile import MachineProfile
from wizard.sysio import CommandResult
from wizard.text import set_language

NATIVE = {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204}
NO_LIB = FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND)
UNSHOWN = -1  # a pasted output shows no exit code


def probe(
    tmp_path: Path,
    files: dict[str, str],
    commands: Mapping[Any, CommandResult],
    nvml: FakeNvml = NO_LIB,
) -> MachineProfile:
    return detect(context=context(tree(tmp_path, files), dict(commands)), nvml=nvml)


# ---- the GPU count: every GPU nvidia-smi printed, in each of its layouts ---------------------------
# The 430-era table (79 columns), the R525+ table (91 columns), the R570 table (bus id padded), and
# a table pasted with its spacing collapsed; each row is "| index name persistence | bus id ... |".
OLD_TABLE = (
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 430.26       Driver Version: 430.26       CUDA Version: 10.2     |\n"
    "|-------------------------------+----------------------+----------------------+\n"
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
    "|===============================+======================+======================|\n"
    "|   0  GeForce RTX 208...  Off  | 00000000:18:00.0 Off |                  N/A |\n"
    "| 27%   31C    P8    20W / 250W |      0MiB / 11019MiB |      0%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
    "|   1  GeForce RTX 208...  Off  | 00000000:3B:00.0 Off |                  N/A |\n"
    "| 27%   30C    P8    1W / 250W |      0MiB / 11019MiB |      0%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
    "|   2  GeForce RTX 208...  Off  | 00000000:86:00.0 Off |                  N/A |\n"
    "| 27%   29C    P8    1W / 250W |      0MiB / 11019MiB |      0%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
    "|   3  GeForce RTX 208...  Off  | 00000000:AF:00.0 Off |                  N/A |\n"
    "| 27%   30C    P8    21W / 250W |      0MiB / 11019MiB |      0%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
)
NEW_TABLE = (
    "+---------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    "|-----------------------------------------+----------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "|=========================================+======================+======================|\n"
    "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |\n"
    "| N/A   30C    P0              61W / 400W |      4MiB / 81920MiB |      0%      Default |\n"
    "|   1  NVIDIA A100-SXM4-80GB          On  | 00000000:0F:00.0 Off |                    0 |\n"
    "| N/A   29C    P0              60W / 400W |      4MiB / 81920MiB |      0%      Default |\n"
    "+-----------------------------------------+----------------------+----------------------+\n"
)
R570_TABLE = (
    "| NVIDIA-SMI 570.86.15              Driver Version: 570.86.15      CUDA Version: 12.8     |\n"
    "|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0  On |                  N/A |\n"
    "|  0%   41C    P8             22W /  575W |     512MiB /  32607MiB |      2%      Default |\n"
    "|   1  NVIDIA GeForce RTX 5090        Off |   00000000:02:00.0 Off |                  N/A |\n"
    "|  0%   35C    P8             12W /  575W |       2MiB /  32607MiB |      0%      Default |\n"
)
COLLAPSED_TABLE = (
    "| NVIDIA-SMI 470.57.02 Driver Version: 470.57.02 CUDA Version: 11.4 |\n"
    "| 0 Tesla V100-SXM2... On | 00000000:06:00.0 Off | 0 |\n"
    "| N/A 34C P0 42W / 300W | 0MiB / 16160MiB | 0% Default |\n"
    "|1 Tesla V100-SXM2... On|00000000:07:00.0 Off|0|\n"
    "| 2 Tesla V100-SXM2... N/A | 00000000:08:00.0 Off | 0 |\n"
    "3 Tesla V100-SXM2... On | 00000000:09:00.0 Off | 0\n"  # the outer "|" lost as well
    "| 0 N/A N/A 1234 C python 300MiB |\n"  # a process row is no GPU
)


@pytest.mark.parametrize(
    ("table", "count", "driver"),
    [
        (OLD_TABLE, 4, "430.26"),
        (NEW_TABLE, 2, "535.104.05"),
        (R570_TABLE, 2, "570.86.15"),
        (COLLAPSED_TABLE, 4, "470.57.02"),
    ],
)
def test_every_row_of_each_table_layout_is_a_gpu(tmp_path: Path, table: str, count: int, driver: str) -> None:
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, table)})
    assert len(p.gpus) == count
    assert [g.index for g in p.gpus] == list(range(count))
    assert p.driver is not None and p.driver.version == driver
    assert not reasons(p)


# `nvidia-smi -q` (and `-a`, the same report): "Attached GPUs : N", then one "GPU <bus>" block each.
# NVIDIA/nvidia-docker#1146 pasted it cut after the first block: the count still says four.
def report(blocks: int, attached: int) -> str:
    head = (
        "==============NVSMI LOG==============\n\n"
        "Timestamp                           : Fri Dec  6 09:35:04 2019\n"
        "Driver Version                      : 430.26\n"
        "CUDA Version                        : 10.2\n\n"
        f"Attached GPUs                       : {attached}\n"
    )
    body = "".join(
        f"GPU 00000000:{bus}:00.0\n    Product Name                    : GeForce RTX 2080 Ti\n"
        "    Product Brand                   : GeForce\n"
        for bus in ("18", "3B", "86", "AF")[:blocks]
    )
    return head + body


@pytest.mark.parametrize("blocks", [4, 1])
def test_the_long_report_counts_its_attached_gpus_also_where_cut(tmp_path: Path, blocks: int) -> None:
    p = probe(tmp_path, NATIVE, {("nvidia-smi", "-q"): fail(UNSHOWN, report(blocks, 4))})
    assert len(p.gpus) == 4
    assert [g.index for g in p.gpus] == [0, 1, 2, 3]
    assert p.gpus[0].name == "GeForce RTX 2080 Ti" and p.gpus[0].pci_bus_id == "00000000:18:00.0"
    assert sum(g.name == "GeForce RTX 2080 Ti" for g in p.gpus) == blocks  # no name is made up
    assert p.driver is not None and p.driver.version == "430.26"


def test_a_report_whose_blocks_were_pasted_indented_still_counts_each(tmp_path: Path) -> None:
    text = report(2, 2).replace("\nGPU 0000", "\n  GPU 0000")
    p = probe(tmp_path, NATIVE, {("nvidia-smi", "-q"): fail(UNSHOWN, text)})
    assert [g.pci_bus_id for g in p.gpus] == ["00000000:18:00.0", "00000000:3B:00.0"]


def test_the_xml_report_counts_its_attached_gpus_also_where_cut(tmp_path: Path) -> None:
    xml = (
        '<?xml version="1.0" ?>\n<nvidia_smi_log>\n\t<driver_version>430.26</driver_version>\n'
        "\t<cuda_version>10.2</cuda_version>\n\t<attached_gpus>3</attached_gpus>\n"
        '\t<gpu id="00000000:18:00.0">\n\t\t<product_name>GeForce RTX 2080 Ti</product_name>\n'
    )
    p = probe(tmp_path, NATIVE, {("nvidia-smi", "-q", "-x"): fail(UNSHOWN, xml)})
    assert len(p.gpus) == 3 and p.gpus[0].name == "GeForce RTX 2080 Ti"


# ---- a non-root user's NVML "Insufficient Permissions" on the host -------------------------------
# NVIDIA/nvidia-docker#284 (openSUSE Leap 42.2, nvidia-docker 1.0, as a non-root user; root works):
# nvidia-docker 1.0 starts NVML in the user's own process on the host before any container exists.
DOCKER1_REFUSED = "nvidia-docker | 2017/01/06 20:03:02 Error: nvml: Insufficient Permissions\n"


def replay(tmp_path: Path, commands: list[dict], expect: dict, files: dict[str, str] | None = None) -> Any:
    case = {"slug": "case", "source": "test", "files": files or {}, "commands": commands, "expect": expect}
    p = detect_dump(materialize(case, tmp_path))
    return p, judge(case, p)


def test_the_host_nvidia_smi_refused_by_nvml_names_no_permission(tmp_path: Path) -> None:
    refused = "Failed to initialize NVML: Insufficient Permissions\n"
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, refused)})
    assert "no-permission" in reasons(p)


def test_one_field_unreadable_in_a_working_report_names_nothing(tmp_path: Path) -> None:
    # `nvidia-smi -q` as a non-root user prints fields it may not read as "[Insufficient Permissions]"
    # while the driver answers: a working GPU, no state named.
    text = report(1, 1) + "    Serial Number                   : [Insufficient Permissions]\n"
    p = probe(tmp_path, NATIVE, {("nvidia-smi", "-q"): fail(UNSHOWN, text)})
    assert len(p.gpus) == 1 and "no-permission" not in reasons(p)


# ---- WSL1 with a Linux driver inside -----------------------------------------------------------------
# jcjohnson/neural-style#335 ("ubuntu 14.04 on win10", kernel 3.4.0+, nvidia_367 installed inside):
# WSL1 has no GPU device at all; the Linux driver's nvidia-smi fails whatever it prints.
WSL1 = {"/proc/version": "Linux version 3.4.0+ (Microsoft@Microsoft.com) #1 SMP\n"}
WSL1_SMI = (
    "modprobe: ERROR: could not insert 'nvidia_367': Function not implemented\n"
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running.\n"
)


def test_wsl1_with_a_linux_driver_s_failing_nvidia_smi_has_no_gpu_device(tmp_path: Path) -> None:
    p = probe(tmp_path / "a", WSL1, {("nvidia-smi",): fail(UNSHOWN, WSL1_SMI)})
    assert p.platform == "wsl1"
    assert reasons(p) == {"wsl-no-gpu-device"}
    said = words(p.failed_states[0], p)
    assert "WSL1" in said.title and "--set-version" in said.fix and "wsl --update" not in said.manual
    assert any("NVIDIA-SMI has failed" in line for line in said.evidence)
    # WSL1 without a Linux driver inside: no state (the WSL1 note says the rest), as before
    q = probe(tmp_path / "b", WSL1, {})
    assert q.platform == "wsl1" and not q.failed_states
    set_language("zh")  # every word in Chinese too
    try:
        assert "WSL1" in words(p.failed_states[0], p).title and "WSL2" in words(p.failed_states[0], p).fix
    finally:
        set_language(None)


def test_the_wsl1_state_changes_no_choice(tmp_path: Path) -> None:
    # WSL1 stops every GPU set by itself (its own step: convert to WSL2); the state adds evidence only.
    p = probe(tmp_path, WSL1, {("nvidia-smi",): fail(UNSHOWN, WSL1_SMI)})
    assert p.failed_states and p.blocking_state is None


@pytest.mark.parametrize(
    ("smi", "init"),
    [
        ("Unable to determine the device handle for GPU0000:01:00.0: Insufficient Permissions\n", None),
        ("", ErrorKind.NO_PERMISSION),  # the probe's own nvmlInit refused, no nvidia-smi
        ("Failed to initialize NVML: Insufficient Permissions\n", ErrorKind.NO_PERMISSION),
    ],
)
def test_each_way_nvml_refuses_this_user_names_no_permission(
    tmp_path: Path, smi: str, init: ErrorKind | None
) -> None:
    commands = {("nvidia-smi",): fail(UNSHOWN, smi)} if smi else {}
    nvml = FakeNvml(init_error=init) if init else NO_LIB
    p = probe(tmp_path, NATIVE, commands, nvml=nvml)
    assert "no-permission" in reasons(p) and "gpu-lost" not in reasons(p)
