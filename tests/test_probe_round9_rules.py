"""Round 9's training side: the first real dumps of two situations, each replayed as a dump through
`detect --from`'s reader (tests.dump_corpus.materialize, then wizard.probe.dump.detect_dump), on
minimal machines of their own. Lines are copied from the posted output or from the program that
prints them (named beside each).

1. nvidia-container-cli's debug log "dxcore initialization failed, continuing assuming a non-WSL
   environment" (NVIDIA/libnvidia-container src/nvc.c nvc_init) is printed wherever
   dlopen("libdxcore.so") fails (src/dxcore.c dxcore_init_context): on every native Linux host and
   in every container, where there is no libdxcore.so. It proves no WSL, so the probe names no WSL
   state from it (not basic-render-only, whose fix, "install the NVIDIA driver on Windows", would be
   wrong for the Windows build without WSL GPU support that case came from).
2. nvidia-smi's "CUDA Version: N/A" is cuda-err. TensorFlow's own "Could not load dynamic library
   'libcuda.so.1'" comes from a command the probe never runs (it reads TensorFlow from package
   metadata and never imports it): a dump holding it replays what detect could not have read, so
   the probe does not read it (the doctor does, from the text it is given). What the probe itself
   reads, a whole `ldconfig -p` with no libcuda.so.1, names no-libcuda beside the N/A, first.
"""

from __future__ import annotations

from pathlib import Path

from tests.probe_case import cmd, reasons
from tests.probe_case import replay_machine as replay
from wizard.doctor.facts import read_facts
from wizard.probe.state_view import words

NATIVE = {
    "/proc/version": "Linux version 5.15.0-41-generic (buildd@lcy02-amd64-065) #44-Ubuntu SMP\n",
    "/etc/os-release": 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\n',
}
CONTAINER = {**NATIVE, "/.dockerenv": ""}

# `nvidia-container-cli -k -d /dev/tty info` as posted (NVIDIA/nvidia-docker#1542), v1.5.0~rc.2.
CTK_DEBUG = (
    "-- WARNING, the following logs are for debugging purposes only --\n\n"
    "I0828 18:43:18.664659 4993 nvc.c:372] initializing library context (version=1.5.0~rc.2, "
    "build=6d9de2beba51389eef0b376b6d596abe62aa43b9)\n"
    "I0828 18:43:18.664699 4993 nvc.c:346] using root /\n"
    "I0828 18:43:18.664721 4993 nvc.c:347] using ldcache /etc/ld.so.cache\n"
    "I0828 18:43:18.664757 4993 nvc.c:348] using unprivileged user 1000:1000\n"
    "I0828 18:43:18.664828 4993 nvc.c:389] attempting to load dxcore to see if we are running under "
    "Windows Subsystem for Linux (WSL)\n"
    "I0828 18:43:18.664969 4993 nvc.c:391] dxcore initialization failed, continuing assuming a non-WSL "
    "environment\n"
    "W0828 18:43:18.665048 4993 nvc.c:254] failed to detect NVIDIA devices\n"
    "W0828 18:43:18.665217 4994 nvc.c:269] failed to set inheritable capabilities\n"
    "W0828 18:43:18.665252 4994 nvc.c:270] skipping kernel modules load due to failure\n"
    "I0828 18:43:18.665502 4995 driver.c:101] starting driver service\n"
    "E0828 18:43:18.665738 4995 driver.c:168] could not start driver service: load library failed: "
    "libnvidia-ml.so.1: cannot open shared object file: no such file or directory\n"
    "I0828 18:43:18.665840 4993 driver.c:203] driver service terminated successfully\n"
)
# The same failure as the probe's own `nvidia-container-cli info` prints it (no -d: no debug log;
# src/cli/common.c "initialization error: %s", xdlopen's "load library failed: %s").
CTK_PLAIN = (
    "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
    "cannot open shared object file: no such file or directory\n"
)
WSL_REASONS = {"basic-render-only", "wsl-no-gpu-device", "wsl-gpu-blocked", "wsl-path"}

# R460's nvidia-smi table as posted (conda-forge/tensorflow-feedstock#257): CUDA Version: N/A.
TABLE_NA = (
    "Fri Jul  8 12:59:42 2022       \n"
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 460.91.03    Driver Version: 460.91.03    CUDA Version: N/A      |\n"
    "|-------------------------------+----------------------+----------------------+\n"
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
    "|                               |                      |               MIG M. |\n"
    "|===============================+======================+======================|\n"
    "|   0  GeForce GTX TIT...  Off  | 00000000:2D:00.0  On |                  N/A |\n"
    "| 29%   68C    P0    77W / 250W |    414MiB / 12209MiB |      0%      Default |\n"
    "|                               |                      |                  N/A |\n"
    "+-------------------------------+----------------------+----------------------+\n"
)
# TensorFlow 2.x's stderr as posted (stream_executor/platform/default/dso_loader.cc).
TF_STDERR = (
    "2022-07-07 15:53:15.984325: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could "
    "not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: "
    "No such file or directory\n"
    "2022-07-07 15:53:15.984343: W tensorflow/stream_executor/cuda/cuda_driver.cc:269] failed call to "
    "cuInit: UNKNOWN ERROR (303)\n"
)
TF_CHECK = ["python3", "-c", "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))"]
# ldconfig -p (glibc elf/ldconfig.c print_cache): its count line first, then "\t%s (%s) => %s".
LDCONFIG_HEAD = "1234 libs found in cache `/etc/ld.so.cache'\n"
LDCONFIG_ML = "\tlibnvidia-ml.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-ml.so.1\n"
LDCONFIG_CUDA = "\tlibcuda.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so.1\n"


