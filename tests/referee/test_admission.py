"""One session per seat: a second Hello for a seat that a session holds is refused with
ALREADY_EXISTS, even when it comes while the first session is still writing its Welcome
(the check and the claim happen with no await between them), and a seat whose session left
before the match started can be taken again. Real referee, real gRPC streams."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig
from referee.core.seats import Closed
from referee.transports.server import start_referee
from referee.transports.session import Arena, SessionRefused
from spite.v1 import referee_pb2 as rpb
from spite.v1 import referee_pb2_grpc
from spite_engine import Ending, parse_rules

TIME = TimeControl(decision_ms=2000, bank_ms=10_000, connect_ms=30_000)


def hello(token: str = "") -> rpb.Hello:
    return rpb.Hello(token=token, name="t", version="1", protocol_version=1)


def test_a_seat_is_claimed_when_its_first_session_is_admitted() -> None:
    async def main() -> None:
        arena = Arena()
        match = arena.create(MatchConfig(rules=parse_rules("standard"), seat_names=["a", "b"], time_control=TIME))
        token = match.seats[0].token
        admitted, seat = arena.admit(hello(), token)
        assert admitted is match and seat is match.seats[0]
        with pytest.raises(SessionRefused) as refused:  # not attached yet: its Welcome is still being written
            arena.admit(hello(), token)
        assert refused.value.code == grpc.StatusCode.ALREADY_EXISTS
        # attached, then gone before the match started: the seat is free for its bot again
        channel = _Channel()
        match.attach(seat, channel, "t", "1")
        match.receive(seat, channel, Closed(Ending.DISCONNECT, "the bot closed its stream"))
        assert arena.admit(hello(), token) == (match, seat)
        for task in list(arena._tasks):
            task.cancel()

    asyncio.run(main())


class _Channel:
    async def send(self, message: object) -> None:
        pass

    def close(self) -> None:
        pass


def test_two_streams_saying_hello_for_one_seat_at_once_get_one_welcome() -> None:
    """Both Hellos are written before either answer is read, for 20 seats: each pair gets
    exactly one Welcome and one ALREADY_EXISTS (before the claim, both could be admitted
    and the later one silently took the seat from the first)."""
    async def main() -> None:
        referee = await start_referee("127.0.0.1:0")
        admin = (("spite-admin-token", referee.admin_token),)
        channels = [grpc.aio.insecure_channel(referee.address) for _ in range(2)]
        stubs = [referee_pb2_grpc.RefereeStub(c) for c in channels]  # type: ignore[no-untyped-call]
        try:
            for _ in range(20):
                created = await stubs[0].CreateMatch(rpb.CreateMatchRequest(
                    rules="standard", seats=[rpb.SeatSpec(name="a"), rpb.SeatSpec(name="b")],
                    time_control=rpb.TimeControl(decision_ms=2000, bank_ms=10_000, connect_ms=30_000),
                    games=1, seed=1, policy=rpb.POLICY_FORFEIT), metadata=admin)
                token = created.seat_tokens[0]
                calls = [stub.Play() for stub in stubs]
                await asyncio.gather(*(call.write(rpb.BotMessage(hello=hello(token))) for call in calls))
                outcomes = await asyncio.gather(*(_first_answer(call) for call in calls))
                assert sorted(outcomes) == ["ALREADY_EXISTS", "welcome"], outcomes
                for call in calls:
                    call.cancel()
        finally:
            for channel in channels:
                await channel.close()
            await referee.stop(grace=0.2)

    asyncio.run(main())


async def _first_answer(call: grpc.aio.StreamStreamCall) -> str:
    try:
        message = await asyncio.wait_for(call.read(), 30)
    except grpc.aio.AioRpcError as error:
        return error.code().name
    return "EOF" if message is grpc.aio.EOF else str(message.WhichOneof("body"))
