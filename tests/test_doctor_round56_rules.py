"""The doctor's rule from round 56's training side: a program's public cuDNN function not defined in
the libcudnn.so.N the linker read (symbol versioning's "not defined in file ... with link time
reference") is an older cuDNN of the same major; between cuDNN's own sub-libraries it stays two cuDNN
installs mixed."""

from __future__ import annotations

from tests import doctor_first

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


def test_a_public_cudnn_function_missing_from_the_file_read_is_an_older_cudnn() -> None:
    text = (
        "ImportError: .../jaxlib/xla_extension.so: symbol cudnnSetCTCLossDescriptorEx version libcudnn.so.7 "
        "not defined in file libcudnn.so.7 with link time reference\n"
    )
    assert first(text).id == "cudnn-version-mismatch"
    sub = (
        "Could not load library libcudnn_cnn_train.so.8. Error: /usr/local/cuda/lib64/libcudnn_cnn_train.so.8: "
        "symbol _ZN10cask_cudnn2kr8isAmpereEPNS0_5spa_tERKi, version libcudnn_cnn_infer.so.8 not defined in "
        "file libcudnn_cnn_infer.so.8 with link time reference\n"
    )
    assert first(sub).id == "cuda-libs-mixed"
