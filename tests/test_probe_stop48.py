"""Stop 48's probe readings, each on a machine replayed as a dump through `detect --from`'s reader.

- The loaded module's sysfs version (/sys/module/nvidia/version) names the driver where nothing else
  answered (round 22's fedora27-sysfs-module-version-396: a poster's `cat` of that file).
- Where only the kernel module answered (/proc, sysfs, its loading line), no GPU list was read: the
  finding says so and names what decides, never "the driver lists no GPU".
"""

from __future__ import annotations

from pathlib import Path

from tests.dump_corpus import materialize
from tests.probe_case import cmd, detect_from, reasons
from tests.probe_case import replay_machine as replay

FEDORA = {
    "/proc/version": "Linux version 4.16.7-300.fc28.x86_64 (mockbuild@bkernel01.phx2.fedoraproject.org) #1 SMP\n",
    "/etc/os-release": 'NAME=Fedora\nVERSION_ID=28\nID=fedora\nPRETTY_NAME="Fedora 28"\n',
}
SYSFS = {"/sys/module/nvidia/version": "396.24\n"}


def test_the_loaded_modules_sysfs_version_names_the_driver(tmp_path: Path) -> None:
    p = replay(tmp_path, {**FEDORA, **SYSFS}, [])
    assert p.driver is not None and p.driver.version == "396.24" and p.driver.source == "sysfs"
    assert not p.gpus  # the module alone lists no GPU; no CUDA is made up for it
    assert p.driver.cuda in ("", "unknown", None)
    assert not reasons(p)


def test_a_sysfs_file_that_is_no_version_names_nothing(tmp_path: Path) -> None:
    p = replay(tmp_path, {**FEDORA, "/sys/module/nvidia/version": "garbage\u202e\n"}, [])
    assert p.driver is None


def test_proc_still_answers_first(tmp_path: Path) -> None:
    proc = (
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  396.24  Thu Apr 26 00:11:39 PDT 2018\n"
        "GCC version:  gcc version 8.0.1 20180324 (Red Hat 8.0.1-0.20) (GCC)\n"
    )
    p = replay(tmp_path, {**FEDORA, **SYSFS, "/proc/driver/nvidia/version": proc}, [])
    assert p.driver is not None and p.driver.source == "proc"


def test_detect_from_shows_where_the_version_was_read_in_both_languages(tmp_path: Path) -> None:
    case = {
        "slug": "m",
        "source": "https://github.com/example/m",
        "files": {**FEDORA, **SYSFS},
        "commands": [],
    }
    dump = materialize(case, tmp_path)
    told = (
        (
            "en",
            "read from /sys/module/nvidia/version (the loaded module)",
            "Only the NVIDIA kernel module 396.24",
        ),
        (
            "zh",
            "从 /sys/module/nvidia/version 读取（已加载的内核模块）",
            "只有 NVIDIA 内核模块 396.24 有响应",
        ),
    )
    for lang, words, problem in told:
        done = detect_from(dump, tmp_path / "home", COLUMNS="200", TF_GPU_WIZARD_LANG=lang)
        assert done.returncode == 0, done.stderr
        # the source beside the version, and no "driver lists no GPU": no GPU list was read at all
        assert words in done.stdout and problem in done.stdout, done.stdout
        assert "lists no GPU" not in done.stdout and "没有列出任何 GPU" not in done.stdout


def test_a_smi_failure_beside_the_sysfs_version_keeps_its_failure(tmp_path: Path) -> None:
    # NVML's library missing while the module is loaded: the version is the module's, the failure stays.
    smi = cmd(
        ["nvidia-smi"],
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the "
        "NVIDIA Display Driver is properly installed and present in your system.\n",
    )
    p = replay(tmp_path, {**FEDORA, **SYSFS}, [smi])
    assert p.driver is not None and p.driver.version == "396.24"
    assert p.failed_states


# ---- the driver's release refuses the GPU (wizard.probe.unsupported_gpu) ------------------------
UBUNTU = {
    "/proc/version": "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) #45-Ubuntu SMP\n",
    "/etc/os-release": 'NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\n',
    "/proc/modules": "i915 4096000 30 - Live 0x0\n",
}
SMI_DOWN = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
    "latest NVIDIA driver is installed and running.\n"
)


def refusal(device: str, release: str) -> str:
    """nv.c's print_unsupported as dmesg shows it (an RTX 5060 Ti under 555.58.02 printed these lines
    in a public report), for another device id and release."""
    return (
        f"[    8.299192] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:{device})\n"
        "               NVRM: installed in this system is not supported by the\n"
        f"               NVRM: NVIDIA {release} driver release.\n"
        "[    8.299233] nvidia 0000:01:00.0: probe with driver nvidia failed with error -1\n"
        "[    8.299260] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
        "[    8.299262] NVRM: None of the NVIDIA devices were initialized.\n"
    )


