"""Plausible output for simulated runs (demo profiles): nothing is executed.

Every line is prefixed by the runner with "SIMULATED"; these only make the
demo read like the real thing (apt, pip, the verify's GPU list).
"""

from __future__ import annotations

from collections.abc import Sequence

from wizard.profile import MachineProfile


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
            return ["Hit:1 http://archive.ubuntu.com/ubuntu noble InRelease", "Reading package lists... Done"]
        pkgs = [a for a in argv if not a.startswith("-") and a not in ("apt-get", "install", "env")][-3:]
        return [
            "Reading package lists... Done",
            "Building dependency tree... Done",
            f"The following NEW packages will be installed: {' '.join(pkgs)}",
            "Setting up ... done",
        ]
    if "-m" in argv and "pip" in argv:
        req = argv[-1]
        name = req.split("==")[0]
        return [f"Collecting {req}", f"  Downloading {name}-...whl", f"Successfully installed {req}"]
    if "-m" in argv and "venv" in argv:
        return []
    if "tf.config.list_physical_devices" in joined:
        gpus = [g.name for g in profile.gpus] if profile else []
        lines = ["TensorFlow (simulated)"]
        lines += [f"GPU: /physical_device:GPU:{i} {n}" for i, n in enumerate(gpus or ["NVIDIA GPU"])]
        return [*lines, "matmul on /job:localhost/replica:0/task:0/device:GPU:0 ok, sum = 268435456.0"]
    if "tf.matmul" in joined:
        return ["TensorFlow (simulated)", "matmul on /job:localhost/replica:0/task:0/device:CPU:0 ok"]
    if name == "conda":
        return ["Collecting package metadata (repodata.json): done", "Solving environment: done", "done"]
    return ["ok"]
