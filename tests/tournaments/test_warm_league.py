"""Warm bot processes in tournaments: the worker's pool, ``reuse = "never"``, and results that
do not depend on which process played (real workers, real bot processes, a real store)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from referee.core.match import MatchConfig
from tests.inprocess import play_match
from tournaments.schedule import bot_seed
from tournaments.store import Store

from .conftest import LEAGUE, REPO, Run, run, write_tournament

WARM_BOT = REPO / "tests" / "bots" / "warm_bot.py"
WELCOME = re.compile(r"welcome process=(\w+) match=(\w+) seat=(\d+)")
OVER = re.compile(r"over process=(\w+) match=(\w+) warm=(\d)")


def outcomes(result: Run) -> dict[int, list[tuple[str, list[int]]]]:
    with Store(result.db, readonly=True) as store:
        return {m.ordinal: [(g.ending, list(g.winners)) for g in m.games]
                for m in store.finished(result.outcome.tournament_id)}


def in_process_outcomes(result: Run) -> dict[int, list[tuple[str, list[int]]]]:
    """What each finished match of ``result`` gives when played in process, same seeds and bot seeds."""
    config = result.config
    with Store(result.db, readonly=True) as store:
        finished = store.finished(result.outcome.tournament_id)
    expected = {}
    for m in finished:
        match = MatchConfig(config.rules, list(m.bots), games=config.match_games, seed=m.seed)
        played = play_match(match, list(m.bots), bot_seed=bot_seed(config.seed, m.round, m.unit))
        expected[m.ordinal] = [(o.ending.value, list(o.winners)) for o in played]
    return expected


def test_a_warm_league_equals_the_in_process_run_game_by_game(league: Run) -> None:
    assert league.config.reuse == "warm", "warm is the default"
    assert outcomes(league) == in_process_outcomes(league)


def test_reuse_never_plays_the_same_league_the_same(league: Run, tmp_path: Path) -> None:
    cold = run(write_tournament(tmp_path, "cold", reuse="never", **LEAGUE), tmp_path / "cold.db")
    assert cold.config.reuse == "never" and cold.outcome.done == 6
    assert outcomes(cold) == outcomes(league)


def _manifest(directory: Path) -> Path:
    folder = directory / "warm-bot"
    folder.mkdir()
    shutil.copy(WARM_BOT, folder / WARM_BOT.name)
    (folder / "bot.toml").write_text('name = "warm-bot"\nversion = "1"\ncommand = ["{python}", "warm_bot.py"]\n')
    return folder / "bot.toml"


def _jobs(spec: Path, logs: Path, reuse: str) -> list[dict[str, Any]]:
    base = {"rules": "standard", "bots": [{"spec": str(spec)}, {"spec": str(spec)}],
            "time_control": {"decision_ms": 1000, "bank_ms": 1000, "connect_ms": 8000}, "games": 1,
            "policy": "forfeit", "bot_seed": 1, "log_dir": str(logs), "reuse": reuse, "max_matches": 50}
    return [{**base, "match_id": n, "seed": 100 + n} for n in range(3)]


def _processes_per_match(spec: Path, logs: Path, reuse: str) -> list[set[str]]:
    jobs = "".join(json.dumps(job) + "\n" for job in _jobs(spec, logs, reuse))
    done = subprocess.run([sys.executable, "-m", "tournaments.worker"], input=jobs, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["ok"] for r in results] == [True] * 3, results
    by_match: dict[str, set[str]] = {}
    logs_per_match: dict[str, int] = {}
    for log in logs.glob("*.log"):
        text = log.read_text(errors="replace")
        for m in WELCOME.finditer(text):
            by_match.setdefault(m.group(2), set()).add(m.group(1))
            assert log.name.startswith(m.group(2)), "each match's output is in that match's log"
        for m in OVER.finditer(text):
            assert (m.group(3) == "1") == (reuse == "warm")
        logs_per_match[log.name.split("-")[0]] = logs_per_match.get(log.name.split("-")[0], 0) + 1
    assert len(by_match) == 3 and list(logs_per_match.values()) == [2, 2, 2], "one log per seat and match"
    return list(by_match.values())


def test_the_worker_keeps_bot_processes_warm_across_jobs(tmp_path: Path) -> None:
    matches = _processes_per_match(_manifest(tmp_path), tmp_path / "logs", "warm")
    assert all(len(p) == 2 for p in matches)
    assert len(set().union(*matches)) == 2, "the same two processes played all three matches"


def test_reuse_never_starts_fresh_processes_for_every_match(tmp_path: Path) -> None:
    matches = _processes_per_match(_manifest(tmp_path), tmp_path / "logs", "never")
    assert len(set().union(*matches)) == 6, "one process per seat per match, as before warm bots"
