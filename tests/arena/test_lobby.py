"""The remote bots' lobby: TLS when the competition configures it, and the per-key limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from spite_arena.lobby import Lobby
from spite_arena.store import ArenaStore
from tests.referee.test_tls import issue, make_ca
from tournaments.ratings import RatingParams

from .conftest import COMPETITION, running_arena

pytestmark = pytest.mark.slow


def test_joins_are_checked_and_capacity_is_capped_per_key(tmp_path: Path) -> None:
    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("ann")
        lobby = Lobby(store, RatingParams(), per_key=3)
        with pytest.raises(LookupError):
            lobby.join("sk_nope", "bot", "1", 1)
        for name, label, capacity in [("../x", "1", 1), ("bot", "v" * 65, 1), ("bot", "1", 0), ("bot", "1", 65)]:
            with pytest.raises(ValueError):
                lobby.join(key, name, label, capacity)
        first = lobby.join(key, "bot", "1", 2)
        second = lobby.join(key, "bot", "1", 5)
        assert (first.capacity, second.capacity) == (2, 1) and first.version_id == second.version_id
        with pytest.raises(OverflowError):
            lobby.join(key, "other", "1", 1)
        assert lobby.connected() == lobby.available() == {first.version_id}
        assert lobby.assign(first.version_id, "m1", "t1") is not None
        assert lobby.assign(first.version_id, "m2", "t2") is not None
        assert lobby.assign(first.version_id, "m3", "t3") is not None
        assert lobby.assign(first.version_id, "m4", "t4") is None and lobby.available() == set()
        lobby.leave(first)
        lobby.leave(second)
        assert lobby.connected() == set()
        newer = lobby.join(key, "bot", "2", 1)
        assert newer.version_id != first.version_id
        assert store.version(first.version_id).status == "retired"  # type: ignore[union-attr]


def test_a_remote_bot_joins_over_tls(tmp_path: Path) -> None:
    ca = make_ca(tmp_path, "arena-ca")
    server = issue(tmp_path, "arena", ca, server=True)
    competition = COMPETITION + f'\n[tls]\ncert = "{server.cert}"\nkey = "{server.key}"\n'
    with running_arena(tmp_path, competition) as arena:
        key = arena.add_entrant("tess")
        arena.remote_bot("greedy", key, SPITE_TLS_CA=str(ca[0].cert), SPITE_TLS_SERVER_NAME="localhost")
        arena.wait_for("tess's games over TLS", lambda: [r for r in arena.get("/api/leaderboard")[1]
                                                         if r["entrant"] == "tess" and r["games"] >= 2])
        plain = arena.remote_bot("naive", key)  # no CA: cannot join, keeps trying, never plays
        arena.wait_for("more of tess's games", lambda: [r for r in arena.get("/api/leaderboard")[1]
                                                        if r["entrant"] == "tess" and r["games"] >= 4])
        assert plain.poll() is None
        assert "naive" not in {r["bot"] for r in arena.get("/api/leaderboard")[1] if r["entrant"] == "tess"}


def test_a_remote_bot_that_takes_games_and_never_plays_them_loses_them(tmp_path: Path) -> None:
    """A Join whose assignments are ignored: each game ends by the referee's connect limit,
    lost by the no-show; the ladder goes on."""
    import asyncio

    import grpc

    from spite.v1 import arena_pb2, arena_pb2_grpc

    competition = COMPETITION.replace("connect_ms = 8000", "connect_ms = 1500")
    with running_arena(tmp_path, competition) as arena:
        key = arena.add_entrant("idle")

        async def join_and_ignore() -> int:
            async with grpc.aio.insecure_channel(arena.grpc) as channel:
                call = arena_pb2_grpc.ArenaStub(channel).Join(
                    arena_pb2.JoinRequest(key=key, bot_name="idler", bot_version="1", capacity=1))
                taken = 0
                async for _ in call:
                    taken += 1
                    if taken == 2:
                        return taken
            return taken

        assert asyncio.run(asyncio.wait_for(join_and_ignore(), 120)) == 2
        games = arena.wait_for("the idle bot's lost game", lambda: [
            g for g in arena.get("/api/games?limit=100")[1]["games"] if "idle/idler v1" in g["bots"]])
        lost = games[0]
        assert lost["winners"] == [lost["bots"].index("house/greedy v1")]
        assert "connect" in lost["reason"] or "did not" in lost["reason"]
