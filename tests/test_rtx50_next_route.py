"""The next route when the verify fails with a kernel failure (issue 33): ranked routes with
their trade-offs, the demo's fault switch, and `apply` printing the next route whole."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path, PurePath

import pytest

from wizard.choose.resolver import recommend
from wizard.cli import main
from wizard.demo import load_demo
from wizard.plan.routes import kernel_failure, next_route, routes_for
from wizard.run.sim import DEMO_FAULT_ENV


def _routes(name: str):
    profile = load_demo(name)
    return routes_for(profile, recommend(profile), PurePath("/home/student"))


@pytest.mark.parametrize("name", ["ubuntu-24.04-rtx5090", "wsl2-rtx5060-laptop"])
def test_an_rtx_50_gets_four_ranked_routes_each_with_one_line(name: str) -> None:
    routes = _routes(name)
    assert [r.id for r in routes] == ["pip-and-cuda", "conda-cuda128", "ngc-container", "cpu"]
    assert "jit_compile=False" in routes[0].tradeoff
    assert all(r.tradeoff and "\n" not in r.tradeoff for r in routes)
    conda, ngc = routes[1], routes[2]
    assert conda.source and ngc.source  # cited: no artifact here shows them
    assert conda.commands[0][:2] == ("env", "CONDA_OVERRIDE_CUDA=12.8")
    assert conda.commands[-1][-1].endswith("tf_gpu_check.py")  # its verify: the wizard's check inside it
    assert any("/root/.nv" in a for a in ngc.commands[0])  # the compile cache is mounted
    assert ngc.commands[0][-1] == "/programs/tf_gpu_check.py"
    assert routes[3].commands[0][-2:] == ("--method", "cpu")
    assert ("--profile", name) == routes[3].commands[0][2:4]  # a demo's command names the demo


def test_a_gpu_the_wheels_serve_gets_no_cited_route() -> None:
    assert [r.id for r in _routes("wsl2-rtx4060-laptop")] == ["pip-and-cuda", "cpu"]


def test_kernel_failures_and_others() -> None:
    assert kernel_failure(["x", "tf_gpu_check FAILED [matmul]: ... CUDA_ERROR_INVALID_HANDLE"]) == "matmul"
    assert kernel_failure(['SIMULATED {"event": "fail", "code": "wrong-result", "check": "tf_gpu_check"}'])
    assert kernel_failure(["tf_gpu_check FAILED [xla]: LLVM ERROR"]) is None  # XLA is not a kernel failure
    assert kernel_failure(["tf_gpu_check FAILED [time-limit]: still compiling"]) is None
    assert kernel_failure(["pip: no space left"]) is None


def test_next_route_after_pip_is_conda_forge_then_the_container_then_cpu() -> None:
    routes = _routes("ubuntu-24.04-rtx5090")
    ids = []
    current = "pip-and-cuda"
    while (route := next_route(routes, current)) is not None:
        ids.append(route.id)
        current = route.id
    assert ids == ["conda-cuda128", "ngc-container", "cpu"]


def test_recommend_lists_the_routes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recommend", "--profile", "wsl2-rtx5060-laptop"]) in (0, None)
    out = capsys.readouterr().out
    assert "Routes for this GPU, best first:" in out
    assert "jit_compile=False" in out and "No XLA in TF 2.21 on CC 12.0" in out


def test_apply_with_the_demo_fault_fails_the_verify_and_prints_the_next_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(tmp_path))
    monkeypatch.setenv(DEMO_FAULT_ENV, "invalid-handle")
    out = io.StringIO()
    with redirect_stdout(out):
        rc = main(["apply", "--profile", "ubuntu-24.04-rtx5090", "--yes", "--new"])
    text = out.getvalue()
    assert rc == 1
    assert "CUDA_ERROR_INVALID_HANDLE" in text
    assert "kernel failure [matmul]" in text
    after = text.split("The next route:", 1)[1]
    assert after.lstrip().startswith("conda-forge TensorFlow 2.19.1, CUDA 12.8 build")
    assert "env CONDA_OVERRIDE_CUDA=12.8 conda create" in after


def test_apply_without_the_fault_names_the_limit_and_jit_compile_false(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(tmp_path))
    monkeypatch.delenv(DEMO_FAULT_ENV, raising=False)
    out = io.StringIO()
    with redirect_stdout(out):
        rc = main(["apply", "--profile", "ubuntu-24.04-rtx5090", "--yes", "--new"])
    text = out.getvalue()
    assert rc == 0
    assert "XLA cannot compile for this GPU (compute capability 12.0)" in text  # the verify's named limit
    assert "Your own Keras models on this GPU: model.compile(..., jit_compile=False)" in text  # last words
    assert "next route" not in text


def test_a_jetson_orin_names_nvidias_jetpack_route_as_unmaintained(
    capsys: pytest.CaptureFixture[str],
) -> None:
    routes = _routes("jetson-orin-jetpack6")
    assert [r.id for r in routes] == ["jetpack", "cpu"]
    jetpack = routes[0]
    assert "JetPack 6" in jetpack.tradeoff and "no longer maintained" in jetpack.tradeoff
    assert "-igpu" in jetpack.tradeoff and jetpack.source and not jetpack.commands
    rec = recommend(load_demo("jetson-orin-jetpack6"))
    assert rec.recommended is not None and rec.recommended.set.method == "cpu"  # aarch64 wheels: CPU
    assert main(["recommend", "--profile", "jetson-orin-jetpack6"]) in (0, None)
    out = " ".join(capsys.readouterr().out.split())
    assert "NVIDIA's JetPack route for the NVIDIA Orin (nvgpu) GPU" in out and "no longer maintained" in out
