"""Doctor: recognise known failures in a machine profile or in output, and give the fix.

`findings.find_problems(profile)` reads a profile; `diagnose.diagnose(...)` adds the known error texts.
"""