def lspci(device: str, label: str) -> dict:
    return cmd(
        ["lspci", "-nn"],
        f"01:00.0 VGA compatible controller [0300]: NVIDIA Corporation {label} [10de:{device}] (rev a1)\n",
    )


RTX5090_LAPTOP = ("2c58", "GB203M / GN22-X11 [GeForce RTX 5090 Max-Q / Mobile]")


def test_an_rtx_50_laptop_under_a_550_driver_is_told_to_install_570(tmp_path: Path) -> None:
    from wizard.choose.resolver import recommend
    from wizard.doctor.findings import find_problems
    from wizard.probe.state_view import words

    p = replay(
        tmp_path,
        UBUNTU,
        [cmd(["nvidia-smi"], SMI_DOWN), cmd(["dmesg"], refusal("2c58", "550.120")), lspci(*RTX5090_LAPTOP)],
    )
    assert [(g.name, g.compute_capability) for g in p.pci_gpus] == [("GeForce RTX 5090 Laptop GPU", "12.0")]
    state = next(s for s in p.failed_states if s.reason == "driver-too-old-for-gpu")
    assert (state.facts["version"], state.facts["floor"], state.facts["cuda"]) == (
        "550.120",
        "570.26",
        "12.8",
    )
    assert any("PCI ID: 10de:2c58" in e.line for e in state.evidence)
    w = words(state, p)
    assert "550.120" in w.title and "RTX 5090 Laptop GPU" in w.title and "570.26 or newer" in w.fix
    # every view: the doctor's finding, and Choose's driver step installs what the state names
    found = {f.key: f for f in find_problems(p)}
    assert found["state-driver-too-old-for-gpu"].fix.startswith(w.fix)
    best = recommend(p).recommended
    assert best is not None and best.driver is not None and best.driver.floor == "570.26"
    assert best.driver.step and best.driver.fix is None  # an install of the newer driver, not a restart


def test_the_same_words_for_a_gpu_the_table_does_not_name_name_no_cause(tmp_path: Path) -> None:
    # round 12's ION (10de:0a76) under 280.13: older releases word it "... by the 280.13 NVIDIA Linux
    # graphics driver release"; the table has no row for it, so why is not decided.
    from wizard.probe.state_view import unsure_key, words

    old = (
        "[  666.185557] NVRM: The NVIDIA GPU 0000:04:00.0 (PCI ID: 10de:0a76) installed\n"
        "[  666.185562] NVRM: in this system is not supported by the 280.13 NVIDIA Linux\n"
        "[  666.185566] NVRM: graphics driver release.  Please see 'Appendix A -\n"
    )
    p = replay(tmp_path, UBUNTU, [cmd(["dmesg"], old)])
    assert reasons(p) == set()
    state = next(s for s in p.failed_states if s.layer == "module")
    assert unsure_key(state) == "driver-refuses-gpu" and state.facts["version"] == "280.13"
    w = words(state, p)
    assert "280.13" in w.title and "10de:0a76" in w.fix and "legacy" in w.fix


def test_a_release_not_older_than_the_generation_decides_nothing(tmp_path: Path) -> None:
    # An RTX 5090 Laptop GPU refused by a 570 release (a vGPU or a misread bus, not the version).
    from wizard.probe.state_view import unsure_key

    p = replay(tmp_path, UBUNTU, [cmd(["dmesg"], refusal("2c58", "575.51.02")), lspci(*RTX5090_LAPTOP)])
    assert "driver-too-old-for-gpu" not in reasons(p)
    assert [unsure_key(s) for s in p.failed_states if s.layer == "module"] == ["driver-refuses-gpu"]


def test_a_loaded_module_that_refuses_its_only_gpu_is_the_gpu_layers_failure(tmp_path: Path) -> None:
    files = {**UBUNTU, "/proc/modules": "nvidia 5 0 - Live 0x0\n", "/sys/module/nvidia/version": "550.120\n"}
    p = replay(
        tmp_path,
        files,
        [
            cmd(["nvidia-smi"], "No devices were found\n"),
            cmd(["dmesg"], refusal("2c58", "550.120")),
            lspci(*RTX5090_LAPTOP),
        ],
    )
    state = next(s for s in p.failed_states if s.layer == "gpu")
    assert state.reason == "driver-too-old-for-gpu" and state.facts["floor"] == "570.26"


