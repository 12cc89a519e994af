"""The ladder's abuse cases (issue 31): join spam, no-show and abandon bots, selective forfeits
to a chosen opponent, and a bot named like another seat's log file."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path
from typing import Any

import grpc
import pytest
from spite.v1 import arena_pb2, arena_pb2_grpc

from spite_arena.lobby import JOINS_PER_MINUTE, NEW_VERSIONS_PER_HOUR, JoinRefused, Lobby, start_lobby
from spite_arena.matchmaker import next_pairing
from spite_arena.store import ArenaStore
from tournaments.ratings import RatingParams

BOTS = Path(__file__).resolve().parent / "bots"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def join(address: str, key: str, name: str, label: str, capacity: int = 1) -> tuple[grpc.StatusCode, str]:
    """One Join over gRPC: the status it ends with (OK while the stream stays open)."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = arena_pb2_grpc.ArenaStub(channel).Join(
            arena_pb2.JoinRequest(key=key, bot_name=name, bot_version=label, capacity=capacity))
        try:
            await asyncio.wait_for(call.read(), 0.5)
        except (asyncio.TimeoutError, TimeoutError):
            call.cancel()
            return grpc.StatusCode.OK, ""
        except grpc.aio.AioRpcError as error:
            return error.code(), error.details() or ""
        return await call.code(), await call.details()


def test_join_spam_is_refused_per_key_and_makes_few_versions(tmp_path: Path) -> None:
    """31.10: 300 joins with new version strings made 285 versions; now a key gets
    JOINS_PER_MINUTE joins a minute and NEW_VERSIONS_PER_HOUR new versions an hour, each
    refusal one line saying what to do."""
    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("spam")
        other = store.add_entrant("calm")
        clock = Clock()
        lobby = Lobby(store, RatingParams(), per_key=64, clock=clock)

        async def spam() -> list[tuple[grpc.StatusCode, str]]:
            server = await start_lobby("127.0.0.1:0", lobby)
            try:
                answers = [await join(server.address, key, "bot", f"v{i}") for i in range(40)]
                answers.append(await join(server.address, "sk_made-up", "bot", "1"))
                answers.append(await join(server.address, other, "bot", "1"))
                return answers
            finally:
                await server.stop(grace=0.5)

        answers = asyncio.run(spam())
        spammed, made_up, calm = answers[:40], answers[40], answers[41]
        codes = Counter(code for code, _ in spammed)
        assert codes[grpc.StatusCode.OK] == NEW_VERSIONS_PER_HOUR
        assert codes[grpc.StatusCode.RESOURCE_EXHAUSTED] == 40 - NEW_VERSIONS_PER_HOUR
        assert len(store.versions(entrant="spam")) == NEW_VERSIONS_PER_HOUR
        refusals = {details for code, details in spammed if code is not grpc.StatusCode.OK}
        assert any("remote bot versions in the last hour" in r and "version string of its active version" in r
                   for r in refusals)
        assert any(f"more than {JOINS_PER_MINUTE} joins with this key in a minute" in r for r in refusals)
        assert made_up[0] is grpc.StatusCode.UNAUTHENTICATED and calm[0] is grpc.StatusCode.OK  # other keys unharmed

        # A minute on, the key joins again with its active version, not with a new one.
        clock.now += 61
        lobby.bots.clear()
        active = store.versions(entrant="spam", statuses=("active",))
        assert [v.label for v in active] == [f"v{NEW_VERSIONS_PER_HOUR - 1}"]
        assert lobby.join(key, "bot", active[0].label, 1).version_id == active[0].id
        with pytest.raises(JoinRefused, match="in the last hour"):
            lobby.join(key, "bot", "v-new", 1)
        clock.now += 61
        for _ in range(JOINS_PER_MINUTE):
            lobby.join(key, "bot", active[0].label, 1)
            lobby.bots.clear()
        with pytest.raises(JoinRefused, match="joins with this key in a minute"):
            lobby.join(key, "bot", active[0].label, 1)


def test_an_entrant_holds_at_most_its_share_of_the_games_at_once(tmp_path: Path) -> None:
    """31.7: no entrant's versions (alone or together) take more than ``share`` of the games in
    flight; the house's bots are not capped."""
    with ArenaStore(tmp_path) as store:
        params = RatingParams()
        for name in ("greedy", "naive", "random"):
            store.ensure_house_bot(name, "1", name, params)
        entrant = store.entrant_for_key(store.add_entrant("idle"))
        assert entrant is not None
        idlers = {store.remote_version(entrant.id, f"idler{i}", "1", params) for i in range(2)}
        versions = store.versions(statuses=("active",))
        busy: Counter[int] = Counter()
        rng = random.Random(7)
        for _ in range(6):  # six slots filled one after the other
            pairing = next_pairing(versions, busy, rng, placement_games=6, share=2)
            assert pairing is not None
            busy.update(pairing.seats)
        assert sum(busy[v] for v in idlers) == 2
        assert sum(busy.values()) == 12  # the other games went to house bots
        uncapped: Counter[int] = Counter()
        for _ in range(6):
            pairing = next_pairing(versions, uncapped, rng, placement_games=6)
            assert pairing is not None
            uncapped.update(pairing.seats)
        assert sum(uncapped[v] for v in idlers) > 2  # what the cap prevents: new versions seeded first


def test_a_forfeit_is_rated_for_the_seat_at_fault_only(tmp_path: Path) -> None:
    """31.8: a game the opponent forfeited (here: never came) moves the forfeiter's rating and
    game count only; a game played out rates both."""
    with ArenaStore(tmp_path) as store:
        params = RatingParams()
        friend = store.ensure_house_bot("greedy", "1", "greedy", params)
        entrant = store.entrant_for_key(store.add_entrant("feeder"))
        assert entrant is not None
        feeder = store.remote_version(entrant.id, "feeder", "1", params)
        game = store.add_game((friend, feeder), 1, 1)
        store.finish_game(game, ending="no-show", reason="seat 1 forfeits: it did not connect", winners=[0],
                          scores=[1, 0], faults=[[], []], replay=None, logs=[None, None], params=params,
                          offender=1)
        winner, loser = store.version(friend), store.version(feeder)
        assert winner is not None and loser is not None
        assert (winner.mu, winner.sigma, winner.games) == (params.mu, params.sigma, 0)
        assert loser.mu < params.mu and loser.games == 1
        played = store.add_game((friend, feeder), 2, 2)
        store.finish_game(played, ending="stock-emptied", reason="seat 0 emptied its stock", winners=[0],
                          scores=[1, 0], faults=[[], []], replay=None, logs=[None, None], params=params, offender=None)
        winner = store.version(friend)
        assert winner is not None and winner.mu > params.mu and winner.games == 1
