"""Probe: detect this machine, part by part, into a `MachineProfile`.

`detect.detect()` runs the parts (platform, python, nvidia, kernel, cuda, tensorflow, resources);
each lives in its own module and fails soft.
"""

from wizard.probe.context import ProbeContext, PythonFacts
from wizard.probe.detect import PARTS, detect

__all__ = ["PARTS", "ProbeContext", "PythonFacts", "detect"]
