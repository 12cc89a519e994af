"""End to end with real processes: SDK sample bots play whole matches through a real
referee for every preset, and the games are exactly those of an in-process run of the
same seeds and bots (tests/inprocess.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from referee.core import replay as replay_file
from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.local import play_local_match
from spite_engine import PRESETS, parse_rules, replay
from tests.inprocess import play_match
from tournaments.bot_specs import resolve_bot

LINEUP = ["greedy", "random", "naive", "greedy"]


@pytest.mark.parametrize("spec", PRESETS)
def test_wire_games_match_in_process_games(spec: str, tmp_path: Path) -> None:
    rules = parse_rules(spec)
    names = LINEUP[:rules.players]
    games = 1 if rules.match_points else 2
    config = MatchConfig(rules, names, TimeControl(decision_ms=3000, bank_ms=20_000, connect_ms=20_000),
                         games=games if not rules.match_points else 30, seed=11, policy=Policy.FORFEIT,
                         replay_dir=tmp_path)
    result = asyncio.run(play_local_match([resolve_bot(n) for n in names], config, bot_seed=3))
    summary = result.match.summary()
    assert all(s["status"] == "done" for s in summary["seats"]), summary["seats"]
    wire = [g["outcome"] for g in summary["games"]]
    assert wire == [o.to_dict() for o in play_match(config, names, bot_seed=3)]
    assert all(info.returncode == 0 for info in result.exits)  # every bot exited cleanly
    for game in summary["games"]:  # every replay re-simulates exactly
        replay(replay_file.load(game["replay"]).record)
