"""A warm bot process's log is switched from one match's file to the next one's at the byte its
output had reached when the switch was made, not at whatever its log reader happens to read
next: on a busy machine the reader runs late, and a line the bot printed in one match must not
land in the next match's log (an entrant's game view once said "your bot wrote nothing to
stderr in this game" for a game it had logged every move of). And it is on disk as it is read,
so a finished match's log is whole while its warm process waits for the next one."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

from referee.processes.launcher import BotProcess

CAP_S = 120.0  # a cap on each wait for a condition, not a speed check


async def _read_up_to(process: BotProcess, count: int) -> None:
    """Until the log reader has read ``count`` bytes of the bot's output."""
    waited = time.monotonic()
    while process.output_bytes < count:
        await asyncio.sleep(0.02)
        assert time.monotonic() - waited < CAP_S, "the bot's output never reached the reader"


def test_a_line_printed_before_the_switch_stays_in_the_first_log_though_unread(tmp_path: Path) -> None:
    trigger = tmp_path / "go"
    script = ("import os, sys, time\n"
              "print('first match line', flush=True)\n"
              f"while not os.path.exists({str(trigger)!r}): time.sleep(0.01)\n"
              "print('second match line', flush=True)\n"
              "time.sleep(60)\n")
    first, second = tmp_path / "first.log", tmp_path / "second.log"

    async def play() -> None:
        process = BotProcess("diary", [sys.executable, "-c", script], tmp_path, dict(os.environ), first)
        await process.start()
        try:
            waited = time.monotonic()
            while process._unread_bytes() == 0:  # the line is in the pipe, and the loop has not read it:
                time.sleep(0.01)                 # no await here, so the reader cannot run
                assert time.monotonic() - waited < CAP_S, "the bot printed nothing"
            process.switch_log(second)
            trigger.touch()
            await _read_up_to(process, len("first match line\nsecond match line\n"))
            # on disk while the process lives on (a warm process idles between matches, its last
            # match's log is read then): nothing waits in a buffer of the referee's
            assert "first match line" in first.read_text() and "second match line" in second.read_text()
        finally:
            await process.stop(grace=0)

    asyncio.run(play())  # the logs are closed (flushed) when the process stops
    assert "second match line" in second.read_text()
    assert "first match line" in first.read_text() and "second match line" not in first.read_text()
    assert "first match line" not in second.read_text()


def test_switches_with_nothing_printed_between_them_leave_empty_logs(tmp_path: Path) -> None:
    logs = [tmp_path / f"{n}.log" for n in range(4)]
    trigger = tmp_path / "go"
    script = (f"import os, time\nwhile not os.path.exists({str(trigger)!r}): time.sleep(0.01)\n"
              "print('late line', flush=True)\ntime.sleep(60)\n")

    async def play() -> None:
        process = BotProcess("quiet", [sys.executable, "-c", script], tmp_path, dict(os.environ), logs[0])
        await process.start()
        try:
            for path in logs[1:]:
                process.switch_log(path)
            trigger.touch()
            await _read_up_to(process, len("late line\n"))
        finally:
            await process.stop(grace=0)

    asyncio.run(play())  # the logs are closed (flushed) when the process stops
    assert [p.read_text() for p in logs[1:-1]] == ["", ""] and "late line" not in logs[0].read_text()
    assert "late line" in logs[-1].read_text()
