"""The families issue 35 point 4 names, reasoned from the artifacts that define them (i35e).

Unit tests, not corpus texts: each line is short and in the form its source prints it, cited beside
it. Each decided case has the case that must stay undecided (or harmless) beside it: a cause is named
only where the text's facts decide it; otherwise "not sure" with the one command that decides.

Sources:
  cuda.h / driver_types.h of nvidia_cuda_runtime_cu12-12.5.82 (the doctor's harvested code table):
    CU_COMPUTEMODE_EXCLUSIVE_PROCESS "Only one context used by a single process can be present on this
    device at a time"; CUDA_ERROR_DEVICE_UNAVAILABLE / cudaErrorDevicesUnavailable (46);
    CUDA_ERROR_SYSTEM_NOT_READY (802); CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804); "Retaining the
    primary context for the first time will fail with CUDA_ERROR_UNKNOWN if the compute mode of the
    device is CU_COMPUTEMODE_PROHIBITED" (cuDevicePrimaryCtxRetain).
  nvidia-smi's documented output: the Compute M. column (Default, E. Process, E. Thread, Prohibited),
    `nvidia-smi -q` "Compute Mode : Exclusive_Process", "Driver Model / Current : TCC", "MIG Mode /
    Current : Enabled", the MIG devices table ("No MIG devices found").
  NVIDIA/libnvidia-container src/cli/configure.c ("requirement error: %s") and src/cli/dsl.c
    ("unsatisfied condition: %s, please update your driver to a newer version, or use an earlier cuda
    container" for a cuda>= requirement, "unsatisfied condition: %s" otherwise).
  SLURM's gres plugin (CUDA_VISIBLE_DEVICES=NoDevFiles for a job given no GPU), LSF's job variables.
"""

from __future__ import annotations

from tests.doctor_answers import first, harmless_only
from wizard.doctor.diagnose import match_output, recognised_in_output
from wizard.doctor.reasoned import unsure

HOLDERS = "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"

# ---- (a) compute modes and GPUs held by other processes -------------------------------------------

# driver_types.h cudaErrorDevicesUnavailable (46), as the runtime's error string prints it.
BUSY_46 = "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n"
# nvidia-smi -q -d COMPUTE
Q_COMPUTE = (
    "==============NVSMI LOG==============\n"
    "Attached GPUs                             : 1\n"
    "GPU 00000000:00:1E.0\n"
    "    Compute Mode                          : Exclusive_Process\n"
)


def test_46_is_the_gpu_held_and_names_the_mode_the_text_shows() -> None:
    assert first(BUSY_46) == "gpu-busy"
    assert (
        first("cudaErrorDevicesUnavailable: all CUDA-capable devices are busy or unavailable\n") == "gpu-busy"
    )
    found = match_output(Q_COMPUTE + BUSY_46)
    assert found[0].id == "gpu-busy" and found[0].line == 5 and "Exclusive_Process" in found[0].why
    assert "nvidia-smi -q -d COMPUTE" in found[0].fix


def test_a_process_list_holding_the_gpu_beside_46_is_the_gpu_held() -> None:
    # nvidia-smi's Processes table: GPU, GI, CI, PID, type C (compute), name, memory.
    procs = "|    0   N/A  N/A     41231      C   python                          15012MiB |\n"
    found = match_output(
        procs + "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable\n"
    )
    assert found[0].id == "gpu-busy" and found[0].line == 2


def test_prohibited_beside_cudas_unknown_error_is_the_mode() -> None:
    # cuda.h: retaining the primary context fails with CUDA_ERROR_UNKNOWN in CU_COMPUTEMODE_PROHIBITED.
    text = (
        "    Compute Mode                          : Prohibited\n"
        "failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_UNKNOWN: unknown error\n"
    )
    found = match_output(text)
    assert found[0].id == "gpu-busy" and "Prohibited" in found[0].why


def test_exclusive_process_beside_a_failure_that_is_no_refused_context_is_not_sure() -> None:
    # Exclusive_Process serves one process: whether another one holds the GPU decides.
    text = Q_COMPUTE + "I observed the following error when I ran my script.\n"
    found = match_output(text)
    note = unsure(found)
    assert note is not None and not recognised_in_output(found)
    assert HOLDERS in note.fix and "Exclusive_Process" in note.evidence


