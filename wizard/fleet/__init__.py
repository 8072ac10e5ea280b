"""Fleet: the wizard's plans as an Ansible project for a lab of machines.

`project.export_project` writes the project; `planner.plan_fleet` (run on the control node by
the playbook itself) groups the probed hosts into classes, plans each class, builds the one
wheelhouse; `receipts.load_report` rolls the hosts' receipts into the report.
"""
