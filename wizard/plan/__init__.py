"""Plan: the ordered steps, with exact commands and a check each, that take a machine to a chosen set.

`model` holds the data types (Step, Check, Plan); `build.build_plan` picks a builder (`linux`, `wsl`,
`conda`, sharing `common`); `view` and `script` show a plan as text or as a bash script.
"""
