"""The ladder loop: keeps every worker slot busy with a game the matchmaker chose.

Each game is journaled in the arena store before it is handed out and recorded (with
both versions' new ratings) in one transaction when it comes back, so ``kill -9`` at any
moment loses nothing and counts nothing twice (:mod:`.store`). Games go to the same
backends and worker code as tournaments (:mod:`tournaments.backends`): local worker
processes, or Dask tasks with ``--scheduler``; each bot of a game is a fresh sandboxed process.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tournaments.backends import Backend, WorkerDied
from tournaments.jobs import JobResult, MatchJob, SeatJob

from .config import Competition
from .matchmaker import next_pairing
from .store import ArenaStore, Game

log = logging.getLogger("spite.arena")
MAX_ATTEMPTS = 3
IDLE_S = 0.5


@dataclass
class SlotHealth:
    """What the admin page shows per worker slot."""

    slot: int
    game: int | None = None
    played: int = 0
    failures: int = 0
    last_error: str = ""


@dataclass
class Ladder:
    competition: Competition
    store: ArenaStore
    backend: Backend
    data: Path
    rng: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))
    busy: Counter[int] = field(default_factory=Counter)
    health: list[SlotHealth] = field(default_factory=list)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    played: asyncio.Event = field(default_factory=asyncio.Event)
    _running: set[int] = field(default_factory=set)

    def job(self, game: Game) -> MatchJob:
        specs = []
        for vid in game.versions:
            version = self.store.version(vid)
            if version is None:
                raise WorkerDied(f"game {game.id}: no version {vid}")
            specs.append(SeatJob(version.spec))
        hide = tuple(str(self.data / name) for name in ("arena.db", "arena.db-wal", "arena.db-shm", "keys"))
        return MatchJob(match_id=game.id, rules=self.competition.rules, bots=tuple(specs),
                        time_control=self.competition.time_control, games=1, seed=game.seed,
                        bot_seed=game.bot_seed, policy=self.competition.policy,
                        replay_dir=str(self.data / "replays"), log_dir=str(self.data / "logs" / str(game.id)),
                        hide=hide)

    def next_game(self) -> Game | None:
        """A journaled game to play: one left pending (after a restart, a retry), or a new pairing."""
        if self.store.paused:
            return None
        active = {v.id for v in self.store.versions(statuses=("active",))}
        for game in self.store.pending_games():
            if game.id not in self._running and all(v in active for v in game.versions):
                return game
        pairing = next_pairing(self.store.versions(statuses=("active",)), self.busy, self.rng,
                               placement_games=self.competition.placement_games)
        if pairing is None:
            return None
        game_id = self.store.add_game(pairing.seats, secrets.randbits(64), secrets.randbits(63))
        return self.store.game(game_id)

    async def run(self) -> None:
        recovered = self.store.recover()
        if recovered:
            log.info("%d game(s) cut off by the last stop will be played again", recovered)
        await self.backend.start()
        self.health = [SlotHealth(slot) for slot in range(self.backend.slots)]
        try:
            await asyncio.gather(*(self._slot(slot) for slot in range(self.backend.slots)))
        finally:
            await self.backend.stop()

    async def _slot(self, slot: int) -> None:
        health = self.health[slot]
        while not self.stopping.is_set():
            game = self.next_game()
            if game is None:
                try:
                    await asyncio.wait_for(self.stopping.wait(), IDLE_S)
                except (asyncio.TimeoutError, TimeoutError):
                    pass
                continue
            self._running.add(game.id)
            self.busy.update(game.versions)
            health.game = game.id
            try:
                self.store.take_game(game.id, f"slot{slot}")
                result = await self.backend.run(slot, self.job(game))
            except WorkerDied as error:
                result = JobResult(game.id, result.worker, False, error=str(error), platform_fault=True)
            finally:
                self._running.discard(game.id)
                self.busy.subtract(game.versions)
                health.game = None
            self.record(game, result, health)
            self.played.set()
            self.played.clear()

    def record(self, game: Game, result: JobResult, health: SlotHealth) -> None:
        summary = result.summary
        if not result.ok or summary is None or not summary.games:
            health.failures += 1
            health.last_error = result.error[:300]
            retry = game.attempts + 1 < MAX_ATTEMPTS
            self.store.void_game(game.id, result.error or "no result", retry=retry)
            log.warning("game %d failed (%s): %s", game.id, "retrying" if retry else "void", result.error[:300])
            return
        health.played += 1
        played = summary.games[0]
        logs_dir = self.data / "logs" / str(game.id)
        logs: list[str | None] = []
        for seat in range(len(game.versions)):
            found = sorted(logs_dir.glob(f"*-seat{seat}-*.log")) if logs_dir.is_dir() else []
            logs.append(str(found[0]) if found else None)
        faults = [s.faults for s in summary.seats]
        for seat, report in enumerate(summary.seats):
            if report.crashes:
                self.store.add_incident("crash", f"seat {seat} (version {game.versions[seat]}): "
                                        + "; ".join(report.faults)[:500], game.id)
            elif report.timeouts:
                self.store.add_incident("timeout", f"seat {seat} (version {game.versions[seat]}): "
                                        f"{report.timeouts} timeout(s)", game.id)
        self.store.finish_game(game.id, ending=played.outcome.ending.value, reason=played.outcome.reason,
                               winners=played.outcome.winners, scores=played.outcome.scores, faults=faults,
                               replay=played.replay, logs=logs, params=self.competition.rating,
                               rated=game.phase == "ladder")
