"""Item 5: `spite games` finds the games a bot lost (or won, drew, crashed in) without SQL,
one line per game with its replay file."""

from __future__ import annotations

import json
from pathlib import Path

from tournaments.games import GameFilter, find_games
from tournaments.store import Store

from .conftest import spite


def test_the_games_a_bot_lost_each_with_a_replay(league: Path) -> None:
    run = spite("games", "--db", "league.db", "--bot", "crashy", "--result", "lost", cwd=league)
    lines = run.stdout.splitlines()
    assert run.returncode == 0 and lines
    for line in lines:
        assert line.startswith("lost  crashy (seat ")
        replay = line.rsplit(" · ", 1)[1]
        assert replay.endswith(".jsonl.gz") and Path(replay).is_file()


def test_filters_agree_with_the_typed_query(league: Path) -> None:
    with Store(league / "league.db", readonly=True) as store:
        everything = find_games(store, GameFilter())
        crashes = find_games(store, GameFilter(ending="crash"))
        greedy_vs_random = find_games(store, GameFilter(bot="greedy", opponent="random"))
    assert crashes and all(g.ending == "crash" for g in crashes)
    assert all("random" in g.bots and g.seat is not None and g.bots[g.seat] == "greedy" for g in greedy_vs_random)
    run = spite("games", "--db", "league.db", "--json", cwd=league)
    assert len(json.loads(run.stdout)) == len(everything)
    run = spite("games", "--db", "league.db", "--ending", "crash", "--tournament", "league", "--json", cwd=league)
    assert [g["replay"] for g in json.loads(run.stdout)] == [g.replay for g in crashes]


def test_an_unknown_bot_or_tournament_is_one_line(league: Path) -> None:
    run = spite("games", "--db", "league.db", "--bot", "nosuch", cwd=league)
    assert run.returncode == 2 and "no bot 'nosuch'" in run.stderr and "greedy" in run.stderr
    run = spite("games", "--db", "league.db", "--tournament", "nosuch", cwd=league)
    assert run.returncode == 2 and run.stderr.strip() == "spite games: no tournament 'nosuch' in league.db"
