"""The package version (equal to pyproject.toml's, checked by tests/test_quality.py)."""

__version__ = "0.1.0"
