"""Warm bot processes on one machine: a referee that stays up and bots that play match after match.

:func:`referee.local.play_local_match` starts a referee and one process per seat for every
match, and stops them all at its end. A :class:`BotPool` keeps both: one referee (on a Unix
socket in a private directory) for its whole life, and each bot process that said ``warm``
in its Hello (docs/protocol.md, "Warm bots") idle after its match, to be handed a later match
of the same bot on the same connection. A process is stopped instead, and a fresh one started
the next time, when

* it did not say warm (a one-match bot: exactly today's life);
* it crashed, lost its connection, or committed any fault (timeout, illegal or malformed
  action) in the match, or exited at any time;
* it has played ``max_matches`` matches, or used half its CPU-seconds limit (which counts over
  its whole life), or the pool holds more idle processes than it keeps.

Fairness: a process never plays a deal it has played before. Each process records the
seeds of every game its matches could deal (``MatchConfig.game_seed``), and is never handed a
match sharing one; so the two halves of a duplicate deal (the same deal, seats swapped) are
always played by different processes, and a bot that remembers the first half learns
nothing about the second. Each process keeps its sandbox, private home and /tmp for its
whole life (docs/security.md says what a warm bot may keep); its output goes to one log file
per match, as a one-match process's does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from referee.core.match import Match, MatchConfig
from referee.core.replay import bot_log_path
from referee.core.seats import Seat
from referee.local import LocalMatch, connectable, launch_seat, open_private_dirs, reachable, seat_launch
from referee.processes.launcher import BotProcess, ExitInfo
from referee.processes.manifest import BotManifest
from referee.processes.scratch import OwnedScratch, socket_directory
from referee.transports.server import RunningReferee, start_referee, unix_address
from referee.transports.warm import WarmLine, WarmLines

log = logging.getLogger("spite.referee")

MAX_MATCHES = 50
"""Matches one process plays before it is replaced (the tournament's ``max_matches``)."""
MAX_IDLE = 8
"""Idle processes a pool keeps; beyond that the least recently used is stopped."""
OFFER_WAIT_S = 5.0
"""How long a warm connection may take to accept its next match before it is replaced."""


@dataclass(eq=False)
class PooledProcess:
    """One bot process of the pool, and what it has played."""

    key: tuple[object, ...]
    process: BotProcess
    number: int
    line: WarmLine | None = None
    """Its warm connection, once its first match is over (None: not warm, or not yet known)."""
    seeds: set[int] = field(default_factory=set)
    """Every game seed its matches could deal: never again for this process."""
    matches: int = 0
    cpu_seconds: float = 0.0
    """CPU time it has used so far, and the most one of its matches took."""
    cpu_per_match: float = 0.0
    playing: tuple[Match, Seat] | None = None
    exited: bool = False
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


def deal_seeds(config: MatchConfig) -> set[int]:
    """The seeds of every game ``config`` may deal (with match points, more than it may play)."""
    return {config.game_seed(number) for number in range(config.games)}


class BotPool:
    """Plays matches with warm bot processes; ``async with BotPool() as pool: await pool.play(...)``."""

    def __init__(self, max_matches: int = MAX_MATCHES, max_idle: int = MAX_IDLE) -> None:
        if max_matches < 1:
            raise ValueError(f"max_matches must be at least 1, got {max_matches}")
        self.max_matches = max_matches
        self.max_idle = max_idle
        self.idle: list[PooledProcess] = []
        self.started = 0
        """Processes started so far (a test's measure of reuse)."""
        self._scratch: OwnedScratch | None = None
        self._referee: RunningReferee | None = None
        self._reach: contextlib.AbstractAsyncContextManager[tuple[str, Path]] | None = None
        self._address = ""
        self._socket_dir = Path()

    async def __aenter__(self) -> BotPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def root(self) -> Path:
        if self._scratch is None:
            raise RuntimeError("the pool is not started")
        return Path(self._scratch.name)

    @property
    def referee(self) -> RunningReferee:
        if self._referee is None:
            raise RuntimeError("the pool is not started")
        return self._referee

    async def start(self) -> None:
        """Start the pool's referee, the one every match of the pool is played on."""
        # a Unix socket's path has 107 bytes; swept after a kill
        self._scratch = OwnedScratch("spite-", socket_directory())
        self.root.chmod(0o711)  # bots running as uids of their own pass through to their home and the socket
        sockets = self.root / "referee"
        sockets.mkdir(mode=0o711)
        self._referee = await start_referee(unix_address(sockets))
        self._referee.arena.warm = WarmLines()
        # play() hands each finished match to its caller: the arena need not keep it (a worker
        # that lives for a whole tournament would otherwise hold an hour of matches)
        self._referee.arena.retain_s = 0.0
        self._reach = reachable(self._referee.address, sockets)
        self._address, self._socket_dir = await self._reach.__aenter__()
        connectable(self._address)

    async def close(self) -> None:
        """Stop every idle process and the referee."""
        idle, self.idle = self.idle, []
        await asyncio.gather(*(self._stop(p) for p in idle))
        if self._reach is not None:
            await self._reach.__aexit__(None, None, None)
            self._reach = None
        if self._referee is not None:
            await self._referee.stop(grace=0.5)
            self._referee = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    async def play(self, bots: Sequence[BotManifest], config: MatchConfig, *, log_dir: Path | None = None,
                   bot_seed: int = 0, hide: Sequence[Path] = ()) -> LocalMatch:
        """Play ``config`` with ``bots`` (one per seat, in seat order), each seat on an idle
        process of its bot that never dealt this match's games, else on a new one; wait for
        the end. Then keep the processes that may play on, and stop the others."""
        match = self.referee.arena.create(config)
        lines = self.referee.arena.warm
        if lines is not None:
            lines.bot_seeds[match.match_id] = bot_seed
        hidden = open_private_dirs(config, log_dir, hide)
        seeds = deal_seeds(config)
        view = _sandbox_view(hidden, log_dir)
        used: list[PooledProcess] = []
        try:
            for seat, bot in zip(match.seats, bots):
                match.expect_process(seat)
                key = (_identity(bot), view)
                log_path = bot_log_path(log_dir, match.match_id, seat.index, bot.name) if log_dir else None
                pooled = await self._warm_one(key, seeds, match, seat, bot_seed, log_path)
                if pooled is None:
                    pooled = await self._launch(key, bot, match, seat, log_dir, hidden, bot_seed)
                used.append(pooled)
            await match.finished.wait()
        except BaseException:
            await asyncio.gather(*(self._stop(p) for p in used))
            raise
        finally:
            if lines is not None:
                lines.bot_seeds.pop(match.match_id, None)
        exits = []
        for pooled, seat in zip(used, match.seats):
            pooled.playing = None
            pooled.seeds |= seeds
            pooled.matches += 1
            exits.append(await self._after(pooled, match, seat))
        await self._trim()
        return LocalMatch(match, exits, [p.process.log_path for p in used])

    async def _warm_one(self, key: tuple[object, ...], seeds: set[int], match: Match, seat: Seat,
                        bot_seed: int, log_path: Path | None) -> PooledProcess | None:
        """An idle process for ``seat`` that took the match on its connection (its output now
        going to ``log_path``, the match's log, as a fresh process's would), or None."""
        for pooled in list(self.idle):
            if pooled.key != key or pooled.seeds & seeds or pooled.exited or pooled.line is None:
                continue
            self.idle.remove(pooled)
            pooled.playing = (match, seat)
            match.bind_process(seat, pooled.process)
            pooled.process.switch_log(log_path)
            try:
                taken = await asyncio.wait_for(pooled.line.offer(match, seat, bot_seed), OFFER_WAIT_S)
            except (asyncio.TimeoutError, TimeoutError):
                taken = False
            if taken:
                return pooled
            pooled.playing = None
            await self._stop(pooled)
        return None

    async def _launch(self, key: tuple[object, ...], bot: BotManifest, match: Match, seat: Seat,
                      log_dir: Path | None, hidden: tuple[Path, ...], bot_seed: int) -> PooledProcess:
        self.started += 1
        number = self.started
        home = self.root / f"bot{number}"
        home.mkdir(mode=0o700)
        launch = seat_launch(match, seat, bot, home, address=self._address, socket_dir=self._socket_dir,
                             hidden=hidden, log_dir=log_dir, bot_seed=bot_seed)
        process, session = await launch_seat(self.referee.arena, match, seat, bot, launch)
        pooled = PooledProcess(key, process, number, playing=(match, seat))
        pooled.tasks.append(asyncio.get_running_loop().create_task(self._watch(pooled)))
        if session is not None:
            pooled.tasks.append(session)
        return pooled

    async def _watch(self, pooled: PooledProcess) -> None:
        """Report the process's exit to the match it is playing, and lose its connection."""
        code = await pooled.process.wait()
        pooled.exited = True
        if pooled.line is not None:
            pooled.line.lose("the bot process exited")
        if pooled.playing is not None:
            match, seat = pooled.playing
            match.seat_exited(seat, code, pooled.process.limit_hit())

    async def _after(self, pooled: PooledProcess, match: Match, seat: Seat) -> ExitInfo:
        """Keep ``pooled`` idle for a later match, or stop it; what the match's report says of it."""
        arena_lines = self.referee.arena.warm
        line = arena_lines.claim(match, seat) if arena_lines is not None else None
        if line is not None:
            pooled.line = line
        why = self._retire_reason(pooled, seat)
        if why:
            log.info("match %s: seat %d's process stopped: %s", match.match_id, seat.index, why)
            return await self._stop(pooled)
        self.idle.append(pooled)
        return ExitInfo(None, pooled.process.cpu_seconds(), 0, 0, "",
                        pooled.process.mode.name if pooled.process.mode else "")

    def _retire_reason(self, pooled: PooledProcess, seat: Seat) -> str:
        report = seat.report
        if pooled.exited:
            return "it exited"
        if pooled.line is None or pooled.line.lost:
            if pooled.line is None:
                return "it plays one match per connection"
            return f"its connection ended ({pooled.line.lost})"
        if seat.gone is not None or report.crashes:
            return "it crashed or disconnected"
        if report.timeouts or report.illegal_moves or report.malformed or report.faults:
            return "it committed a fault"
        if pooled.matches >= self.max_matches:
            return f"it played {pooled.matches} matches (max_matches)"
        used = pooled.process.cpu_seconds()
        pooled.cpu_per_match = max(pooled.cpu_per_match, used - pooled.cpu_seconds)
        pooled.cpu_seconds = used
        limit = pooled.process.limits.cpu_seconds
        if used > limit / 2 or used + pooled.cpu_per_match > limit:
            # RLIMIT_CPU counts over the process's life: never let a later match run into it
            return f"it used {used:.0f} of its {limit} CPU seconds"
        return ""

    async def _trim(self) -> None:
        while len(self.idle) > self.max_idle:
            await self._stop(self.idle.pop(0))

    async def _stop(self, pooled: PooledProcess) -> ExitInfo:
        if pooled in self.idle:
            self.idle.remove(pooled)
        if pooled.line is not None:
            pooled.line.end()
        info = await pooled.process.stop()
        for task in pooled.tasks:
            task.cancel()
        await asyncio.gather(*pooled.tasks, return_exceptions=True)
        arena_lines = self._referee.arena.warm if self._referee is not None else None
        if pooled.line is not None and arena_lines is not None:
            arena_lines.forget(pooled.line)
        return info


def _sandbox_view(hidden: tuple[Path, ...], log_dir: Path | None) -> tuple[object, ...]:
    """What a process's sandbox was made with that a later match must share to be played on
    it: the paths it hides, less those inside another hidden path (hidden with it), and the log
    directory unless it is one of those (a hosted ladder's ``DATA/logs/GAME``, a directory per
    game under the hidden ``DATA/logs``, so every game of the ladder can go to a warm process)."""
    def covered(path: Path) -> bool:
        return any(other != path and other in path.parents for other in hidden)

    return (tuple(sorted({str(p) for p in hidden if not covered(p)})),
            None if log_dir is None or covered(log_dir) else str(log_dir))


def _identity(bot: BotManifest) -> tuple[object, ...]:
    """What makes two seats' bots the same program with the same settings."""
    return (bot.name, bot.version, bot.command, str(bot.workdir), bot.transport, bot.stdio_format, bot.language,
            tuple(sorted(bot.env.items())), repr(bot.limits))
