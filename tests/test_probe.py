"""The real probe against fixture machines (file trees, canned commands, fake NVML)."""

from __future__ import annotations

import time
from pathlib import Path

from tests.machines import (
    NATIVE_PROC_VERSION,
    UBUNTU_2204,
    WSL1_PROC_VERSION,
    WSL2_PROC_VERSION,
    context,
    fail,
    ok,
    tree,
)
from wizard.doctor.findings import find_problems
from wizard.nvml import ErrorKind, NvmlError
from wizard.nvml_fake import FakeGpu, FakeNvml
from wizard.probe import detect
from wizard.probe.nvidia import parse_proc_version, parse_smi_csv
from wizard.profile import MachineProfile

NO_NVML = FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND)


def keys(profile: MachineProfile) -> set[str]:
    return {f.key for f in find_problems(profile)}


def native_files(**extra: str) -> dict[str, str]:
    return {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204, **extra}


def test_wsl2_with_windows_driver(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "/proc/version": WSL2_PROC_VERSION,
            "/etc/os-release": UBUNTU_2204,
            "/dev/dxg": "",
            "/usr/lib/wsl/lib/libcuda.so.1": "",
            "/usr/lib/wsl/lib/libnvidia-ml.so.1": "",
        },
    )
    ctx = context(
        root,
        {("ldconfig", "-p"): ok("\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1\n")},
        env={"WSL_DISTRO_NAME": "Ubuntu-22.04"},
    )
    nvml = FakeNvml(
        [FakeGpu(name="NVIDIA GeForce RTX 4060 Laptop GPU", cc=(8, 9), memory_total=8188 * 1024**2)],
        driver="566.36",
        cuda=12070,
    )
    p = detect(context=ctx, nvml=nvml)
    assert p.platform == "wsl2"
    assert p.os.id == "ubuntu" and p.os.version == "22.04"
    assert p.os.kernel == "5.15.153.1-microsoft-standard-WSL2"
    assert p.driver is not None and (p.driver.version, p.driver.cuda, p.driver.source) == (
        "566.36",
        "12.7",
        "nvml",
    )
    assert [(g.name, g.compute_capability, g.memory_mib) for g in p.gpus] == [
        ("NVIDIA GeForce RTX 4060 Laptop GPU", "8.9", 8188)
    ]
    assert [lib.inside_wsl_lib for lib in p.libcuda] == [True]
    assert "linux-driver-in-wsl" not in keys(p)
    assert p.probe_layers["nvidia"] == "nvml"


def test_wsl2_linux_driver_inside_is_flagged(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "/proc/version": WSL2_PROC_VERSION,
            "/dev/dxg": "",
            "/usr/lib/wsl/lib/libcuda.so.1": "",
            "/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01": "",
        },
    )
    p = detect(context=context(root), nvml=FakeNvml(driver="560.94", cuda=12060))
    assert p.platform == "wsl2"
    assert any("/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01" in n for n in p.notes)
    assert "state-wsl-linux-driver" in keys(p)  # the one view's finding (wizard.probe.state_view)


def test_wsl2_without_windows_driver_says_where_the_driver_lives(tmp_path: Path) -> None:
    # Windows maps its own DirectX libraries into /usr/lib/wsl/lib with or without a GPU driver.
    files = {"/proc/version": WSL2_PROC_VERSION, "/dev/dxg": "", "/usr/lib/wsl/lib/libd3d12.so": ""}
    root = tree(tmp_path, files)
    p = detect(context=context(root), nvml=NO_NVML)
    assert p.driver is None
    assert any("Windows NVIDIA driver" in n for n in p.notes)
    # The state says it (its evidence: no libcuda in /usr/lib/wsl/lib), its fix the Windows driver.
    assert "state-basic-render-only" in keys(p) and "no-driver-wsl2" not in keys(p)


def test_wsl1_explains_how_to_convert(tmp_path: Path) -> None:
    root = tree(tmp_path, {"/proc/version": WSL1_PROC_VERSION, "/etc/os-release": UBUNTU_2204})
    p = detect(context=context(root, env={"WSL_DISTRO_NAME": "Ubuntu-22.04"}), nvml=NO_NVML)
    assert p.platform == "wsl1"
    assert any("wsl --set-version Ubuntu-22.04 2" in n for n in p.notes)
    assert "wsl1" in keys(p)
    # The name is carried as data: Detect's finding and Choose's tip name it too, with `wsl -l -v`.
    assert p.os.wsl_distro == "Ubuntu-22.04"
    from wizard.doctor.findings import find_problems

    why = next(f.why for f in find_problems(p) if f.key == "wsl1")
    assert "wsl --set-version Ubuntu-22.04 2" in why and "wsl -l -v" in why


