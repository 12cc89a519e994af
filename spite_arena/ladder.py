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
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.feed import SUFFIX, feed_path
from referee.core.replay import bot_log_path
from referee.core.reports import MatchSummary
from referee.transports.server import RunningReferee
from tournaments.backends import Backend, WorkerDied
from tournaments.jobs import JobResult, MatchJob, Reuse, SeatJob

from .config import Competition
from .lobby import Lobby, RemoteBot
from .matchmaker import next_pairing, within_share
from .store import ABANDONED, HOUSE, ArenaStore, Game, GamePhase, LadderIncident, Version, VersionKind, VersionStatus

log = logging.getLogger("spite.arena")
MAX_ATTEMPTS = 3
IDLE_S = 0.5
LIVE = "live"
"""The data directory's folder of the public feeds of games in play (:mod:`referee.core.feed`)."""
REJOIN_GRACE_S = 60.0
"""After a start, how long a pending game waits for its remote bots to join again before it is void."""
BENCH_AFTER, BENCH_OF = 3, 5
"""An entrant's version that lost ``BENCH_AFTER`` of its last ``BENCH_OF`` games by not playing
them out (a no-show, a disconnect, a timeout, a crash) is benched: disabled with the reason,
which its owner sees; its joined streams end with it."""


def share_of(slots: int) -> int:
    """The most of the ladder's games one entrant's versions hold at once: half the slots
    (at least one), so two no-show keys cannot keep every slot waiting on them."""
    return max(1, slots // 2)


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
    lobby: Lobby | None = None
    referee: RunningReferee | None = None
    """Where remote bots' games are refereed (the lobby's server); None: no remote bots."""
    _running: set[int] = field(default_factory=set)
    _started: float = field(default_factory=time.monotonic)

    def job(self, game: Game) -> MatchJob:
        specs = []
        for vid in game.versions:
            version = self.store.version(vid)
            if version is None:
                raise WorkerDied(f"game {game.id}: no version {vid}")
            specs.append(SeatJob(version.spec))
        hide = tuple(str(self.data / name) for name in ("arena.db", "arena.db-wal", "arena.db-shm", "admin.token",
                                                         "logs", "finals.db", LIVE))
        return MatchJob(match_id=game.id, rules=self.competition.rules, bots=tuple(specs),
                        time_control=self.competition.time_control, games=1, seed=game.seed,
                        bot_seed=game.bot_seed, policy=self.competition.policy,
                        replay_dir=str(self.data / "replays"), log_dir=str(self.data / "logs" / str(game.id)),
                        hide=hide, hide_names=True, reuse=Reuse.WARM, live_dir=str(self.data / LIVE))

    def _remote(self, versions: dict[int, Version], vid: int) -> bool:
        version = versions.get(vid)
        return version is not None and version.kind is VersionKind.REMOTE

    def next_game(self) -> Game | None:
        """A journaled game to play: one left pending (after a restart, a retry), or a new pairing.

        A remote version is a candidate only while joined, and available only below its
        capacity; a pending game whose remote bot is gone is void (``spite arena rerun-void``)."""
        if self.store.paused:
            return None
        active = {v.id: v for v in self.store.versions(statuses=(VersionStatus.ACTIVE,))}
        connected = self.lobby.connected() if self.lobby else set()
        available = self.lobby.available() if self.lobby else set()
        share = share_of(max(1, self.backend.slots))
        within = {v.id for v in within_share(list(active.values()), self.busy, share)}
        for game in self.store.pending_games():
            if game.id in self._running:
                continue
            gone = [v for v in game.versions if v not in active]
            if gone:
                self.drop(game, gone[0])
                continue
            if not all(v in within for v in game.versions):
                continue  # a duplicate's second half, or a retry, waits for its entrant's share
            remote = [v for v in game.versions if self._remote(active, v)]
            if any(v not in connected for v in remote):
                if time.monotonic() - self._started > REJOIN_GRACE_S:
                    self.store.void_game(game.id, "a remote bot of this game is not joined", retry=False)
                continue
            if all(v in available for v in remote):
                if remote and game.attempts:
                    # A remote bot may have seen this deal's start before the cut: a fresh deal.
                    self.store.reseed(game.id, secrets.randbits(64), secrets.randbits(63))
                    return self.store.game(game.id)
                return game
        candidates = [v for v in active.values() if v.kind is not VersionKind.REMOTE or v.id in connected]
        ready = [v for v in candidates if v.kind is not VersionKind.REMOTE or v.id in available]
        pairing = next_pairing(candidates, self.busy, self.rng, placement_games=self.competition.placement_games,
                               available=ready, share=share)
        if pairing is None:
            return None
        # Remote seats last: the local bots are launched for the first seats (who moves
        # first is drawn from the deal's seed, not the seat order).
        seats = sorted(pairing.seats, key=lambda v: self._remote(active, v))
        seed, bot_seed = secrets.randbits(64), secrets.randbits(63)
        game_id = self.store.add_game(seats, seed, bot_seed)
        if self.competition.duplicate and not any(self._remote(active, v) for v in seats):
            # The same deal with the seats swapped, played next by fresh processes: luck of the
            # deal cancels out. Never with a remote bot, which could remember the first half.
            self.store.add_game(tuple(reversed(seats)), seed, bot_seed)
        return self.store.game(game_id)

    def drop(self, game: Game, version_id: int) -> None:
        """Void a pending game one of whose versions left the ladder before it was played (a
        duplicate's second half after a new upload retired the first's bot, a disabled or
        benched version): nobody plays it and nothing counts it. Not substituted: the other
        half of a duplicate deal was played against that very version."""
        version = self.store.version(version_id)
        if version is None:
            why = f"version {version_id} does not exist"
        elif version.status is VersionStatus.RETIRED:
            why = f"{version.title} was retired (a newer version of the bot replaced it)"
        else:
            why = f"{version.title} is {version.status}" + (f" ({version.reason})" if version.reason else "")
        self.store.void_game(game.id, f"not played: {why} before the game started", retry=False,
                             kind=LadderIncident.DROPPED)
        log.info("game %d dropped: %s", game.id, why)

    async def run(self) -> None:
        recovered = self.store.recover()
        if recovered:
            log.info("%d game(s) cut off by the last stop will be played again", recovered)
        (self.data / LIVE).mkdir(mode=0o700, exist_ok=True)  # before any bot starts: its sandbox hides it
        for stale in (self.data / LIVE).glob(f"*{SUFFIX}"):  # games cut off by the last stop
            stale.unlink(missing_ok=True)
        await self.backend.start()
        self.health = [SlotHealth(slot) for slot in range(self.backend.slots)]
        try:
            watch = [self.lobby.watch(self.stopping)] if self.lobby is not None else []
            await asyncio.gather(*(self._slot(slot) for slot in range(self.backend.slots)), *watch)
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
                versions = {v: self.store.version(v) for v in game.versions}
                if any(v is not None and v.kind is VersionKind.REMOTE for v in versions.values()):
                    result = await self.play_remote(game, f"slot{slot}")
                else:
                    result = await self.backend.run(slot, self.job(game))
            except (WorkerDied, OSError, ValueError, KeyError, TypeError) as error:
                # the worker (or its answer) failed, not a bot: retried, then void
                result = JobResult(game.id, f"slot{slot}", False, error=f"{type(error).__name__}: {error}",
                                   platform_fault=True)
            finally:
                self._running.discard(game.id)
                self.busy.subtract(game.versions)
                health.game = None
            if self.stopping.is_set() and not result.ok:
                break  # cut off by the stop itself: left running, so the next start plays it again
            self.record(game, result, health)
            self.played.set()
            self.played.clear()

    async def play_remote(self, game: Game, worker: str) -> JobResult:
        """A game with remote seats, refereed in this process on the lobby's server: local
        seats are launched (sandboxed, as by a worker), remote ones get their seat token
        through the lobby. A remote bot that never connects loses by the referee's rules."""
        from referee.core.match import Match, MatchConfig
        from referee.local import play_local_match
        from referee.processes.manifest import ManifestError
        from tournaments.bot_specs import resolve_bot

        if self.lobby is None or self.referee is None:
            return JobResult(game.id, worker, False, error="no lobby for remote bots", platform_fault=True)
        lobby = self.lobby
        versions = [self.store.version(v) for v in game.versions]
        try:
            local = [resolve_bot(v.spec) for v in versions if v is not None and v.kind is not VersionKind.REMOTE]
            names = [m.name for m in local] + [v.bot if v else "?" for v in versions[len(local):]]
            config = MatchConfig(self.competition.rules, names, self.competition.time_control, 1,
                                 game.seed, self.competition.policy, self.data / "replays", hide_names=True,
                                 live_feed=feed_path(self.data / LIVE, game.id))
        except (ManifestError, ValueError) as error:
            return JobResult(game.id, worker, False, error=f"cannot set the game up: {error}", platform_fault=True)
        # Reserved now, before the first await: another slot cannot count on the same room.
        reserved: dict[int, RemoteBot] = {}
        for seat, version in enumerate(versions):
            if version is not None and version.kind is VersionKind.REMOTE:
                bot = lobby.reserve(version.id)
                if bot is None:
                    for taken in reserved.values():
                        taken.in_flight -= 1
                    return JobResult(game.id, worker, False, error=f"remote bot {version.title} has no room now",
                                     platform_fault=True)
                reserved[seat] = bot

        def hand_out(match: Match) -> None:
            for seat, bot in reserved.items():
                lobby.deliver(bot, match.match_id, match.seats[seat].token)

        started = asyncio.get_running_loop().time()
        try:
            played = await play_local_match(local, config, bot_seed=game.bot_seed, referee=self.referee,
                                            on_start=hand_out, log_dir=self.data / "logs" / str(game.id),
                                            hide=[self.data / "arena.db", self.data / LIVE])
        except Exception as error:  # the platform's failure, not a bot's
            return JobResult(game.id, worker, False, error=f"{type(error).__name__}: {error}", platform_fault=True)
        finally:
            for bot in reserved.values():
                bot.in_flight -= 1
        return JobResult.from_summary(game.id, worker, played.match.report(),
                                      elapsed_s=round(asyncio.get_running_loop().time() - started, 4))

    def record(self, game: Game, result: JobResult, health: SlotHealth) -> None:
        feed_path(self.data / LIVE, game.id).unlink(missing_ok=True)  # left by a worker that died mid-game
        summary = result.summary
        if not result.ok or summary is None or not summary.games:
            health.failures += 1
            health.last_error = result.error[:300]
            retry = game.attempts + 1 < MAX_ATTEMPTS
            self.store.void_game(game.id, result.error or "no result", retry=retry)
            if result.incident:
                self.store.add_incident(LadderIncident.BUNDLE, result.incident, game.id)
            log.warning("game %d failed (%s): %s", game.id, "retrying" if retry else "void", result.error[:300])
            return
        health.played += 1
        played = summary.games[0]
        logs = seat_logs(self.data / "logs" / str(game.id), summary)
        faults = [s.faults for s in summary.seats]
        for seat, report in enumerate(summary.seats):
            if report.crashes:
                self.store.add_incident(LadderIncident.CRASH, f"seat {seat} (version {game.versions[seat]}): "
                                        + "; ".join(f.reason for f in report.faults)[:500], game.id)
            elif report.timeouts:
                self.store.add_incident(LadderIncident.TIMEOUT, f"seat {seat} (version {game.versions[seat]}): "
                                        f"{report.timeouts} timeout(s)", game.id)
        self.store.finish_game(game.id, ending=played.outcome.ending, reason=played.outcome.reason,
                               winners=played.outcome.winners, scores=played.outcome.scores, faults=faults,
                               replay=played.replay, logs=logs, params=self.competition.rating,
                               rated=game.phase is GamePhase.LADDER, offender=played.outcome.offender)
        if played.outcome.ending.value in ABANDONED:
            for vid in set(game.versions):
                self.bench_if_absent(vid)

    def bench_if_absent(self, version_id: int) -> None:
        """Bench an entrant's version that keeps not playing its games out (:data:`BENCH_AFTER`)."""
        version = self.store.version(version_id)
        if version is None or version.entrant == HOUSE or version.status is not VersionStatus.ACTIVE:
            return
        lost, looked = self.store.abandoned(version_id, BENCH_OF)
        if lost < BENCH_AFTER:
            return
        reason = (f"benched: lost {lost} of its last {looked} games without playing them out (no-show, "
                  f"disconnect, timeout or crash)")
        self.store.set_version_status(version_id, VersionStatus.DISABLED, reason)
        self.store.add_incident(LadderIncident.BENCHED, f"version {version_id} ({version.title}): {reason}")
        if self.lobby is not None:
            self.lobby.bench(version_id, version.title, reason)
        log.warning("%s %s", version.title, reason)


def seat_logs(logs_dir: Path, summary: MatchSummary) -> list[str | None]:
    """Each seat's log file, by the exact name the launcher gave it (:func:`referee.core.replay.bot_log_path`),
    never by a pattern a bot's name could match."""
    logs: list[str | None] = []
    for seat in summary.seats:
        path = bot_log_path(logs_dir, summary.match_id, seat.seat, seat.name)
        logs.append(str(path) if summary.match_id and path.parent == logs_dir and path.is_file() else None)
    return logs
