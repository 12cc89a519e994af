"""Seat and admin tokens against a real referee on port 0, with raw gRPC clients.

A seat token opens one seat of one match, once: a replayed token (another seat's, one of
a finished match, one of another match) is refused and takes nothing from the match it
was aimed at. A bad token never tells the caller whether a match exists.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any, Awaitable, Callable

import grpc
import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import Match, MatchConfig, Policy
from referee.transports.server import ADMIN_METADATA, RunningReferee, start_referee
from spite.v1 import referee_pb2 as rpb
from spite.v1 import referee_pb2_grpc
from spite_engine import Ending, parse_rules

from ..load import until

ADMIN = "admin-token-for-tests"
Stub = referee_pb2_grpc.RefereeStub


def with_referee(body: Callable[[RunningReferee, Stub], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        referee = await start_referee("127.0.0.1:0", admin_token=ADMIN)
        try:
            async with grpc.aio.insecure_channel(referee.address) as channel:
                return await body(referee, Stub(channel))
        finally:
            await referee.stop(grace=0.2)
    return asyncio.run(main())


def new_match(referee: RunningReferee, seed: int = 1, connect_ms: int = 5000) -> Match:
    return referee.arena.create(MatchConfig(parse_rules("kings-only+short-15"), ["a", "b"],
                                            TimeControl(1000, 1000, connect_ms), 1, seed, Policy.FORFEIT))


def hello(token: str) -> rpb.BotMessage:
    return rpb.BotMessage(hello=rpb.Hello(token=token, name="t", version="0", protocol_version=1))


async def refusal(stub: Stub, token: str) -> tuple[grpc.StatusCode, str]:
    """Open Play with ``token``; the status and message of the refusal (fails if admitted)."""
    call = stub.Play()
    await call.write(hello(token))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        message = await call.read()
        pytest.fail(f"token admitted: {message}")
    return caught.value.code(), caught.value.details()


async def play_seat(stub: Stub, token: str, connected: asyncio.Event | None = None) -> int:
    """A raw bot: play the last legal move until MatchOver; return how many decisions it had."""
    call = stub.Play()
    await call.write(hello(token))
    decisions = 0
    while (message := await call.read()) is not grpc.aio.EOF:
        kind = message.WhichOneof("body")
        if kind == "welcome" and connected is not None:
            connected.set()
        if kind == "decision":
            decisions += 1
            moves = message.decision.observation.legal_moves
            await call.write(rpb.BotMessage(action=rpb.Action(decision_id=message.decision.decision_id,
                                                              move_index=len(moves) - 1)))
        if kind == "match_over":
            await call.done_writing()
    return decisions


def test_another_seats_token_is_refused_and_that_seat_plays_on() -> None:
    """Seat 1's process presents seat 0's token after seat 0 connected: ALREADY_EXISTS, seat 1
    never takes its own seat, so it forfeits and seat 0 (untouched) wins."""
    async def body(referee: RunningReferee, stub: Stub) -> tuple[Match, tuple[grpc.StatusCode, str], int]:
        match = new_match(referee, connect_ms=1500)
        connected = asyncio.Event()
        seat0 = asyncio.create_task(play_seat(stub, match.seats[0].token, connected))
        await asyncio.wait_for(connected.wait(), 10)
        refused = await refusal(stub, match.seats[0].token)
        decisions = await asyncio.wait_for(seat0, 20)
        return match, refused, decisions

    match, (code, details), _ = with_referee(body)
    assert code == grpc.StatusCode.ALREADY_EXISTS and "already connected" in details
    assert not match.seats[1].connected.is_set()
    outcome = match.results[0].outcome
    assert outcome.offender == 1 and outcome.winners == (0,), outcome
    assert outcome.ending is Ending.NO_SHOW and "did not connect" in outcome.reason, outcome
    assert match.seats[0].report.status == "done"


def test_a_finished_matchs_token_is_refused_like_a_made_up_one() -> None:
    async def body(referee: RunningReferee, stub: Stub) -> list[tuple[grpc.StatusCode, str]]:
        match = new_match(referee)
        await asyncio.gather(*(play_seat(stub, seat.token) for seat in match.seats))
        await asyncio.wait_for(match.finished.wait(), 10)
        await until(lambda: all(referee.arena.find_seat(s.token) is None for s in match.seats),
                    "the arena to retire the finished match's tokens")
        return [await refusal(stub, token) for token in
                (match.seats[0].token, match.seats[1].token, "made-up-" + "x" * 35, "")]

    answers = with_referee(body)
    assert answers[0][0] == grpc.StatusCode.UNAUTHENTICATED
    assert len(set(answers)) == 1, answers  # same status, same words: nothing tells them apart


def test_a_token_of_match_a_takes_nothing_from_match_b() -> None:
    """While B waits for its bots: A's tokens (A finished, and A running with the seat taken)
    are refused, no seat of B is taken, and B then plays normally."""
    async def body(referee: RunningReferee, stub: Stub) -> dict[str, Any]:
        finished_a = new_match(referee, seed=1)
        await asyncio.gather(*(play_seat(stub, seat.token) for seat in finished_a.seats))
        await asyncio.wait_for(finished_a.finished.wait(), 10)
        running_a = new_match(referee, seed=2)
        connected = asyncio.Event()
        a0 = asyncio.create_task(play_seat(stub, running_a.seats[0].token, connected))
        await asyncio.wait_for(connected.wait(), 10)
        b = new_match(referee, seed=3)
        answers = [await refusal(stub, finished_a.seats[1].token), await refusal(stub, running_a.seats[0].token)]
        taken = [seat.connected.is_set() for seat in b.seats]
        await asyncio.gather(*(play_seat(stub, seat.token) for seat in b.seats),
                             play_seat(stub, running_a.seats[1].token), a0)
        await asyncio.wait_for(b.finished.wait(), 10)
        return {"answers": answers, "taken": taken, "b": b, "a": running_a}

    seen = with_referee(body)
    assert [code for code, _ in seen["answers"]] == [grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.ALREADY_EXISTS]
    assert seen["taken"] == [False, False]
    assert all(r.outcome.ending.by_rules for r in seen["b"].results)
    assert all(r.outcome.ending.by_rules for r in seen["a"].results)  # A was not disturbed either
    assert all(seat.report.status == "done" for seat in seen["b"].seats)


def test_a_bad_admin_token_never_reveals_whether_a_match_exists() -> None:
    async def body(referee: RunningReferee, stub: Stub) -> list[tuple[grpc.StatusCode, str]]:
        match = new_match(referee)
        answers = []
        for metadata in ((), ((ADMIN_METADATA, "wrong"),), ((ADMIN_METADATA, ADMIN[:-1]),)):
            for match_id in (match.match_id, "000000000000", ""):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.GetMatch(rpb.GetMatchRequest(match_id=match_id), metadata=metadata)
                answers.append((caught.value.code(), caught.value.details()))
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    async for _ in stub.Spectate(rpb.SpectateRequest(match_id=match_id), metadata=metadata):
                        pass
                answers.append((caught.value.code(), caught.value.details()))
        # with the right token the admin may know: the two ids differ
        admin = ((ADMIN_METADATA, ADMIN),)
        await stub.GetMatch(rpb.GetMatchRequest(match_id=match.match_id), metadata=admin)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.GetMatch(rpb.GetMatchRequest(match_id="000000000000"), metadata=admin)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
        return answers

    answers = with_referee(body)
    assert len(answers) == 18
    assert set(answers) == {(grpc.StatusCode.UNAUTHENTICATED, f"admin calls need the {ADMIN_METADATA} metadata")}


def test_seat_tokens_carry_at_least_128_random_bits() -> None:
    async def body(referee: RunningReferee, stub: Stub) -> list[str]:
        tokens = [seat.token for seed in range(64) for seat in new_match(referee, seed=seed).seats]
        await referee.arena.close()  # nobody will connect: end the waiting matches now
        return tokens

    tokens = with_referee(body)
    raw = [base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)) for token in tokens]
    assert min(len(r) for r in raw) * 8 >= 128
    assert len(set(tokens)) == len(tokens) == 128
    ones = sum(bin(int.from_bytes(r, "big")).count("1") for r in raw)
    bits = sum(len(r) * 8 for r in raw)
    # A fair source: the share of one-bits over 32768 bits lies within 0.48..0.52 (about 7 sigma).
    assert 0.48 < ones / bits < 0.52, ones / bits

