"""The doctor's rules from round 42's training side, each on a minimal text:

* A GeForce series as people name it ("RTX 50 series", "RTX50", "RTX 40xx", "GTX 10系列") is a GPU
  whose compute capability the GPU table's rows of that series give (they share one chip
  generation): "no kernel image" on an RTX 50 is a GPU newer than the build.
* cuDNN said too old in Chinese ("cudnn为7.3，版本太低"): cudnn-version-mismatch.
* A compose service said to have no NVIDIA device reservation: container-no-gpu.
* Omniverse's driver check with an unsupported range from 0 ("[0.0, 535.129)"): driver-too-old.
* cuDNN 8's "Please make sure libcudnn_cnn_infer.so.8 is in your library path!" alone decides nothing:
  cuDNN prints it also where its sub-library failed to load for want of libcuda (round 10's texts).
"""

from __future__ import annotations

from tests import doctor_first
from wizard.choose.knowledge import load_knowledge
from wizard.doctor.diagnose import match_output
from wizard.doctor.gpu_names import named_gpus, table_cc

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first
NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def test_a_geforce_series_is_a_gpu_of_that_series_capability() -> None:
    kb = load_knowledge()
    said = {
        "The code was okay before upgrading my GPU to RTX50.": ("RTX 50 series", "12.0"),
        "on RTX 40xx cards": ("RTX 40 series", "8.9"),
        "GTX 10系列显卡": ("GTX 10 series", "6.1"),
        "an RTX 30 series laptop": ("RTX 30 series", "8.6"),
    }
    for text, (name, cc) in said.items():
        assert named_gpus(text) == [name], text
        assert str(table_cc(name, kb)) == cc
    assert named_gpus("RTX50.5 and RTX 500 Ada") == ["RTX 500"]  # a number, and a workstation model
    assert first(NO_KERNEL + "The code was okay before upgrading my GPU to RTX50.\n").id == "gpu-too-new"


def test_cudnn_said_too_old_in_chinese_is_a_cudnn_version_mismatch() -> None:
    assert first("报错显示cudnn为7.3，版本太低与paddle2.0不兼容\n").id == "cudnn-version-mismatch"


def test_a_compose_service_without_a_device_reservation_is_container_no_gpu() -> None:
    text = "The `odysseus` service in `docker-compose.yml` has no NVIDIA device reservation, so `nvidia-smi` is unavailable inside the container.\n"
    assert first(text).id == "container-no-gpu"


def test_omniverse_s_driver_range_from_zero_is_driver_too_old() -> None:
    text = (
        "[Error] [gpu.foundation.plugin] The currently installed NVIDIA graphics driver is unsupported or has "
        "known issues. Reason for failure: The minimum Omniverse RTX requirement on Linux Installed driver: "
        "535.5 The unsupported driver range: [0.0, 535.129)\n"
    )
    assert first(text).id == "driver-too-old"
    known_issue = text.replace("[0.0, 535.129)", "[545.0, 545.29)")
    assert "driver-too-old" not in {d.id for d in match_output(known_issue) if d.harmful}


def test_cudnn_s_library_path_plea_alone_names_no_missing_cudnn() -> None:
    text = "Please make sure cudnn_ops_infer64_8.dll is in your library path!\n"
    assert "missing-cudnn" not in {d.id for d in match_output(text) if d.harmful}