# ---- 1. dxcore's failure proves no WSL -----------------------------------------------------------
def test_dxcore_failing_on_native_linux_names_no_wsl_state(tmp_path: Path) -> None:
    ctk = cmd(["nvidia-container-cli", "-k", "-d", "/dev/tty", "info"], CTK_DEBUG)
    p = replay(tmp_path, NATIVE, [ctk])
    assert p.platform == "linux"
    assert not reasons(p) & WSL_REASONS
    assert p.driver is None and not p.gpus  # no NVML to load: no driver read, none made up
    assert [s.state for s in p.states_of("libraries")] == ["absent"]


def test_dxcore_failing_in_a_container_names_no_wsl_state(tmp_path: Path) -> None:
    ctk = cmd(["nvidia-container-cli", "-k", "-d", "/dev/tty", "info"], CTK_DEBUG)
    p = replay(tmp_path, CONTAINER, [ctk])
    assert not reasons(p) & WSL_REASONS
    assert "container-no-gpu" in reasons(p)  # no device node: the container layer says it


def test_dxcore_failing_where_the_platform_is_unread_names_no_wsl_state(tmp_path: Path) -> None:
    # The posted case's own shape: no /proc/version, only the debug log (WSL2 stated in prose only).
    ctk = cmd(["nvidia-container-cli", "-k", "-d", "/dev/tty", "info"], CTK_DEBUG)
    p = replay(tmp_path, {}, [ctk])
    assert p.platform != "wsl2"
    assert not reasons(p) & WSL_REASONS


def test_the_probes_own_container_cli_run_names_no_wsl_state(tmp_path: Path) -> None:
    p = replay(tmp_path, NATIVE, [cmd(["nvidia-container-cli", "info"], "", CTK_PLAIN, exit=1)])
    assert not reasons(p) & WSL_REASONS
    assert p.driver is None


# ---- 2. CUDA Version: N/A, and libcuda.so.1 ------------------------------------------------------
def test_na_alone_fails_cuda_with_no_cause_and_a_tensorflow_log_the_probe_never_ran_is_not_read(
    tmp_path: Path,
) -> None:
    # Stop 44: N/A (nvidia-smi could not load libcuda) no longer names cuda-err: a vGPU host's driver
    # shows it too (rounds 13, 14, 17 held out), so the CUDA layer fails with no cause named.
    tf = cmd(TF_CHECK, "[]\n", TF_STDERR)
    p = replay(tmp_path, NATIVE, [tf, cmd(["nvidia-smi"], TABLE_NA)])
    assert p.driver is not None and p.driver.version == "460.91.03" and p.driver.cuda == "unknown"
    assert reasons(p) == set()
    err = next(s for s in p.failed_states if s.layer == "cuda")
    assert err.facts["shown"] == "N/A" and p.blocking_state is err
    assert not any("dso_loader" in e.line for s in p.states for e in s.evidence)


def test_the_doctor_reads_tensorflows_libcuda_line() -> None:
    facts = read_facts(TF_STDERR)
    assert facts.libcuda_missing is not None
    assert "Could not load dynamic library 'libcuda.so.1'" in facts.libcuda_missing[1]


def test_na_beside_a_linker_cache_without_libcuda_names_both_the_cache_first(tmp_path: Path) -> None:
    ld = cmd(["ldconfig", "-p"], LDCONFIG_HEAD + LDCONFIG_ML, exit=0)
    p = replay(tmp_path, NATIVE, [cmd(["nvidia-smi"], TABLE_NA, exit=0), ld])
    assert reasons(p) == {"no-libcuda"}  # the cache decides; N/A beside it names nothing more
    first = p.blocking_state
    assert first is not None and first.reason == "no-libcuda"
    assert words(first, p).manual == "sudo ldconfig"
    ok = cmd(["ldconfig", "-p"], LDCONFIG_HEAD + LDCONFIG_ML + LDCONFIG_CUDA, exit=0)
    cached = replay(tmp_path / "cached", NATIVE, [cmd(["nvidia-smi"], TABLE_NA, exit=0), ok])
    assert reasons(cached) == set()  # libcuda.so.1 is there: the cache says nothing of why


def test_err_beside_a_filtered_ldconfig_paste_names_cuda_err_only(tmp_path: Path) -> None:
    # `ldconfig -p | grep nvidia` pasted: no count line, so what it lacks is the filter's doing
    table = TABLE_NA.replace("CUDA Version: N/A ", "CUDA Version: ERR!")
    p = replay(tmp_path, NATIVE, [cmd(["nvidia-smi"], table), cmd(["ldconfig", "-p"], LDCONFIG_ML)])
    assert reasons(p) == {"cuda-err"}


def test_the_doctor_reads_no_platform_from_dxcores_probe_lines() -> None:
    # nvc_init asks "are we under WSL" on every host; its failure is the non-WSL answer.
    assert not {"WSL2", "Windows"} & set(read_facts(CTK_DEBUG).platforms)
    # dxcore loaded and found an adapter (src/dxcore.c, src/nvc.c as posted in NVIDIA/nvidia-docker#1551):
    # WSL it is.
    wsl = CTK_DEBUG.split("I0828 18:43:18.664969")[0] + (
        "I1002 13:41:06.804276 5287 dxcore.c:326] dxcore layer initialized successfully\n"
        "W1002 13:41:06.804569 5287 nvc.c:397] skipping kernel modules load on WSL\n"
    )
    assert "WSL2" in read_facts(wsl).platforms
