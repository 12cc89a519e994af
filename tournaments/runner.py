"""Runs a tournament: builds the bots, journals the schedule, plays matches in parallel,
records each result, rates, and shows it live.

The runner is the store's only writer. Matches are played by workers: local
``python -m tournaments.worker`` processes (one per parallel slot, each pinned to a core
where the OS allows), or Dask workers (``--scheduler tcp://HOST:8786``). Results come
back here and are written one match per transaction.

Ratings are applied in schedule order, whatever order matches finish in: a finished match
waits until every match before it in the schedule is finished, then it is rated (the
rating rows go into the same transaction as the match that completes the prefix). So a
run, a run killed and resumed, and a run with other parallelism all end with the same
ratings.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import tempfile
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

from referee.core.reports import MatchSummary
from referee.processes.build import BuildCaps, build, local_cache, local_sources
from referee.processes.manifest import ManifestError, bot_fingerprint
from spite_engine.rng import derive

from . import seeds
from .backends import Backend, DaskBackend, LocalBackend, TournamentError, WorkerDied
from .config import TournamentConfig
from .jobs import JobResult, MatchJob, SeatJob
from .ratings import Ratings, placings, separated
from .schedule import Scheduler
from .standings import BotHealth, StandingRow, Standings, rows
from .store import FinishedMatch, IncidentKind, MatchRow, ScheduleStatus, Store, TournamentStatus
from .views import PlainView, View

MAX_ATTEMPTS = 3
"""Tries per match in one run when the worker (not a bot) fails; then the match is void."""


@dataclass
class RunOptions:
    db: Path = Path("spite.db")
    parallel: int | None = None
    resume: bool | int = False
    """True: go on with the latest tournament of the file's name; an int: with that tournament id."""
    scheduler: str | None = None
    """A Dask scheduler address; None runs matches in local worker processes."""


# -- preparing ------------------------------------------------------------------------------


def build_bots(config: TournamentConfig, say: Callable[[str], None] = lambda line: None) -> dict[str, str]:
    """Run each bot's build command once, in the sandbox (:func:`referee.processes.build.build`: its
    folder writable, its checkout and the user's package caches readable, no network); return each
    bot's fingerprint. A failure is a ``ManifestError`` naming the bot, with the build's reason
    and its last lines."""
    fingerprints = {}
    for name, manifest in sorted(config.bots.items()):
        if manifest.build:
            say(f"building {name} in the sandbox: {manifest.build}")
            folder = manifest.path.parent if manifest.path else manifest.workdir
            readable, writable, env = local_sources(folder, manifest.language)
            with tempfile.TemporaryDirectory(prefix="spite-build-log-") as logs:
                result = asyncio.run(build(manifest.build, folder, BuildCaps(), Path(logs) / "build.log",
                                           language=manifest.language, workdir=manifest.workdir, readable=readable,
                                           env=env, cache=local_cache(folder, manifest.language),
                                           writable=writable))
            if not result.ok:
                raise ManifestError("\n".join([f"bot {name!r}: field 'build' failed: {result.reason}", *result.tail]))
            manifest.check_command()
        fingerprints[name] = bot_fingerprint(manifest)
    return fingerprints


