"""tournaments.queries over a real store: the one query layer of the CLI and the web."""

from __future__ import annotations

import hashlib
import html
import json
import subprocess
import sys
from pathlib import Path

import pytest

from spite_cli.main import main
from tournaments.queries import BadQuery, GameFilter, NotFound, Queries
from tournaments.store import StoreError

from .conftest import League


def test_the_leaderboard_is_the_clis(league: League, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leaderboard", "--db", str(league.db), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    with Queries.open(league.db) as q:
        board = q.leaderboard()
    assert printed["leaderboard"] == board.board()
    assert printed["head_to_head"] == board.head_to_head
    assert [r.name for r in board.rows] == [r["name"] for r in printed["leaderboard"]]
    assert {r.name for r in board.rows} == {"greedy", "random", "naive"}


def test_games_filters(league: League) -> None:
    with Queries.open(league.db) as q:
        everything = q.games()
        assert everything.total == 6 and len(everything.games) == 6
        greedy = q.games(GameFilter(bot="greedy"))
        assert greedy.total == 4 and all("greedy" in g.bots for g in greedy.games)
        lost = q.games(GameFilter(bot="greedy", result="lost"))
        assert all(g.result_for("greedy") == "lost" for g in lost.games)
        won = q.games(GameFilter(bot="greedy", result="won")).total
        drawn = q.games(GameFilter(bot="greedy", result="drawn")).total
        assert lost.total + won + drawn == greedy.total
        pair = q.games(GameFilter(bot="greedy", opponent="naive"))
        assert pair.total == 2 and all(set(g.bots) == {"greedy", "naive"} for g in pair.games)
        for ending in {g.ending for g in everything.games}:
            assert all(g.ending == ending for g in q.games(GameFilter(ending=ending)).games)
            assert GameFilter.parse({"ending": ending.value}).ending is ending  # the typed member, from its word
        assert q.games(GameFilter(rules="standard")).total == 6
        assert q.games(GameFilter(rules="skip-bo")).total == 0
        assert q.games(GameFilter(limit=2, offset=5)).games == everything.games[5:]


@pytest.mark.parametrize("params, message", [
    ({"result": "won"}, "result needs bot"),
    ({"bot": "x", "result": "win"}, "result must be one of"),
    ({"ending": "checkmate"}, "ending must be one of"),
    ({"limit": "0"}, "limit must be 1..1000"),
    ({"limit": "ten"}, "limit must be a whole number"),
    ({"offset": "-1"}, "offset must be 0 or more"),
    ({"colour": "red"}, "unknown filter 'colour'"),
])
def test_bad_filters_say_what_is_wrong(params: dict[str, str], message: str) -> None:
    with pytest.raises(BadQuery, match=message):
        GameFilter.parse(params)


def test_a_bot_page(league: League) -> None:
    with Queries.open(league.db) as q:
        bot = q.bot("greedy")
        assert bot.standing.name == "greedy" and bot.standing.matches == 4
        assert len(bot.ratings) == 4 and [p.ordinal for p in bot.ratings] == sorted(p.ordinal for p in bot.ratings)
        assert {o.name for o in bot.opponents} == {"random", "naive"} and all(o.played == 2 for o in bot.opponents)
        assert sum(bot.endings.values()) == 4
        assert sum(b.count for b in bot.histogram) == bot.standing.decisions
        assert len(bot.recent_games) == 4 and bot.versions[0]["name"] == "greedy"
        assert len(bot.logs) == 4 and all(log.path.is_file() and log.bot == "greedy" for log in bot.logs)
        assert q.log("greedy", bot.logs[0].match_id, bot.logs[0].seat).path == bot.logs[0].path
        with pytest.raises(NotFound, match="no bot 'nobody'"):
            q.bot("nobody")
        with pytest.raises(NotFound, match="no log"):
            q.log("greedy", bot.logs[0].match_id, 7)
        with pytest.raises(NotFound, match="tournament 42 in"):
            q.bot("greedy", 42)


def test_replays_are_found_by_the_stores_record_only(league: League) -> None:
    with Queries.open(league.db) as q:
        game = q.games().games[0]
        ref = q.replay(game.match_id, game.game_number)
        assert ref.path.is_file() and ref.path.parent == league.replays
        with pytest.raises(NotFound, match="no game 9 of match"):
            q.replay(game.match_id, 9)


def test_a_missing_store_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="no results store"):
        Queries.open(tmp_path / "none.db")
    (tmp_path / "junk.db").write_text("not sqlite at all" * 100)
    with pytest.raises(NotFound, match="not a Spite Arena results store"):
        Queries.open(tmp_path / "junk.db")


def test_queries_never_write(league: League) -> None:
    before = hashlib.sha256(league.db.read_bytes()).hexdigest()
    with Queries.open(league.db) as q:
        q.leaderboard(), q.bot("naive"), q.games(GameFilter(bot="random")), q.rating_history()
        with pytest.raises(StoreError, match="readonly"):  # the store words every SQLite error as one
            q.store.db.execute("DELETE FROM games")
    assert hashlib.sha256(league.db.read_bytes()).hexdigest() == before


def test_a_faulty_bots_faults_and_their_reasons(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from spite_web.app import create_app
    from tests.tournaments.conftest import write_hostile_manifest, write_tournament

    manifest = write_hostile_manifest(tmp_path, "bad-move")
    path = write_tournament(tmp_path, "faulty", bots=["greedy", str(manifest)], rounds=1, parallel=2,
                            policy="substitute")
    # A process of its own: the browser tests' Playwright keeps an event loop in this thread.
    done = subprocess.run([sys.executable, "-m", "spite_cli.main", "tournament", str(path), "--db",
                           str(tmp_path / "f.db"), "--plain"], capture_output=True, timeout=300)
    assert done.returncode == 1, done.stderr  # exit 1: a bot failed (the faulty one), the league was played
    with Queries.open(tmp_path / "f.db") as q:
        bot = q.bot("hostile-bad-move")
        assert bot.standing.illegal_moves + bot.standing.malformed > 0 and bot.faults
        assert all(f.reason for f in bot.faults) and not q.bot("greedy").faults
        reasons = [f.reason for f in bot.faults]
    client = TestClient(create_app(tmp_path / "f.db"))
    page = client.get("/tournaments/1/bots/hostile-bad-move").text
    assert 'id="faults"' in page and all(html.escape(r) in page for r in reasons)
    assert 'class="faulty"' in client.get("/tournaments/1").text
