"""Shared helpers for the CLI tests: the real ``spite`` command in a subprocess, a crashing
bot, and one small tournament store (with a crashing bot in it) for the whole session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
CRASHY = BOTS / "crashy.py"


def spite(*args: str, cwd: Path | None = None, timeout: float = 600, env: dict[str, str] | None = None,
          stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real command line, as a user would (stdout and stderr kept apart)."""
    environment = {**os.environ, "COLUMNS": "100", **(env or {})}
    return subprocess.run([sys.executable, "-m", "spite_cli.main", *args], cwd=cwd or REPO, capture_output=True,
                          text=True, timeout=timeout, env=environment, input=stdin)


def crashy_manifest(directory: Path, crash_at: int = 20) -> Path:
    folder = directory / "crashy"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(CRASHY, folder / CRASHY.name)  # a manifest may name only files in its own folder
    (folder / "bot.toml").write_text(f'name = "crashy"\nversion = "0.1.0"\nlanguage = "python"\n'
                                     f'command = ["{{python}}", "{CRASHY.name}", "{crash_at}"]\n')
    return folder / "bot.toml"


@pytest.fixture(scope="session")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tournament store: greedy, random and a bot that crashes at its 20th decision."""
    directory = tmp_path_factory.mktemp("league")
    crashy_manifest(directory)
    (directory / "league.toml").write_text('name = "league"\nrules = "standard"\n'
                                           'bots = ["greedy", "random", "crashy/bot.toml"]\n'
                                           'seed = 5\nrounds = 1\nparallel = 2\nreplay_dir = "replays"\n')
    run = spite("tournament", "league.toml", "--db", "league.db", "--plain", cwd=directory)
    assert run.returncode == 1, run.stdout + run.stderr  # a bot failed: the crashing one
    return directory
