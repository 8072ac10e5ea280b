"""Rules read from the training side of the sixth round of real dumps, each tested on a minimal
machine of its own (written here; the lines are copied from the round's texts or from the artifact's
source, cited beside them): a state is named only where the text proves it, the neutral state where it
does not, and the names the round showed wrong are gone."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.dump_corpus import as_run, judge, materialize
from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, context, fail, ok, tree
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.probe.dump import detect_dump
from wizard.probe.nvidia import SMI_FIELDS
from wizard.probe.state_view import words
from wizard.profile import FAILING, MachineProfile
from wizard.sysio import CommandResult

NATIVE = {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204}
NO_LIB = FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND)
UNSHOWN = -1  # a pasted output shows no exit code
NOT_COMMUNICATE = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running.\n"
)
NO_DEVICES = "No devices were found\n"
QUERY = ("nvidia-smi", f"--query-gpu={SMI_FIELDS}", "--format=csv,noheader,nounits")


def probe(
    tmp_path: Path,
    files: dict[str, str],
    commands: Mapping[Any, CommandResult],
    links: dict[str, str] | None = None,
) -> MachineProfile:
    return detect(context=context(tree(tmp_path, files, links), dict(commands)), nvml=NO_LIB)


def reasons(p: MachineProfile) -> set[str]:
    return {s.reason for s in p.failed_states if s.reason}


def state(p: MachineProfile, reason: str) -> Any:
    return next(s for s in p.failed_states if s.reason == reason)


def replay(tmp_path: Path, commands: list[dict], expect: dict, files: dict[str, str] | None = None) -> Any:
    case = {"slug": "case", "source": "test", "files": files or {}, "commands": commands, "expect": expect}
    p = detect_dump(materialize(case, tmp_path))
    return p, judge(case, p)


# ---- a GPU fallen off the bus: the kernel's line for that GPU decides lost, not unreachable -------
# akash-network/support#209 (`dmesg -T | grep NVRM`, `nvidia-smi`); the texts are osinit.c's
# "GPU has fallen off the bus." (NV_DEV_PRINTF, "NVRM: GPU <bus>: " prefix) and Xid 79.
DMESG_T = (
    "[Thu Apr  4 18:03:56 2024] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.07  Sat Feb 17 22:55:48 UTC 2024\n"
    "[Fri Apr  5 21:29:39 2024] NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    "[Fri Apr  5 21:29:39 2024] NVRM: GPU 0000:a1:00.0: GPU has fallen off the bus.\n"
)
HANDLE_UNKNOWN = "Unable to determine the device handle for GPU0000:A1:00.0: Unknown Error\n"


def test_the_kernel_s_fallen_off_the_bus_line_for_that_gpu_decides_lost(tmp_path: Path) -> None:
    smi = {("nvidia-smi",): fail(UNSHOWN, HANDLE_UNKNOWN)}
    p = probe(tmp_path / "a", NATIVE, {**smi, ("dmesg",): ok(DMESG_T)})
    lost = state(p, "gpu-lost")
    assert lost.facts["bus"].lower() == "0000:a1:00.0"
    assert any("79" in e.line and e.source == "dmesg" for e in lost.evidence)
    assert "gpu-unreachable" not in reasons(p)
    assert p.driver is not None and p.driver.version == "535.161.07"  # the module's loading line
    # without the kernel's line the same nvidia-smi words decide only that the GPU cannot be reached
    assert reasons(probe(tmp_path / "b", NATIVE, smi)) == {"gpu-unreachable"}
    # a line about another GPU decides nothing for this one
    other = DMESG_T.replace("a1:00", "81:00")
    q = probe(tmp_path / "c", NATIVE, {**smi, ("dmesg",): ok(other)})
    assert "gpu-unreachable" in reasons(q)


def test_a_pasted_dmesg_with_wall_clock_stamps_is_read_as_dmesg(tmp_path: Path) -> None:
    # The round's wrong answer: the paste was `dmesg -T`, which the replay did not give the probe.
    pasted = [
        {"argv": ["nvidia-smi"], "stdout": HANDLE_UNKNOWN, "stderr": "", "exit": None},
        {"argv": ["dmesg", "-T"], "stdout": DMESG_T, "stderr": "", "exit": None},
    ]
    p, verdict = replay(tmp_path, pasted, {"driver": "535.161.07", "reasons": ["gpu-lost"]})
    assert verdict.right and not verdict.wrong
    assert "gpu-unreachable" not in reasons(p)
    # dmesg with other options (-l err keeps only some levels) is not dmesg's whole log
    run = as_run([{"argv": ["dmesg", "-l", "err"], "stdout": "x"}], {})
    assert not any(c["argv"] == ["dmesg"] for c in run)


# ---- a GPU switched off, as nvidia-smi's words show it ------------------------------------------
def test_couldn_t_communicate_alone_is_not_loaded_and_never_switched_off(tmp_path: Path) -> None:
    # linux-surface/surface-control#22: only nvidia-smi's line was pasted (the thread then finds
    # the dGPU switched off in the firmware settings). The line is NVML_ERROR_DRIVER_NOT_LOADED: true
    # of that machine (nv.c: no GPU on the bus, "No NVIDIA GPU found.", the module does not load),
    # and it says nothing of why.
    pasted = [{"argv": ["nvidia-smi"], "stdout": NOT_COMMUNICATE, "stderr": "", "exit": None}]
    p, verdict = replay(tmp_path, pasted, {"driver": None, "reasons": ["gpu-switched-off"]})
    assert reasons(p) == {"not-loaded"}
    assert not verdict.wrong and verdict.missed == ["not named: gpu-switched-off"]
    # not-loaded's fix names modprobe's answer for a machine whose GPU is not on the bus (en, zh)
    fix = words(state(p, "not-loaded"), p).fix
    assert "'No such device'" in fix and "BIOS/UEFI" in fix


def test_the_judge_still_counts_not_loaded_wrong_where_the_text_shows_a_working_driver(
    tmp_path: Path,
) -> None:
    pasted = [{"argv": ["nvidia-smi"], "stdout": NOT_COMMUNICATE, "stderr": "", "exit": None}]
    _, verdict = replay(tmp_path, pasted, {"driver": None, "reasons": []})
    assert verdict.wrong == ["named not-loaded, which the text does not show"]


def test_not_loaded_s_fix_in_chinese_names_the_same_answer(tmp_path: Path) -> None:
    from wizard.text import set_language

    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, NOT_COMMUNICATE)})
    set_language("zh")
    try:
        fix = words(state(p, "not-loaded"), p).fix
    finally:
        set_language(None)
    assert "'No such device'" in fix and "BIOS/UEFI" in fix and "独立显卡" in fix


# ---- "No devices were found": the driver is loaded and gives NVML no GPU ------------------------
def test_no_devices_alone_fails_the_gpu_layer_with_no_cause(tmp_path: Path) -> None:
    # pytorch/pytorch#163658: `nvidia-smi --query-gpu=driver_version --format=csv,noheader --id=0`
    # printed "No devices were found" (exit 6). nvidia-smi(1): 6 is "a query to find an object was
    # unsuccessful", 9 "NVIDIA driver is not loaded": NVML started. Which of a GPU that did not
    # start, one given to vfio-pci for a VM, or one unbound is not shown.
    p = probe(
        tmp_path, NATIVE, {QUERY: fail(UNSHOWN, NO_DEVICES), ("nvidia-smi",): fail(UNSHOWN, NO_DEVICES)}
    )
    assert reasons(p) == set()
    gpu = next(s for s in p.failed_states if s.layer == "gpu")
    assert gpu.state == FAILING and gpu.reason == ""
    assert [e.line for e in gpu.evidence][:1] == ["No devices were found"]


def test_no_devices_with_the_gpu_shown_bound_to_nvidia_is_gpu_init_failed(tmp_path: Path) -> None:
    smi = {("nvidia-smi",): fail(UNSHOWN, NO_DEVICES)}
    loaded = {**NATIVE, "/proc/modules": "nvidia 56717312 188 - Live 0x0\n"}
    # The module loaded and which driver holds the GPU not read (no sysfs, no `lspci -k`): a GPU given
    # to vfio-pci leaves the module loaded too (below), so no cause is named (round 26's TDX guest).
    unread = probe(tmp_path / "a", loaded, smi)
    assert "gpu-init-failed" not in reasons(unread)
    assert next(s for s in unread.failed_states if s.layer == "gpu").reason == ""
    # sysfs: the GPU bound to nvidia
    bus = "/sys/bus/pci/devices/0000:01:00.0"
    sysfs = {**NATIVE, f"{bus}/vendor": "0x10de\n", f"{bus}/class": "0x030000\n", f"{bus}/device": "0x2803\n"}
    sysfs["/sys/bus/pci/drivers/nvidia/new_id"] = ""
    p = probe(tmp_path / "b", sysfs, smi, {f"{bus}/driver": "../../drivers/nvidia"})
    assert "gpu-init-failed" in reasons(p)


def test_no_devices_with_the_gpu_bound_to_vfio_pci_names_no_failure_of_the_gpu(tmp_path: Path) -> None:
    # libvirt's managed passthrough unbinds the GPU from nvidia and binds vfio-pci as the VM starts;
    # the nvidia module stays loaded and nvidia-smi on the host finds no device.
    smi = {("nvidia-smi",): fail(UNSHOWN, NO_DEVICES)}
    loaded = {**NATIVE, "/proc/modules": "nvidia 56717312 0 - Live 0x0\n"}
    bus = "/sys/bus/pci/devices/0000:01:00.0"
    sysfs = {**loaded, f"{bus}/vendor": "0x10de\n", f"{bus}/class": "0x030000\n", f"{bus}/device": "0x2803\n"}
    sysfs["/sys/bus/pci/drivers/vfio-pci/new_id"] = ""
    p = probe(tmp_path / "a", sysfs, smi, {f"{bus}/driver": "../../drivers/vfio-pci"})
    assert "gpu-init-failed" not in reasons(p)
    gpu = next(s for s in p.failed_states if s.layer == "gpu")
    assert gpu.reason == "" and ("/sys/bus/pci/devices", "0000:01:00.0: vfio-pci") in [
        (e.source, e.line) for e in gpu.evidence
    ]
    # the same from a pasted `lspci -k` (pciutils' "Kernel driver in use:")
    lspci_k = (
        "01:00.0 VGA compatible controller: NVIDIA Corporation AD106 [GeForce RTX 4060 Ti] (rev a1)\n"
        "\tSubsystem: Micro-Star International Co., Ltd. [MSI] Device 5152\n"
        "\tKernel driver in use: vfio-pci\n"
        "\tKernel modules: nouveau, nvidia_drm, nvidia\n"
    )
    q = probe(tmp_path / "b", loaded, {**smi, ("lspci", "-k"): ok(lspci_k)})
    assert "gpu-init-failed" not in reasons(q)
    # the kernel's own RmInitAdapter line still decides it
    log = ok("[    5.1] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)\n")
    r = probe(tmp_path / "c", loaded, {**smi, ("lspci", "-k"): ok(lspci_k), ("dmesg",): log})
    assert "gpu-init-failed" in reasons(r)


def test_no_devices_in_a_container_is_never_gpu_init_failed(tmp_path: Path) -> None:
    # /proc/modules there is the host's: its module is loaded whether the container was given a GPU
    # or not (NVIDIA_VISIBLE_DEVICES=none passes /dev/nvidiactl and no GPU)
    inside = {**NATIVE, "/.dockerenv": "", "/dev/nvidiactl": "", "/proc/modules": "nvidia 1 0 - Live 0x0\n"}
    p = probe(tmp_path, inside, {("nvidia-smi",): fail(UNSHOWN, NO_DEVICES)})
    assert "gpu-init-failed" not in reasons(p)
    assert not any(s.layer == "gpu" for s in p.failed_states)


def test_a_pasted_query_that_failed_is_the_probe_s_query(tmp_path: Path) -> None:
    argv = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "--id=0"]
    run = as_run([{"argv": argv, "stdout": NO_DEVICES}], {})
    assert any(tuple(c["argv"]) == QUERY and c["stdout"] == NO_DEVICES for c in run)
    # another GPU's id finds none where there are fewer: not the probe's question
    other = as_run([{"argv": [*argv[:-1], "--id=3"], "stdout": NO_DEVICES}], {})
    assert not any(tuple(c["argv"]) == QUERY for c in other)
    # a query that answered (one field, no comma) is no failure
    named = as_run(
        [{"argv": ["nvidia-smi", "--query-gpu=name", "--format=csv"], "stdout": "name\nTesla T4\n"}], {}
    )
    assert not any(tuple(c["argv"]) == QUERY for c in named)
    p, verdict = replay(
        tmp_path, [{"argv": argv, "stdout": NO_DEVICES, "stderr": "", "exit": None}], {"driver": None}
    )
    assert not verdict.wrong
    assert any(s.layer == "gpu" and s.reason == "" for s in p.failed_states)


def test_no_devices_alone_is_never_no_nvidia_gpu_in_the_doctor(tmp_path: Path) -> None:
    from wizard.doctor.findings import find_problems
    from wizard.text import set_language

    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(6, NO_DEVICES)})
    found = {f.key: f for f in find_problems(p)}
    # the driver is loaded and gives no GPU: neither "No NVIDIA GPU on this machine" nor a cause
    assert "no-nvidia-gpu" not in found and "state-gpu-init-failed" not in found
    said = found["state-gpu-no-usable"]
    assert "No devices were found" in said.title and "vfio-pci" in said.fix and "RmInitAdapter" in said.fix
    assert any("No devices were found" in e for e in said.evidence)
    set_language("zh")
    try:
        zh = {f.key: f for f in find_problems(p)}["state-gpu-no-usable"]
    finally:
        set_language(None)
    assert "驱动已加载" in zh.title and "vfio-pci" in zh.fix


def test_a_gpu_on_vfio_pci_replays_exactly_from_a_dump(tmp_path: Path) -> None:
    # detect --dump keeps the driver link it read (a link in root/), so --from reads the same binding
    from tests.machines import LINUX_PY
    from wizard.probe.dump import Mask, recording_context, write_dump
    from wizard.sysio import CannedCommands, System

    bus = "/sys/bus/pci/devices/0000:01:00.0"
    files = {
        **NATIVE,
        "/proc/modules": "nvidia 56717312 0 - Live 0x0\n",
        f"{bus}/vendor": "0x10de\n",
        f"{bus}/class": "0x030000\n",
        f"{bus}/device": "0x2803\n",
        "/sys/bus/pci/drivers/vfio-pci/new_id": "",
    }
    root = tree(tmp_path / "machine", files, {f"{bus}/driver": "../../drivers/vfio-pci"})
    runner = CannedCommands({("nvidia-smi",): fail(6, NO_DEVICES)})
    system = System(root=root, runner=runner, environ={"HOME": "/home/u"}, home=Path("/home/u"))
    ctx, rec = recording_context(system=system, nvml_factory=lambda: NO_LIB, python=LINUX_PY)
    original = detect(context=ctx)
    write_dump(tmp_path / "dump", ctx, rec)
    replayed = detect_dump(tmp_path / "dump")
    assert replayed.to_dict() == Mask.here(Path("/home/u")).value(original.to_dict())
    gpu = next(s for s in replayed.failed_states if s.layer == "gpu")
    assert gpu.reason == "" and any("vfio-pci" in e.line for e in gpu.evidence)


def test_a_gpu_bound_to_no_driver_is_not_bound_elsewhere(tmp_path: Path) -> None:
    # sysfs's device folder is itself a link (/sys/bus/pci/devices/X -> /sys/devices/pci.../X);
    # with no driver bound its "driver" resolves to a path named "driver": no other driver holds it
    real = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
    files = {
        **NATIVE,
        "/proc/modules": "nvidia 1 0 - Live 0x0\n",
        f"{real}/vendor": "0x10de\n",
        f"{real}/class": "0x030000\n",
        f"{real}/device": "0x2803\n",
    }
    links = {"/sys/bus/pci/devices/0000:01:00.0": "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0"}
    p = probe(tmp_path, files, {("nvidia-smi",): fail(6, NO_DEVICES)}, links)
    assert "gpu-init-failed" in reasons(p)
