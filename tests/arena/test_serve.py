"""End to end (issue 16): a real ``spite serve`` with two entrants, one uploaded bot and one
remote SDK bot, playing the house bot and each other; logs private to their owner; a
failing upload refused with its reason; and a SIGKILL of the server that loses no game
and counts none twice."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.languages.common import unavailable

from .conftest import REPO, running_arena

pytestmark = pytest.mark.slow


def _pairs(games: list[dict[str, Any]]) -> set[frozenset[str]]:
    return {frozenset(b.split("/")[0] for b in g["bots"]) for g in games}


def _ledger(data: Path) -> dict[str, Any]:
    """What the store holds: done game ids, games counted per version, rating rows."""
    with sqlite3.connect(f"file:{data / 'arena.db'}?mode=ro", uri=True) as db:
        done = {row[0] for row in db.execute("SELECT id FROM games WHERE status = 'done'")}
        running = {row[0] for row in db.execute("SELECT id FROM games WHERE status = 'running'")}
        seats = db.execute("SELECT COALESCE(SUM(json_array_length(versions)), 0) FROM games "
                           "WHERE status = 'done'").fetchone()[0]
        counted = db.execute("SELECT COALESCE(SUM(games), 0) FROM versions").fetchone()[0]
        rating_rows = db.execute("SELECT COUNT(*) FROM ratings").fetchone()[0]
        statuses = dict(db.execute("SELECT status, COUNT(*) FROM games GROUP BY status").fetchall())
    return {"done": done, "running": running, "seats": seats, "counted": counted, "rating_rows": rating_rows,
            "statuses": statuses}


def test_a_ladder_with_an_uploaded_and_a_remote_bot(tmp_path: Path) -> None:
    from referee.sandbox import detect

    if not detect().isolated:  # uploads run only in the sandbox: CI must have it, a laptop may not
        unavailable(f"no sandbox here: {detect().reason} (.ci/run installs bubblewrap)")
    with running_arena(tmp_path) as arena:
        alice, bob = arena.add_entrant("alice"), arena.add_entrant("bob")
        assert arena.spite("arena", "add-entrant", "alice", "--data", str(arena.data)).returncode == 2

        submitted = arena.spite("submit", str(REPO / "sample_bots" / "naive"), "--server", arena.url,
                                "--key", alice, "--json")
        verdict = json.loads(submitted.stdout)
        assert submitted.returncode == 0 and verdict["status"] == "active", submitted.stdout + submitted.stderr
        assert any(line.startswith("PASS  handshake") for line in verdict["checks"])

        arena.remote_bot("greedy", bob)
        arena.wait_for("games between every two entrants", lambda: _pairs(arena.get("/api/games?limit=500")[1][
            "games"]) >= {frozenset({"house", "alice"}), frozenset({"house", "bob"}), frozenset({"alice", "bob"})})

        status, board = arena.get("/api/leaderboard")
        assert status == 200
        rows = {(r["entrant"], r["bot"]): r for r in board}
        assert set(rows) == {("house", "greedy"), ("alice", "naive"), ("bob", "greedy")}
        for row in rows.values():
            assert row["games"] > 0 and isinstance(row["rating"], float) and row["version"] == 1
        assert rows[("bob", "greedy")]["kind"] == "remote" and rows[("alice", "naive")]["kind"] == "upload"

        # alice's bot's log: hers alone
        games = arena.get("/api/games?limit=500")[1]["games"]
        game = next(g for g in games if "alice/naive v1" in g["bots"])
        seat = game["bots"].index("alice/naive v1")
        status, _ = arena.get(f"/api/me/logs/{game['id']}/{seat}", alice)
        assert status == 200
        status, answer = arena.get(f"/api/me/logs/{game['id']}/{seat}", bob)
        assert status == 404 and "no bot in seat" in answer["error"]
        assert arena.get(f"/api/me/logs/{game['id']}/{seat}")[0] == 401
        assert arena.get(f"/api/me/logs/{game['id']}/{seat}", "sk_not-a-key")[0] == 401
        status, view = arena.get(f"/api/me/replays/{game['id']}/{seat}", alice)
        assert status == 200 and view
        assert arena.get(f"/api/me/replays/{game['id']}/{seat}", bob)[0] == 404

        # an upload failing the conformance checks is refused, with the reason
        refused = arena.spite("submit", str(Path(__file__).parent / "bots" / "crasher"), "--server", arena.url,
                              "--key", alice, "--json")
        answer = json.loads(refused.stdout)
        assert refused.returncode == 1 and answer["status"] == "refused", refused.stdout
        assert "failed the" in answer["reason"] and "check" in answer["reason"]
        assert arena.get("/api/me", alice)[1]["versions"][-1]["status"] == "refused"
        assert ("alice", "crasher") not in {(r["entrant"], r["bot"]) for r in arena.get("/api/leaderboard")[1]}

        status = json.loads(arena.spite("arena", "status", "--data", str(arena.data), "--server", arena.url,
                                        "--json").stdout)
        assert status["workers"][0]["played"] > 0 and len(status["leaderboard"]) == 3

        # SIGKILL, restart: nothing lost, nothing counted twice
        arena.wait_for("a game in play", lambda: arena.get("/api/games?limit=1")[1]["counts"]["running"] > 0)
        arena.kill()
        before = _ledger(arena.data)
        assert before["counted"] == before["seats"] == before["rating_rows"]
        assert before["running"], "the kill was meant to cut a game off"
        arena.start()
        arena.wait_for("the cut-off games played again, and more",
                       lambda: before["running"] <= (done := _ledger(arena.data)["done"])
                       and len(done) > len(before["done"]) + 3)
        arena.kill()
        after = _ledger(arena.data)
        assert before["done"] <= after["done"]
        assert after["counted"] == after["seats"] == after["rating_rows"]
        assert after["statuses"].get("void", 0) == 0