def open_tournament(store: Store, config: TournamentConfig, fingerprints: dict[str, str], resume: bool | int,
                    say: Callable[[str], None] = lambda line: None) -> int:
    """The tournament's id in the store: the one to resume (the latest of this name, or the
    given id), or a new one."""
    identity = config.identity()
    if resume is not False:
        if resume is True:
            found = store.tournament(config.name)
        else:
            found = store.tournament(int(resume))
            if found is None or found.name != config.name:
                raise TournamentError(f"{store.path} holds no tournament #{resume} named {config.name!r}")
        if found is not None:
            changed = sorted(k for k in set(identity) | set(found.config) if identity.get(k) != found.config.get(k))
            if changed:
                raise TournamentError(
                    f"cannot resume tournament {config.name!r} (#{found.id}) from {config.path}: "
                    f"{', '.join(changed)} changed since it started; restore the file, or start a new tournament "
                    f"(without --resume)")
            stored = {b["name"]: b["fingerprint"] for b in store.bots(found.id)}
            moved = sorted(name for name, fp in fingerprints.items() if stored.get(name) != fp)
            if moved:
                raise TournamentError(
                    f"cannot resume tournament {config.name!r}: bot(s) {', '.join(moved)} changed since it started "
                    f"(manifest fingerprint differs); results would mix two versions. Start a new tournament.")
            reset = store.recover(found.id)
            if found.status is not TournamentStatus.RUNNING:
                store.set_status(found.id, TournamentStatus.RUNNING)
            say(f"resuming tournament {config.name!r} (#{found.id})"
                + (f": {reset} interrupted match(es) will be played again" if reset else ""))
            return found.id
        say(f"no tournament {config.name!r} in {store.path} to resume: starting it")
    else:
        earlier = store.tournament(config.name)
        if earlier is not None:
            say(f"{store.path} already holds tournament {config.name!r} (#{earlier.id}, {earlier.status}); starting "
                f"a new one" + (f" (to go on with #{earlier.id} instead: --resume-id {earlier.id})"
                                if earlier.status is not TournamentStatus.FINISHED else ""))
    bots = [(name, m.version, fingerprints[name], config.bot_specs[name]) for name, m in sorted(config.bots.items())]
    return store.create_tournament(config.name, str(config.path), identity, config.seed, bots, config.entrants)


def check_seed_commitment(config: TournamentConfig, say: Callable[[str], None] = lambda line: None) -> None:
    """With ``seed_file``: the file must open the published commitment and give the config's
    master seed, or :class:`TournamentError` before anything is built, stored or played."""
    if config.seed_file is None or config.seed_commitment is None:
        return
    try:
        secret = seeds.verify_file(config.seed_file, config.seed_commitment)
    except seeds.SeedError as error:
        raise TournamentError(f"{config.path}: {error}") from None
    if seeds.master_seed(secret) != config.seed:
        raise TournamentError(f"{config.path}: the seed file {str(config.seed_file)!r} changed after the tournament "
                              "file was read; no game was played")
    say(f"seed file matches the published commitment {config.seed_commitment}")


def scheduler_for(config: TournamentConfig) -> Scheduler:
    """The tournament's scheduler, its rng seeded from the master seed."""
    rng = random.Random(derive(config.seed, "schedule"))
    return Scheduler(config.entrants, config.rules, config.seed, rng)


def journal_rounds(store: Store, tournament_id: int, config: TournamentConfig, scheduler: Scheduler) -> int:
    """Bring the journal up to the rounds the stop rule starts with; return the rounds journaled.
    Rounds already in the store are regenerated (to bring the scheduler to the same state), not rewritten."""
    present = {m.round for m in store.matches(tournament_id)}
    journaled = max(present) + 1 if present else 0
    for _ in range(journaled):
        scheduler.next_round()
    if journaled < config.rounds:
        store.journal(tournament_id, scheduler.rounds(config.rounds - journaled), config.match_games)
        journaled = config.rounds
    return journaled


def matches_at_once(store: Store, tournament_id: int, config: TournamentConfig) -> int:
    """The most matches this run can play at once, so it never starts more workers than
    matches: those left to play, or (when the stop rule may add rounds) a round's."""
    matches = store.matches(tournament_id)
    left = sum(m.status not in (ScheduleStatus.DONE, ScheduleStatus.VOID) for m in matches)
    if config.stop.rule == "separated":
        left = max([left, *Counter(m.round for m in matches).values()])
    return max(1, left)


# -- ratings in schedule order ----------------------------------------------------------------


class RatingFrontier:
    """Ratings over the longest finished prefix of the schedule."""

    def __init__(self, config_ratings: Ratings) -> None:
        self.ratings = config_ratings
        self.next_ordinal = 0
        self.waiting: dict[int, tuple[tuple[str, ...], tuple[int, ...]] | None] = {}
        """Finished matches (entrants, points) beyond the frontier; None for a void match."""

    def finish(self, ordinal: int, entrants: tuple[str, ...] | None, points: tuple[int, ...] | None
               ) -> list[tuple[int, str, float, float]]:
        """Note a finished (or, with None, void) match; return rating rows for the matches now rated."""
        self.waiting[ordinal] = (entrants, points) if entrants is not None and points is not None else None
        rows: list[tuple[int, str, float, float]] = []
        while self.next_ordinal in self.waiting:
            item = self.waiting.pop(self.next_ordinal)
            if item is not None:
                updated = self.ratings.update(placings(*item))
                rows += [(self.next_ordinal, name, r.mu, r.sigma) for name, r in sorted(updated.items())]
            self.next_ordinal += 1
        return rows


