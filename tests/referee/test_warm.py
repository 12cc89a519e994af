"""Warm bots: one process, one connection, several matches (referee/transports/warm.py, referee/pool.py).

Real referee, real bot processes under the machine's sandbox: the pool the tournament
worker keeps, driven match by match.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Sequence

from referee.core.match import MatchConfig, Policy
from referee.core.status import MatchState, SeatStatus
from referee.local import LocalMatch
from referee.pool import BotPool, deal_seeds
from referee.processes.manifest import BotManifest
from spite_engine import Ending, parse_rules

from .conftest import BOTS, FAST, hostile

WELCOME = re.compile(r"welcome process=(\w+) match=(\w+) seat=(\d+)(?: bot_seed=(\S+))?")
OVER = re.compile(r"over process=(\w+) match=(\w+) warm=(\d)")


def warm_bot(mode: str = "good", name: str = "") -> BotManifest:
    return BotManifest(name=name or f"warm-{mode}", command=(sys.executable, str(BOTS / "warm_bot.py"), mode),
                       workdir=BOTS)


def warm_stdio_bot(mode: str = "good") -> BotManifest:
    return BotManifest(name=f"warm-stdio-{mode}", command=(sys.executable, str(BOTS / "warm_stdio_bot.py"), mode),
                       workdir=BOTS, transport="stdio")


def stdio_bot() -> BotManifest:
    return BotManifest(name="stdio-good", command=(sys.executable, str(BOTS / "stdio_bot.py"), "good"), workdir=BOTS,
                       transport="stdio")


def config(bots: Sequence[BotManifest], seed: int, games: int = 1) -> MatchConfig:
    return MatchConfig(parse_rules("standard"), [b.name for b in bots], FAST, games, seed, Policy.FORFEIT)


async def _play(pool: BotPool, plan: Sequence[tuple[Sequence[BotManifest], int]], logs: Path,
                bot_seed: int = 0) -> list[LocalMatch]:
    played = []
    for bots, seed in plan:
        played.append(await pool.play(bots, config(bots, seed), log_dir=logs, bot_seed=bot_seed))
    return played


def run_pool(plan: Sequence[tuple[Sequence[BotManifest], int]], logs: Path, max_matches: int = 50,
             bot_seed: int = 0) -> tuple[list[LocalMatch], int]:
    """Play ``plan`` (bots, seed) match by match on one pool; the matches and processes started."""
    async def main() -> tuple[list[LocalMatch], int]:
        async with BotPool(max_matches=max_matches) as pool:
            played = await _play(pool, plan, logs, bot_seed)
            return played, pool.started
    return asyncio.run(main())


def welcomes(logs: Path) -> dict[tuple[str, int], tuple[str, bool, str | None]]:
    """(match id, seat) -> (the process that played it, whether its MatchOver said warm, bot seed)."""
    text = "".join(log.read_text(errors="replace") for log in logs.glob("*.log"))
    warm = {(m.group(1), m.group(2)): m.group(3) == "1" for m in OVER.finditer(text)}
    return {(m.group(2), int(m.group(3))): (m.group(1), warm.get((m.group(1), m.group(2)), False), m.group(4))
            for m in WELCOME.finditer(text)}


def finished(local: LocalMatch) -> bool:
    return (local.match.state_name is MatchState.FINISHED
            and all(s.report.status is SeatStatus.DONE for s in local.match.seats))


def test_a_warm_bot_plays_successive_matches_on_one_process_with_the_right_seats(logs: Path) -> None:
    a, b = warm_bot(name="warm-a"), warm_bot(name="warm-b")
    plan = [((a, b), 11), ((b, a), 12), ((a, b), 13), ((b, a), 14)]
    played, started = run_pool(plan, logs, bot_seed=5)
    assert all(finished(local) for local in played), [s.report.faults for local in played for s in local.match.seats]
    assert started == 2, "two processes, kept warm for four matches"
    seen = welcomes(logs)
    processes: dict[str, set[str]] = {}
    for local, (bots, _) in zip(played, plan):
        for seat, bot in zip(local.match.seats, bots):
            process, warm, bot_seed = seen[(local.match.match_id, seat.index)]  # its Welcome named this seat
            assert warm and bot_seed == "5"
            processes.setdefault(bot.name, set()).add(process)
            assert seat.report.name == bot.name and seat.report.decisions > 0
    assert all(len(p) == 1 for p in processes.values()) and len(set().union(*processes.values())) == 2


def test_a_crashed_warm_bot_is_replaced_and_the_next_match_plays(logs: Path) -> None:
    crash, good = warm_bot("crash-2"), warm_bot(name="warm-good")
    plan = [((crash, good), 21), ((crash, good), 22), ((crash, good), 23)]
    played, started = run_pool(plan, logs)
    assert finished(played[0])
    second = played[1].match
    assert second.state_name is MatchState.FINISHED
    assert second.results[0].outcome.ending is Ending.CRASH and second.seats[0].report.crashes == 1
    assert "exited with code 3" in second.results[0].outcome.reason
    assert finished(played[2]), "a fresh process took the crashed one's place"
    assert started == 3
    seen = welcomes(logs)
    assert seen[(played[0].match.match_id, 0)][0] != seen[(played[2].match.match_id, 0)][0]
    assert seen[(played[0].match.match_id, 1)][0] == seen[(played[2].match.match_id, 1)][0]


def test_a_warm_bot_that_leaves_between_matches_is_replaced(logs: Path) -> None:
    leaver, good = warm_bot("leave-1"), warm_bot(name="warm-good")
    played, started = run_pool([((leaver, good), 31), ((leaver, good), 32), ((leaver, good), 33)], logs)
    assert finished(played[0])
    for local in played[1:]:
        # Each leaver process leaves after its first match. The next match goes to a fresh
        # process, or (if the leaver had not quite gone when it was handed out) the leaver loses
        # it as a crash, as any bot that breaks its word: the referee sees the process exit, or
        # the stream end under its first message; the other seat plays on regardless.
        assert local.match.state_name is MatchState.FINISHED
        assert local.match.seats[1].report.status is SeatStatus.DONE
        report = local.match.seats[0].report
        left = " ".join(f.reason for f in report.faults)
        assert report.status is SeatStatus.DONE or (
            report.status is SeatStatus.ERROR
            and ("exited with code 0" in left or "the bot's stream had ended" in left)), report.faults
    assert started >= 3 and welcomes(logs)[(played[0].match.match_id, 1)][0] == \
        welcomes(logs)[(played[2].match.match_id, 1)][0], "the good bot stayed warm throughout"


def test_no_process_plays_both_halves_of_a_duplicate_deal(logs: Path) -> None:
    a, b = warm_bot(name="warm-a"), warm_bot(name="warm-b")
    # a duplicate deal (seed 41, seats swapped), then a new deal, then 41's halves again
    plan = [((a, b), 41), ((b, a), 41), ((a, b), 42), ((b, a), 41)]
    played, started = run_pool(plan, logs)
    assert all(finished(local) for local in played)
    seen = welcomes(logs)
    dealt: dict[str, set[int]] = {}
    for local in played:
        for seat in local.match.seats:
            process = seen[(local.match.match_id, seat.index)][0]
            seeds = deal_seeds(local.match.config)
            assert not dealt.get(process,
                                 set()) & seeds, f"process {process} was dealt seed {local.match.config.seed} twice"
            dealt.setdefault(process, set()).update(seeds)
    assert started == 6, "the second half and the rematch of deal 41 need new processes; deal 42 reuses"


def test_max_matches_replaces_a_process_that_played_enough(logs: Path) -> None:
    a, b = warm_bot(name="warm-a"), warm_bot(name="warm-b")
    played, started = run_pool([((a, b), 51), ((a, b), 52), ((a, b), 53)], logs, max_matches=2)
    assert all(finished(local) for local in played)
    assert started == 4


def test_one_match_bots_keep_one_process_per_match_next_to_warm_ones(logs: Path) -> None:
    cold, old_stdio, warm = warm_bot("cold"), stdio_bot(), warm_bot(name="warm-good")
    played, started = run_pool([((cold, warm), 61), ((old_stdio, warm), 62), ((cold, warm), 63)], logs)
    assert all(finished(local) for local in played)
    assert started == 4, "the one-match bots start for every match, the warm one once"
    seen = welcomes(logs)
    assert not any(seen[(local.match.match_id, 0)][1] for local in (played[0], played[2])), \
        "a bot that does not say warm gets a Welcome without it"


def test_a_warm_stdio_bot_plays_successive_matches(logs: Path) -> None:
    stdio, other = warm_stdio_bot(), warm_bot(name="warm-good")
    played, started = run_pool([((stdio, other), 71), ((other, stdio), 72), ((stdio, other), 73)], logs)
    assert all(finished(local) for local in played)
    assert started == 2
    seen = welcomes(logs)
    assert seen[(played[1].match.match_id, 1)][1] and \
        seen[(played[1].match.match_id, 1)][0] == seen[(played[0].match.match_id, 0)][0]


def test_a_warm_bot_faces_a_hostile_one_and_stays_warm(logs: Path) -> None:
    bad, good = hostile("garbage"), warm_bot(name="warm-good")
    played, started = run_pool([((bad, good), 81), ((bad, good), 82)], logs)
    for local in played:
        assert local.match.state_name is MatchState.FINISHED
        assert local.match.seats[1].report.status is SeatStatus.DONE
    assert started == 3, "the hostile bot (not warm) starts twice, the warm one once"


def test_a_referee_without_a_pool_plays_one_match_per_stream_even_with_a_warm_bot(logs: Path) -> None:
    from .conftest import run_match

    result = run_match([warm_bot(name="warm-a"), warm_bot(name="warm-b")], log_dir=logs)
    assert finished(result)
    assert [exit.returncode for exit in result.exits] == [0, 0], "MatchOver ended the stream: the bots exited"
    seen = welcomes(logs)
    assert [seen[(result.match.match_id, seat)][1] for seat in (0, 1)] == [False, False]


def test_a_flood_between_matches_breaks_nothing(logs: Path) -> None:
    """Garbage and stale actions right after MatchOver land, depending on when they are read, in
    the finished match (dropped), between matches (dropped; over 64 end the connection) or in
    the next match (its own faults there, and then it is replaced). Never anyone else's loss."""
    chatter, good = warm_stdio_bot("chatter"), warm_bot(name="warm-good")
    played, started = run_pool([((chatter, good), 91), ((chatter, good), 92), ((chatter, good), 93)], logs)
    seen = welcomes(logs)
    faulted: set[str] = set()
    for local in played:
        assert local.match.state_name is MatchState.FINISHED and local.match.seats[1].report.status is SeatStatus.DONE
        report = local.match.seats[0].report
        if (local.match.match_id, 0) not in seen:
            # taken by the chatty process while it was still flooding: it never read the Welcome,
            # its flood counted in this match, and it lost on its own account
            assert report.faults, report
            continue
        process = seen[(local.match.match_id, 0)][0]
        assert process not in faulted, "a process that committed a fault plays no further match"
        if report.faults:
            faulted.add(process)
    assert len({seen[(local.match.match_id, 1)][0] for local in played}) == 1, "the good bot stayed warm"


def test_a_log_directory_per_match_under_a_hidden_one_keeps_bots_warm(tmp_path: Path) -> None:
    """Issue 25: the hosted ladder writes each game's logs to ``DATA/logs/GAME`` and hides
    ``DATA/logs`` whole; a process's sandbox then hides every later game's directory too, so
    the pool hands it the next game (it started a fresh process for every game before: the
    log directory was part of the key). Each game's log still goes to its own directory."""
    a, b = warm_bot(name="warm-a"), warm_bot(name="warm-b")
    hidden = tmp_path / "data" / "logs"

    async def main() -> tuple[list[LocalMatch], int]:
        async with BotPool() as pool:
            played = []
            for game, seed in enumerate((91, 92, 93), start=1):
                played.append(await pool.play((a, b), config((a, b), seed), log_dir=hidden / str(game),
                                              hide=(hidden,)))
            return played, pool.started

    played, started = asyncio.run(main())
    assert all(finished(local) for local in played)
    assert started == 2, "two processes for three games, each game's logs in its own directory"
    for game, local in enumerate(played, start=1):
        assert all(log is not None and log.parent == hidden / str(game) for log in local.logs)