def test_101_while_making_a_context_is_not_sure_with_the_compute_mode_command() -> None:
    # 101's two documented meanings: a device number that is not there, or an action invalid for the
    # device (a second context in an exclusive mode); the compute mode tells them apart.
    found = match_output("Error creating CUDA context: CUDA_ERROR_INVALID_DEVICE (101)\n")
    note = unsure(found)
    assert found[0].id == "not-sure" and note is not None and "nvidia-smi -q -d COMPUTE" in note.fix
    ordinal = match_output("cudaSetDevice(3) failed: CUDA_ERROR_INVALID_DEVICE: invalid device ordinal\n")
    assert ordinal[0].id == "not-sure" and "nvidia-smi -L" in ordinal[0].fix
    held = match_output("Error creating CUDA context: CUDA_ERROR_INVALID_DEVICE (101)\n" + Q_COMPUTE)
    assert held[0].id == "gpu-busy" and held[0].line == 1


def test_the_default_mode_decides_nothing() -> None:
    table = (
        "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
        "| N/A   42C    P0    58W / 149W |      0MiB / 11441MiB |      0%      Default |\n"
    )
    assert match_output(table) == []
    assert first(table + "Error creating CUDA context: CUDA_ERROR_INVALID_DEVICE (101)\n") != "gpu-busy"


# ---- (b) the WSL2 driver model ---------------------------------------------------------------------

WIN_SMI = (
    "| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "|   0  NVIDIA A100 PCIe     {mode} | 00000000:65:00.0 Off |                    0 |\n"
    "Inside WSL2: failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
)


def test_wsl2_beside_a_gpu_in_tcc_is_the_driver_model_and_wddm_is_not() -> None:
    assert first(WIN_SMI.format(mode="TCC ")) == "wsl-tcc"
    assert first(WIN_SMI.format(mode="WDDM")) != "wsl-tcc"  # the header's "TCC/WDDM" is no TCC


def test_nvml_blocked_in_wsl_is_a_linux_driver_only_where_one_was_installed() -> None:
    # nvmlErrorString(NVML_ERROR_OPERATING_SYSTEM): "GPU access blocked by the operating system".
    blocked = "(WSL2) $ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system\n"
    installed = "$ sudo apt install nvidia-driver-535\n" + blocked
    assert first(installed) == "linux-driver-in-wsl"
    found = match_output(blocked)
    first_harmful = next(d for d in found if d.harmful)
    assert first_harmful.id == "no-device"  # a symptom: no cause named without the second fact


def test_cudas_unknown_error_in_wsl2_with_the_windows_driver_named_in_words_is_that_driver() -> None:
    # cuda.h CUDA_ERROR_UNKNOWN (999), as PyTorch words it; in WSL2 CUDA is the Windows driver's.
    text = (
        "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up "
        "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start.\n"
        "WSL2 Ubuntu 22.04, Windows driver 572.16\n"
    )
    found = match_output(text)
    assert found[0].id == "wsl-windows-driver" and "572.16" in found[0].fix
    assert [d.id for d in found].count("cuinit-failed") == 0  # its symptom's fix leaves the report
    assert first(text.replace(", Windows driver 572.16", "")) != "wsl-windows-driver"  # no version: not sure


# ---- (c) containers -------------------------------------------------------------------------------


def test_the_toolkits_requirement_errors_are_the_host_driver_too_old() -> None:
    cuda = (
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your "
        "driver to a newer version, or use an earlier cuda container: unknown.\n"
    )
    assert first(cuda) == "driver-too-old"
    assert first(
        "nvidia-container-cli: requirement error: unsatisfied condition: driver>=535: unknown\n"
    ) == ("driver-too-old")
    # brand and arch requirements say nothing about the driver's age.
    brand = "nvidia-container-cli: requirement error: unsatisfied condition: brand = tesla: unknown\n"
    assert first(brand) != "driver-too-old"


def test_forward_compatibility_on_a_gpu_without_it_is_the_host_driver() -> None:
    # cuda.h CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804): the image's compat libcuda on a GPU that
    # forward compatibility does not serve: the host needs a driver of the image's CUDA.
    text = "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 804: forward compatibility was attempted on non supported HW\n"
    found = match_output(text)
    assert found[0].id == "driver-too-old" and "804" in found[0].why


def test_a_cuda_image_started_without_the_gpu_is_the_container_given_none() -> None:
    run = "$ docker run --rm nvidia/cuda:12.4.1-base-ubuntu22.04 python3 train.py\n"
    fail = "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    assert first(run + fail) == "container-no-gpu"
    assert first(run.replace("--rm", "--rm --gpus all") + fail) != "container-no-gpu"
    daemon = (
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
    )
    assert first(daemon) == "container-no-gpu"


