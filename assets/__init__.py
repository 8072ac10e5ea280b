"""Data shipped with tf-gpu-wizard: knowledge tables, text, styles, demo profiles, the benchmark."""
