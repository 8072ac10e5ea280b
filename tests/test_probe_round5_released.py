"""Rules written after round 5's held-out cases were released (SCORES_round5.txt, section 3), each on a
minimal machine of its own replayed as a dump through `detect --from`'s reader
(tests.dump_corpus.materialize, then wizard.probe.dump.detect_dump). The lines are copied from the
round's cases or from the artifact that prints them (named beside each), and each rule is held to
the machine as a real dump records it too (its device nodes, its files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.probe_case import cmd, reasons
from tests.probe_case import replay_machine as replay
from wizard.profile import MachineProfile

KERNEL = "6.1.0-21-amd64"
DEBIAN = {
    "/proc/version": f"Linux version {KERNEL} (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian\n",
    "/etc/os-release": 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n',
}
# nvidia-smi's words for NVML_ERROR_DRIVER_NOT_LOADED.
NOT_LOADED = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
    "latest NVIDIA driver is installed and running.\n"
)
LSPCI_GPU = "01:00.0 VGA compatible controller: NVIDIA Corporation TU104 [GeForce RTX 2060 SUPER] (rev a1)\n"


def container(p: MachineProfile):  # type: ignore[no-untyped-def]
    return next(s for s in p.states if s.layer == "container")


# ---- a container given the GPU, as NVML's words show it ------------------------------------------
# What the replay lacks and the real dump holds: the device nodes the runtime passed in (docker's
# --device / nvidia-docker, podman's CDI spec: /dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm).
NODES = {"/dev/nvidiactl": "", "/dev/nvidia0": "", "/dev/nvidia-uvm": ""}
DOCKER = {"/.dockerenv": ""}
PODMAN = {"/run/.containerenv": ""}
# bethgelab/docker#1 (nvidia-smi inside the container): nvmlInit opened /dev/nvidiactl and counted
# the GPU; its handle failed (NVML_ERROR_UNKNOWN).
HANDLE_UNKNOWN = "Unable to determine the device handle for GPU 0000:03:00.0: Unknown Error\n"
# The same line with NVML_ERROR_GPU_IS_LOST (nvmlErrorString: "GPU is lost").
HANDLE_LOST = "Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost\n"
# NVIDIA/nvidia-container-toolkit#580 (podman 5, CDI, `-u 1000`): NVML_ERROR_NO_PERMISSION at init,
# nvmlErrorString's "Insufficient Permissions": open() of a node that is there refused.
NO_PERMISSION = "Failed to initialize NVML: Insufficient Permissions\n"


@pytest.mark.parametrize("nodes", [{}, NODES], ids=["as-pasted", "as-recorded"])
@pytest.mark.parametrize(
    ("marker", "argv", "said", "named"),
    [
        (DOCKER, ["nvidia-smi"], HANDLE_UNKNOWN, {"gpu-unreachable"}),
        (DOCKER, ["nvidia-smi"], HANDLE_LOST, {"gpu-lost"}),
        (PODMAN, ["nvidia-smi", "-L"], NO_PERMISSION, {"no-permission"}),
        (PODMAN, ["nvidia-smi"], NO_PERMISSION, {"no-permission"}),
        (DOCKER, ["nvidia-smi"], NO_PERMISSION, {"no-permission"}),
    ],
    ids=["handle-unknown", "handle-lost", "podman-L-permissions", "podman-permissions", "docker-permissions"],
)
def test_nvml_s_words_that_it_opened_a_node_show_the_gpu_passed_in(
    tmp_path: Path, nodes: dict, marker: dict, argv: list[str], said: str, named: set[str]
) -> None:
    """The round's two wrong names: container-no-gpu where NVML reached the driver. The same answer
    whether the paths show the nodes (a real dump) or not (a paste)."""
    p = replay(tmp_path, {**marker, **nodes}, [cmd(argv, said)])
    assert reasons(p) == named
    shown = [e.line for e in container(p).evidence]
    if not nodes:  # the line that decided it is the container layer's evidence
        assert said.strip() in shown


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        # round 5's docker-volume-mounted-smi-no-devices-jupyter (mattshma/bigdata#108): the host's
        # nvidia-smi bind-mounted, no device passed: NVML finds no node, "driver not loaded"
        (["nvidia-smi"], NOT_LOADED),
        # round 2's container-no-runtime-cmdnotfound (NVIDIA/nvidia-docker#341)
        (["nvidia-smi"], "bash: nvidia-smi: command not found\n"),
    ],
    ids=["not-loaded", "command-not-found"],
)
def test_a_container_whose_nvml_reached_no_node_is_still_container_no_gpu(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    p = replay(tmp_path, DOCKER, [cmd(argv, said)])
    assert "container-no-gpu" in reasons(p)


# NVIDIA/nvidia-docker#1171 (run without --gpus) and round 20's two containers whose device rules a
# daemon-reload dropped print the same line: NVML_ERROR_UNKNOWN as it starts.
INIT_UNKNOWN = "Failed to initialize NVML: Unknown Error\n"


@pytest.mark.parametrize("nodes", [{}, NODES], ids=["paste", "nodes-present"])
def test_nvml_unknown_error_in_a_container_names_no_cause_and_says_what_decides(
    tmp_path: Path, nodes: dict
) -> None:
    """Not "no GPU passed" and not "device rules lost": the words fit both (and a failing host
    driver); the GPU layer fails with the container's own undecided words, whose fix starts with the
    host's nvidia-smi and names both container causes."""
    from wizard.probe.state_view import unsure_key, words

    p = replay(tmp_path, {**DOCKER, **nodes}, [cmd(["nvidia-smi"], INIT_UNKNOWN)])
    assert reasons(p) == set()
    assert container(p).state == "works"
    failed = [s for s in p.failed_states if s.layer == "gpu"]
    assert [unsure_key(s) for s in failed] == ["nvml-unknown-container"]
    w = words(failed[0], p)
    assert "Unknown Error" in w.title and "container" in w.title
    assert "nvidia-smi" in w.fix and "--gpus all" in w.fix and "restart the container" in w.fix
    # On a machine of its own the same words keep the machine's words (restart the computer first).
    bare = replay(tmp_path / "bare", DEBIAN, [cmd(["nvidia-smi"], INIT_UNKNOWN)])
    assert [unsure_key(s) for s in bare.failed_states if s.layer == "gpu"] == ["nvml-unknown"]


