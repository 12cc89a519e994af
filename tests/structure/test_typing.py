"""Every first-party Python package type-checks under ``mypy --strict`` (configuration:
pyproject.toml [tool.mypy], which lists them: the engine, the wire, the SDK, the referee,
the tournaments and the CLI), as python-chess does in CI."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = {"engine/spite_engine", "wire/spite_wire", "sdk/python/spite_sdk", "referee", "tournaments",
               "spite_cli", "spite_web", "spite_arena"}


def test_every_first_party_package_is_checked() -> None:
    """A new package cannot slip out of the check: each top-level Python package of the
    repository is in [tool.mypy] files."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    checked = set(config["files"])
    packages = {str(p.parent.relative_to(ROOT)) for p in ROOT.glob("*/__init__.py")
                if p.parent.name not in {"tests", "bench"}}
    packages |= {str(p.parent.relative_to(ROOT)) for p in ROOT.glob("*/*/__init__.py")
                 if p.parent.parent.name in {"engine", "wire"} and p.parent.name != "spite"}
    assert FIRST_PARTY <= checked
    assert packages <= checked, f"not type-checked: {sorted(packages - checked)}"


@pytest.mark.slow  # mypy --strict over every package: the better part of a minute
def test_first_party_packages_pass_mypy_strict() -> None:
    """``python -m mypy`` (strict, every package in the configuration) exits 0."""
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"mypy --strict failed:\n{result.stdout}{result.stderr}"
