"""Rules read from the training side of the tenth round of real dumps, each tested on a minimal
machine of its own (only the lines the rule reads, copied from the round's texts or from the tools'
own formats): a container given every GPU prints the host's nvidia-smi table, a part of them or a
failure inside it does not; a `--query-gpu` of other fields still gives the driver and the GPUs; a
DKMS build run without -k names the running kernel; nvidia-smi's missing binary inside a container
decides no cause; Windows' "Unable to detect the device handle" is the same failure as Linux's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.machines import LINUX_PY, context, fail, tree
from tests.probe_case import in_both_languages, layer, reasons, run
from tests.test_probe_round7_rules import NATIVE, NO_LIB, UNSHOWN, probe, replay
from wizard.doctor.findings import find_problems
from wizard.probe import detect
from wizard.probe.nvidia import NAME_BUS_DRIVER
from wizard.probe.state_view import words
from wizard.profile import FAILING, UNREADABLE

# The R550 table inside a container (gpu-operator#238), cut before the processes box.
TABLE_550 = (
    "\n+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: 12.4     |\n"
    "|-----------------------------------------+------------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
    "|=========================================+========================+======================|\n"
    "|   0  Quadro RTX 4000                On  |   00000000:05:00.0 Off |                  N/A |\n"
    "| 30%   31C    P8             17W /  125W |       1MiB /   8192MiB |      0%      Default |\n"
    "+-----------------------------------------+------------------------+----------------------+\n"
)
HEALTHY = {"driver": "550.90.07", "cuda": "12.4", "gpus": 1, "reasons": []}
IMAGE = "nvidia/cuda:12.2.2-base-ubuntu22.04"


# ---- a container given every GPU: the host's own nvidia-smi and NVML, every GPU ---------------------
def test_docker_run_with_every_gpu_reads_as_the_host_s_nvidia_smi(tmp_path: Path) -> None:
    cmd = run("docker", "run", "--rm", "-it", "--gpus", "all", IMAGE, "nvidia-smi", stdout=TABLE_550)
    p, verdict = replay(tmp_path, [cmd], HEALTHY)
    assert verdict.right, (verdict.wrong, verdict.missed)
    assert p.driver is not None and p.driver.version == "550.90.07" and p.driver.cuda == "12.4"
    assert [(g.name, g.pci_bus_id) for g in p.gpus] == [("Quadro RTX 4000", "00000000:05:00.0")]
    assert not reasons(p)


def test_podman_with_cdi_s_every_gpu_and_sudo_reads_the_same(tmp_path: Path) -> None:
    cmd = run("sudo", "podman", "run", "--rm", "--device", "nvidia.com/gpu=all", "ubuntu", "nvidia-smi")
    p, verdict = replay(tmp_path, [{**cmd, "stdout": TABLE_550}], HEALTHY)
    assert verdict.right, (verdict.wrong, verdict.missed)
    assert p.driver is not None and p.driver.source == "nvidia-smi" and len(p.gpus) == 1
    cmd = run("docker", "run", "--gpus=all", "--device=nvidia.com/gpu=all", IMAGE, "nvidia-smi")
    _, verdict = replay(tmp_path / "b", [{**cmd, "stdout": TABLE_550}], HEALTHY)
    assert verdict.right, (verdict.wrong, verdict.missed)


def test_a_container_given_part_of_the_gpus_is_not_the_host(tmp_path: Path) -> None:
    # `--gpus '"device=1"'` shows one GPU of the host's: its table is not the host's GPU list.
    for n, gpus in enumerate(('"device=1"', "1", "device=0")):
        cmd = run("docker", "run", "--gpus", gpus, IMAGE, "nvidia-smi", stdout=TABLE_550)
        p, _ = replay(tmp_path / str(n), [cmd], {})
        assert p.driver is None and not p.gpus


def test_a_failure_inside_the_container_is_not_the_host_s(tmp_path: Path) -> None:
    # An image carrying its own libnvidia-ml of another version fails where the host works.
    said = "Failed to initialize NVML: Driver/library version mismatch\n"
    cmd = run("docker", "run", "--gpus", "all", "my/image", "nvidia-smi", stdout=said)
    p, verdict = replay(tmp_path, [cmd], {"driver": None, "reasons": []})
    assert "version-mismatch" not in reasons(p) and not verdict.wrong


def test_the_host_s_own_output_or_two_different_container_tables_win_over_the_container(
    tmp_path: Path,
) -> None:
    cant = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n"
    )
    host = run("nvidia-smi", stdout=cant)
    inside = run("docker", "run", "--gpus", "all", IMAGE, "nvidia-smi", stdout=TABLE_550)
    p, _ = replay(tmp_path / "host", [host, inside], {})
    assert p.driver is None and not p.gpus
    other = TABLE_550.replace("550.90.07", "535.183.01")
    again = run("docker", "run", "--gpus", "all", "ubuntu", "nvidia-smi", stdout=other)
    p, _ = replay(tmp_path / "two", [inside, again], {})
    assert p.driver is None and not p.gpus


def test_nvidia_smi_as_an_option_s_value_is_not_the_container_s_command(tmp_path: Path) -> None:
    cmd = run("docker", "run", "--gpus", "all", "--name", "nvidia-smi", IMAGE, stdout=TABLE_550)
    p, _ = replay(tmp_path, [cmd], {})
    assert p.driver is None


# ---- a query of other fields: name, bus id and driver every nvidia-smi knows --------------------------
QUERY = (
    "--query-gpu=gpu_name,gpu_bus_id,driver_version,utilization.gpu,memory.total,temperature.gpu",
    "--format=csv",
)
QUERY_OUT = (
    "name, pci.bus_id, driver_version, utilization.gpu [%], memory.total [MiB], temperature.gpu\n"
    "GeForce RTX 2060, 00000000:09:00.0, 460.91.03, 20 %, 5934 MiB, 36\n"
)


def test_a_pasted_query_of_other_fields_gives_the_driver_and_each_gpu(tmp_path: Path) -> None:
    # hakandundar34coding/system-monitoring-center#57: a 460 driver (no compute_cap field yet)
    p, verdict = replay(
        tmp_path, [run("nvidia-smi", *QUERY, stdout=QUERY_OUT)], {"driver": "460.91.03", "gpus": 1}
    )
    assert verdict.right, (verdict.wrong, verdict.missed)
    assert [(g.index, g.name, g.pci_bus_id) for g in p.gpus] == [(0, "GeForce RTX 2060", "00000000:09:00.0")]
    assert p.driver is not None and p.driver.cuda == "unknown"  # a query shows no CUDA
    two = "GeForce RTX 2060, 00000000:09:00.0, 460.91.03\nTesla T4, 00000000:0A:00.0, 460.91.03\n"
    argv = ("nvidia-smi", "--query-gpu=name,pci.bus_id,driver_version", "--format=csv,noheader,nounits")
    p, _ = replay(tmp_path / "two", [run(*argv, stdout=two)], {})
    assert [g.name for g in p.gpus] == ["GeForce RTX 2060", "Tesla T4"] and p.driver.version == "460.91.03"


def test_a_query_of_one_gpu_or_without_the_three_fields_is_not_the_gpu_list(tmp_path: Path) -> None:
    p, _ = replay(tmp_path / "id", [run("nvidia-smi", "-i", "0", *QUERY, stdout=QUERY_OUT)], {})
    assert p.driver is None and not p.gpus
    only = run(
        "nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader", stdout="T4, 460.91.03\n"
    )
    p, _ = replay(tmp_path / "few", [only], {})
    assert p.driver is None and not p.gpus


def test_the_probe_reads_its_last_query_only_where_nothing_else_answered(tmp_path: Path) -> None:
    argv = ("nvidia-smi", f"--query-gpu={NAME_BUS_DRIVER}", "--format=csv,noheader")
    row = fail(UNSHOWN, "NVIDIA A10, 00000000:B1:00.0, 535.54.03\n")
    p = probe(tmp_path / "a", NATIVE, {argv: row})
    assert (
        p.driver is not None
        and p.driver.version == "535.54.03"
        and [g.name for g in p.gpus] == ["NVIDIA A10"]
    )
    # the table answered: its driver, not the last query's
    p = probe(tmp_path / "b", NATIVE, {argv: row, ("nvidia-smi",): fail(UNSHOWN, TABLE_550)})
    assert p.driver is not None and p.driver.version == "550.90.07"


# ---- DKMS without -k builds for `uname -r`: the running kernel --------------------------------------
DKMS_FAILED = (
    "Building module:\nCleaning build area...\n"
    "'make' -j4 KERNEL_UNAME=6.5.2-arch1-1 modules.............(bad exit status: 2)\n"
    "Error! Bad return status for module build on kernel: 6.5.2-arch1-1 (x86_64)\n"
    "Consult /var/lib/dkms/nvidia/390.157/build/make.log for more information.\n"
)
ADDED = run("sudo", "dkms", "status", stdout="nvidia/390.157: added\n")


def test_a_dkms_install_without_k_that_failed_names_module_not_built(tmp_path: Path) -> None:
    # NVIDIA/open-gpu-kernel-modules#558
    cmd = run("sudo", "dkms", "install", "nvidia/390.157", stdout=DKMS_FAILED)
    p, verdict = replay(tmp_path, [ADDED, cmd], {"driver": "390.157", "reasons": ["module-not-built"]})
    assert verdict.right, (verdict.wrong, verdict.missed)
    assert p.os.kernel == "6.5.2-arch1-1"
    state = layer(p, "module")
    assert state.reason == "module-not-built" and state.facts["version"] == "390.157"
    assert any("6.5.2-arch1-1" in e.line for e in state.evidence)
    (en_title, en_fix), (zh_title, zh_fix) = in_both_languages(state, p)
    assert "6.5.2-arch1-1" in en_fix + en_title and "6.5.2-arch1-1" in zh_fix + zh_title


def test_dkms_autoinstall_without_k_names_it_too(tmp_path: Path) -> None:
    said = "Autoinstall of module nvidia/390.157 for kernel 6.5.2-arch1-1 (x86_64)\n" + DKMS_FAILED
    expect = {"driver": "390.157", "reasons": ["module-not-built"]}
    _, verdict = replay(tmp_path, [run("dkms", "autoinstall", stdout=said)], expect)
    assert verdict.right, (verdict.wrong, verdict.missed)


def test_a_build_for_a_named_kernel_or_for_several_stays_unread(tmp_path: Path) -> None:
    # `-k K` builds for K, which need not be the kernel running: the earlier rule keeps it unread.
    cmd = run("sudo", "dkms", "install", "nvidia/390.157", "-k", "6.5.2-arch1-1", stdout=DKMS_FAILED)
    p, _ = replay(tmp_path / "k", [cmd], {})
    assert "module-not-built" not in reasons(p) and p.os.kernel == "unknown"
    state = layer(p, "module")
    assert state.state == UNREADABLE and state.facts.get("build_failed_for") == "6.5.2-arch1-1"
    # autoinstall_all_kernels: the output names two kernels, which of them runs is not shown
    both = "Autoinstall on 6.4.12-arch1-1 succeeded for module(s) nvidia.\n" + DKMS_FAILED
    both = "for kernel: 6.4.12-arch1-1 done\n" + both
    p, _ = replay(tmp_path / "all", [run("dkms", "autoinstall", stdout=both)], {})
    assert "module-not-built" not in reasons(p) and p.os.kernel == "unknown"


# ---- a container whose nvidia-smi is not there: no cause decided ------------------------------------
def test_tini_s_missing_nvidia_smi_decides_no_container_cause(tmp_path: Path) -> None:
    # mviereck/x11docker#180. nvidia/cuda images carry no nvidia-smi: the toolkit mounts it only with
    # the "utility" driver capability, so a container given the GPU with `capabilities=compute` (or
    # NVIDIA_DRIVER_CAPABILITIES=compute) prints the same line, and so does x11docker's --gpu, which
    # aims at OpenGL (its man page: "For closed source nvidia drivers regard terminal output"), or
    # any image without the tools: neither "no GPU passed" nor "no libraries" is decided.
    said = "[FATAL tini (97)] exec nvidia-smi failed: No such file or directory\n"
    cmd = run("x11docker", "--gpu", "--quiet", "--", "nvidia/cuda:9.0-base", "nvidia-smi", stderr=said)
    p, verdict = replay(tmp_path, [cmd], {"driver": None, "reasons": []})
    assert verdict.right and not reasons(p)
    assert not any(s.layer == "container" for s in p.states)


# ---- "Unable to detect the device handle": a Windows build's words for the same failure --------------
DETECT = "Unable to detect the device handle for GPU0000:B1:00.0: Unknown Error\n"


def test_the_detect_wording_names_gpu_unreachable_with_its_bus(tmp_path: Path) -> None:
    # jamesstringer90/Easy-GPU-PV#276
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, DETECT)})
    state = layer(p, "gpu")
    assert (
        state.state == FAILING and state.reason == "gpu-unreachable" and state.facts["bus"] == "0000:B1:00.0"
    )
    assert "dmesg" in words(state, p).fix  # a Linux machine: the kernel's words for it


def test_on_windows_the_unreachable_gpu_is_worded_for_windows(tmp_path: Path) -> None:
    windows = dataclasses.replace(LINUX_PY, platform="win32")
    ctx = context(tree(tmp_path, {}), {("nvidia-smi",): fail(UNSHOWN, DETECT)}, python=windows)
    p = detect(context=ctx, nvml=NO_LIB)
    assert p.platform == "windows" and reasons(p) == {"gpu-unreachable"}
    state = layer(p, "gpu")
    (en_title, en_fix), (_, zh_fix) = in_both_languages(state, p)
    assert "0000:B1:00.0" in en_title and "Device Manager" in en_fix and "dmesg" not in en_fix
    assert "设备管理器" in zh_fix and "dmesg" not in zh_fix
    assert "state-gpu-unreachable" in {f.key for f in find_problems(p)}
    # a Windows machine whose nvidia-smi works has no states, as before
    ok_ctx = context(tree(tmp_path / "ok", {}), {("nvidia-smi",): fail(0, TABLE_550)}, python=windows)
    assert detect(context=ok_ctx, nvml=NO_LIB).states == []
