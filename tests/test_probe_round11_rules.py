"""Rules read from the training side of the eleventh round of real dumps, each tested on a minimal
machine of its own (only the lines the rule reads, copied from the round's texts or from the tools'
own formats): a Jetson's nvidia-smi table (its GPU on no PCI bus: "Bus-Id N/A") counts its GPU; an
nvidia-smi run from a path outside PATH gives the driver and the GPUs but not the CUDA its own loader
found; a `docker run` given no GPU's device whose CUDA image printed "The NVIDIA Driver was not
detected" is that container, started without a GPU, and any option that could pass one decides
nothing. The round's other misses stay misses (the last tests say why): "No devices were found" alone,
nvidia-smi not found inside Singularity's --nv, a wrapper's modprobe words."""

from __future__ import annotations

from pathlib import Path

from tests.dump_corpus import container_without_gpu
from tests.probe_case import in_both_languages, layer, reasons, run
from tests.test_probe_round7_rules import replay
from wizard.profile import BLOCKED

# L4T r36 (JetPack 6.2) on a Jetson Orin Nano (ollama#9503), cut before the processes box.
JETSON_TABLE = (
    "Tue May 27 15:08:46 2025       \n"
    "+---------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 540.4.0                Driver Version: 540.4.0      CUDA Version: 12.6     |\n"
    "|-----------------------------------------+----------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
    "|                                         |                      |               MIG M. |\n"
    "|=========================================+======================+======================|\n"
    "|   0  Orin (nvgpu)                  N/A  | N/A              N/A |                  N/A |\n"
    "| N/A   N/A  N/A               N/A /  N/A | Not Supported        |     N/A          N/A |\n"
    "|                                         |                      |                  N/A |\n"
    "+-----------------------------------------+----------------------+----------------------+\n"
)
# The processes box nvidia-smi prints below (its rows also start with a GPU index and N/A cells).
PROCESSES = (
    "+---------------------------------------------------------------------------------------+\n"
    "| Processes:                                                                            |\n"
    "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n"
    "|        ID   ID                                                             Usage      |\n"
    "|=======================================================================================|\n"
    "|    0   N/A  N/A      1234      G   /usr/lib/xorg/Xorg                          N/A    |\n"
    "+---------------------------------------------------------------------------------------+\n"
)
# The CUDA image's entrypoint where the container sees no driver (prs-eth/PanopticSeg...#20).
NO_DRIVER_BANNER = (
    "\n==========\n== CUDA ==\n==========\n\nCUDA Version 11.1.1\n\n"
    "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
    "   Use the NVIDIA Container Toolkit to start this container with GPU support; see\n"
    "   https://docs.nvidia.com/datacenter/cloud-native/ .\n"
)
IMAGE = "nvidia/cuda:11.1.1-cudnn8-devel-ubuntu20.04"


# ---- a Jetson's integrated GPU: one row whose Bus-Id is N/A ------------------------------------------
def test_a_jetson_table_counts_its_gpu_and_reads_driver_and_cuda(tmp_path: Path) -> None:
    expect = {"driver": "540.4.0", "cuda": "12.6", "gpus": 1, "reasons": []}
    p, verdict = replay(tmp_path, [run("nvidia-smi", stdout=JETSON_TABLE + PROCESSES)], expect)
    assert verdict.right, (verdict.wrong, verdict.missed)
    assert p.driver is not None and p.driver.version == "540.4.0" and p.driver.cuda == "12.6"
    # one GPU, named as printed, on no bus (never a bus id made up); the processes row is no GPU
    assert [(g.index, g.name, g.pci_bus_id) for g in p.gpus] == [(0, "Orin (nvgpu)", None)]
    assert not reasons(p)


def test_a_row_whose_bus_cell_is_not_n_a_or_a_bus_id_is_no_gpu(tmp_path: Path) -> None:
    broken = JETSON_TABLE.replace("| N/A              N/A |", "| N/Ax             N/A |")
    p, _ = replay(tmp_path, [run("nvidia-smi", stdout=broken)], {"driver": "540.4.0", "reasons": []})
    assert p.driver is not None and p.driver.version == "540.4.0" and p.gpus == []


