"""The doctor's rules from round 46's training side, each on a minimal text:

* CUDA's 35 ("driver version is insufficient") in a container the text shows given no GPU (no docker
  --gpus, no singularity --nv, no NVIDIA runtime) and beside no driver's version: not sure. The
  runtime says 35 where it finds no usable libcuda, which a container started without the GPU lacks,
  as much as where the driver is older; nvidia-smi inside the container tells them apart.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first
SAID_35 = "[error] CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"


def test_35_in_a_container_shown_no_gpu_and_no_driver_is_not_sure() -> None:
    text = "I'm running dorado with system CUDA 11.3 using a singularity container.\n" + SAID_35
    d = first(text)
    assert d.id == "not-sure"
    assert "singularity --nv" in d.why and "nvidia-smi; ldconfig -p | grep libcuda" in d.fix
    assert "driver-too-old" not in {x.id for x in match_output(text)}
    # The GPU given (--nv) or no container: 35 keeps its own meaning, an old driver.
    given = text.replace("using a singularity container", "with singularity exec --nv in a container")
    assert first(given).id == "driver-too-old"
    assert first("I'm running dorado with system CUDA 11.3.\n" + SAID_35).id == "driver-too-old"
