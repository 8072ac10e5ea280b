"""The probe's rules from round 13's training side and stop 44's reading of NVML's "Unknown Error",
each on a minimal machine replayed through `detect --from`'s path:

* The kernel's refusal of an nvidia module built for another kernel ("version magic '...' should be
  '...'"), pasted with modprobe's "Exec format error" and nothing else: module-not-built.
* A container runtime given every GPU prints the host's nvidia-smi: podman's CDI device with
  `nvidia-smi -L`, containerd's ctr with the NVIDIA runtime and a CUDA image (the replay's reading).
* NVML's "Unknown Error" as it starts, alone: the GPU layer fails with no cause named, worded in
  both languages.
"""

from __future__ import annotations

from pathlib import Path

from tests.probe_case import cmd, in_both_languages, layer, reasons, replay_machine

MAGIC = "nvidia: version magic '5.4.18-100.fc30.x86_64 SMP mod_unload ' should be '5.4.18-200.fc31.x86_64 SMP mod_unload '\n"


def test_a_module_built_for_another_kernel_is_not_built_for_this_one(tmp_path: Path) -> None:
    p = replay_machine(
        tmp_path,
        {},
        [
            cmd(["modprobe", "nvidia"], stderr="could not insert 'nvidia': Exec format error\n"),
            cmd(["dmesg"], MAGIC),
        ],
    )
    assert reasons(p) == {"module-not-built"}
    assert any("version magic" in e.line for e in layer(p, "module").evidence)


def test_the_same_words_on_a_bus_with_no_nvidia_gpu_name_nothing(tmp_path: Path) -> None:
    # A PCI bus read and holding no NVIDIA device: a module left over there blocks nothing.
    files = {
        "/sys/bus/pci/devices/0000:00:02.0/vendor": "0x8086\n",
        "/sys/bus/pci/devices/0000:00:02.0/class": "0x030000\n",
    }
    p = replay_machine(tmp_path, files, [cmd(["dmesg"], MAGIC)])
    assert "module-not-built" not in reasons(p)


LIST = "GPU 0: NVIDIA GeForce GTX 1060 6GB (UUID: GPU-46648488-1954-e737-e797-e33991a274d3)\n"


def test_podman_given_every_gpu_by_cdi_lists_the_hosts_gpus(tmp_path: Path) -> None:
    argv = [
        "sudo",
        "podman",
        "run",
        "--rm",
        "--device",
        "nvidia.com/gpu=all",
        "ubuntu:latest",
        "nvidia-smi",
        "-L",
    ]
    p = replay_machine(tmp_path, {}, [cmd(argv, LIST)])
    assert [g.name for g in p.gpus] == ["NVIDIA GeForce GTX 1060 6GB"]
    one = [*argv[:4], "--device", "nvidia.com/gpu=0", *argv[6:]]
    assert replay_machine(tmp_path / "one", {}, [cmd(one, LIST)]).gpus == []  # a subset is not the host's


TABLE = (
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 515.48.07    Driver Version: 515.48.07    CUDA Version: 11.7     |\n"
    "|-------------------------------+----------------------+----------------------+\n"
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
    "|===============================+======================+======================|\n"
    "|   0  NVIDIA RTX A6000    On   | 00000000:41:00.0 Off |                  Off |\n"
    "| 30%   32C    P8     8W / 300W |      5MiB / 49140MiB |      0%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
)


def test_ctr_with_the_nvidia_runtime_and_a_cuda_image_prints_the_hosts_table(tmp_path: Path) -> None:
    argv = [
        "sudo", "ctr", "run", "--rm", "-t", "--runc-binary=/usr/bin/nvidia-container-runtime",
        "docker.io/nvidia/cuda:11.0.3-base-ubuntu20.04", "cuda-base", "nvidia-smi",
    ]  # fmt: skip
    p = replay_machine(tmp_path, {}, [cmd(argv, TABLE)])
    assert p.driver is not None and (p.driver.version, p.driver.cuda) == ("515.48.07", "11.7")
    plain = [a for a in argv if not a.startswith("--runc-binary")]  # runc alone passes no GPU
    assert replay_machine(tmp_path / "plain", {}, [cmd(plain, TABLE)]).driver is None


NATIVE = {"/proc/version": "Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP\n"}


