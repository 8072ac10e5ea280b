"""CUDA's 803 beside a forward-compatibility libcuda (cuda-compat) on the path: that libcuda is not the
kernel module's, so the answer takes it off the path, never "reboot" or "update the driver" first.

The texts are the shapes real reports take (ggml-org/llama.cpp#17542: cuda-compat-12.9 on the path,
803, gone once it was taken off; google-deepmind/alphafold#602: libcuda.so.1 from /usr/local/cuda/compat).
"""

from __future__ import annotations

import json

from tests.doctor_first import english, first  # noqa: F401  (english: the autouse fixture)
from tests.test_doctor_cli import wizard
from wizard.doctor.diagnose import match_output

ERROR_803 = "ggml_cuda_init: failed to initialize CUDA: system has unsupported display driver / cuda driver combination"
COMPAT_SAID = "I installed cuda-toolkit-12.5 and cuda-compat-12.9 and put it in LD_LIBRARY_PATH.\n"
COMPAT_PATH = (
    "export LD_LIBRARY_PATH=/usr/local/cuda-12.9/compat:$LD_LIBRARY_PATH\n"
    "E cuda_driver.cc:265] failed call to cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: "
    "system has unsupported display driver / cuda driver combination\n"
)


def test_803_with_cuda_compat_on_the_path_is_the_compat_libcuda() -> None:
    d = first(COMPAT_SAID + ERROR_803 + "\n")
    assert d.verdict == "driver-compat-libcuda"
    assert "cuda-compat-12.9" in d.why  # the evidence it decided from, named
    assert "LD_LIBRARY_PATH" in d.fix and "compat" in d.fix
    assert "reboot" not in d.fix.lower()


def test_the_compat_folder_in_a_path_is_read_whole() -> None:
    d = first(COMPAT_PATH)
    assert d.verdict == "driver-compat-libcuda"
    assert "/usr/local/cuda-12.9/compat" in d.why


def test_803_alone_stays_not_sure() -> None:
    # Without the compat copy named, 803 is an old driver as often as a mismatch: nothing decides it.
    found = match_output(ERROR_803 + "\n")
    assert all(d.verdict != "driver-compat-libcuda" for d in found)
    assert not any(d.harmful and d.id == "driver-library-mismatch" for d in found)


def test_compat_named_beside_804_keeps_the_old_driver() -> None:
    # 804: forward compatibility on a GPU it does not serve; the catalogue's own answer stands.
    text = (
        COMPAT_SAID
        + "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: forward compatibility was attempted on non supported HW\n"
    )
    assert all(d.verdict != "driver-compat-libcuda" for d in match_output(text))


def test_in_wsl2_the_compat_answer_is_not_given() -> None:
    text = "uname -r: 5.15.153.1-microsoft-standard-WSL2\n" + COMPAT_SAID + ERROR_803 + "\n"
    assert all(d.verdict != "driver-compat-libcuda" for d in match_output(text))


def test_the_cli_gives_it_in_english_and_chinese(tmp_path) -> None:
    log = tmp_path / "compat.txt"
    log.write_text(COMPAT_SAID + ERROR_803 + "\n", encoding="utf-8")
    for lang, word in (("en", "Take the compat folder off the path"), ("zh", "把 compat 文件夹从路径里拿掉")):
        proc = wizard(
            "doctor", "--profile", "ubuntu-22.04-2x-a100-server", "--log", str(log), "--json", "--lang", lang
        )
        data = json.loads(proc.stdout)
        found = data["diagnoses"] if isinstance(data, dict) else data
        d = next(d for d in found if d["origin"] == "output")
        assert word in d["fix"]
        assert d["fix"].endswith("cat /proc/driver/nvidia/version")
