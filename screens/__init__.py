"""The Textual app: a thin flow of screens over `wizard/` (which holds all the logic).

Welcome -> Detect -> Choose -> Plan -> Run -> Monitor, plus help and modals.
Modules are imported lazily so that launching stays fast.
"""
