"""Shared helpers for the tournament tests: tournament files in tmp_path, real stores, real runs."""

from __future__ import annotations

import io
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from spite_cli.tournament_view import make_view
from tournaments.config import TournamentConfig, load_tournament
from tournaments.runner import RunOptions, RunSummary, run_tournament

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "bots" / "hostile_bot.py"


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(value)


def write_tournament(directory: Path, name: str = "t", **fields: Any) -> Path:
    """A tournament file: plain keys from ``fields``, tables from dict values."""
    fields.setdefault("rules", "standard")
    fields.setdefault("bots", ["greedy", "random", "naive"])
    fields.setdefault("seed", 11)
    lines = [f'name = "{name}"']
    tables = []
    for key, value in fields.items():
        if isinstance(value, dict):
            tables.append(f"[{key}]\n" + "\n".join(f"{k} = {toml_value(v)}" for k, v in value.items()))
        else:
            lines.append(f"{key} = {toml_value(value)}")
    path = directory / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n\n" + "\n\n".join(tables) + "\n")
    return path


def write_hostile_manifest(directory: Path, mode: str = "good", name: str | None = None, **extra: str) -> Path:
    """A bot.toml for tests/bots/hostile_bot.py in ``mode``."""
    folder = directory / (name or f"hostile-{mode}")
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOSTILE, folder / HOSTILE.name)  # a manifest names only files in its own folder
    lines = [f'name = "{name or "hostile-" + mode}"', 'version = "1"',
             f'command = ["{{python}}", "{HOSTILE.name}", "{mode}"]']
    lines += [f"{k} = {toml_value(v)}" for k, v in extra.items()]
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder / "bot.toml"


@dataclass
class Run:
    config: TournamentConfig
    db: Path
    outcome: RunSummary
    output: str


def run(path: Path, db: Path, **options: Any) -> Run:
    return run_loaded(load_tournament(path), db, **options)


def run_loaded(config: TournamentConfig, db: Path, **options: Any) -> Run:
    out = io.StringIO()
    view = make_view(config, options.pop("plain", True), out)
    outcome = run_tournament(config, RunOptions(db=db, **options), out=out, view=view)
    return Run(config, db, outcome, out.getvalue())


LEAGUE = {"bots": ["greedy", "random", "naive"], "seed": 11, "rounds": 1, "parallel": 2}
"""The small league the crash test and the leaderboard tests share: 3 pairings x 2 seats = 6 matches."""


@pytest.fixture(scope="session")
def league(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One uninterrupted run of LEAGUE, the reference the other tests compare with."""
    directory = tmp_path_factory.mktemp("league")
    return run(write_tournament(directory, "league", **LEAGUE), directory / "league.db")


def python() -> str:
    return sys.executable
