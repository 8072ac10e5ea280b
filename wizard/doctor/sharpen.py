"""The fix made specific to this machine: its driver, its GPU, the TensorFlow set chosen for it.

    sharpen = Sharpener(profile)
    sharpen("driver-too-old")  -> "It has NVIDIA driver 470.82.01. <unlock hint> ..." or ""

The general fix (assets/text/<lang>/doctor.toml) stays as it is; this adds one or two sentences
from the profile and from the resolver's recommendation (the driver version to get, the exact
pip requirement). The recommendation is computed once, on first need.
"""

from __future__ import annotations

import shlex
from pathlib import PurePath

from wizard.choose.choice import Candidate, Recommendation
from wizard.plan.lock_view import LockedInstall, locked_install
from wizard.profile import MachineProfile
from wizard.text import t

# Which facts sharpen which diagnosis.
DRIVER = frozenset(
    {"driver-too-old", "ptx-too-new-for-driver", "gpu-lib-init-failed", "no-device", "kernel-module-missing"}
)
GPU = frozenset(
    {
        "unsupported-cc",
        "gpu-too-new",
        "kernel-launch-failed",
        "ptx-jit-slow-start",
        "ptxas-too-old",
        "gpu-check-left-out",
        "gpu-check-time-limit",
    }
)
INSTALL = frozenset(
    {
        "missing-cudart",
        "missing-cudnn",
        "cudnn-version-mismatch",
        "cuda-libs-mixed",
        "cpu-only-wheel",
        "tensorflow-gpu-removed",
        "python-unsupported",
        "xla-libdevice-missing",
        "xla-ptxas-problem",
        "unsupported-cc",
        "driver-too-old",
        "ptx-too-new-for-driver",
        "dnn-library-not-found",
        "ptxas-too-old",
        "gpu-check-cpu-placement",
        "gpu-check-time-limit",
    }
)


# A GPU that nothing can talk to: on a machine whose installed driver waits for a restart
# (newest.restart_loads), that one restart is this machine's fix.
RESTART = frozenset({"cuinit-failed", "no-device", "kernel-module-missing"})

# Install fixes that hold for a CPU set too (the others are about GPU libraries).
CPU_TOO = frozenset({"python-unsupported", "tensorflow-gpu-removed", "cpu-only-wheel"})