def test_a_handle_line_outside_a_container_is_no_container_state(tmp_path: Path) -> None:
    p = replay(tmp_path, {"/proc/version": DEBIAN["/proc/version"]}, [cmd(["nvidia-smi"], HANDLE_UNKNOWN)])
    assert reasons(p) == {"gpu-unreachable"}
    assert not [s for s in p.states if s.layer == "container"]


# ---- DKMS: the driver's module under Debian's names ---------------------------------------------
# NVIDIA/nvidia-container-toolkit#361 (Debian 12, `apt-get install nvidia-driver`): DKMS's own lines.
APT_DKMS = (
    "Loading new nvidia-current-535.161.08 DKMS files...\n"
    f"Building for {KERNEL}\n"
    f"Building initial module for {KERNEL}\n"
    f"Error! Bad return status for module build on kernel: {KERNEL} (x86_64)\n"
    "Consult /var/lib/dkms/nvidia-current/535.161.08/build/make.log for more information.\n"
    "dpkg: error processing package nvidia-kernel-dkms (--configure):\n"
)
# modinfo (kmod) where no module file is named nvidia under /lib/modules/$(uname -r).
MODINFO_NONE = cmd(
    ["modinfo", "-F", "version", "nvidia"], "", "modinfo: ERROR: Module nvidia not found.\n", 1
)


def test_debians_apt_dkms_build_failure_is_module_not_built(tmp_path: Path) -> None:
    p = replay(tmp_path, DEBIAN, [cmd(["apt-get", "install", "nvidia-driver"], APT_DKMS)])
    assert reasons(p) == {"module-not-built"}
    built = next(s for s in p.failed_states if s.reason == "module-not-built")
    assert built.facts["kernel"] == KERNEL
    assert any("make.log" in e.source and "nvidia-current-535.161.08" in e.line for e in built.evidence)


