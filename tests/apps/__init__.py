"""Pre-built apps for the snapshot and Pilot tests (one module per app)."""
