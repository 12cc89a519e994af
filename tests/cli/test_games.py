"""Item 5: `spite games` finds the games a bot lost (or won, drew, crashed in) without SQL,
one line per game with its replay file."""

from __future__ import annotations

import json
from pathlib import Path

from tournaments.queries import GameFilter, Queries

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
    """The command reads through tournaments.queries, the module spite web's games list uses."""
    with Queries.open(league / "league.db") as queries:
        everything = queries.games(GameFilter(limit=10_000)).games
        crashes = queries.games(GameFilter(ending="crash", limit=10_000)).games
        greedy_vs_random = queries.games(GameFilter(bot="greedy", opponent="random", limit=10_000)).games
        replays = [str(queries.replay(g.match_id, g.game_number).path) for g in crashes]
    assert crashes and all(g.ending == "crash" for g in crashes)
    assert greedy_vs_random and all(set(g.bots) == {"greedy", "random"} for g in greedy_vs_random)
    run = spite("games", "--db", "league.db", "--json", cwd=league)
    assert len(json.loads(run.stdout)) == len(everything)
    run = spite("games", "--db", "league.db", "--ending", "crash", "--tournament", "league", "--json", cwd=league)
    assert [g["replay"] for g in json.loads(run.stdout)] == replays
    run = spite("games", "--db", "league.db", "--bot", "greedy", "--opponent", "random", "--json", cwd=league)
    rows = json.loads(run.stdout)
    assert len(rows) == len(greedy_vs_random) and all(r["bots"][r["seat"]] == "greedy" for r in rows)


def test_an_unknown_bot_or_tournament_is_one_line(league: Path) -> None:
    run = spite("games", "--db", "league.db", "--bot", "nosuch", cwd=league)
    assert run.returncode == 2 and "no bot 'nosuch'" in run.stderr and "greedy" in run.stderr
    run = spite("games", "--db", "league.db", "--tournament", "nosuch", cwd=league)
    assert run.returncode == 2 and run.stderr.strip() == "spite games: no tournament 'nosuch' in league.db"
