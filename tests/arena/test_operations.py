"""Issue 24's operations items: keys that mean it, void games dealt afresh, pending games of
retired versions resolved, finals of eligible versions with a commitment published ahead,
leaderboard spam, a clean stop and status, and what a remote bot is told."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from spite.v1 import arena_pb2, arena_pb2_grpc

from spite_arena.lobby import Lobby, start_lobby
from spite_arena.store import ArenaStore
from tournaments.ratings import RatingParams

from .conftest import running_arena


async def open_join(address: str, key: str, name: str, label: str = "1") -> Any:
    """A Join stream left open; the caller reads or cancels it."""
    channel = grpc.aio.insecure_channel(address)
    call = arena_pb2_grpc.ArenaStub(channel).Join(
        arena_pb2.JoinRequest(key=key, bot_name=name, bot_version=label, capacity=1))
    return channel, call


async def ends_with(call: Any, timeout: float = 60) -> tuple[grpc.StatusCode, str]:
    """Read a Join stream until the server ends it; its status and details."""
    try:
        async def drain() -> None:
            async for _ in call:
                pass
        await asyncio.wait_for(drain(), timeout)
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return await call.code(), await call.details()


# -- 24.8: a rotated key ends the sessions joined with the old one -----------------------

def test_rotating_a_key_ends_the_streams_joined_with_the_old_key(tmp_path: Path) -> None:
    """24.8: today a rotated key's joined streams play on; the lobby's sweep ends them with
    one line saying what to do, and leaves other keys' streams alone."""
    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("rot")
        other = store.add_entrant("calm")
        lobby = Lobby(store, RatingParams(), per_key=4)

        async def scenario() -> tuple[tuple[grpc.StatusCode, str], bool]:
            server = await start_lobby("127.0.0.1:0", lobby)
            stopping = asyncio.Event()
            watch = asyncio.get_running_loop().create_task(lobby.watch(stopping, every_s=0.05))
            try:
                old_channel, old = await open_join(server.address, key, "bot")
                calm_channel, calm = await open_join(server.address, other, "bot")
                for _ in range(400):
                    if len(lobby.connected()) == 2:
                        break
                    await asyncio.sleep(0.05)
                assert len(lobby.connected()) == 2
                store.rotate_key("rot")
                ended = await ends_with(old)
                calm_open = not calm.done()
                calm.cancel()
                await old_channel.close()
                await calm_channel.close()
                return ended, calm_open
            finally:
                stopping.set()
                await watch
                await server.stop(grace=0.5)

        (code, details), calm_open = asyncio.run(scenario())
        assert code is grpc.StatusCode.UNAUTHENTICATED
        assert "was replaced" in details and "new key" in details
        assert calm_open
        assert [b.entrant for bots in lobby.bots.values() for b in bots] == []


@pytest.mark.slow
def test_a_remote_bot_stops_when_its_key_is_rotated(tmp_path: Path) -> None:
    """24.8 end to end: ``spite arena rotate-key`` while ``spite serve`` runs; the SDK bot
    joined with the old key is told so and exits 1 instead of playing on."""
    with running_arena(tmp_path) as arena:
        key = arena.add_entrant("rot")
        bot = arena.remote_bot("greedy", key)
        arena.wait_for("rot's first game", lambda: [r for r in arena.get("/api/leaderboard")[1]
                                                    if r["entrant"] == "rot" and r["games"] >= 1])
        done = arena.spite("arena", "rotate-key", "rot", "--data", str(arena.data))
        assert done.returncode == 0, done.stderr
        arena.wait_for("the bot to stop", lambda: bot.poll() is not None, timeout=60)
        assert bot.returncode == 1
        assert bot.stderr is not None
        assert "was replaced" in bot.stderr.read()
