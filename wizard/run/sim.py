"""Plausible output for simulated runs (demo profiles): nothing is executed.

Every line is prefixed by the runner with "SIMULATED"; these only make the
demo read like the real thing (apt, pip, the verify's GPU list).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from wizard.profile import MachineProfile
from wizard.text import t


def _base(argv: Sequence[str]) -> str:
    for arg in argv:
        if arg not in ("env", "sudo") and "=" not in arg:
            return arg.rsplit("/", 1)[-1]
    return argv[0] if argv else ""


def output_for(argv: Sequence[str], profile: MachineProfile | None) -> list[str]:
    name = _base(argv)
    joined = " ".join(argv)
    if name == "ubuntu-drivers":
        branch = argv[-1].rpartition(":")[2] if ":" in argv[-1] else "recommended"
        return [
            "Reading package lists... Done",
            f"The following NEW packages will be installed: nvidia-driver-{branch}",
            f"Setting up nvidia-driver-{branch} ... done",
            "DKMS: install completed.",
        ]
    if name == "apt-get":
        if "update" in argv:
            # No archive host is named: the real run reads the machine's own apt sources.
            return ["Hit:1 (the mirror in /etc/apt/sources.list) InRelease", "Reading package lists... Done"]
        words = argv[list(argv).index("install") + 1 :] if "install" in argv else argv
        pkgs = [a for a in words if not a.startswith("-") and "=" not in a][-3:]
        return [
            "Reading package lists... Done",
            "Building dependency tree... Done",
            f"The following NEW packages will be installed: {' '.join(pkgs)}",
            "Setting up ... done",
        ]
    if any(a.endswith("lockfile.py") for a in argv) or ("pip" in argv and "-r" in argv):
        return _lock_lines(argv)
    if "-m" in argv and "pip" in argv:
        return _pip_lines(argv)
    if "-m" in argv and "venv" in argv:
        return []
    if any(a.endswith("tf_proof.py") for a in argv):
        return _proof_lines(argv)
    if any(a.endswith("tf_gpu_check.py") for a in argv):
        if demo_fault() == FAULT_INVALID_HANDLE:
            return _gpu_check_failure_lines(profile)
        return _gpu_check_lines(profile, argv)
    if "tf.config.list_physical_devices" in joined:
        gpus = [g.name for g in profile.gpus] if profile else []
        lines = [t("runner.sim.tensorflow")]
        lines += [f"GPU: /physical_device:GPU:{i} {n}" for i, n in enumerate(gpus or ["NVIDIA GPU"])]
        return [*lines, "matmul on /job:localhost/replica:0/task:0/device:GPU:0 ok, sum = 268435456.0"]
    if "tf.matmul" in joined:
        return [t("runner.sim.tensorflow"), "matmul on /job:localhost/replica:0/task:0/device:CPU:0 ok"]
    if name == "conda":
        return ["Collecting package metadata (repodata.json): done", "Solving environment: done", "done"]
    return [t("runner.sim.ok")]


def _lock_lines(argv: Sequence[str]) -> list[str]:
    """The lock steps (wizard/plan/locked.py) as they read for real: what is written, how many."""
    if "-r" in argv:
        path = argv[argv.index("-r") + 1]
        return [t("runner.sim.installing_lock", path=path)]
    verb = next((a for a in argv if a in ("place", "check", "repair", "compile")), "")
    if verb == "place" and len(argv) >= 3:
        return [t("runner.sim.wrote_lock", path=argv[-2], sha=argv[-1][:16])]
    if verb == "compile":
        return [t("runner.sim.resolved_lock")]
    return []


def _proof_lines(argv: Sequence[str]) -> list[str]:
    """assets/programs/tf_proof.py: the CPU verify with the hello script, or the hello check."""
    if "hello" in argv:
        return [t("runner.sim.hello_proven")]
    return [
        t("runner.sim.tensorflow"),
        "matmul on /job:localhost/replica:0/task:0/device:CPU:0 ok",
        "Trained 3 epochs on /job:localhost/replica:0/task:0/device:CPU:0; accuracy 0.94",
        "Hello from the CPU: TensorFlow works.",
    ]


# The demo switch (issue 33): TF_GPU_WIZARD_DEMO_FAULT=invalid-handle makes a simulated GPU check
# fail as TF 2.16-2.20 do on an RTX 50 (CUDA_ERROR_INVALID_HANDLE), so the failure branch and the
# move to the next route can be walked. Only simulated runs read it; it changes nothing real.
DEMO_FAULT_ENV = "TF_GPU_WIZARD_DEMO_FAULT"
FAULT_INVALID_HANDLE = "invalid-handle"


def demo_fault() -> str:
    return os.environ.get(DEMO_FAULT_ENV, "").strip().lower()


def exit_status(argv: Sequence[str]) -> int:
    """A simulated command's exit status: 1 for the GPU check under the demo fault, else 0."""
    if demo_fault() == FAULT_INVALID_HANDLE and any(a.endswith("tf_gpu_check.py") for a in argv):
        return 1
    return 0