class Sharpener:
    def __init__(self, profile: MachineProfile) -> None:
        self.profile = profile
        self._rec: Recommendation | None = None
        self._rec_done = False

    def recommendation(self) -> Recommendation | None:
        if not self._rec_done:
            self._rec_done = True
            try:
                from wizard.choose.resolver import recommend

                self._rec = recommend(self.profile)
            except Exception:  # a knowledge table being edited or damaged: the general fix still stands
                self._rec = None
        return self._rec

    def venv(self) -> PurePath:
        """The wizard's environment on this machine, as its plan names it (a demo's is in the demo
        user's home, plan.build.machine_home)."""
        from wizard.plan.build import default_venv_for

        return default_venv_for(self.profile)

    def __call__(self, diag_id: str) -> str:
        parts: list[str] = []
        p = self.profile
        if diag_id == "cuinit-failed":  # harmful only where a GPU is expected: say which this is
            if p.has_nvidia_gpu:
                # The driver's name for it, else the PCI table's (a driver that fails lists none).
                names = [g.name for g in p.gpus] + [g.name for g in p.pci_gpus]
                name = next((n for n in names if n and n != "unknown"), "")
                key = "doctor.sharpen.cuinit_gpu" if name else "doctor.sharpen.cuinit_gpu_unnamed"
                parts.append(t(key, name=name))
            else:
                parts.append(t("doctor.sharpen.cuinit_no_gpu"))
        if diag_id in RESTART:
            from wizard.doctor.newest import restart_loads

            loads = restart_loads(self.recommendation())
            if loads:
                parts.append(t("doctor.restart_fix", installed=loads))
        if diag_id in DRIVER and p.driver is not None and p.driver.version not in ("", "unknown"):
            parts.append(t("doctor.sharpen.driver", version=p.driver.version))
            rec = self.recommendation()
            if (
                rec is not None
                and rec.unlock_hint
                and diag_id in ("driver-too-old", "ptx-too-new-for-driver")
            ):
                parts.append(t("doctor.sharpen.unlock", hint=rec.unlock_hint.rstrip(". ")))
        if diag_id == "driver-library-mismatch" and p.platform == "wsl2":
            # The native fix's /proc file and kernel module do not exist in WSL2 (wizard.doctor.reason
            # gives WSL2's answer where the text itself shows WSL2).
            from wizard.doctor.reason import DECIDE_WSL_LIBS

            parts.append(t("doctor.sharpen.mismatch_wsl", command=DECIDE_WSL_LIBS))
        if diag_id in GPU and p.gpus:
            gpu = p.gpus[0]
            parts.append(t("doctor.sharpen.gpu", name=gpu.name, cc=gpu.compute_capability))
        parts.extend(self._new_families(diag_id))
        if diag_id in INSTALL:
            parts.append(self._install(diag_id))
        return " ".join(x for x in parts if x)

    def _new_families(self, diag_id: str) -> list[str]:
        """This machine's facts for the families issue 21 added (the profile's own words)."""
        p, venv = self.profile, self.venv()
        out: list[str] = []
        known = p.driver is not None and p.driver.version not in ("", "unknown")
        if diag_id == "container-no-gpu":
            if known and p.gpus and p.driver is not None:
                out.append(t("doctor.sharpen.container_host_ok", version=p.driver.version))
            elif p.has_nvidia_gpu:
                out.append(t("doctor.sharpen.container_host_driver"))
            else:
                out.append(t("doctor.sharpen.container_no_gpu"))
        elif diag_id == "kernel-module-missing" and p.platform == "linux":
            kernel, km = p.os.kernel, p.kernel
            if km.nvidia_loaded:
                out.append(t("doctor.sharpen.kmod_loaded", kernel=kernel, version=km.loaded_version or "?"))
            elif km.nvidia_loaded is False:
                out.append(t("doctor.sharpen.kmod_not_loaded", kernel=kernel))
        elif diag_id == "numpy-abi":
            out.append(t("doctor.sharpen.numpy_check", venv=venv))
        elif diag_id == "pip-half-upgraded":
            if p.python.uv:
                out.append(t("doctor.sharpen.pip_uv", uv=p.python.uv, venv=venv))
            elif p.python.venv_module is False:
                out.append(t("doctor.sharpen.pip_no_ensurepip", version=p.python.version, venv=venv))
            elif p.python.venv_module:
                out.append(t("doctor.sharpen.pip_ensurepip", version=p.python.version, venv=venv))
        if diag_id in ("dnn-library-not-found", "missing-cudnn", "cudnn-version-mismatch") and p.cudnn:
            found = p.cudnn[0]
            out.append(t("doctor.sharpen.system_cudnn", version=found.version, path=found.path))
        return out

    def _install(self, diag_id: str) -> str:
        """The wizard's own plan for this machine: its pinned lines, into its environment."""
        rec = self.recommendation()
        best = rec.recommended if rec is not None else None
        if best is None:
            return ""
        if best.set.method == "cpu" and diag_id not in CPU_TOO:
            # This machine's plan has no GPU libraries: a GPU library error in a log from another
            # machine is not fixed by this machine's CPU set.
            return ""
        try:
            from wizard.choose.resolver import pip_requirements, required_driver

            venv = self.venv()
            pins = pip_requirements(best)
            need = required_driver(best, self.profile.platform) if best.set.method != "cpu" else None
        except Exception:  # as above: never let the knowledge base stop the doctor
            return ""
        locked = _locked(best, self.profile)
        if locked is not None:  # the plan installs the hashed lock (uv or pip): say that, not a pip line
            text = t(
                "doctor.sharpen.install_lock",
                venv=venv,
                installer=locked.installer,
                tensorflow=best.set.tensorflow,
                python=best.set.python,
                count=locked.count,
                digest=locked.digest,
            )
            if need:
                text += " " + t("doctor.sharpen.needs_driver", tensorflow=best.set.tensorflow, driver=need)
            return text
        command = shlex.join([str(venv / "bin" / "python"), "-m", "pip", "install", *pins])
        text = t(
            "doctor.sharpen.install",
            command=command,
            python=best.set.python,
            tensorflow=best.set.tensorflow,
            venv=venv,
        )
        if need:
            text += " " + t("doctor.sharpen.needs_driver", tensorflow=best.set.tensorflow, driver=need)
        return text


def _locked(best: Candidate, profile: MachineProfile) -> LockedInstall | None:
    try:
        return locked_install(best, profile)
    except Exception:  # as above: never let the knowledge base stop the doctor
        return None
