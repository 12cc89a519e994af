"""A seat's inbox wait (Seat.next_item): one future, and the event loop's one WaitTimer for
every seat's deadline; judged against the deadline before anything queued is taken, so an
answer that is already waiting when the deadline has passed is still too late (check-bot's
forced timeout relies on it)."""

from __future__ import annotations

import asyncio
import time

from referee.core.deadlines import WaitTimer
from referee.core.seats import MAX_INBOX, Closed, Seat
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


def test_many_waits_on_one_timer_each_end_at_its_own_deadline_never_before() -> None:
    """Seats whose deadlines come in any order, some answered early: each unanswered wait ends
    at or after its own deadline (the timer never fires early), the answered ones get their
    answer, and nothing is left registered on the loop's timer."""
    async def main() -> None:
        started = time.monotonic()
        offsets = [0.12, 0.03, 0.20, 0.06, 0.09, 0.01, 0.15, 0.04]  # later deadlines first, then earlier
        seats = [Seat(n, f"s{n}") for n in range(len(offsets))]
        answered = {1, 4, 6}
        loop = asyncio.get_running_loop()
        for n in answered:
            loop.call_soon(seats[n].deliver, answer(n))
        ends: dict[int, float] = {}

        async def wait(n: int) -> None:
            item = await seats[n].next_item(started + offsets[n])
            ends[n] = time.monotonic()
            assert (item == answer(n)) if n in answered else (item is None)

        # a wait the timer forgets would hang: bounded, so it fails instead
        await asyncio.wait_for(asyncio.gather(*(wait(n) for n in range(len(seats)))), 30)
        for n in set(range(len(seats))) - answered:
            assert ends[n] >= started + offsets[n]
        assert len(WaitTimer.shared()) == 0

    asyncio.run(main())


def test_a_wait_cancelled_or_answered_leaves_the_timer_for_the_others() -> None:
    async def main() -> None:
        first, second = Seat(0, "a"), Seat(1, "b")
        started = time.monotonic()
        task = asyncio.create_task(first.next_item(started + 0.02))  # the soonest: the timer is set for it
        await asyncio.sleep(0)
        task.cancel()
        assert await asyncio.gather(task, return_exceptions=True) != [None]
        assert await asyncio.wait_for(second.next_item(started + 0.05), 30) is None  # still woken, at its own deadline
        assert time.monotonic() >= started + 0.05
        assert len(WaitTimer.shared()) == 0

    asyncio.run(main())