@pytest.mark.parametrize(
    ("name", "named"),
    [
        # Debian's nvidia-graphics-drivers: the DKMS package of each variant
        ("nvidia-current", {"module-not-built"}),
        ("nvidia-current-open", {"module-not-built"}),
        ("nvidia-tesla-470", {"module-not-built"}),
        ("nvidia-legacy-390xx", {"module-not-built"}),
        ("nvidia", {"module-not-built"}),
        ("nvidia-open", {"module-not-built"}),
        ("nvidia-384", {"module-not-built"}),  # Ubuntu's packages before 18.04
        ("nvidia-340-updates", {"module-not-built"}),
        ("nvidia-fs", set()),  # GPUDirect Storage's module, not the driver's
    ],
)
def test_a_failed_dkms_make_log_of_each_name_of_the_driver_s_module(
    tmp_path: Path, name: str, named: set[str]
) -> None:
    # DKMS writes the build log's first line (dkms.in): "DKMS make.log for M-V for kernel K (ARCH)"
    path = f"/var/lib/dkms/{name}/535.161.08/build/make.log"
    log = {path: f"DKMS make.log for {name}-535.161.08 for kernel {KERNEL} (x86_64)\n"}
    # nvidia-smi's words (the driver is installed, its module not loaded), or the log alone
    for n, commands in enumerate(([cmd(["nvidia-smi"], NOT_LOADED)], [])):
        p = replay(tmp_path / str(n), {**DEBIAN, **log}, commands)
        assert reasons(p) & {"module-not-built"} == named
        if named:
            assert any(e.source == path for s in p.failed_states for e in s.evidence)


@pytest.mark.parametrize(
    "status",
    [
        "nvidia-current/535.161.08: added\n",
        "nvidia-tesla-470/470.256.02: added\n",
        "nvidia-current/535.161.08, 6.1.0-18-amd64, x86_64: installed\n",
    ],
)
def test_dkms_status_of_debian_s_module_for_no_running_kernel_is_module_not_built(
    tmp_path: Path, status: str
) -> None:
    commands = [cmd(["nvidia-smi"], NOT_LOADED), MODINFO_NONE, cmd(["dkms", "status"], status)]
    assert reasons(replay(tmp_path, DEBIAN, commands)) == {"module-not-built"}


# Debian's /etc/modprobe.d/nvidia.conf (nvidia-kernel-support): "install nvidia modprobe -i
# nvidia-current $CMDLINE_OPTS": modprobe loads nvidia-current.ko for "nvidia", modinfo finds no
# module named nvidia. DKMS's row shows it installed for the running kernel.
INSTALLED_HERE = f"nvidia-current/535.161.08, {KERNEL}, x86_64: installed\n"
# modprobe's error as systemd-modules-load logged it (kmod tools/modprobe.c), a key refused.
KEY_REJECTED = "modprobe: ERROR: could not insert 'nvidia_current': Key was rejected by service\n"


def test_debian_s_installed_module_that_modinfo_cannot_name_is_not_module_not_built(tmp_path: Path) -> None:
    commands = [
        cmd(["nvidia-smi"], NOT_LOADED),
        MODINFO_NONE,
        cmd(["lspci"], LSPCI_GPU, exit=0),
        cmd(["dkms", "status"], INSTALLED_HERE),
    ]
    p = replay(tmp_path, DEBIAN, commands)
    assert reasons(p) == {"not-loaded"}  # undecided: a restart, then modprobe's words
    module = next(s for s in p.failed_states if s.layer == "module")
    assert module.facts["version"] == "535.161.08"
    journal = cmd(["journalctl", "-b"], f"Jun 04 10:00:01 deb systemd-modules-load[312]: {KEY_REJECTED}")
    p = replay(tmp_path / "key", DEBIAN, [*commands, journal])
    assert reasons(p) == {"secure-boot"}