def test_wsl1_without_its_name_says_how_to_find_it_never_a_placeholder(tmp_path: Path) -> None:
    root = tree(tmp_path, {"/proc/version": WSL1_PROC_VERSION, "/etc/os-release": UBUNTU_2204})
    p = detect(context=context(root, env={}), nvml=NO_NVML)
    assert p.platform == "wsl1"
    note = next(n for n in p.notes if "WSL1" in n)
    assert "<" not in note and "wsl -l -v" in note


def test_native_with_two_toolkits_and_cudnn(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        native_files(
            **{
                "/usr/local/cuda-11.8/version.json": '{"cuda": {"version": "11.8.20220929"}}',
                "/usr/local/cuda-12.2/version.json": '{"cuda": {"name": "CUDA SDK", "version": "12.2.140"}}',
                "/usr/local/cuda-11.8/include/cudnn_version.h": (
                    "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 0\n"
                ),
                "/usr/local/cuda-10.2/version.txt": "CUDA Version 10.2.89\n",
            }
        ),
        links={"/usr/local/cuda": "cuda-12.2"},
    )
    ctx = context(root, env={"LD_LIBRARY_PATH": "/usr/local/cuda-11.8/lib64:"})
    p = detect(context=ctx, nvml=FakeNvml(driver="535.183.01", cuda=12020))
    assert p.platform == "linux"
    assert [(tk.version, tk.path, tk.default) for tk in p.cuda_toolkits] == [
        ("10.2", "/usr/local/cuda-10.2", False),
        ("11.8", "/usr/local/cuda-11.8", False),
        ("12.2", "/usr/local/cuda-12.2", True),
    ]
    assert [(c.version, c.path) for c in p.cudnn] == [
        ("8.6.0", "/usr/local/cuda-11.8/include/cudnn_version.h")
    ]
    assert p.ld_library_path == ["/usr/local/cuda-11.8/lib64"]
    assert "ld-library-path" in keys(p)


def test_driver_installed_but_module_not_loaded(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        native_files(
            **{
                "/proc/modules": "nouveau 2400 0 - Live 0x0\nsnd_hda_intel 57344 3 - Live 0x0\n",
                "/sys/bus/pci/devices/0000:01:00.0/vendor": "0x10de\n",
                "/sys/bus/pci/devices/0000:01:00.0/class": "0x030000\n",
                "/sys/bus/pci/devices/0000:01:00.1/vendor": "0x10de\n",  # the card's HDMI audio
                "/sys/bus/pci/devices/0000:01:00.1/class": "0x040300\n",
                "/sys/bus/pci/devices/0000:00:02.0/vendor": "0x8086\n",
                "/sys/bus/pci/devices/0000:00:02.0/class": "0x030000\n",
            }
        ),
    )
    smi_error = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    ctx = context(
        root, {("nvidia-smi",): fail(9, stdout=smi_error), ("mokutil",): ok("SecureBoot enabled\n")}
    )
    p = detect(context=ctx, nvml=FakeNvml(init_error=ErrorKind.DRIVER_NOT_LOADED))
    assert p.driver is None and p.gpus == []
    assert p.nvidia_pci_devices == 1
    assert p.probe_layers["nvidia"] == "pci"
    assert p.kernel.nouveau_loaded is True and p.kernel.nvidia_loaded is False
    assert p.kernel.secure_boot is True
    assert {"gpu-without-driver", "nouveau", "secure-boot"} <= keys(p)
    assert any("couldn't communicate" in n for n in p.notes)


def test_loaded_module_older_than_libraries_means_reboot(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        native_files(
            **{
                "/proc/modules": "nvidia_uvm 1 0 - Live 0x0\nnvidia 5 0 - Live 0x0\n",
                "/sys/module/nvidia/version": "535.154.05\n",
            }
        ),
    )
    p = detect(context=context(root), nvml=FakeNvml(driver="535.183.01", cuda=12020))
    assert p.kernel.loaded_version == "535.154.05"
    assert "reboot-needed" in keys(p)


def test_nvml_library_missing_says_no_driver(tmp_path: Path) -> None:
    root = tree(tmp_path, native_files())
    p = detect(context=context(root), nvml=NO_NVML)
    assert p.driver is None
    assert "no NVIDIA driver found" in p.notes
    assert "no-nvidia-gpu" in keys(p)


def test_not_supported_on_one_field_keeps_the_rest(tmp_path: Path) -> None:
    gpu = FakeGpu(name="Tesla T4", cc=(7, 5), errors={"memory": ErrorKind.NOT_SUPPORTED})
    p = detect(context=context(tree(tmp_path, native_files())), nvml=FakeNvml([gpu]))
    assert p.gpus[0].name == "Tesla T4" and p.gpus[0].compute_capability == "7.5"
    assert p.gpus[0].memory_mib is None
    assert any("GPU 0 memory" in n and "not_supported" in n for n in p.notes)


