"""The Referee service on the wire: handshake statuses, admin calls, spectating,
health and reflection, each against a real server bound to port 0."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Awaitable, Callable

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.transports.server import ADMIN_METADATA, RunningReferee, start_referee
from spite.v1 import game_pb2, referee_pb2_grpc
from spite.v1 import referee_pb2 as rpb
from spite_engine import parse_rules

from ..load import until

ADMIN = "test-admin-token"


def with_referee(body: Callable[[RunningReferee, referee_pb2_grpc.RefereeStub], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        referee = await start_referee("127.0.0.1:0", admin_token=ADMIN)
        try:
            async with grpc.aio.insecure_channel(referee.address,
                                                 options=[("grpc.max_send_message_length", 1 << 22)]) as channel:
                return await body(referee, referee_pb2_grpc.RefereeStub(channel))
        finally:
            await referee.stop(grace=0.2)
    return asyncio.run(main())


def hello(token: str, version: int = 1) -> rpb.BotMessage:
    return rpb.BotMessage(hello=rpb.Hello(token=token, name="t", version="0", protocol_version=version))


def new_match(referee: RunningReferee, rules: str = "standard", connect_ms: int = 5000) -> Any:
    return referee.arena.create(MatchConfig(parse_rules(rules), ["a", "b"], TimeControl(1000, 1000, connect_ms),
                                            1, 3, Policy.FORFEIT))


async def open_play(stub: referee_pb2_grpc.RefereeStub, first: rpb.BotMessage,
                    metadata: tuple[tuple[str, str], ...] = ()) -> rpb.RefereeMessage:
    call = stub.Play(metadata=metadata)
    await call.write(first)
    return await call.read()


@pytest.mark.parametrize("make_first, code", [
    (lambda token: hello("wrong"), grpc.StatusCode.UNAUTHENTICATED),
    (lambda token: hello(token, version=2), grpc.StatusCode.FAILED_PRECONDITION),
    (lambda token: hello(token, version=0), grpc.StatusCode.FAILED_PRECONDITION),
    (lambda token: rpb.BotMessage(action=rpb.Action(decision_id=1, move_index=0)), grpc.StatusCode.INVALID_ARGUMENT),
    (lambda token: rpb.BotMessage(hello=rpb.Hello(token=token, name="x" * 100_000, protocol_version=1)),
     grpc.StatusCode.RESOURCE_EXHAUSTED),
])
def test_handshake_refusals(make_first: Callable[[str], rpb.BotMessage], code: grpc.StatusCode) -> None:
    async def body(referee: RunningReferee, stub: referee_pb2_grpc.RefereeStub) -> grpc.StatusCode:
        match = new_match(referee)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await open_play(stub, make_first(match.seats[0].token))
        assert caught.value.details()  # always a clear message
        return caught.value.code()

    assert with_referee(body) == code


def test_welcome_and_seat_taken() -> None:
    async def body(referee: RunningReferee, stub: referee_pb2_grpc.RefereeStub) -> None:
        match = new_match(referee, "skip-bo")
        token = match.seats[1].token
        welcome = await open_play(stub, hello(""), metadata=(("spite-token", token),))  # token in metadata
        assert welcome.welcome.seat == 1 and welcome.welcome.rules.name == "skip-bo"
        assert welcome.welcome.protocol_version == 1 and welcome.welcome.time_control.decision_ms == 1000
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await open_play(stub, hello(token))
        assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS

    with_referee(body)


def test_admin_calls_need_the_admin_token() -> None:
    async def body(referee: RunningReferee, stub: referee_pb2_grpc.RefereeStub) -> None:
        request = rpb.CreateMatchRequest(rules="standard", seats=[rpb.SeatSpec(name="a"), rpb.SeatSpec(name="b")],
                                         time_control=rpb.TimeControl(decision_ms=500, connect_ms=500), games=1,
                                         policy=rpb.POLICY_FORFEIT)
        for metadata in ((), ((ADMIN_METADATA, "nope"),)):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.CreateMatch(request, metadata=metadata)
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.GetMatch(rpb.GetMatchRequest(match_id="x"))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED

    with_referee(body)


def test_create_match_get_match_and_bad_requests() -> None:
    async def body(referee: RunningReferee, stub: referee_pb2_grpc.RefereeStub) -> None:
        admin = ((ADMIN_METADATA, ADMIN),)
        created = await stub.CreateMatch(rpb.CreateMatchRequest(
            rules="kings-only+short-15", seats=[rpb.SeatSpec(name="a"), rpb.SeatSpec(name="b")], games=2, seed=9,
            # every field is given: CreateMatch no longer fills in defaults (issue 12, item 8)
            time_control=rpb.TimeControl(decision_ms=500, bank_ms=1000, connect_ms=5000),
            policy=rpb.POLICY_SUBSTITUTE), metadata=admin)
        assert len(created.seat_tokens) == 2 and len(set(created.seat_tokens)) == 2
        assert all(len(t) >= 32 for t in created.seat_tokens)
        status = await stub.GetMatch(rpb.GetMatchRequest(match_id=created.match_id), metadata=admin)
        assert status.state == rpb.MATCH_STATE_WAITING and status.rules.stock_size == 15
        assert [s.name for s in status.seats] == ["a", "b"]
        for bad in (rpb.CreateMatchRequest(rules="no-such-preset"),
                    rpb.CreateMatchRequest(rules="standard", seats=[rpb.SeatSpec(name="only one")])):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.CreateMatch(bad, metadata=admin)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.GetMatch(rpb.GetMatchRequest(match_id="nope"), metadata=admin)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND

    with_referee(body)


def test_get_match_names_each_fault_by_kind() -> None:
    """A seat's faults reach the match's creator typed, a kind beside the words, so nothing
    downstream reads what happened from the text (issue 29)."""
    async def body(referee: RunningReferee, stub: referee_pb2_grpc.RefereeStub) -> None:
        admin = ((ADMIN_METADATA, ADMIN),)
        match = new_match(referee, "short-13", connect_ms=300)
        call = stub.Play()
        await call.write(hello(match.seats[0].token))  # seat 1 never comes
        assert (await call.read()).HasField("welcome")
        await until(lambda: match.state_name in ("finished", "void"), "the match to end")
        status = await stub.GetMatch(rpb.GetMatchRequest(match_id=match.match_id), metadata=admin)
        assert status.state == rpb.MATCH_STATE_FINISHED, status
        absent = status.seats[1]
        assert [f.kind for f in absent.faults] == [rpb.FAULT_KIND_NO_SHOW], absent
        assert "did not connect within 0.3 s" in absent.faults[0].reason and absent.crashes == 0
        assert list(status.seats[0].faults) == [] and status.result.winners == [0]
        call.cancel()

    with_referee(body)


def test_health_and_reflection() -> None:
    async def body(referee: RunningReferee, stub: referee_pb2_grpc.RefereeStub) -> None:
        async with grpc.aio.insecure_channel(referee.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for service in ("", "spite.v1.Referee"):
                reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
            reflect = reflection_pb2_grpc.ServerReflectionStub(channel)

            async def requests() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
                yield reflection_pb2.ServerReflectionRequest(list_services="")

            async for reply in reflect.ServerReflectionInfo(requests()):
                names = {s.name for s in reply.list_services_response.service}
                assert "spite.v1.Referee" in names and "grpc.health.v1.Health" in names

    with_referee(body)


def test_spectators_see_only_public_information() -> None:
    """A raw bot pair plays while a spectator watches: no hand, no drawn card, no shuffled
    order and no legal move ever reaches the spectator."""
    async def bot(stub: referee_pb2_grpc.RefereeStub, token: str) -> None:
        call = stub.Play()
        await call.write(hello(token))
        while (message := await call.read()) is not grpc.aio.EOF:
            if message.WhichOneof("body") == "decision":
                moves = message.decision.observation.legal_moves
                await call.write(rpb.BotMessage(action=rpb.Action(
                    decision_id=message.decision.decision_id, move_index=len(moves) - 1)))

    async def body(referee: RunningReferee, stub: referee_pb2_grpc.RefereeStub) -> list[rpb.SpectatorMessage]:
        match = new_match(referee)
        seen: list[rpb.SpectatorMessage] = []

        async def watch() -> None:
            async for message in stub.Spectate(rpb.SpectateRequest(match_id=match.match_id),
                                               metadata=((ADMIN_METADATA, ADMIN),)):
                seen.append(message)

        watcher = asyncio.create_task(watch())
        await until(lambda: match.spectators, "the spectator to subscribe")
        await asyncio.gather(*(bot(stub, s.token) for s in match.seats))
        await asyncio.wait_for(watcher, 10)
        return seen

    seen = with_referee(body)
    kinds = [m.WhichOneof("body") for m in seen]
    assert kinds[0] == "game_start" and kinds[-1] == "match_over" and "events" in kinds
    start = seen[0].game_start.observation
    assert start.seat == -1 and not start.hand and not start.legal_moves and not start.events
    draws = 0
    for message in seen:
        if message.WhichOneof("body") == "events":
            for event in message.events.events:
                if event.kind in (game_pb2.EVENT_KIND_DRAW, game_pb2.EVENT_KIND_SHUFFLE):
                    draws += 1
                    assert not event.cards and event.count > 0
    assert draws > 0
