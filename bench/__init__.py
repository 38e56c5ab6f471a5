"""Benchmarks printing JSON lines; run from the repository root: ``python -m bench.<name>``."""
