"""Why a seat never said Hello is a kind the report carries (``SeatReport.connect_fault``),
not words to look for in its fault text: a process that exited first, a bot that did not
connect in time, or nothing at all for a bot that connected (and crashed later)."""

from __future__ import annotations

import sys
from pathlib import Path

from referee.core.deadlines import TimeControl
from referee.processes.manifest import BotManifest
from spite_engine import Ending

from .conftest import BOTS, FAST, good, hostile, run_match


def test_a_bot_that_exits_before_its_hello_is_a_crash_before_connecting(logs: Path) -> None:
    result = run_match([hostile("exit-early"), good()], log_dir=logs)
    assert result.match.seats[0].report.connect_fault is Ending.CRASH
    assert result.match.seats[1].report.connect_fault is None


def test_a_bot_that_crashes_after_connecting_has_no_connect_fault(logs: Path) -> None:
    result = run_match([hostile("crash-mid"), good()], log_dir=logs)
    assert result.match.results[0].outcome.ending is Ending.CRASH
    assert [seat.report.connect_fault for seat in result.match.seats] == [None, None]


def test_a_bot_that_never_connects_is_a_no_show(logs: Path) -> None:
    # A process that sleeps (never runnable, so never owed time it was not given) and never says Hello.
    sleeper = BotManifest(name="sleeper", command=(sys.executable, "-c", "import time; time.sleep(600)"),
                          workdir=BOTS)
    control = TimeControl(FAST.decision_ms, FAST.bank_ms, connect_ms=1500)
    result = run_match([sleeper, good()], log_dir=logs, time_control=control)
    assert result.match.seats[0].report.connect_fault is Ending.NO_SHOW
    assert result.match.seats[1].report.connect_fault is None
