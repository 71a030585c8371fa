"""Placeholder, filled in by issue 4."""

__all__: list[str] = []
