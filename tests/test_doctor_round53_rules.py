"""The doctor's rules from round 53's training side, each on a minimal text:

* A framework's CPU build ("Torch not compiled with CUDA enabled") on a machine the text says has no
  NVIDIA GPU ("my non gpu laptop", "a Laptop with Intel i5 Graphics card"): the machine, not the build.
* A program's "installation is not configured to use CUDA" on a Mac: macOS has no CUDA.
* cuDNN's CUDNN_STATUS_ARCH_MISMATCH (or its words beside cuDNN): the GPU is below what cuDNN serves,
  decided only where no GPU of compute capability 5.0 or newer is shown.
* TensorFlow 2.11 or newer on native Windows, asked about the GPU, with nothing else read.
* nvidia-smi not found: Windows' WinError 2 from a Popen of nvidia-smi, "nvidia-smi cannot be invoked".
* CUDA_VISIBLE_DEVICES set to nothing, then CUDA finding no device (CUDA.jl's "(code 3,
  ERROR_NOT_INITIALIZED)" read as the driver API's code).
* A crash inside the libcuda.so of WSL's Windows driver.
* nvlink's "newer than toolkit (122 vs 120)": two CUDA releases; a versioned cuDNN function missing
  from the cuDNN DSO: another cuDNN than the build's.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.codes import codes_in
from wizard.doctor.diagnose import match_output
from wizard.text import set_language, t

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first

CPU_TORCH = 'I get an error saying "Torch not compiled with CUDA enabled"'


def test_a_cpu_build_on_a_machine_said_to_have_no_nvidia_gpu_is_the_machine() -> None:
    for said in ("I'm running it on my non gpu laptop.", "I'm using a Laptop with Intel i5 Graphics card."):
        d = first(f"{CPU_TORCH}\n{said}\n")
        assert d.id == "no-nvidia-gpu" and d.title == t("doctor.no-nvidia-gpu-said.title"), said
        assert "CPU" in d.why and "cpu-only-wheel" not in {
            x.id for x in match_output(f"{CPU_TORCH}\n{said}\n")
        }
    # An NVIDIA GPU named anywhere keeps the CPU build's own reading.
    shown = first(f"{CPU_TORCH}\nI'm using a Laptop with Intel i5 Graphics card and a GeForce GTX 1650.\n")
    assert shown.id == "cpu-only-wheel"
    # A question is not a statement about the machine; nor is the words alone without the build.
    assert first(f"{CPU_TORCH}\nDoes it work on a non gpu laptop?\n").id == "cpu-only-wheel"


def test_a_system_summary_naming_intel_graphics_only_is_no_nvidia_gpu() -> None:
    text = (
        "No NVIDIA graphics card detected. Install an NVIDIA GPU, CUDA and restart your computer.\n"
        "Torch not compiled with CUDA enabled\n"
        "Graphics : Intel(R) Iris Plus Graphics 650 (Kaby Lake GT3e)\n"
    )
    assert first(text).id == "no-nvidia-gpu"


def test_not_configured_to_use_cuda_on_a_mac_is_the_mac() -> None:
    text = (
        "Your PyTorch installation is not configured to use CUDA. If you have a GPU ready for deep learning, "
        "ensure that the drivers are properly installed.\n"
        "I am trying to run this repo on a Macbook Pro running macOS Mojave 10.14.5\n"
    )
    assert first(text).id == "macos"
    # Without the Mac, the words decide nothing about macOS.
    assert all(d.id != "macos" for d in match_output(text.splitlines()[0]))


def test_cudnn_arch_mismatch_is_a_gpu_below_cudnn() -> None:
    text = (
        "F0817 22:53:22.694056 24820 cudnn_conv_layer.cpp:32] Check failed: status == CUDNN_STATUS_SUCCESS "
        "(6 vs. 0)  CUDNN_STATUS_ARCH_MISMATCH\n"
        "I am running this demo on a Nvidia Tesla M2090 GPU, whose CUDA compute capability is 2.0.\n"
    )
    d = first(text)
    assert d.id == "unsupported-cc" and d.verdict == "cover-too-old"
    assert "M2090" in d.why and "2.0" in d.why and "compute capability 2.0" in d.fix
    # Its words beside cuDNN (Mocha.jl), no GPU named: the fix says how to read the capability.
    mocha = first("Initializing CuDNN backend...\nERROR: Arch mismatch\n in create at src/cuda/cudnn.jl:43\n")
    assert mocha.verdict == "cover-too-old" and "nvidia-smi --query-gpu=name,compute_cap" in mocha.fix
    # A GPU every cuDNN serves: not decided too old.
    rtx = first("CUDNN_STATUS_ARCH_MISMATCH\nmy GPU is an RTX 3090\n")
    assert rtx.verdict != "cover-too-old"
    # "Arch mismatch" with no cuDNN in sight is not cuDNN's code.
    assert all(d.verdict != "cover-too-old" for d in match_output("ERROR: Arch mismatch\n"))


def test_tensorflow_after_2_10_on_native_windows_asked_about_the_gpu() -> None:
    text = (
        "### TensorFlow version\ntf 2.13.0\n### OS platform\nWindows 10 Pro 22H2\nUse Tensorflow With Gpu\n"
    )
    d = first(text)
    assert d.id == "native-windows" and "2.13.0" in d.why and "WSL2" in d.fix
    assert d.evidence.endswith("tf 2.13.0")
    set_language("zh")
    assert "WSL2" in first(text).why and "原生" in first(text).why
    set_language("en")
    # 2.10 still served the GPU on Windows; WSL or Linux named, or no GPU asked about: not this.
    assert all(d.id != "native-windows" for d in match_output(text.replace("2.13.0", "2.10.1")))
    assert all(d.id != "native-windows" for d in match_output(text + "inside WSL2 Ubuntu\n"))
    assert all(d.id != "native-windows" for d in match_output(text.replace("Use Tensorflow With Gpu", "")))
    # Win11 is Windows too.
    assert first(text.replace("Windows 10 Pro 22H2", "Win11")).id == "native-windows"


def test_nvidia_smi_not_found_by_a_popen_on_windows() -> None:
    text = (
        '  File "C:\\Python36\\lib\\site-packages\\GPUtil\\GPUtil.py", line 64, in getGPUs\n'
        '    p = Popen(["nvidia-smi","--query-gpu=index,uuid", "--format=csv,noheader,nounits"], stdout=PIPE)\n'
        "FileNotFoundError: [WinError 2] The system cannot find the file specified\n"
    )
    assert first(text).id == "nvidia-smi-missing"
    # The same error from another program's Popen is not nvidia-smi's.
    other = text.replace('"nvidia-smi",', '"ffmpeg",')
    assert all(d.id != "nvidia-smi-missing" for d in match_output(other))
    said = "Cuda device successfully detected. However, nvidia-smi cannot be invoked, but keep running\n"
    assert first(said).id == "nvidia-smi-missing"


def test_cuda_visible_devices_set_to_nothing_hides_every_gpu() -> None:
    line = "  CUDA error: initialization error (code 3, ERROR_NOT_INITIALIZED)\n"
    assert [c.name for c in codes_in(line)] == ["CUDA_ERROR_NOT_INITIALIZED"]
    assert codes_in("(code 100, ERROR_NOT_INITIALIZED)") == []  # the number must agree with the name
    d = first('ian@desktop:~$ CUDA_VISIBLE_DEVICES="" julia17\n' + line)
    assert d.id == "no-device" and d.title == "CUDA_VISIBLE_DEVICES hides every GPU"
    assert "unset CUDA_VISIBLE_DEVICES" in d.fix
    d = first("export CUDA_VISIBLE_DEVICES=-1\nRuntimeError: No CUDA GPUs are available\n")
    assert d.id == "no-device" and "-1" in d.why
    # A GPU index given: nothing hidden by it.
    assert all(
        x.title != "CUDA_VISIBLE_DEVICES hides every GPU"
        for x in match_output('CUDA_VISIBLE_DEVICES="0" julia17\n' + line)
    )


def test_a_crash_inside_wsls_driver_libcuda_is_the_windows_driver() -> None:
    frames = (
        '#3  0x00007ffff7e602fc in malloc_printerr (str=0x7ffff7f845d0 "free(): double free detected in tcache 2")\n'
        "#5  0x00007fff1138e005 in ?? () from /usr/lib/wsl/drivers/nvltsi.inf_amd64_ebbed3c683b430e5/libcuda.so.1.1\n"
        "#11 0x00007fff111b2a6b in cuInit () from /usr/lib/wsl/drivers/nvltsi.inf_amd64_ebbed3c683b430e5/libcuda.so.1.1\n"
    )
    d = first(frames)
    assert d.id == "wsl-windows-driver" and "/usr/lib/wsl/drivers" in d.why
    assert "the one installed now" in d.fix and "Never install a Linux NVIDIA driver" in d.fix
    # The library named with no crash: nothing said of the driver.
    calm = "loaded /usr/lib/wsl/drivers/nvltsi.inf_amd64_ebbed3c683b430e5/libcuda.so.1.1 from the cache\n"
    assert all(x.id != "wsl-windows-driver" for x in match_output(calm))


def test_nvlink_newer_than_toolkit_and_a_versioned_cudnn_function_missing() -> None:
    nvlink = (
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: nvlink exited with non-zero error code 256, output: "
        "nvlink fatal   : Input file '/tmp/tempfile-host-9fa0db7-13565-6002898000b0d.cubin' newer than "
        "toolkit (122 vs 120)\n"
    )
    assert first(nvlink).id == "cuda-libs-mixed"
    dso = "E cuda_dnn.cc:80] could not find cudnnConvolutionBackwardFilter_v2 in cudnn DSO; dlerror: undefined\n"
    assert first(dso).id == "cudnn-version-mismatch"
    # An unversioned function missing (the library not TensorFlow's at all) keeps its own reading.
    plain = "could not find cudnnCreate in cudnn DSO; dlerror: undefined symbol: cudnnCreate\n"
    assert first(plain).id != "cudnn-version-mismatch"