def _gpu_check_failure_lines(profile: MachineProfile | None) -> list[str]:
    """The check as it fails with CUDA_ERROR_INVALID_HANDLE on the first GPU op (JSON lines, then
    its stderr line, which the doctor and the routes read)."""
    import json

    name, cc = (
        (profile.gpus[0].name, profile.gpus[0].compute_capability)
        if profile and profile.gpus
        else ("NVIDIA GPU", "?")
    )
    message = (
        "matmul on /GPU:0 failed: InternalError: 'cuLaunchKernel(function, ...)' failed with"
        " 'CUDA_ERROR_INVALID_HANDLE'"
    )
    events: list[dict[str, object]] = [
        {"event": "start", "message": "checking TensorFlow on the GPU (simulated)", "schema": 1},
        {"event": "gpu", "message": f"GPU 0: {name}, compute capability {cc}", "index": 0, "name": name,
         "compute_capability": cc},
        {"event": "fail", "code": "matmul", "message": message},
        {"event": "done", "ok": False, "seconds": 41.0, "message": "the GPU check FAILED"},
    ]  # fmt: skip
    lines = [json.dumps({**e, "check": "tf_gpu_check"}) for e in events]
    return [*lines, f"tf_gpu_check FAILED [matmul]: {message} (on GPU 0: {name}, compute capability {cc})"]


# The probe notes that name an NVIDIA GPU seen on the PCI bus (wizard/probe/nvidia.py).
PCI_NOTES = ("probe.pci_device", "probe.pci_device_bound")


def _gpus_after_driver(profile: MachineProfile) -> list[tuple[str, str]]:
    """The GPUs a simulated driver step makes visible: the ones the profile saw on the PCI bus
    (its probe notes name them), with the compute capability the knowledge tables give that name
    ("?" where they give none): the check after the step names the GPU the student has."""
    # The GPUs the profile saw on the PCI bus by device id; an older profile's probe notes name them.
    names = [g.name for g in profile.pci_gpus if g.name not in ("", "unknown")] or [
        note.fields.get("name", "")
        for note in profile.notes
        if note.code in PCI_NOTES and note.fields.get("name")
    ]
    out = []
    for name in names:
        full = name if name.startswith("NVIDIA ") else f"NVIDIA {name}"
        try:
            from wizard.choose.knowledge import load_knowledge

            known = load_knowledge().gpu(full) or load_knowledge().gpu(name)
        except Exception:  # a table that does not load: the name stands alone
            known = None
        out.append((full, str(known.compute_capability) if known is not None else "?"))
    return out


def _gpu_check_lines(profile: MachineProfile | None, argv: Sequence[str] = ()) -> list[str]:
    """What assets/checks/tf_gpu_check.py prints on a machine where it passes (JSON lines)."""
    import json

    gpus = [(g.name, g.compute_capability) for g in profile.gpus] if profile else []
    if not gpus and profile is not None:
        gpus = _gpus_after_driver(profile)
    # The program's own fields (what wizard.run.check_words words), with its English messages.
    events: list[dict[str, object]] = [
        {"event": "start", "message": "checking TensorFlow on the GPU (simulated)", "schema": 1}
    ]
    for i, (name, cc) in enumerate(gpus or [("NVIDIA GPU", "?")]):
        events.append(
            {
                "event": "gpu",
                "message": f"GPU {i}: {name}, compute capability {cc}",
                "index": i,
                "name": name,
                "compute_capability": cc,
            }
        )
    for op in ("matmul", "conv2d_forward", "conv2d_input_grad", "conv2d_filter_grad"):
        events.append(
            {
                "event": "op",
                "op": op,
                "device": "/job:localhost/replica:0/task:0/device:GPU:0",
                "rel_error": 1e-06,
                "ok": True,
                "message": f"{op} on GPU:0 agrees with the CPU",
            }
        )
    if "--xla-limit" in argv[:-1]:  # the plan predicts XLA's abort there: a fit, then the named limit
        cc = argv[list(argv).index("--xla-limit") + 1].partition("=")[0]
        events.append(
            {
                "event": "fit",
                "jit_compile": False,
                "ok": True,
                "device": "/job:localhost/replica:0/task:0/device:GPU:0",
                "message": "a Keras model trained on /job:localhost/replica:0/task:0/device:GPU:0 with"
                " jit_compile=False: loss 0.690 -> 0.210, accuracy 0.93",
            }
        )
        events.append(
            {
                "event": "limit",
                "code": "xla-sm",
                "compute_capability": cc,
                "message": f"XLA cannot compile for this GPU (compute capability {cc}) with this TensorFlow:"
                " in Keras use model.compile(..., jit_compile=False)",
            }
        )
    events.append({"event": "done", "ok": True, "seconds": 12.3, "message": "the GPU check passed"})
    return [json.dumps({**e, "check": "tf_gpu_check"}) for e in events]


def _pip_lines(argv: Sequence[str]) -> list[str]:
    """What pip prints for this install: the packages it names, or the file it reads them from."""
    args = list(argv)
    for flag in ("-r", "--requirement"):
        if flag in args and args.index(flag) + 1 < len(args):
            lock = args[args.index(flag) + 1]
            hashes = " (every wheel's sha256 checked)" if "--require-hashes" in args else ""
            return [
                f"Reading the pinned packages in {lock}{hashes}",
                "Installing collected packages: the pinned wheels",
                "Successfully installed the packages pinned in that file",
            ]
    start = args.index("install") + 1 if "install" in args else len(args)
    reqs = [a for a in args[start:] if not a.startswith("-")]
    if not reqs:
        return [t("runner.sim.ok")]
    lines: list[str] = []
    installed: list[str] = []
    for req in reqs:
        name, _, version = req.partition("==")
        name = name.split("[")[0]
        wheel = f"{name.replace('-', '_')}-{version}-...whl" if version else f"{name}-...whl"
        lines += [f"Collecting {req}", f"  Downloading {wheel}"]
        installed.append(f"{name}-{version}" if version else name)
    return [*lines, "Successfully installed " + " ".join(installed)]
