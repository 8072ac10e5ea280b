"""Doctor: recognise known failures in a machine profile or in output, and give the fix.

`findings.find_problems(profile)` reads a profile (detect shows the same list);
`catalogue` holds the known error texts (assets/doctor/patterns.toml) and the line matcher;
`diagnose.diagnose(...)` / `diagnose.from_hits(...)` rank both into Diagnosis items;
`sharpen` makes a fix specific to the machine; `logread` reads a bounded view of a log;
`live` runs a command in the target environment for `doctor --run`.
"""
