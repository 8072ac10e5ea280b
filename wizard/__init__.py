"""tf-gpu-wizard core: probe, compatibility, plan, runner, monitor, bench, doctor.

Never imports textual: the UI in `screens/` calls into this package, not the other way.
"""

__version__ = "0.1.0"