# ---- Secure Boot in prose only: not decided --------------------------------------------------------
def test_nvidia_smi_s_words_alone_name_no_cause(tmp_path: Path) -> None:
    # gridhead/nvidia-auto-installer-for-fedora-linux#75: Secure Boot on only in the reporter's words;
    # the text holds nvidia-smi's "couldn't communicate" alone: not-loaded, the cause undecided.
    fedora = {"/proc/version": "Linux version 5.14.10-300.fc34.x86_64 (mockbuild@bkernel01) #1 SMP\n"}
    assert reasons(replay(tmp_path, fedora, [cmd(["nvidia-smi"], NOT_LOADED)])) == {"not-loaded"}


@pytest.mark.parametrize(
    ("header", "name", "version"),
    [
        # dkms.in prepare_build, by DKMS release: to 3.1.1, from 3.1.2 ("module/version"), from 3.1.5
        # (the release string first); the second line is `date`
        ("DKMS make.log for nvidia-current-535.216.03", "nvidia-current", "535.216.03"),
        ("DKMS make.log for nvidia-current/535.216.03", "nvidia-current", "535.216.03"),
        ("DKMS (dkms-3.1.5) make.log for nvidia-current/535.216.03", "nvidia-current", "535.216.03"),
        ("DKMS (dkms-3.2.2) make.log for nvidia/570.133.07", "nvidia", "570.133.07"),
    ],
)
def test_every_dkms_release_s_make_log_header_names_the_kernel(
    tmp_path: Path, header: str, name: str, version: str
) -> None:
    path = f"/var/lib/dkms/{name}/{version}/build/make.log"
    built_for = f" for kernel {KERNEL} (x86_64)\nThu Jun  5 10:00:01 UTC 2025\n"
    assert reasons(replay(tmp_path, {**DEBIAN, path: header + built_for}, [])) == {"module-not-built"}
    # the same log for another kernel (DKMS builds for each installed kernel) decides nothing here
    other = header + built_for.replace(KERNEL, "6.1.0-18-amd64")
    assert reasons(replay(tmp_path / "other", {**DEBIAN, path: other}, [])) == set()


# ---- "Insufficient Permissions" as one value nvidia-smi could not read, the driver answering -------
SMI_TABLE = (
    "+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |\n"
    "|-----------------------------------------+------------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
    "|=========================================+========================+======================|\n"
    "|   0  NVIDIA GeForce RTX 3060        Off |   00000000:01:00.0 Off |                  N/A |\n"
    "|  0%   38C    P8             13W /  170W |       1MiB /  12288MiB |      0%      Default |\n"
    "+-----------------------------------------+------------------------+----------------------+\n"
    "| Processes:                                                                              |\n"
    "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |\n"
    "|=========================================================================================|\n"
    # nvidia-smi names another user's process so (Windows' nvidia-smi, quoted in public issues)
    "|    0   N/A  N/A      1148    C+G   Insufficient Permissions                    N/A      |\n"
    "+-----------------------------------------------------------------------------------------+\n"
)
SMI_Q = (
    "==============NVSMI LOG==============\n\n"
    "Driver Version                            : 550.54.14\n"
    "CUDA Version                              : 12.4\n\n"
    "Attached GPUs                             : 1\n"
    "GPU 00000000:01:00.0\n"
    "    Product Name                          : NVIDIA GeForce RTX 3060\n"
    "    Retired Pages\n"
    # nvidia-smi -q's form of a field NVML refused this user ("[N/A]", "[Not Supported]" alike)
    "        Pending Page Blacklist            : [Insufficient Permissions]\n"
)


@pytest.mark.parametrize(
    ("argv", "said"), [(["nvidia-smi"], SMI_TABLE), (["nvidia-smi", "-q"], SMI_Q)], ids=["table", "-q"]
)
@pytest.mark.parametrize("marker", [{}, DOCKER], ids=["host", "container"])
def test_one_value_nvidia_smi_could_not_read_is_no_permission_failure(
    tmp_path: Path, argv: list[str], said: str, marker: dict
) -> None:
    p = replay(tmp_path, {"/proc/version": DEBIAN["/proc/version"], **marker}, [cmd(argv, said)])
    assert p.driver is not None and p.driver.version == "550.54.14"
    assert "no-permission" not in reasons(p)
