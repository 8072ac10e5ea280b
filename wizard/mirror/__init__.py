"""Package mirrors: the machine's catalogue (`catalogue`), what pip/uv/conda already use
(`configured`), a short speed probe (`probe`), and which index a plan uses (`advice`).
The plan's commands are rewritten by wizard.plan.mirror. No mirror address is built in.
"""
