"""What the hosted ladder keeps in memory as games go by (issue 24, item 17): counts of live
entries after many games, never an RSS threshold (``bench/soak.py`` measures the RSS)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest


@pytest.mark.slow
def test_the_ladder_forgets_each_remote_game_once_it_is_recorded(tmp_path: Path) -> None:
    """The ladder in process on real workers and a real lobby with a remote SDK bot: after
    many games with the remote bot, the lobby's referee holds no finished match and no seat
    token, and the lobby only the joined stream (``spite serve`` grew 71 -> 116 MB in 16
    minutes: every remote game's match was kept for an hour)."""
    from spite_arena.config import load_competition
    from spite_arena.ladder import Ladder
    from spite_arena.lobby import Lobby, start_lobby
    from spite_arena.store import ArenaStore
    from spite_sdk import Bot, policies
    from spite_sdk.arena import ladder as sdk_ladder
    from spite_sdk.connection import RefereeError
    from tournaments.backends import LocalBackend
    from tournaments.bot_specs import resolve_bot

    file = tmp_path / "c.toml"
    file.write_text('house_bots = ["greedy", "naive"]\nparallel = 2\nplacement_games = 2\n'
                    '[time_control]\ndecision_ms = 1000\nbank_ms = 10000\nconnect_ms = 10000\n')
    competition = load_competition(file)
    data = tmp_path / "data"
    remote_games = 8

    class Remote(Bot):
        name = "remote"
        version = "1"

        def decide(self, observation: Any) -> Any:
            return policies.greedy_move(observation)

    with ArenaStore(data) as store:
        for spec in competition.house_bots:
            manifest = resolve_bot(spec)
            store.ensure_house_bot(manifest.name, manifest.version, spec, competition.rating)
        key = store.add_entrant("alice")
        lobby = Lobby(store, competition.rating, competition.limits.remote_matches)

        def played_remote() -> int:
            return sum(v.games for v in store.versions(entrant="alice"))

        async def play() -> tuple[int, int, int, int]:
            referee = await start_lobby("127.0.0.1:0", lobby)
            ladder = Ladder(competition, store, LocalBackend(2), data, lobby=lobby, referee=referee)
            bot = asyncio.create_task(sdk_ladder(Remote(), referee.address, key, 1, None, RefereeError))
            running = asyncio.create_task(ladder.run())
            try:
                while played_remote() < remote_games:
                    assert not running.done(), running
                    await ladder.played.wait()
                ladder.stopping.set()
                await running
                await asyncio.sleep(0)  # the referee's end-of-match callbacks
                arena = referee.arena
                return len(arena.matches), len(arena._seats), len(arena._tasks), len(lobby.bots)
            finally:
                ladder.stopping.set()
                bot.cancel()
                await asyncio.gather(running, bot, return_exceptions=True)
                await referee.stop(grace=0.5)

        matches, seats, tasks, joined = asyncio.run(asyncio.wait_for(play(), 300))
        assert played_remote() >= remote_games
    assert (matches, seats, tasks) == (0, 0, 0)
    assert joined == 1
