"""`apply --verify`: the full proof again, whatever is kept from the last one.

A re-apply with nothing changed starts no TensorFlow: the verify step's check
(assets/programs/env_proof.py) accepts the proof recorded with what it proved (the lock, the
packages' RECORDs, every file, the driver and the GPUs), and the locked install's check trusts a
file's digest while its inode, size and mtime are those it was proven with
(assets/programs/installed_ok.py). `forget(plan)` removes both from the plan's environment, so the
run that follows hashes every file again and starts TensorFlow again: a proof from scratch.

    forget(plan) -> list[Path]     the files removed (nothing for a simulated plan)
"""

from __future__ import annotations

from pathlib import Path

from wizard.plan.model import Plan

# Written by the programs inside the environment (sys.prefix): the names are theirs.
PROOF_RECORD = ".tf-gpu-wizard-proof.json"
DIGEST_CACHE = ".tf-gpu-wizard-verified.json"


def forget(plan: Plan) -> list[Path]:
    if plan.simulated or not plan.venv:
        return []
    removed = []
    for name in (PROOF_RECORD, DIGEST_CACHE):
        path = Path(plan.venv) / name
        try:
            if path.is_file() and not path.is_symlink():
                path.unlink()
                removed.append(path)
        except OSError:
            pass  # a read-only environment: its check then proves what it can, as before
    return removed
