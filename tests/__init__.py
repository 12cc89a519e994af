"""Spite Arena's test suites (a package so ``python -m tests.rules.golden`` works)."""
