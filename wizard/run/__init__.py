"""Run: carry out a plan step by step, check before and after each step, resume after any interruption.

`runner.Runner` runs; `journal` keeps the resume state; `sudo` handles root steps; `sim` gives simulated
output for demo profiles.
"""