def test_nvml_unknown_error_alone_is_a_failing_gpu_with_no_cause_named(tmp_path: Path) -> None:
    p = replay_machine(
        tmp_path, NATIVE, [cmd(["nvidia-smi"], "Failed to initialize NVML: Unknown Error\n", exit=255)]
    )
    gpu = layer(p, "gpu")
    assert gpu.failed and not gpu.reason and reasons(p) == set()
    (en_title, en_fix), (zh_title, zh_fix) = in_both_languages(gpu, p)
    assert (
        "Unknown Error" in en_title
        and "dmesg" in en_fix
        and "Unknown Error" in zh_title
        and "dmesg" in zh_fix
    )


def test_nvml_unknown_error_beside_the_kernels_fallen_off_the_bus_is_lost(tmp_path: Path) -> None:
    log = "[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n"
    smi = cmd(["nvidia-smi"], "Failed to initialize NVML: Unknown Error\n", exit=255)
    p = replay_machine(tmp_path, NATIVE, [smi, cmd(["dmesg"], log)])
    assert "gpu-lost" in reasons(p)


def test_cuda_version_na_says_libcuda_was_not_loaded_and_how_to_see_it(tmp_path: Path) -> None:
    # N/A: nvidia-smi could not load libcuda to ask its version (ERR!: it loaded it and CUDA failed).
    na = TABLE.replace("CUDA Version: 11.7 ", "CUDA Version: N/A  ")
    p = replay_machine(tmp_path, NATIVE, [cmd(["nvidia-smi"], na)])
    (en_title, en_fix), (zh_title, zh_fix) = in_both_languages(layer(p, "cuda"), p)
    assert "N/A" in en_title and "ldconfig -p | grep libcuda.so.1" in en_fix and "vGPU" in en_fix
    assert "N/A" in zh_title and "ldconfig -p | grep libcuda.so.1" in zh_fix
    err = replay_machine(tmp_path / "err", NATIVE, [cmd(["nvidia-smi"], TABLE.replace("11.7 ", "ERR!"))])
    (_, err_fix), _ = in_both_languages(layer(err, "cuda"), err)
    assert "ldconfig" not in err_fix and "Restart" in err_fix


def test_in_a_container_a_fix_on_the_driver_or_gpu_is_said_for_its_host(tmp_path: Path) -> None:
    said = "Unable to determine the device handle for GPU 0000:01:00.0: Unknown Error\n"
    inside = {"/.dockerenv": "", "/dev/nvidiactl": "", "/dev/nvidia0": ""}
    p = replay_machine(tmp_path, inside, [cmd(["nvidia-smi"], said)])
    (_, en_fix), (_, zh_fix) = in_both_languages(layer(p, "gpu"), p)
    assert "on its host" in en_fix and "restart the computer" in en_fix and "宿主机" in zh_fix
    native = replay_machine(tmp_path / "native", NATIVE, [cmd(["nvidia-smi"], said)])
    (_, fix), _ = in_both_languages(layer(native, "gpu"), native)
    assert "host" not in fix and fix.startswith("Restart the computer")


# ---- round 16's replay readings (tests/dump_corpus.py) -------------------------------------------


def test_nvidia_docker_1_passes_every_gpu_so_its_table_is_the_hosts(tmp_path: Path) -> None:
    p = replay_machine(
        tmp_path, {}, [cmd(["nvidia-docker", "run", "--rm", "nvidia/cuda", "nvidia-smi"], TABLE)]
    )
    assert p.driver is not None and p.driver.version == "515.48.07"


def test_a_gpus_flag_after_the_image_is_the_containers_argument(tmp_path: Path) -> None:
    banner = "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
    after = replay_machine(tmp_path, {}, [cmd(["docker", "run", "5f270feee059", "--gpus=all"], banner)])
    assert "container-no-gpu" in reasons(after)
    before = replay_machine(
        tmp_path / "b", {}, [cmd(["docker", "run", "--gpus=all", "5f270feee059"], banner)]
    )
    assert "container-no-gpu" not in reasons(before)  # given the GPU: the banner is not the whole story


def test_akmods_failed_log_by_its_name_keeps_the_driver_version(tmp_path: Path) -> None:
    said = (
        "Building and installing nvidia-kmod [FAILED]\n"
        "Building rpms failed; see /var/cache/akmods/nvidia/565.77-1-for-6.13.4-200.fc41.x86_64.failed.log for details\n"
    )
    p = replay_machine(tmp_path, {}, [cmd(["akmods", "--force"], said)])
    module = layer(p, "module")
    assert (
        module.facts.get("version") == "565.77"
        and module.facts.get("build_failed_for") == "6.13.4-200.fc41.x86_64"
    )