def test_a_container_given_the_gpu_without_the_compute_capability_has_no_libcuda() -> None:
    # The toolkit's README (NVIDIA_DRIVER_CAPABILITIES): "compute: required for CUDA and OpenCL
    # applications", "utility: required for using nvidia-smi and NVML".
    run = "docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=utility -it my/tf-image python train.py\n"
    missing = (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        "'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory\n"
    )
    found = match_output(run + missing)
    assert found[0].id == "container-no-gpu" and found[0].line == 1
    assert "NVIDIA_DRIVER_CAPABILITIES=compute,utility" in found[0].fix and "utility" in found[0].why
    flag = "docker run --gpus 'all,capabilities=utility' my/tf-image python train.py\n"
    assert first(flag + missing) == "container-no-gpu"
    with_compute = run.replace("=utility", "=compute,utility")
    assert "NVIDIA_DRIVER_CAPABILITIES=compute,utility" not in match_output(with_compute + missing)[0].fix
    assert first(run) != "container-no-gpu"  # nothing failed


# ---- (d) multi-GPU servers: Fabric Manager, MIG ------------------------------------------------------


def test_802_is_the_fabric_manager() -> None:
    text = "CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 802: system not yet initialized\n"
    assert first(text) == "fabric-manager"


def test_the_fabric_manager_named_beside_no_gpu_without_802_is_not_sure() -> None:
    # It fails to start, harmlessly, on servers without NVSwitch: naming it is no decision.
    text = (
        "nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
        "     Active: failed (Result: exit-code)\n"
        ">>> torch.cuda.is_available()\nFalse\n"
    )
    note = unsure(match_output(text))
    assert first(text) != "fabric-manager"
    assert note is not None and "nvidia-smi -q -i 0 | grep -i -A 2 Fabric" in note.fix


def test_the_fabric_state_in_progress_beside_no_gpu_is_the_fabric_manager() -> None:
    # nvidia-smi -q's Fabric block; NVIDIA's Fabric Manager user guide: "In Progress" is a GPU not yet
    # registered with the NVLink fabric (the Fabric Manager not running), "Completed" once it is.
    q = (
        "    Fabric\n"
        "        State                             : In Progress\n"
        "        Status                            : N/A\n"
        "RuntimeError: No CUDA GPUs are available\n"
    )
    found = match_output(q)
    assert found[0].id == "fabric-manager" and found[0].line == 2 and "In Progress" in found[0].evidence
    assert first(q.replace("In Progress", "Completed")) != "fabric-manager"
    assert first(q.replace("RuntimeError: No CUDA GPUs are available\n", "")) != "fabric-manager"


def test_the_fabric_manager_failing_to_start_alone_is_not_sure_with_the_fabric_state() -> None:
    # nv-fabricmanager's own line where there is no NVSwitch to manage (PCIe GPUs, an NVLink bridge).
    text = (
        "nv-fabricmanager[4177]: request to query NVSwitch device information from NVSwitch driver failed "
        "with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]\n"
        "systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE\n"
    )
    found = match_output(text)
    assert not recognised_in_output(found)
    note = unsure(found)
    assert note is not None and "nvidia-smi -q -i 0 | grep -i -A 2 Fabric" in note.fix


MIG_TABLE = (
    "| MIG devices:                                                                |\n"
    "|  No MIG devices found                                                       |\n"
    "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:274] failed call to cuInit: "
    "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
)


def test_mig_on_with_no_instance_is_mig() -> None:
    # nvidia-smi prints the MIG devices table only where MIG mode is on.
    found = match_output(MIG_TABLE)
    assert found[0].id == "mig-no-instance" and found[0].line == 2
    q = "    MIG Mode\n        Current                           : Enabled\nRuntimeError: No CUDA GPUs are available\n"
    assert first(q) == "mig-no-instance"
    assert first(q.replace("Enabled", "Disabled")) != "mig-no-instance"
    # `nvidia-smi mig -lgi` where MIG is off says the opposite.
    off = MIG_TABLE.replace("No MIG devices found", "No MIG-enabled devices found")
    assert first(off) != "mig-no-instance"


# ---- (e) schedulers ---------------------------------------------------------------------------------