# ---- an nvidia-smi outside PATH: the kernel driver's answers, not its own CUDA -----------------------
def test_a_dot_slash_nvidia_smi_gives_driver_and_gpus_not_its_cuda(tmp_path: Path) -> None:
    # jetpack-nixos#371: the packaged nvidia-smi run from its build output, "CUDA Version: N/A".
    table = JETSON_TABLE.replace("CUDA Version: 12.6 ", "CUDA Version: N/A  ")
    listed = run("./nvidia-smi", "-L", stdout="GPU 0: Orin (nvgpu) (UUID: [removed])\n")
    expect = {"driver": "540.4.0", "gpus": 1, "reasons": []}
    p, verdict = replay(tmp_path, [listed, run("./nvidia-smi", stdout=table)], expect)
    assert verdict.right, (verdict.wrong, verdict.missed)
    assert p.driver is not None and p.driver.version == "540.4.0" and p.driver.cuda == "unknown"
    assert len(p.gpus) == 1 and "cuda-err" not in reasons(p)
    # The same N/A from the nvidia-smi on PATH is the machine's CUDA layer failing, no cause named
    # (stop 44: N/A is libcuda not loaded, which a vGPU host's driver shows too).
    p, _ = replay(tmp_path / "path", [run("nvidia-smi", stdout=table)], {"driver": "540.4.0"})
    cuda = next(s for s in p.states if s.layer == "cuda")
    assert cuda.failed and not cuda.reason and "cuda-err" not in reasons(p)


def test_an_absolute_path_nvidia_smi_is_left_as_pasted(tmp_path: Path) -> None:
    # An installed copy (/usr/bin, WSL's /usr/lib/wsl/lib) is not a build's: not read as the bare one.
    p, _ = replay(tmp_path, [run("/opt/x/nvidia-smi", stdout=JETSON_TABLE)], {})
    assert p.driver is None and p.gpus == []


def test_a_bare_nvidia_smi_pasted_beside_wins_over_a_path_one(tmp_path: Path) -> None:
    other = JETSON_TABLE.replace("540.4.0", "540.3.0")
    commands = [run("./build/nvidia-smi", stdout=other), run("nvidia-smi", stdout=JETSON_TABLE)]
    p, _ = replay(tmp_path, commands, {"driver": "540.4.0"})
    assert p.driver is not None and p.driver.version == "540.4.0" and p.driver.cuda == "12.6"


# ---- a CUDA image run with no GPU passed: that container, started without a GPU -----------------------
def test_docker_run_without_gpus_and_the_no_driver_banner_is_a_container_without_gpu(tmp_path: Path) -> None:
    expect = {"driver": None, "reasons": ["container-no-gpu"]}
    p, verdict = replay(tmp_path, [run("docker", "run", IMAGE, stdout=NO_DRIVER_BANNER)], expect)
    assert verdict.right, (verdict.wrong, verdict.missed)
    state = layer(p, "container")
    assert state.state == BLOCKED and state.reason == "container-no-gpu" and p.driver is None
    # the marker the container gives itself, and no driver node in it (no option passed one)
    assert [(e.source, e.line) for e in state.evidence] == [
        ("/.dockerenv", "present"),
        ("/dev/nvidiactl", "missing"),
    ]
    (_, en_fix), (_, zh_fix) = in_both_languages(state, p)
    assert "--gpus all" in en_fix and "--gpus all" in zh_fix  # the step that fixes it, never a driver


def test_podman_and_sudo_and_docker_container_run_read_the_same(tmp_path: Path) -> None:
    for argv in (
        ("sudo", "docker", "run", "--rm", "-it", IMAGE, "bash"),
        ("docker", "container", "run", "--shm-size", "8g", IMAGE),
    ):
        assert container_without_gpu([run(*argv, stdout=NO_DRIVER_BANNER)]) == "/.dockerenv"
    p, verdict = replay(
        tmp_path, [run("podman", "run", IMAGE, stdout=NO_DRIVER_BANNER)], {"reasons": ["container-no-gpu"]}
    )
    assert verdict.right, (verdict.wrong, verdict.missed)
    first = layer(p, "container").evidence[0]
    assert (first.source, first.line) == ("/run/.containerenv", "present")


