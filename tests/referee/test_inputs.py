"""Bad inputs to the referee (issue 12, items 5-9): the admin API refuses each with
INVALID_ARGUMENT and one sentence, creating nothing; counts have ranges
(``referee/core/limits.py``); a match nobody plays is void; a seat whose bot dies before the
match starts is free again; stdio's zero defaults may be left out."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

import grpc
import pytest

from referee.core import limits
from referee.core.deadlines import TimeControl
from referee.core.match import Match, MatchConfig, Policy
from referee.transports.server import ADMIN_METADATA, RunningReferee, start_referee
from referee.transports.stdio import decode
from spite.v1 import referee_pb2 as rpb
from spite.v1 import referee_pb2_grpc
from spite_engine import parse_rules

from ..load import until

ADMIN = "admin-token-for-input-tests"
ADMIN_MD = ((ADMIN_METADATA, ADMIN),)
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


def seats(*names: str) -> list[rpb.SeatSpec]:
    return [rpb.SeatSpec(name=n) for n in names]


TC = rpb.TimeControl(decision_ms=1000, bank_ms=1000, connect_ms=1000)
GOOD = dict(rules="standard", seats=seats("a", "b"), time_control=TC, games=2, seed=3, policy=rpb.POLICY_FORFEIT)


def request(**changes: Any) -> rpb.CreateMatchRequest:
    fields = {**GOOD, **changes}
    return rpb.CreateMatchRequest(**{k: v for k, v in fields.items() if v is not None})


BAD_REQUESTS = [
    ("empty rule set", request(rules=""), "rules is empty"),
    ("blank rule set", request(rules="  "), "rules is empty"),
    ("unknown preset", request(rules="no-such-preset"), "unknown preset"),
    ("no seats", request(seats=[]), "needs 2"),
    ("one seat", request(seats=seats("a")), "needs 2"),
    ("three seats", request(seats=seats("a", "b", "c")), "needs 2"),
    ("games 0", request(games=0), "games must be 1..10000"),
    ("a million games", request(games=1_000_000), "games must be 1..10000"),
    ("max uint32 games", request(games=2**32 - 1), "games must be 1..10000"),
    ("no time control", request(time_control=None), "time_control is missing"),
    ("zero time control", request(time_control=rpb.TimeControl()), "decision_ms must be"),
    ("zero connect time", request(time_control=rpb.TimeControl(decision_ms=5, bank_ms=5)), "connect_ms must be"),
    ("an hour per decision", request(time_control=rpb.TimeControl(decision_ms=3_600_000, connect_ms=5)),
     "decision_ms must be"),
    ("a year of bank", request(time_control=rpb.TimeControl(decision_ms=5, bank_ms=2**32 - 1, connect_ms=5)),
     "bank_ms must be"),
    ("policy unspecified", request(policy=rpb.POLICY_UNSPECIFIED), "policy must be"),
    ("unknown policy", request(policy=7), "policy must be"),
    ("a long name", request(seats=seats("a" * 65, "b")), "at most 64 bytes"),
    ("a control character", request(seats=seats("a\nb", "b")), "control characters"),
]


@pytest.mark.parametrize("what, bad, words", BAD_REQUESTS, ids=[b[0] for b in BAD_REQUESTS])
def test_create_match_refuses_bad_input_with_one_line(what: str, bad: rpb.CreateMatchRequest, words: str) -> None:
    """Each bad CreateMatch is INVALID_ARGUMENT with one sentence saying what is wrong (no
    traceback, no exception's repr), and no match is created."""
    async def body(referee: RunningReferee, stub: Stub) -> tuple[grpc.StatusCode, str, int]:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.CreateMatch(bad, metadata=ADMIN_MD)
        return caught.value.code(), caught.value.details() or "", len(referee.arena.matches)

    code, details, matches = with_referee(body)
    assert code == grpc.StatusCode.INVALID_ARGUMENT, (what, details)
    assert words in details, details
    assert "\n" not in details and "Traceback" not in details and "Error(" not in details
    assert matches == 0


def test_a_complete_create_match_is_accepted_as_given() -> None:
    async def body(referee: RunningReferee, stub: Stub) -> Match:
        created = await stub.CreateMatch(request(), metadata=ADMIN_MD)
        return referee.arena.matches[created.match_id]

    match = with_referee(body)
    config = match.config
    assert config.games == 2 and config.seed == 3 and config.policy is Policy.FORFEIT
    assert config.time_control == TimeControl(1000, 1000, 1000)


@pytest.mark.parametrize("make", [
    lambda: TimeControl(0, 1, 1), lambda: TimeControl(1, -1, 1), lambda: TimeControl(1, 1, 0),
    lambda: MatchConfig(parse_rules("standard"), ["a", "b"], games=0),
    lambda: MatchConfig(parse_rules("standard"), ["a", "b"], games=5_000_000_000),
    lambda: MatchConfig(parse_rules("standard"), ["a", "b"], seed=2**64),
    lambda: MatchConfig(parse_rules("standard"), ["a", "b"], seed=-1),
    lambda: MatchConfig(parse_rules("standard"), ["a"]),
])
def test_match_config_and_time_control_refuse_out_of_range_values(make: Callable[[], object]) -> None:
    """The ranges live in one place (referee/core/limits.py) and the constructors enforce them."""
    with pytest.raises(limits.LimitError):
        make()


def test_the_ranges_are_documented() -> None:
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    for value_range in limits.ALL:
        assert f"`{value_range.name}`" in text and str(value_range) in text, value_range


def test_a_match_that_no_seat_joins_is_void_not_won() -> None:
    """Item 6: neither seat connects. Today seat 1 won every game; now the match is void with
    the reason, no game is recorded, and nobody scores -- at once, whatever the games count."""
    async def body(referee: RunningReferee, stub: Stub) -> Match:
        match = referee.arena.create(MatchConfig(parse_rules("standard"), ["a", "b"], TimeControl(1000, 0, 200),
                                                 games=10_000, seed=1, policy=Policy.FORFEIT))
        await asyncio.wait_for(match.finished.wait(), 5)
        status = await stub.GetMatch(rpb.GetMatchRequest(match_id=match.match_id), metadata=ADMIN_MD)
        assert status.state == rpb.MATCH_STATE_VOID and not status.games  # void stays void on the wire
        return match

    match = with_referee(body)
    assert match.state_name == "void" and match.results == [] and match.match_over is None
    assert "no seat ever played" in match.void_reason and "seat 0 did not connect" in match.void_reason
    assert match.summary()["points"] == []


def hello(token: str) -> rpb.BotMessage:
    return rpb.BotMessage(hello=rpb.Hello(token=token, name="t", version="0", protocol_version=1))


async def play_seat(stub: Stub, token: str) -> list[str]:
    """A raw bot: the last legal move every decision; the reasons of its games' outcomes."""
    call = stub.Play()
    await call.write(hello(token))
    reasons = []
    while (message := await call.read()) is not grpc.aio.EOF:
        kind = message.WhichOneof("body")
        if kind == "decision":
            moves = message.decision.observation.legal_moves
            await call.write(rpb.BotMessage(action=rpb.Action(decision_id=message.decision.decision_id,
                                                              move_index=len(moves) - 1)))
        elif kind == "game_over":
            reasons.append(message.game_over.outcome.reason)
        elif kind == "match_over":
            await call.done_writing()
    return reasons


def test_a_bot_that_dies_while_waiting_frees_its_seat_and_may_reconnect() -> None:
    """Item 7: seat 0's bot gets its Welcome and dies before seat 1 arrives. The end of its
    stream is noticed at once (the seat is free again: no ALREADY_EXISTS), the bot connects
    again with its token, and the match is played normally -- no internal error text."""
    async def body(referee: RunningReferee, stub: Stub) -> tuple[list[str], Match]:
        match = referee.arena.create(MatchConfig(parse_rules("kings-only+short-13"), ["a", "b"],
                                                 TimeControl(1000, 1000, 8000), 1, 4, Policy.FORFEIT))
        token = match.seats[0].token
        first = stub.Play()
        await first.write(hello(token))
        assert (await first.read()).WhichOneof("body") == "welcome"
        first.cancel()  # the bot dies
        await until(lambda: not match.seats[0].connected.is_set(), "the dead stream to be noticed")
        assert match.state_name == "waiting"
        seat0 = asyncio.create_task(play_seat(stub, token))
        await until(lambda: match.seats[0].connected.is_set(), "seat 0's bot to connect again")
        seat1 = asyncio.create_task(play_seat(stub, match.seats[1].token))
        reasons = await asyncio.wait_for(asyncio.gather(seat0, seat1), 30)
        return reasons[0], match

    reasons, match = with_referee(body)
    outcome = match.results[0].outcome
    assert outcome.ending.by_rules, outcome
    assert reasons == [outcome.reason]
    assert all(s.report.status == "done" for s in match.seats)


def test_a_bot_that_dies_while_waiting_and_stays_away_is_a_no_show_with_a_plain_reason() -> None:
    async def body(referee: RunningReferee, stub: Stub) -> tuple[list[str], Match]:
        match = referee.arena.create(MatchConfig(parse_rules("kings-only+short-13"), ["a", "b"],
                                                 TimeControl(1000, 1000, 1500), 1, 4, Policy.FORFEIT))
        first = stub.Play()
        await first.write(hello(match.seats[0].token))
        assert (await first.read()).WhichOneof("body") == "welcome"
        first.cancel()
        reasons = await asyncio.wait_for(play_seat(stub, match.seats[1].token), 30)
        return reasons, match

    reasons, match = with_referee(body)
    outcome = match.results[0].outcome
    assert outcome.winners == (1,) and outcome.offender == 0, outcome
    assert "left before the match started" in outcome.reason and "did not connect again" in outcome.reason
    assert "Error" not in outcome.reason and "GRPC" not in outcome.reason, outcome.reason


def test_stdio_move_index_zero_may_be_left_out() -> None:
    """Item 9: proto3 JSON leaves zero values out; an Action naming no choice is moveIndex 0."""
    message = decode(b'{"action": {"decisionId": "4"}}')
    assert message.action.WhichOneof("choice") == "move_index" and message.action.move_index == 0
    message = decode(b'{"action": {"decisionId": "4", "debug": "first"}}')
    assert message.action.move_index == 0 and message.action.debug == "first"
    assert decode(b'{"action": {"decisionId": 4, "moveIndex": 2}}').action.move_index == 2


@pytest.mark.parametrize("call, code", [
    (lambda stub: stub.GetMatch(rpb.GetMatchRequest(match_id=""), metadata=ADMIN_MD), grpc.StatusCode.NOT_FOUND),
    (lambda stub: stub.GetMatch(rpb.GetMatchRequest(match_id="\x00\xff" * 10), metadata=ADMIN_MD),
     grpc.StatusCode.NOT_FOUND),
    (lambda stub: stub.GetMatch(rpb.GetMatchRequest(match_id="x" * 100_000), metadata=ADMIN_MD),
     grpc.StatusCode.RESOURCE_EXHAUSTED),
    (lambda stub: stub.CreateMatch(request(rules="standard+" * 10_000), metadata=ADMIN_MD),
     grpc.StatusCode.RESOURCE_EXHAUSTED),
    (lambda stub: stub.CreateMatch(request(rules="standard+" * 1_000), metadata=ADMIN_MD),
     grpc.StatusCode.INVALID_ARGUMENT),
    (lambda stub: stub.CreateMatch(request(), metadata=((ADMIN_METADATA, "wrong"),)),
     grpc.StatusCode.UNAUTHENTICATED),
])
def test_other_bad_admin_calls_get_their_status_and_one_line(call: Callable[[Stub], Any],
                                                             code: grpc.StatusCode) -> None:
    async def body(referee: RunningReferee, stub: Stub) -> tuple[grpc.StatusCode, str, int]:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call(stub)
        return caught.value.code(), caught.value.details() or "", len(referee.arena.matches)

    got, details, matches = with_referee(body)
    assert got == code, details
    assert details and "\n" not in details and "Traceback" not in details
    assert len(details) < 1000, "a refusal quotes a bounded piece of the input, never all of it"
    assert matches == 0


def test_spectating_an_unknown_match_is_not_found() -> None:
    async def body(referee: RunningReferee, stub: Stub) -> grpc.StatusCode:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async for _ in stub.Spectate(rpb.SpectateRequest(match_id="nope"), metadata=ADMIN_MD):
                pass
        return caught.value.code()

    assert with_referee(body) == grpc.StatusCode.NOT_FOUND


def test_crash_against_no_show_is_void_in_a_local_match() -> None:
    """Item 6 as tournaments meet it: one bot exits before connecting, the other never takes
    its seat (wrong token). Nobody played: the match is void, with both reasons, and no
    game -- today seat 1 won every game."""
    from .conftest import hostile, run_match

    result = run_match([hostile("exit-early"), hostile("wrong-token")], games=3,
                       time_control=TimeControl(400, 300, 3000))
    match = result.match
    assert match.state_name == "void" and match.results == [], match.summary()
    assert "no seat ever played" in match.void_reason
    assert "seat 0" not in match.void_reason or "exited with code 3" in match.void_reason
    assert match.summary()["points"] == [] and match.summary()["state"] == "void"


def test_the_hello_allowance_is_the_matchs_connect_time_not_a_constant() -> None:
    """One connect allowance, from the time control: a stream whose metadata names its seat
    and sends no Hello is refused after the match's connect_ms (here 400 ms), not after the
    fixed allowance for a stream that names nothing."""
    async def body(referee: RunningReferee, stub: Stub) -> tuple[grpc.StatusCode, str]:
        from referee.transports.server import TOKEN_METADATA

        match = referee.arena.create(MatchConfig(parse_rules("standard"), ["a", "b"], TimeControl(1000, 0, 400),
                                                 games=1, seed=1, policy=Policy.FORFEIT))
        call = stub.Play(metadata=((TOKEN_METADATA, match.seats[0].token),))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await asyncio.wait_for(call.read(), 5)  # far less than the 10 s a nameless stream gets
        return caught.value.code(), caught.value.details() or ""

    code, details = with_referee(body)
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED and "no Hello within 0.4 s" in details, details
