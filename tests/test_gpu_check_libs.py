"""The verify of a 2.22.0rc0 plan on an RTX 4070, and the CUDA libraries it proves load from the
environment (issue 37, point 2).

rc0's build info names no compute capabilities and no CUDA version (assets/knowledge/harvest.json):
the plan passes the harvest's in their place. Every library of the plan's nvidia-* pins must load
from the environment; the test builds a real one (a venv, and small shared libraries compiled here
with the real names, sonames and RUNPATHs in site-packages/nvidia/*/lib) and runs the plan's own
verify command in it against tests/fake_tf; a missing or damaged .so file is then named.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from wizard.choose.harvest import load_harvest
from wizard.choose.knowledge import load_knowledge
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.doctor.diagnose import match_output
from wizard.plan.build import build_plan
from wizard.plan.gpucheck import check_script

FAKE_TF = Path(__file__).resolve().parent / "fake_tf"
RTX_4070 = "NVIDIA GeForce RTX 4070=8.9"
CC = shutil.which("cc") or shutil.which("gcc")
needs_cc = pytest.mark.skipif(
    CC is None or not sys.platform.startswith("linux"), reason="needs a C compiler on Linux"
)

# (wheel, folder under nvidia/, soname, libraries it needs): the real wheels' names.
LIBS = [
    ("nvidia-cuda-runtime-cu12", "cuda_runtime", "libcudart.so.12", ()),
    ("nvidia-nvjitlink-cu12", "nvjitlink", "libnvJitLink.so.12", ()),
    ("nvidia-cuda-nvrtc-cu12", "cuda_nvrtc", "libnvrtc.so.12", ()),
    ("nvidia-cublas-cu12", "cublas", "libcublasLt.so.12", ()),
    ("nvidia-cublas-cu12", "cublas", "libcublas.so.12", ("libcublasLt.so.12",)),
    ("nvidia-cudnn-cu12", "cudnn", "libcudnn.so.9", ()),
    ("nvidia-cufft-cu12", "cufft", "libcufft.so.11", ()),
    ("nvidia-curand-cu12", "curand", "libcurand.so.10", ()),
    ("nvidia-cusparse-cu12", "cusparse", "libcusparse.so.12", ("libnvJitLink.so.12",)),
    (
        "nvidia-cusolver-cu12",
        "cusolver",
        "libcusolver.so.11",
        ("libnvJitLink.so.12", "libcublas.so.12", "libcublasLt.so.12"),
    ),
    ("nvidia-nccl-cu12", "nccl", "libnccl.so.2", ()),
    ("nvidia-cuda-cupti-cu12", "cuda_cupti", "libcupti.so.12", ()),
    ("nvidia-nvshmem-cu12", "nvshmem", "libnvshmem_host.so.3", ()),
]
HARVEST_JSON = Path(__file__).resolve().parents[1] / "assets" / "knowledge" / "harvest.json"


def rc0_entry() -> dict:
    return json.loads(HARVEST_JSON.read_text(encoding="utf-8"))["tensorflow"]["2.22.0rc0"]


def _dist_info(site: Path, name: str, version: str, requires: list[str] = ()) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n\nA description.\n", encoding="utf-8")


def rc0_plan_verify() -> tuple[str, ...]:
    """The check's arguments in the verify step of the 2.22.0rc0 plan for an RTX 4070 machine."""
    profile = load_demo("ubuntu-24.04-rtx4090-fresh")
    profile = replace(
        profile, gpus=[replace(g, name="NVIDIA GeForce RTX 4070", memory_mib=12282) for g in profile.gpus]
    )
    cand = recommend(profile, load_knowledge().with_previews(), tf="2.22.0rc0").recommended
    assert cand is not None and cand.set.tensorflow == "2.22.0rc0"
    argv = build_plan(profile, cand).step("verify").commands[0]
    at = next(i for i, a in enumerate(argv) if a.endswith("tf_gpu_check.py"))
    return tuple(argv[at + 1 :])