def test_a_job_given_no_gpu_by_its_scheduler() -> None:
    slurm = "SLURM_JOB_ID=4242\nCUDA_VISIBLE_DEVICES=\nRuntimeError: No CUDA GPUs are available\n"
    found = match_output(slurm)
    assert found[0].id == "scheduler-no-gpu" and found[0].line == 2  # the variable's own line
    echo = "$ echo $CUDA_VISIBLE_DEVICES\nNoDevFiles\n>>> torch.cuda.is_available()\nFalse\n"
    found = match_output(echo)
    assert found[0].id == "scheduler-no-gpu" and found[0].line == 2
    lsf = (
        'LSB_JOBID=5555\nCUDA_VISIBLE_DEVICES=""\n'
        "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    assert first(lsf) == "scheduler-no-gpu"


def test_a_gpu_given_or_no_scheduler_is_not_the_schedulers() -> None:
    given = "SLURM_JOB_ID=4242\nCUDA_VISIBLE_DEVICES=0\nRuntimeError: No CUDA GPUs are available\n"
    assert first(given) != "scheduler-no-gpu"
    no_job = "CUDA_VISIBLE_DEVICES=\nRuntimeError: No CUDA GPUs are available\n"
    assert first(no_job) != "scheduler-no-gpu"


# ---- (f) notices that only look alarming --------------------------------------------------------------


def test_healthy_nvidia_smi_and_tensorflow_lines_name_no_cause() -> None:
    for text in (
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
        "|  No running processes found                                                 |\n",
        "| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "|   0  NVIDIA GeForce RTX 3080 WDDM  | 00000000:01:00.0  On |                  N/A |\n",
        "|                               |                      |               MIG M. |\n"
        "|                               |                      |             Disabled |\n",
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0 with 22260 MB memory:  -> device: 0, name: NVIDIA "
        "GeForce RTX 4090, pci bus id: 0000:01:00.0, compute capability: 8.9\n",
    ):
        found = match_output(text)
        assert not recognised_in_output(found), text
        assert all(not d.harmful for d in found), text
    numa = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] successful NUMA node read from SysFS had "
        "negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero\n"
    )
    assert harmless_only(numa)


def test_exclusive_thread_beside_a_failure_shows_the_mode_row_as_its_evidence() -> None:
    # The row is what decides (one thread of one process; TensorFlow's runtime uses several).
    text = (
        "I get this error with tensorflow on one K40m.\n"
        "|   0  Tesla K40m          Off  | 0000:08:00.0     Off |                    0 |\n"
        "| N/A   20C    P8    19W / 235W |     23MiB / 11519MiB |      0%    E. Thread |\n"
    )
    found = match_output(text)
    assert found[0].id == "gpu-busy" and found[0].line == 3 and "E. Thread" in found[0].evidence


def test_device_querys_compute_mode_is_read_and_advice_is_no_state() -> None:
    # cuda-samples deviceQuery.cpp: printf("     < %s >\n", sComputeMode[deviceProp.computeMode]).
    dq = (
        "  Compute Mode:\n"
        "     < Exclusive Process (many threads in one process is able to use ::cudaSetDevice() with this device) >\n"
    )
    refused = "Error creating CUDA context: CUDA_ERROR_INVALID_DEVICE (101)\n"
    found = match_output(dq + refused)
    assert found[0].id == "gpu-busy" and "Exclusive_Process" in found[0].why and found[0].line == 3
    default = (
        "  Compute Mode:\n"
        "     < Default (multiple host threads can use ::cudaSetDevice() with device simultaneously) >\n"
    )
    assert first(default + refused) != "gpu-busy"
    advice = refused + "You should set the GPUs to exclusive process mode on a shared server.\n"
    assert first(advice) != "gpu-busy"


def test_an_empty_cuda_visible_devices_set_by_the_texts_own_command_is_not_the_schedulers() -> None:
    # export / os.environ / a prefix: the person's own setting hides the GPU, whatever the scheduler gave.
    for line in (
        'export CUDA_VISIBLE_DEVICES=""',
        'os.environ["CUDA_VISIBLE_DEVICES"] = ""',
        "CUDA_VISIBLE_DEVICES= python train.py",
    ):
        text = f"#SBATCH --gres=gpu:1\n{line}\nRuntimeError: No CUDA GPUs are available\n"
        assert first(text) != "scheduler-no-gpu", line


def test_lsb_release_is_no_scheduler() -> None:
    from wizard.doctor.facts import read_facts

    assert "scheduler" not in read_facts("$ lsb_release -a\nLSB Version: core-11.1.0\n").platforms
    assert "scheduler" in read_facts("LSB_JOBID=5555\n").platforms


def test_the_new_reasons_read_in_chinese_too() -> None:
    from wizard.text import language, set_language

    before = language()
    set_language("zh")
    try:
        fabric = match_output(
            "    Fabric\n        State          : In Progress\nRuntimeError: No CUDA GPUs are available\n"
        )
        assert fabric[0].id == "fabric-manager" and "Fabric 状态" in fabric[0].why
        busy = match_output(Q_COMPUTE + BUSY_46)
        assert busy[0].id == "gpu-busy" and "计算模式为 Exclusive_Process" in busy[0].why
    finally:
        set_language(before)
