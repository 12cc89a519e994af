"""A seat's inbox wait (Seat.next_item): one future and one timer, judged against the deadline
before anything queued is taken, so an answer that is already waiting when the deadline has
passed is still too late (check-bot's forced timeout relies on it)."""

from __future__ import annotations

import asyncio
import time

from referee.seats import MAX_INBOX, Closed, Seat
from spite.v1 import referee_pb2 as rpb
from spite_engine import Ending


def answer(decision_id: int) -> rpb.BotMessage:
    return rpb.BotMessage(action=rpb.Action(decision_id=decision_id, move_index=0))


def test_a_queued_answer_past_the_deadline_is_not_taken() -> None:
    async def main() -> None:
        seat = Seat(0, "a")
        seat.deliver(answer(1))
        assert await seat.next_item(time.monotonic() - 0.001) is None
        assert await seat.next_item(time.monotonic() + 1) == answer(1)  # still there, in time

    asyncio.run(main())


def test_the_wait_ends_at_the_deadline_or_at_delivery() -> None:
    async def main() -> None:
        seat = Seat(0, "a")
        started = time.monotonic()
        assert await seat.next_item(started + 0.05) is None
        assert time.monotonic() - started >= 0.05
        loop = asyncio.get_running_loop()
        loop.call_later(0.01, seat.deliver, answer(2))
        assert await seat.next_item(time.monotonic() + 30) == answer(2)
        # in order, and the wait leaves nothing behind
        seat.deliver(answer(3))
        seat.deliver(answer(4))
        assert [await seat.next_item(time.monotonic() + 1) for _ in range(2)] == [answer(3), answer(4)]
        assert seat._waiter is None

    asyncio.run(main())


def test_a_flood_closes_the_seat() -> None:
    async def main() -> None:
        seat = Seat(0, "a")
        for n in range(MAX_INBOX + 1):
            seat.deliver(answer(n))
        items = [await seat.next_item(time.monotonic() + 1) for _ in range(MAX_INBOX + 1)]
        assert isinstance(items[-1], Closed) and items[-1].ending is Ending.MALFORMED

    asyncio.run(main())