def test_the_harvester_names_laptop_parts_by_their_product_line() -> None:
    from maint.harvest.pci_ids import table

    pci_ids = (
        "10de  NVIDIA Corporation\n"
        "\t2c58  GB203M / GN22-X11 [GeForce RTX 5090 Max-Q / Mobile]\n"
        "\t1c20  GP106M [GeForce GTX 1060 Mobile]\n"
        "\t25ac  GA107BM / GN20-P0-R-K2 [GeForce RTX 3050 6GB Laptop GPU]\n"
        "\t2507  GA106 [Geforce RTX 3050]\n"
        "\t1234  GX999M [GeForce Imaginary 9000 Mobile]\n"
        "10df  Another vendor\n"
        "\t2c59  Not a GPU [GeForce RTX 5080 Max-Q / Mobile]\n"
    )
    devices = table(pci_ids, "0" * 40)["devices"]
    assert isinstance(devices, dict)
    named = {k: (v["name"], v["cc"]) for k, v in devices.items()}
    assert named == {
        "2c58": ("GeForce RTX 5090 Laptop GPU", "12.0"),
        "1c20": ("GeForce GTX 1060 Laptop GPU", "6.1"),
        "25ac": ("GeForce RTX 3050 Laptop GPU", "8.6"),
        "2507": ("GeForce RTX 3050", "8.6"),
    }


def test_the_shipped_table_knows_this_years_laptop_gpus() -> None:
    from wizard.probe.pci_cc import lookup

    for device, name in (
        ("2c58", "GeForce RTX 5090 Laptop GPU"),
        ("2c59", "GeForce RTX 5080 Laptop GPU"),
        ("2f58", "GeForce RTX 5070 Ti Laptop GPU"),
        ("2d58", "GeForce RTX 5070 Laptop GPU"),
        ("2d59", "GeForce RTX 5060 Laptop GPU"),
        ("2dd8", "GeForce RTX 5050 Laptop GPU"),
    ):
        assert lookup(device) == (name, "12.0")


# ---- the bus's GPUs from a pasted plain `lspci` or `lspci -n` -------------------------------------
def test_plain_lspci_and_lspci_n_give_the_bus_s_gpus(tmp_path: Path) -> None:
    from wizard.probe.pci_gpus import lspci_gpus

    # round 29's AWS runner (plain lspci: pci.ids named no product, so "Device 2237") and GCP VM (-n)
    plain = lspci_gpus(
        "00:03.0 VGA compatible controller: Amazon.com, Inc. Device 1111\n"
        "00:1e.0 3D controller: NVIDIA Corporation Device 2237 (rev a1)\n"
    )
    assert [(g.bus_id, g.device_id, g.name, g.compute_capability) for g in plain] == [
        ("0000:00:1e.0", "10de:2237", "A10G", "8.6")
    ]
    numeric = lspci_gpus(
        "00:03.0 0000: 1af4:1004\n00:04.0 0302: 10de:20b0 (rev a1)\n00:05.0 0200: 1af4:1000\n"
    )
    assert [(g.bus_id, g.device_id) for g in numeric] == [("0000:00:04.0", "10de:20b0")]
    named = lspci_gpus(
        "01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1)\n"
    )
    assert [(g.name, g.device_id) for g in named] == [("GeForce RTX 3090", "unknown")]
    # An NVIDIA audio function or another vendor's controller is no GPU.
    assert (
        lspci_gpus("01:00.1 Audio device: NVIDIA Corporation GA102 High Definition Audio Controller\n") == []
    )
    # Replayed: a paste of `lspci -n` alone is read as the bus.
    p = replay(tmp_path, UBUNTU, [cmd(["lspci", "-n"], "00:04.0 0302: 10de:20b0 (rev a1)\n")])
    assert p.nvidia_pci_devices == 1


def test_the_probe_s_generation_floor_is_choose_s() -> None:
    """One floor: the probe reads the rows itself (no import of Choose), and gets Choose's answer for
    every architecture's lowest and highest compute capability."""
    from packaging.version import Version

    from wizard.choose.gpu_generation import generation_floor
    from wizard.choose.knowledge import load_knowledge
    from wizard.probe.unsupported_gpu import generation_floor_linux

    kb = load_knowledge()
    for arch in kb.architectures:
        for cc in (arch.cc_min, arch.cc_max):
            assert generation_floor_linux(cc) == generation_floor(kb, cc, windows=False), (arch.name, cc)
    assert generation_floor_linux(Version("12.0")) == (Version("570.26"), Version("12.8"))