def test_gpu_lost_mid_query(tmp_path: Path) -> None:
    gpus = [FakeGpu(name="GPU A"), FakeGpu(name="GPU B", lost_after=1)]
    p = detect(context=context(tree(tmp_path, native_files())), nvml=FakeNvml(gpus))
    assert [g.name for g in p.gpus] == ["GPU A", "GPU B"]
    assert p.gpus[1].compute_capability == "unknown"
    assert any("GPU 1 fell off the bus" in n for n in p.notes)


def test_nvidia_smi_fallback_when_nvml_fails(tmp_path: Path) -> None:
    csv = "0, NVIDIA GeForce GTX 1080, 6.1, 8192, GPU-1234, 00000000:01:00.0, 470.256.02\n"
    header = "| NVIDIA-SMI 470.256.02   Driver Version: 470.256.02   CUDA Version: 11.4     |\n"
    ctx = context(
        tree(tmp_path, native_files()),
        {
            (
                "nvidia-smi",
                "--query-gpu=index,name,compute_cap,memory.total,uuid,pci.bus_id,driver_version",
            ): ok(csv),
            ("nvidia-smi",): ok(header),
        },
    )
    p = detect(context=ctx, nvml=FakeNvml(init_error=ErrorKind.OTHER))
    assert p.probe_layers["nvidia"] == "nvidia-smi"
    assert p.driver is not None and (p.driver.version, p.driver.cuda) == ("470.256.02", "11.4")
    assert [(g.name, g.compute_capability, g.memory_mib) for g in p.gpus] == [
        ("NVIDIA GeForce GTX 1080", "6.1", 8192)
    ]


def test_proc_fallback(tmp_path: Path) -> None:
    text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\n"
    root = tree(tmp_path, native_files(**{"/proc/driver/nvidia/version": text}))
    p = detect(context=context(root), nvml=NO_NVML)
    assert p.probe_layers["nvidia"] == "proc"
    assert p.driver is not None and p.driver.version == "535.183.01" and p.driver.cuda == "unknown"


def test_odd_smi_output_does_not_crash() -> None:
    assert parse_smi_csv("garbage\n\n[N/A], , ,\nNo devices were found\n") == []
    gpus = parse_smi_csv("0, Tesla K80, [N/A], [N/A], [N/A], [N/A], 470.1\n")
    assert (
        gpus[0].name == "Tesla K80" and gpus[0].compute_capability == "unknown" and gpus[0].memory_mib is None
    )
    assert parse_proc_version("nonsense") is None


def test_hung_nvml_is_time_bounded(tmp_path: Path) -> None:
    class Hung(FakeNvml):
        def init(self) -> None:
            time.sleep(5)

    ctx = context(tree(tmp_path, native_files()))
    ctx.nvml_timeout = 0.2
    start = time.monotonic()
    p = detect(context=ctx, nvml=Hung())
    assert time.monotonic() - start < 2
    assert any("did not answer" in n for n in p.notes)


def test_a_failing_part_becomes_a_note(tmp_path: Path) -> None:
    def broken(name: str) -> str | None:
        raise RuntimeError("metadata is corrupt")

    ctx = context(tree(tmp_path, native_files()))
    ctx.installed = broken
    p = detect(context=ctx, nvml=NO_NVML)
    assert p.probe_layers["tensorflow"] == "failed"
    assert any("tensorflow probe failed" in n and "metadata is corrupt" in n for n in p.notes)
    assert p.platform == "linux" and p.resources.ram_mib  # the other parts still ran


def test_tensorflow_from_metadata(tmp_path: Path) -> None:
    dists = [("tensorflow", "2.15.1"), ("nvidia-cudnn-cu12", "8.9.4.25"), ("numpy", "1.26.4")]
    p = detect(context=context(tree(tmp_path, native_files()), distributions=dists), nvml=NO_NVML)
    assert p.tensorflow is not None
    assert (p.tensorflow.version, p.tensorflow.distribution, p.tensorflow.and_cuda) == (
        "2.15.1",
        "tensorflow",
        True,
    )
    dists = [("tensorflow_cpu", "2.16.1")]
    p = detect(context=context(tree(tmp_path / "b", native_files()), distributions=dists), nvml=NO_NVML)
    assert p.tensorflow is not None and p.tensorflow.distribution == "tensorflow-cpu"
    assert "cpu-only-tf" in keys(p)


def test_parts_are_reported_as_they_finish(tmp_path: Path) -> None:
    seen: list[str] = []
    detect(context=context(tree(tmp_path, native_files())), nvml=NO_NVML, on_part=lambda n, p: seen.append(n))
    assert seen == ["platform", "python", "nvidia", "kernel", "cuda", "states", "tensorflow", "resources"]


def test_nvml_error_kinds_are_plain() -> None:
    err = NvmlError(ErrorKind.NOT_SUPPORTED)
    assert err.field_unavailable and not NvmlError(ErrorKind.GPU_LOST).field_unavailable
