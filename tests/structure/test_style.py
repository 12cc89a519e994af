"""The tree passes ruff (configuration: pyproject.toml [tool.ruff]: pyflakes, pycodestyle's
errors and warnings, import order), so import order and style stop varying from file to file
(issue 29, item 7). ``ruff check --fix .`` sorts imports and drops unused ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_tree_passes_ruff() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"ruff check failed (--fix sorts imports):\n{result.stdout}{result.stderr}"
