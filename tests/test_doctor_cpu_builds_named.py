"""CPU builds named by the artifact's own version or build string: Anaconda's TensorFlow variants
(gpu_, mkl_, eigen_; its _tflow_select metapackage) and xFormers' check of the PyTorch beside it."""

from __future__ import annotations

from tests.doctor_first import english, first_cause  # noqa: F401  (english: the autouse fixture)

CONDA_LIST = (
    "# packages in environment at C:\\Users\\me\\MiniConda3\\envs\\faceswap:\n"
    "tensorboard               1.15.0             pyhb230dea_0\n"
    "{tf}\n"
    "termcolor                 1.1.0                    py37_1\n"
)


def test_anacondas_eigen_and_mkl_tensorflow_are_the_cpu_package() -> None:
    for line in (
        "tensorflow                1.15.0          eigen_py37h9f89a44_0",
        "tensorflow-base           2.3.0           mkl_py38h5059a2d_0",
        "_tflow_select             2.3.0                       mkl",
        "_tflow_select             2.1.0                     eigen",
    ):
        assert first_cause(CONDA_LIST.format(tf=line)) == "cpu-only-wheel", line


def test_anacondas_gpu_tensorflow_is_not_called_cpu() -> None:
    for line in (
        "tensorflow                2.1.0           gpu_py37h7a4bb67_0",
        "_tflow_select             2.1.0                       gpu",
    ):
        assert first_cause(CONDA_LIST.format(tf=line)) != "cpu-only-wheel", line


def test_xformers_built_for_cuda_beside_a_cpu_pytorch() -> None:
    text = (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.0+cpu)\n"
        "    Python  3.9.13 (you have 3.9.13)\n"
    )
    assert first_cause(text) == "cpu-only-wheel"
    # The same check beside a CUDA PyTorch of another version is no CPU build.
    assert first_cause(text.replace("2.1.0+cpu", "2.1.0+cu118")) != "cpu-only-wheel"