# -- workers --------------------------------------------------------------------------------


# -- the run --------------------------------------------------------------------------------


def describe(match: MatchRow | FinishedMatch, points: tuple[int, ...], games: int) -> str:
    """'round 2 deal 1.0 · greedy v random · greedy won (1-0)'."""
    ranks = placings(match.entrants, points)
    best = [n for n, r in ranks.items() if r == 0]
    result = "draw" if len(best) == len(ranks) else (" & ".join(best) + " won")
    names = list(dict.fromkeys(match.entrants))
    tally = "-".join(str(points[match.entrants.index(n)]) for n in names)
    return (f"round {match.round} deal {match.unit}.{match.rotation} · {' v '.join(names)} · {result} ({tally})"
            + (f" in {games} games" if games > 1 else ""))


@dataclass
class RunSummary:
    tournament_id: int
    status: TournamentStatus
    done: int
    void: int
    rounds: int
    elapsed_s: float
    board: list[StandingRow] = field(default_factory=list)
    failing: list[tuple[str, BotHealth]] = field(default_factory=list)
    played: int = 0
    """Matches this run played (``done`` counts earlier runs' too, after a resume)."""
    platform_void: int = 0
    """Matches this run made void because the platform failed (not a bot: a benched bot's are not counted)."""


class Runner:
    """One run of one tournament against one store."""

    def __init__(self, config: TournamentConfig, store: Store, tournament_id: int, backend: Backend, view: View,
                 scheduler: Scheduler, rounds: int) -> None:
        self.config = config
        self.store = store
        self.tournament_id = tournament_id
        self.backend = backend
        self.view = view
        self.scheduler = scheduler
        self.rounds = rounds
        self.frontier = RatingFrontier(Ratings(config.rating, [e.name for e in config.entrants]))
        self.standings = Standings(config.entrants)
        self.queue: deque[MatchRow] = deque()
        self.failures: dict[int, int] = {}
        self.running: set[int] = set()
        self.played = 0
        self.platform_void = 0

    def _load(self) -> None:
        """Rate and count what the store already holds (a resumed run)."""
        rows: list[tuple[int, str, float, float]] = []
        finished = {m.ordinal: m for m in self.store.finished(self.tournament_id)}
        for match in self.store.matches(self.tournament_id):
            if match.ordinal in finished:
                self.standings.add(finished[match.ordinal])
                rows += self.frontier.finish(match.ordinal, match.entrants, finished[match.ordinal].points)
            elif match.status is ScheduleStatus.VOID:  # benched: stays void, never rated
                rows += self.frontier.finish(match.ordinal, None, None)
        self.store.put_ratings(self.tournament_id, rows)
        for bot, reason in self.store.benched(self.tournament_id).items():
            self.standings.bench(bot, reason)

    def _board(self) -> list[StandingRow]:
        return rows(self.standings, self.frontier.ratings)

    async def run(self) -> RunSummary:
        started = time.perf_counter()
        self._load()
        counts = self.store.counts(self.tournament_id)
        self.view.started(sum(counts.values()), counts["done"])
        self.view.update(self._board(), self.standings)
        await self.backend.start()
        try:
            while True:
                for bot, health in self.standings.health.items():
                    if health.benched:
                        self._bench(bot, health.benched)
                self.queue.extend(self.store.matches(self.tournament_id, ScheduleStatus.PENDING))
                if self.queue:
                    slots = min(self.backend.slots, len(self.queue))
                    await asyncio.gather(*(self._slot(i) for i in range(slots)))
                    # look again: a retry released while its bot was being benched left the queue
                    # but not the journal (it is voided above, as the bench's other matches were)
                    continue
                if not self._another_round():
                    break
        finally:
            await self.backend.stop()
        counts = self.store.counts(self.tournament_id)
        self.store.set_status(self.tournament_id, TournamentStatus.FINISHED)
        return RunSummary(self.tournament_id, TournamentStatus.FINISHED, counts["done"], counts["void"], self.rounds,
                          time.perf_counter() - started, self._board(), self.standings.failing(), self.played,
                          self.platform_void)

    def _another_round(self) -> bool:
        """The stop rule, checked when every journaled match is finished: journal one more round?"""
        if self.config.stop.rule != "separated" or self.rounds >= self.config.stop.max_rounds:
            return False
        board = self.frontier.ratings.leaderboard()
        if separated(board, self.config.stop.confidence):
            self.view.note(f"separated after {self.rounds} round(s): every adjacent pair apart with "
                           f"P >= {self.config.stop.confidence:g}")
            return False
        matches = self.scheduler.next_round()
        self.store.journal(self.tournament_id, matches, self.config.match_games)
        self.rounds += 1
        self.view.total(sum(self.store.counts(self.tournament_id).values()))
        return True

    def log_dir(self) -> Path:
        """Where the bots' logs go: the file's ``log_dir``, else next to the store (``spite.db-logs/ID``),
        so a crashing bot's traceback is always kept and the failing-bots panel can name it."""
        if self.config.log_dir:
            return self.config.log_dir.resolve()
        return Path(str(self.store.path.resolve()) + "-logs") / str(self.tournament_id)

    def job(self, match: MatchRow) -> MatchJob:
        config = self.config
        fingerprints = {b["name"]: b["fingerprint"] for b in self.store.bots(self.tournament_id)}
        return MatchJob(
            match_id=match.id, ordinal=match.ordinal, rules=config.rules,
            bots=tuple(SeatJob(config.bot_specs[name], fingerprints.get(name, "")) for name in match.bots),
            time_control=config.time_control, games=match.max_games, seed=match.seed, policy=config.policy,
            bot_seed=match.bot_seed, replay_dir=str(config.replay_dir.resolve()) if config.replay_dir else None,
            log_dir=str(self.log_dir()), thinking=config.thinking, reuse=config.reuse, max_matches=config.max_matches,
            # never readable by a sandboxed bot, even where a bot's readable directory holds them
            hide=tuple([str(self.store.path.resolve()) + suffix for suffix in ("", "-wal", "-shm", "-journal")]
                       + ([str(self.config.seed_file.resolve())] if self.config.seed_file else [])))

    async def _slot(self, slot: int) -> None:
        while self.queue:
            match = self.queue.popleft()
            self.store.mark_running(match.id, f"slot {slot}")
            self.running.add(match.id)
            try:
                result = await self.backend.run(slot, self.job(match))
            except asyncio.CancelledError:
                self.store.release(match.id)
                raise
            except WorkerDied as error:
                result = JobResult.failure(match.id, "", str(error))
            except Exception as error:  # e.g. a Dask task lost with its workers: retried like a failed worker
                result = JobResult.failure(match.id, "", f"{type(error).__name__}: {error}")
            finally:
                self.running.discard(match.id)
            if result.ok and result.summary is not None:
                self._record(match, result, result.summary)
            else:
                self._failed(match, result.error or "unknown error")
            if any(self.standings.health[b].benched for b in match.bots if b in self.standings.health):
                self.queue = deque(m for m in self.queue if not set(m.bots) & self._benched())

    def _record(self, match: MatchRow, result: JobResult, summary: MatchSummary) -> None:
        points = summary.points
        rows = self.frontier.finish(match.ordinal, match.entrants, points)
        self.store.record(match, result, rows)
        self.played += 1
        finished = self.store.finished_match(match.id)
        self.standings.add(finished)
        for seat in summary.seats:
            if seat.crash and seat.name in self.standings.health:
                health = self.standings.health[seat.name]
                health.crash, health.log = seat.crash, seat.log
        faults = [f"{s.name}: {f.reason}" for s in summary.seats for f in s.faults[:1]]
        self.view.finished(match, f"{describe(match, points, len(summary.games))} · {result.elapsed_s:.2f} s", faults)
        self.view.update(self._board(), self.standings)
        for bot in dict.fromkeys(match.bots):
            health = self.standings.health[bot]
            if not health.benched and self.config.bench.benches(health.games, health.failed_games):
                reason = (f"{health.failed_games} of its {health.games} games ended by its own crash, timeout or "
                          f"no-show (last: {health.last_fault[:200]})")
                self.standings.bench(bot, reason)
                self._bench(bot, reason)
                self.view.note(f"{bot} is benched: {reason}")
                self.view.update(self._board(), self.standings)

    def _benched(self) -> set[str]:
        return {bot for bot, health in self.standings.health.items() if health.benched}

    def _bench(self, bot: str, reason: str) -> None:
        """Void every pending match of ``bot`` (in the store and the queue), with the reason."""
        pending = [m for m in self.store.matches(self.tournament_id, ScheduleStatus.PENDING) if bot in m.bots]
        if not pending and bot in self.store.benched(self.tournament_id):
            return
        rows = [row for m in pending for row in self.frontier.finish(m.ordinal, None, None)]
        self.store.bench(self.tournament_id, bot, reason, pending, rows)
        self.queue = deque(m for m in self.queue if bot not in m.bots)

    def _failed(self, match: MatchRow, error: str) -> None:
        """Not the bots' fault (a worker or referee died, or the referee ran late): play it again,
        up to ``MAX_ATTEMPTS`` tries, then void it. Every failed try is an incident in the store."""
        tries = self.failures[match.id] = self.failures.get(match.id, 0) + 1
        if tries < MAX_ATTEMPTS:
            self.store.add_incident(self.tournament_id, match.id, IncidentKind.RETRIED, error, True)
            self.view.note(f"match {match.ordinal} (round {match.round}): not played to the end, playing it again "
                           f"(attempt {tries + 1} of {MAX_ATTEMPTS}): {error}")
            self.store.release(match.id)
            self.queue.append(match)
            return
        self.store.add_incident(self.tournament_id, match.id, IncidentKind.VOID, error, True)
        rows = self.frontier.finish(match.ordinal, None, None)
        self.store.mark_void(match, error, rows)
        self.platform_void += 1
        self.view.finished(match, f"round {match.round} deal {match.unit}.{match.rotation} · VOID after "
                                  f"{tries} tries", [error[:300]])