def _compile(out: Path, soname: str, needs: tuple[str, ...], link_dirs: list[Path]) -> None:
    src = out.parent / (soname + ".c")
    src.write_text(f"int {soname.split('.')[0]}_probe(void) {{ return 1; }}\n")
    argv = [
        CC,
        "-shared",
        "-fPIC",
        "-o",
        str(out),
        str(src),
        f"-Wl,-soname,{soname}",
        "-Wl,--enable-new-dtags",
    ]
    # As the nvidia wheels do: a library finds its neighbours in the other nvidia folders.
    argv.append("-Wl,-rpath,$ORIGIN:" + ":".join(f"$ORIGIN/../../{d.parent.name}/lib" for d in link_dirs))
    argv += ["-Wl,--no-as-needed"] + [f"-L{d}" for d in link_dirs] + [f"-l:{n}" for n in needs]
    subprocess.run(argv, check=True, capture_output=True)
    src.unlink()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv whose site-packages holds the nvidia-* libraries, built once for the module."""
    root = tmp_path_factory.mktemp("env") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    site = next(root.glob("lib/python*/site-packages"))
    built: dict[str, Path] = {}
    for _, folder, soname, needs in LIBS:
        lib = site / "nvidia" / folder / "lib"
        lib.mkdir(parents=True, exist_ok=True)
        _compile(lib / soname, soname, needs, [built[n].parent for n in needs])
        built[soname] = lib / soname
    # The wheels as installed: rc0's and-cuda requirements, each with its dist-info.
    asked = rc0_entry()["and_cuda_requires"]
    _dist_info(site, "tensorflow", "2.22.0rc0", [f'{r}; extra == "and-cuda"' for r in asked])
    for req in asked:
        _dist_info(site, re.split(r"[<>=!~ ]", req, maxsplit=1)[0], "1.0")
    return root


@pytest.fixture
def env(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "env"
    shutil.copytree(template, root, symlinks=True)
    return root


def run_in(
    env: Path, args: tuple[str, ...], **extra: str
) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    assert load_harvest().release("2.22.0rc0") is not None
    build_info = rc0_entry()["build_info"]
    environ = {
        k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "PYTHONHOME", "VIRTUAL_ENV")
    }
    environ.update(
        PYTHONPATH=str(FAKE_TF),
        FAKE_TF_BUILD_INFO=json.dumps(build_info),
        FAKE_TF_VERSION="2.22.0rc0",
        FAKE_TF_GPUS=RTX_4070,
        FAKE_TF_CAPS="",
        **extra,
    )
    done = subprocess.run(
        [str(env / "bin" / "python"), check_script(), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        check=False,
    )
    return done, [json.loads(line) for line in done.stdout.splitlines()]


def test_rc0_build_info_names_no_capabilities_nor_cuda() -> None:
    info = rc0_entry()["build_info"]
    assert "cuda_compute_capabilities" not in info and "cuda_version" not in info and info["is_cuda_build"]


def test_the_rc0_plan_passes_the_harvests_facts() -> None:
    args = rc0_plan_verify()
    assert args[args.index("--built-for") + 1] == "sm_60,sm_70,sm_80,sm_89,compute_90"
    assert args[args.index("--wheel-cuda") + 1] == "12.5"
    assert "--cuda-lib" not in args  # the check reads the libraries from the environment itself


@needs_cc
def test_rc0_verify_on_an_rtx_4070_passes(env: Path) -> None:
    done, events = run_in(env, rc0_plan_verify())
    assert done.returncode == 0, done.stderr
    tf = next(e for e in events if e["event"] == "tensorflow")
    assert (
        tf["facts_from"] == "harvest"
        and tf["cuda_version"] == "12.5"
        and "sm_89" in tf["compute_capabilities"]
    )
    arch = next(e for e in events if e["event"] == "arch")
    assert (arch["runs"], arch["via"], arch["ok"]) == ("sass", "sm_89", True)
    loaded = {e["name"]: e["path"] for e in events if e["event"] == "lib"}
    # every library of every wheel TensorFlow asks for, those its RUNPATH does not name included
    assert set(loaded) == {soname for _, _, soname, _ in LIBS}
    assert all(Path(p).resolve().is_relative_to(env.resolve()) for p in loaded.values())
    assert events[-1]["event"] == "done" and events[-1]["ok"]


@needs_cc
def test_without_the_harvests_facts_rc0_fails_every_gpu(env: Path) -> None:
    # What the plan did before: no capabilities from anywhere, so the 4070's own code looked absent.
    args = list(rc0_plan_verify())
    at = args.index("--built-for")
    del args[at : at + 2]
    done, _events = run_in(env, tuple(args))
    assert done.returncode == 1 and "no machine code or PTX" in done.stderr


@needs_cc
def test_a_missing_library_is_named_with_where_it_looked(env: Path) -> None:
    site = next(env.glob("lib/python*/site-packages"))
    (site / "nvidia" / "nvjitlink" / "lib" / "libnvJitLink.so.12").unlink()
    done, events = run_in(env, rc0_plan_verify())
    assert done.returncode == 1
    fail = next(e for e in events if e["event"] == "fail")
    assert fail["code"] == "cuda-lib" and "libnvJitLink" in fail["message"]
    assert str(site / "nvidia" / "nvjitlink" / "lib") in fail["message"]  # where it looked
    assert "tf_gpu_check FAILED [cuda-lib]" in done.stderr and "libnvJitLink" in done.stderr
    assert not any(e["event"] == "op" for e in events)  # named before any op runs


@needs_cc
def test_a_wheel_tensorflow_asks_for_and_the_environment_lacks_is_named(env: Path) -> None:
    site = next(env.glob("lib/python*/site-packages"))
    shutil.rmtree(site / "nvidia" / "nvshmem")
    shutil.rmtree(next(site.glob("nvidia_nvshmem_cu12-*.dist-info")))
    done, _events = run_in(env, rc0_plan_verify())
    assert done.returncode == 1
    assert "tf_gpu_check FAILED [cuda-lib]: nvidia-nvshmem-cu12 is not installed" in done.stderr


@needs_cc
def test_a_damaged_library_is_named(env: Path) -> None:
    site = next(env.glob("lib/python*/site-packages"))
    cudnn = site / "nvidia" / "cudnn" / "lib" / "libcudnn.so.9"
    size = cudnn.stat().st_size
    cudnn.write_bytes(b"\0" * size)  # the same size, every byte overwritten: a damaged file
    done, events = run_in(env, rc0_plan_verify())
    assert done.returncode == 1
    bad = next(e for e in events if e["event"] == "lib" and not e["ok"])
    assert bad["name"] == "libcudnn.so.9" and str(cudnn) in bad["looked"]
    assert "libcudnn.so.9 does not load" in done.stderr
    # the libraries before it loaded, from the environment
    assert [e["name"] for e in events if e["event"] == "lib" and e["ok"]][:2] == [
        "libcudart.so.12",
        "libnvJitLink.so.12",
    ]


@needs_cc
def test_a_dependency_missing_from_a_librarys_folders_is_named_not_the_library(
    env: Path, tmp_path: Path
) -> None:
    # libcublas needs libcublasLt: with cublasLt's file gone and libcublas asked for alone, the
    # loader's own error names the dependency, and the check says where the loader looked.
    site = next(env.glob("lib/python*/site-packages"))
    (site / "nvidia" / "cublas" / "lib" / "libcublasLt.so.12").unlink()
    done, events = run_in(env, ("--built-for", "sm_89", "--cuda-lib", "cublas/libcublas"))
    assert done.returncode == 1
    bad = next(e for e in events if e["event"] == "lib" and not e["ok"])
    assert bad["name"] == "libcublasLt.so.12"
    assert "libcublas.so.12 does not load: it needs libcublasLt.so.12" in done.stderr
    assert str(site / "nvidia" / "cublas" / "lib") in bad["looked"]  # its RUNPATH, $ORIGIN expanded


@needs_cc
def test_the_doctor_reads_the_named_library_as_a_missing_cuda_library(env: Path) -> None:
    site = next(env.glob("lib/python*/site-packages"))
    (site / "nvidia" / "cufft" / "lib" / "libcufft.so.11").unlink()
    done, _ = run_in(env, rc0_plan_verify())
    assert done.returncode == 1
    for text in (done.stdout, done.stderr):
        assert [d.id for d in match_output(text) if d.harmful] == ["missing-cudart"], text


@needs_cc
def test_a_copy_from_outside_the_environment_that_tensorflow_loaded_first_is_named(
    env: Path, tmp_path: Path
) -> None:
    # /usr/local/cuda on LD_LIBRARY_PATH: TensorFlow's dlopen("libcudart.so.12") takes that copy.
    system = tmp_path / "usr-local-cuda" / "lib64"
    system.mkdir(parents=True)
    _compile(system / "libcudart.so.12", "libcudart.so.12", (), [])
    done, events = run_in(
        env, rc0_plan_verify(), LD_LIBRARY_PATH=str(system), FAKE_TF_DLOPEN="libcudart.so.12"
    )
    assert done.returncode == 1
    bad = next(e for e in events if e["event"] == "lib" and not e["ok"])
    assert bad["name"] == "libcudart.so.12" and str(system / "libcudart.so.12") in bad["message"]
    assert "not the environment's" in done.stderr
