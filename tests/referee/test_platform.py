"""The platform's own faults and measures: referee lag is given back to a bot, or voids a match
instead of losing it for a bot, CPU time per decision tells a slow bot from a slow machine, and frozen thinking stops
bots between their decisions. Real referees, real bot processes; every comparison is a ratio
within one run, never a wall-clock threshold."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path

import pytest

from referee.core.deadlines import Thinking, TimeControl
from referee.core.match import Match, MatchConfig, Policy
from referee.core.status import FaultKind
from referee.local import LocalMatch, play_local_match
from referee.processes.manifest import BotManifest
from spite_engine import parse_rules
from tournaments.jobs import MatchJob
from tournaments.worker import play

from ..load import hogs
from .conftest import BOTS, FAST, good, hostile, judged_or_void

BUSY = BOTS / "busy_bot.py"


def busy(mode: str, ms: int, *args: str) -> BotManifest:
    return BotManifest(name=f"busy-{mode}", command=(sys.executable, str(BUSY), mode, str(ms), *args), workdir=BOTS)


def stall_during(seat: int, decision: int, seconds: float):  # type: ignore[no-untyped-def]
    """An ``on_start`` hook: block the referee's event loop for ``seconds`` once ``seat``'s
    ``decision``-th decision (1-based) is open, as a starved or paused referee would be."""
    def hook(match: Match) -> None:
        async def watch() -> None:
            while match.seats[seat].report.decisions < decision - 1 or match.state is None \
                    or match.state.to_move != seat:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.05)  # the request is out, the bot is thinking
            time.sleep(seconds)        # noqa: ASYNC101 - the point: the referee's loop stalls
        asyncio.get_running_loop().create_task(watch())
    return hook


def play_with(bots: list[BotManifest], *, on_start=None, thinking: Thinking = Thinking.ALLOWED,  # type: ignore[no-untyped-def]
              time_control: TimeControl = FAST, seed: int = 1, log_dir: Path | None = None,
              rules: str = "standard") -> LocalMatch:
    config = MatchConfig(parse_rules(rules), [b.name for b in bots], time_control, 1, seed, Policy.FORFEIT,
                         thinking=thinking)
    return asyncio.run(play_local_match(bots, config, on_start=on_start, log_dir=log_dir))


def test_a_timeout_while_the_referee_lagged_is_judged_once_the_lag_is_given_back() -> None:
    # seat 1 loops forever at its second decision: a timeout, normally its loss (on a machine so
    # busy that even ten windows do not give the bot one, the match is void instead: never a loss
    # the bot did not earn; make test-load-subset runs this beside 8 hogs, make test on its own)...
    control = play_with([good(), hostile("loop-forever")])
    if judged_or_void(control.match):
        assert control.match.results[0].outcome.ending.value == "timeout"
        assert control.match.results[0].outcome.offender == 1
    # ...and when the referee's own loop stalls past the whole window, the bot gets the stalled
    # time back (an answer could have been waiting unread) before it is judged: still no
    # answer, so it is charged, later than the stall (the stall outlasts the whole window,
    # however far the calibration stretched FAST)
    window_s = (FAST.decision_ms + FAST.bank_ms) / 1000
    stalled = play_with([good(), hostile("loop-forever")], on_start=stall_during(1, 2, window_s + 0.5))
    match = stalled.match
    if judged_or_void(match):
        assert match.results[0].outcome.ending.value == "timeout" and match.results[0].outcome.offender == 1
        assert match.seats[1].report.timeouts == 1
        assert max(match.seats[1].report.decision_us) > (2 * window_s + 0.5) * 1e6 * 0.9, \
            match.seats[1].report.decision_us


def test_a_short_stall_with_a_good_bot_changes_nothing() -> None:
    # the loop stalls for less than the decision window: the answer is read in time
    local = play_with([good(), good()], on_start=stall_during(1, 2, 0.1),
                      time_control=TimeControl(decision_ms=1000, bank_ms=1000, connect_ms=8000))
    assert local.match.state_name == "finished"
    assert all(s.report.timeouts == 0 for s in local.match.seats)


def test_a_void_match_is_a_platform_failure_for_the_worker(tmp_path: Path) -> None:
    # The worker's verdict on a void match: not ok, a platform fault, with the reason (the
    # runner then plays it again, unrated). A lag limit of 0 ms makes any lateness at all
    # (a timer never fires exactly on time) void the hanging bot's timeout.
    shutil.copy(BOTS / "hostile_bot.py", tmp_path)  # a manifest names only files in its own folder
    for mode in ("good", "loop-forever"):
        (tmp_path / f"{mode}.toml").write_text(f'name = "hostile-{mode}"\nversion = "1"\n'
                                               f'command = ["{{python}}", "hostile_bot.py", "{mode}"]\n')
    job = {"match_id": 1, "rules": "standard", "seed": 1, "bot_seed": 0, "games": 1, "policy": "forfeit",
           "time_control": {"decision_ms": 400, "bank_ms": 300, "connect_ms": 8000}, "lag_limit_ms": 0,
           "bots": [{"spec": str(tmp_path / "good.toml")}, {"spec": str(tmp_path / "loop-forever.toml")}]}
    result = asyncio.run(play(MatchJob.from_dict(job)))
    assert not result.ok and result.platform_fault is True, result
    assert result.error.startswith("void: the referee ran") and "seat 1" in result.error


@pytest.mark.slow  # two bots taking 40-100 ms a decision through whole games
def test_cpu_per_decision_tells_a_slow_bot_from_a_slow_machine() -> None:
    # Both bots take about 40 ms a decision; one computes, the other waits (as a bot on an
    # overloaded machine would). Wall time cannot tell them apart; CPU time can.
    local = play_with([busy("spin", 40), busy("sleep", 40)],
                      time_control=TimeControl(decision_ms=2000, bank_ms=5000, connect_ms=8000))
    spinner, sleeper = (seat.report for seat in local.match.seats)
    assert spinner.decisions > 5 and sleeper.decisions > 5
    assert len(spinner.decision_cpu_us) == spinner.decisions
    median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
    # CPU time is not wall time: the spinner's is its 40 ms however loaded the machine is
    # (its wall time may be several times that), the sleeper's a small fraction of it.
    assert median(spinner.decision_cpu_us) >= 0.9 * 40_000, spinner.decision_cpu_us[:10]
    assert median(sleeper.decision_cpu_us) < 0.25 * median(spinner.decision_cpu_us), sleeper.decision_cpu_us[:10]
    summary = local.match.summary()["seats"]
    assert summary[0]["cpu_us_p50"] > 4 * summary[1]["cpu_us_p50"]


@pytest.mark.slow  # two bots taking 40-100 ms a decision through whole games
def test_frozen_bots_do_not_think_on_the_opponents_time(tmp_path: Path) -> None:
    # A thinker burns CPU all the time; its opponent sleeps 100 ms a decision. The thinker
    # measures its thinking thread's CPU time in the waits between its answers and its next
    # decisions. Allowed, the thread runs through those waits; frozen, it runs only in the
    # moments the referee takes to freeze and thaw it: CPU time cannot exceed the time the
    # thread was thawed, so that is a small share of the waits' wall time however loaded the
    # machine is (start-up, which a loaded machine stretches, is outside the waits).
    def waits(thinking: Thinking) -> tuple[float, float]:
        local = play_with([busy("think", 0), busy("sleep", 100)], thinking=thinking, seed=3,
                          time_control=TimeControl(decision_ms=2000, bank_ms=5000, connect_ms=8000),
                          log_dir=tmp_path / thinking.value)
        thinker, opponent = local.match.seats
        assert local.match.state_name == "finished" and thinker.report.timeouts == 0
        assert thinker.report.decisions > 10 and opponent.report.decisions > 10
        path = local.logs[0]
        text = path.read_text() if path else ""
        assert "between decisions: " in text, text[-2000:]
        words = text.split("between decisions: ")[-1].split()
        return float(words[0]), float(words[3])  # the thread's CPU s, the waits' wall s

    allowed_cpu, allowed_wall = waits(Thinking.ALLOWED)
    frozen_cpu, frozen_wall = waits(Thinking.FROZEN)
    measured = (frozen_cpu, frozen_wall, allowed_cpu, allowed_wall)
    assert frozen_wall >= 0.1 * 10, measured  # the opponent slept 100 ms in each wait, loaded or not
    assert frozen_cpu < 0.2 * frozen_wall, measured  # frozen: a sliver of the waits, never a core
    assert allowed_cpu > 2 * frozen_cpu * allowed_wall / frozen_wall, measured  # the measure sees thinking
    assert play_with([good(), good()], thinking=Thinking.FROZEN).match.summary()["thinking"] == "frozen"


# -- a bot kept off the CPU by other work is given its time (docs/rules.md, "Which timeouts count")

STARVED = TimeControl(decision_ms=100, bank_ms=100, connect_ms=8000)
"""A window of 200 ms a decision after the first: a bot needing 30 ms of CPU a decision
fits it six times over on a free core, and cannot fit it beside seven busy processes on
that core (it gets about an eighth of it), unless it is given back the time it waited."""


@pytest.mark.slow  # whole games at a fifth of a core
def test_a_bot_kept_off_the_cpu_by_other_work_is_given_its_time() -> None:
    # The spinner needs 30 ms of CPU a decision and shares CPU 0 with seven busy processes, so
    # its decisions take longer than their 200 ms window in wall time; before, it timed out
    # at its second decision. The time it waited for the CPU is added to its limit (and not
    # taken from its bank): it plays the whole game and is never charged. (It needed 50 ms
    # beside four until 2026-12-06: beside CI's eight more busy processes the time the
    # referee counts as given to the bot, its CPU and what it spent off any run queue, could
    # then outgrow the 100 ms a decision within a game; 30 ms leaves that margin.)
    with hogs(7, 120, cpus="0"):
        local = play_with([busy("spin", 30, "--cpu=0"), good()], time_control=STARVED, seed=5,
                          rules="short-13")
    spinner = local.match.seats[0].report
    assert local.match.state_name == "finished", local.match.void_reason
    assert spinner.timeouts == 0 and spinner.status.value == "done", spinner.faults
    assert local.match.results[0].outcome.ending.value not in ("timeout", "no_show"), local.match.results[0].outcome
    # the load was real: decisions that took longer in wall time than their whole window
    assert sum(us > 200_000 for us in spinner.decision_us[1:]) >= 3, spinner.decision_us[:20]


@pytest.mark.slow  # a game-over handler at an eighth of a core
def test_a_bot_kept_off_the_cpu_after_the_game_is_given_its_grace_to_exit(tmp_path: Path) -> None:
    # After the match the referee gives each bot 2 s to exit. A bot whose game-over handler
    # needs 400 ms of CPU, on CPU 0 beside seven busy processes, takes longer than that in
    # wall time; before 2026-12-06 it was killed first and its last log line was lost (the
    # thinker's in CI's load subset). The time it waited for the CPU is added to the grace,
    # as to a decision's: the line is there. A bot that sleeps 6 s was given all of its grace
    # and is stopped after about 2 s, as on an idle machine.
    with hogs(7, 120, cpus="0"):
        slow = play_with([busy("spin", 0, "--cpu=0", "--end-spin=400"), good()], time_control=STARVED, seed=5,
                         rules="short-13", log_dir=tmp_path / "spin")
    assert slow.match.state_name == "finished", slow.match.void_reason
    text = slow.logs[0].read_text() if slow.logs[0] else ""
    assert "game over handled in " in text, text[-2000:]
    took = float(text.split("game over handled in ")[-1].split()[0])
    assert took > 2.0, text[-500:]  # the load was real: longer than the grace in wall time

    sleepy = play_with([busy("spin", 0, "--end-sleep=6000"), good()], rules="short-13", log_dir=tmp_path / "sleep")
    text = sleepy.logs[0].read_text() if sleepy.logs[0] else ""
    assert sleepy.match.state_name == "finished" and "between decisions" in text, text[-2000:]
    assert "game over handled" not in text, text[-500:]  # killed before its 6 s were over


@pytest.mark.slow  # a bot sleeping past its limit beside busy processes
def test_a_bot_that_sleeps_past_its_limit_is_charged_however_busy_the_machine() -> None:
    # Sleeping uses no CPU and waits on no run queue: the bot was given its time, so beside
    # the same busy processes it is charged at its limit, not given more, and the match is not void.
    with hogs(4, 120, cpus="0"):
        local = play_with([busy("sleep", 400, "--cpu=0"), good()], time_control=STARVED, seed=5,
                          rules="short-13")
    sleeper = local.match.seats[0].report
    assert local.match.state_name == "finished", local.match.void_reason
    outcome = local.match.results[0].outcome
    assert outcome.ending.value == "timeout" and outcome.offender == 0, outcome
    assert sleeper.timeouts == 1
    charged = [us for us in sleeper.decision_us if us > 200_000]
    assert charged and charged[-1] < 2 * 400_000, sleeper.decision_us  # charged near its limit, no extension


@pytest.mark.slow  # start-ups at a fifth of a core
def test_a_start_up_kept_off_the_cpu_is_given_its_connect_time_and_a_sleepy_one_is_not() -> None:
    # Both start-ups outlast the 1 s connect time: one computes 400 ms on CPU 0 beside four
    # busy processes (two seconds or more of wall time), the other sleeps 3 s. The first
    # was kept off the CPU, so it is given its time and plays (before: "did not connect
    # within 1 s"); the second was given all of it and is a no-show, as on an idle machine.
    control = TimeControl(decision_ms=1000, bank_ms=1000, connect_ms=1000)
    with hogs(4, 120, cpus="0"):
        slow = play_with([busy("spin", 0, "--cpu=0", "--start-spin=400"), good()], time_control=control,
                         rules="short-13")
        sleepy = play_with([busy("spin", 0, "--start-sleep=3000"), good()], time_control=control, rules="short-13")
    assert slow.match.state_name == "finished", slow.match.void_reason
    assert slow.match.seats[0].report.status.value == "done", slow.match.seats[0].report.faults
    assert slow.match.seats[0].report.decisions > 5
    assert sleepy.match.state_name in ("finished", "void"), sleepy.match.void_reason
    assert any(f.kind is FaultKind.NO_SHOW and "did not connect within 1 s" in f.reason
               for f in sleepy.match.seats[0].report.faults), sleepy.match.summary()
    assert "kept" not in sleepy.match.void_reason and "owed" not in sleepy.match.void_reason
