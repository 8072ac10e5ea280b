"""Bench: run the TensorFlow benchmark in the target environment's Python and read its JSON lines.

`events` validates each line, `report` folds them into a `BenchReport`, `runner.BenchRun` runs the
script (`SimulatedBenchRun` plays `sim.simulated_events` for demo profiles).
"""
