"""Benchmarks of reftensor against torch (``python -m benchmarks.bench``); not part of the tests."""