def test_any_option_that_could_pass_a_gpu_decides_nothing(tmp_path: Path) -> None:
    # A GPU asked for (or every host device given) with the banner: the driver's libcuda or the
    # host's driver may be what is missing, not the GPU: no container state is made up.
    for opts in (
        ("--gpus", "1"),
        ("--gpus=all",),
        ("--runtime=nvidia",),
        ("--runtime", "nvidia"),
        ("--privileged",),
        ("--device", "/dev/nvidia0"),
        ("-v", "/dev:/dev"),
        ("-e", "NVIDIA_VISIBLE_DEVICES=all"),
        ("--env-file", "gpu.env"),
    ):
        assert container_without_gpu([run("docker", "run", *opts, IMAGE, stdout=NO_DRIVER_BANNER)]) is None, (
            opts
        )
    p, verdict = replay(
        tmp_path, [run("docker", "run", "--gpus", "1", IMAGE, stdout=NO_DRIVER_BANNER)], {"reasons": []}
    )
    assert verdict.right and "container-no-gpu" not in reasons(p)


def test_without_the_banner_or_beside_the_host_s_own_output_nothing_is_named(tmp_path: Path) -> None:
    # No banner: an image that is not NVIDIA's says nothing of the driver.
    assert container_without_gpu([run("docker", "run", "ubuntu", stdout="hello\n")]) is None
    # The host's own nvidia-smi pasted beside: the paste is not one container's.
    host = run("nvidia-smi", stdout=JETSON_TABLE)
    assert container_without_gpu([run("docker", "run", IMAGE, stdout=NO_DRIVER_BANNER), host]) is None
    p, verdict = replay(
        tmp_path,
        [run("docker", "run", IMAGE, stdout=NO_DRIVER_BANNER), host],
        {"driver": "540.4.0", "reasons": []},
    )
    assert not verdict.wrong and "container-no-gpu" not in reasons(p) and p.driver is not None


# ---- what the round's texts do not decide: left misses, never a cause made up ------------------------
def test_no_devices_found_alone_names_no_gpu_init_failure(tmp_path: Path) -> None:
    # sylabs/singularity#523: inside `--nv`, "No devices were found" and nothing else of the machine.
    # NVML started and found no GPU it may use: a GPU hidden from the process (a device cgroup, a VM's
    # vfio-pci) reads the same as one that failed to start, and neither module nor bus is shown.
    commands = [run("nvidia-smi", stdout="No devices were found\n")]
    p, verdict = replay(tmp_path, commands, {"driver": None, "reasons": []})
    assert not verdict.wrong and not reasons(p)
    gpu = layer(p, "gpu")
    assert gpu.failed and gpu.reason == "" and gpu.evidence[-1].line == "No devices were found"


def test_nvidia_smi_not_found_inside_singularity_nv_names_no_container_cause(tmp_path: Path) -> None:
    # apptainer/singularity#1829: `--nv` binds the host's nvidia-smi and libraries that it finds
    # (nvliblist.conf); not found inside reads the same where the host has no driver at all.
    said = "/.singularity.d/actions/exec: line 9: exec: nvidia-smi: not found\n"
    commands = [run("singularity", "exec", "--nv", "test.img", "nvidia-smi", stderr=said)]
    p, verdict = replay(tmp_path, commands, {"driver": None, "reasons": []})
    assert verdict.right and p.driver is None and not reasons(p)


def test_a_wrapper_s_modprobe_words_name_no_module_cause(tmp_path: Path) -> None:
    # Witko/nvidia-xrun#148: the wrapper's own output, which the probe never reads on a machine (it
    # reads nvidia-smi, modinfo, dkms and this boot's journal); no driver version is shown either.
    said = (
        "Loading module nvidia\n"
        "modprobe: FATAL: Module nvidia-current not found in directory /lib/modules/4.19.0-9-amd64\n"
        "modprobe: ERROR: ../libkmod/libkmod-module.c:979 command_do() Error running install command for nvidia\n"
        "modprobe: ERROR: could not insert 'nvidia': Operation not permitted\n"
    )
    p, verdict = replay(tmp_path, [run("nvidia-xrun", stdout=said)], {"driver": None, "reasons": []})
    assert verdict.right and p.driver is None and not reasons(p)