def check_isolation(config: TournamentConfig, say: Callable[[str], None]) -> None:
    """Refuse untrusted entrants where bots would run unisolated; else say so on one line."""
    from referee.sandbox import detect, unisolated_warning, untrusted_refusal

    mode = detect()
    refusal = untrusted_refusal(mode)
    if config.untrusted and refusal:
        raise TournamentError(refusal)
    warning = unisolated_warning(mode)
    if warning:
        say(warning)


def run_tournament(config: TournamentConfig, options: RunOptions, out: TextIO | None = None,
                   view: View | None = None) -> RunSummary:
    """Everything ``spite tournament`` does; raises :class:`TournamentError` or ``ManifestError``
    (before any game) when it cannot start."""
    stream = out or sys.stdout

    def say(line: str) -> None:
        print(line, file=stream, flush=True)

    check_isolation(config, say)
    check_seed_commitment(config, say)
    fingerprints = build_bots(config, say)
    store = Store(options.db)
    try:
        tournament_id = open_tournament(store, config, fingerprints, options.resume, say)
        scheduler = scheduler_for(config)
        rounds = journal_rounds(store, tournament_id, config, scheduler)
        parallel = min(options.parallel or config.parallel, matches_at_once(store, tournament_id, config))
        backend: Backend = (DaskBackend(options.scheduler, options.parallel) if options.scheduler
                            else LocalBackend(parallel))
        view = view or PlainView(stream)
        runner = Runner(config, store, tournament_id, backend, view, scheduler, rounds)
        try:
            outcome = asyncio.run(runner.run())
        except BaseException:
            with contextlib.suppress(Exception):
                for match_id in list(runner.running):
                    store.release(match_id)
                store.set_status(tournament_id, TournamentStatus.STOPPED)
            raise
        finally:
            view.close()
        return outcome
    finally:
        store.close()

