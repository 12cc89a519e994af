"""The rules package type-checks under ``mypy --strict`` (configuration: pyproject.toml
[tool.mypy], which names engine/spite_engine), as python-chess does in CI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_rules_package_passes_mypy_strict() -> None:
    """``python -m mypy --strict`` over engine/spite_engine exits 0."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "engine/spite_engine"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"mypy --strict failed:\n{result.stdout}{result.stderr}"
