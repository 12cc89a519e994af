"""Where matches are played: local worker processes, or tasks on a Dask cluster.

Each backend runs one JSON job (a match) at a time per slot and returns its JSON result;
the runner does not care which.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

from referee.processes.manifest import ManifestError
from referee.processes.scratch import OwnedScratch

from .bundles import Bundle, BundleCache, BundleError, make_bundle, remove_tree
from .jobs import JobResult, MatchJob, SeatJob
from .shipping import ShippingError, deliver
from .worker import worker_name


class TournamentError(RuntimeError):
    """The tournament cannot start or go on (the message says why and what to do)."""


class WorkerDied(RuntimeError):
    pass


class Backend(Protocol):
    slots: int

    async def start(self) -> None: ...

    async def run(self, slot: int, job: MatchJob) -> JobResult: ...

    async def stop(self) -> None: ...


RECYCLE_GAMES = 2000
"""A worker process is replaced by a fresh one after it played this many games (between two
matches): its memory grows about 2 MB per 1,000 ladder games below Python's objects (the C
allocator's arenas, gRPC's core; docs/performance.md, "Memory over a long ladder run"), so a
ladder left running for days stays at the memory of its first hours. Its warm bots go with it."""


class LocalWorker:
    """One ``python -m tournaments.worker`` process, pinned to a core, playing one match at a
    time; replaced by a fresh process after ``recycle_games`` games."""

    def __init__(self, cpu: int | None, scratch: Path, recycle_games: int = RECYCLE_GAMES) -> None:
        if recycle_games < 1:
            raise ValueError(f"recycle_games must be at least 1, not {recycle_games}")
        self.cpu = cpu
        self.scratch = scratch
        self.recycle_games = recycle_games
        self.process: asyncio.subprocess.Process | None = None
        self.stderr_path: Path | None = None
        self.games = 0
        """Games the current process has played."""
        self.started = 0
        """Processes started so far (the first, and each replacement)."""

    async def start(self) -> None:
        from referee.processes.launcher import die_with_parent

        command = [sys.executable, "-m", "tournaments.worker"] + (["--cpu", str(self.cpu)] if self.cpu is not None
                                                                   else [])
        handle, name = tempfile.mkstemp(prefix="worker-", suffix=".log", dir=self.scratch)
        self.stderr_path = Path(name)
        try:
            self.process = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=handle,
                preexec_fn=die_with_parent, limit=64 * 1024 * 1024)
        finally:
            os.close(handle)
        self.games = 0
        self.started += 1

    async def run(self, job: MatchJob) -> JobResult:
        if self.process is not None and self.games >= self.recycle_games:
            await self.stop()
        if self.process is None or self.process.returncode is not None:
            await self.start()
        if self.process is None or self.process.stdin is None or self.process.stdout is None:
            raise WorkerDied("the worker process could not be started")
        try:
            self.process.stdin.write((json.dumps(job.to_dict()) + "\n").encode())
            await self.process.stdin.drain()
            line = await self.process.stdout.readline()
        except (BrokenPipeError, ConnectionResetError):
            line = b""
        if not line:
            code = await self.process.wait()
            tail = self.stderr_path.read_text(errors="replace")[-1500:] if self.stderr_path else ""
            await self.stop()
            raise WorkerDied(f"the worker process exited (code {code}) during the match: {tail.strip()}")
        self.games += job.games
        return JobResult.from_dict(json.loads(line))

    async def stop(self) -> None:
        """End the process (its warm bots with it) and remove its log; :meth:`run` starts another."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except (asyncio.TimeoutError, TimeoutError):
            process.kill()
            await process.wait()
        if self.stderr_path is not None:
            self.stderr_path.unlink(missing_ok=True)
            self.stderr_path = None


class LocalBackend:
    """Local worker processes, one per slot, pinned round-robin to the usable cores."""

    def __init__(self, slots: int, recycle_games: int = RECYCLE_GAMES) -> None:
        self.slots = slots
        try:
            cores = sorted(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = []
        self._scratch = OwnedScratch("spite-workers-")  # a killed runner's is removed on the next start
        self.workers = [LocalWorker(cores[i % len(cores)] if cores else None, Path(self._scratch.name), recycle_games)
                        for i in range(slots)]

    async def start(self) -> None:
        await asyncio.gather(*(w.start() for w in self.workers))

    async def run(self, slot: int, job: MatchJob) -> JobResult:
        return await self.workers[slot].run(job)

    async def stop(self) -> None:
        await asyncio.gather(*(w.stop() for w in self.workers), return_exceptions=True)
        self._scratch.cleanup()


class DaskBackend:
    """Matches as tasks on a Dask cluster whose workers share nothing with this machine but the
    scheduler. Each seat's bot goes as a content-addressed bundle (:mod:`.bundles`), sent to a
    worker the first time it lacks it and cached there; the task plays the match in a
    ``python -m tournaments.worker`` of its own and sends the replays and logs back in its
    result (:mod:`.shipping`), written here under the job's folders as for a local match.

    A task whose worker dies is run again by Dask elsewhere (same seeds, one result); when
    Dask gives up, or the scheduler is gone, :meth:`run` raises :class:`WorkerDied` and the
    caller retries the match as for any worker failure."""

    BUNDLE_MEMORY = 512 * 1024 * 1024
    """The most bundle bytes kept here between matches (older ones are made again when needed)."""
    ROUNDS = 3
    """Tries of one match that may each find a worker lacking a bundle (a worker that died holding it)."""

    def __init__(self, address: str, slots: int | None) -> None:
        self.address = address
        self.slots = slots or 0
        self.client: Any = None
        self._bundles: OrderedDict[str, Bundle] = OrderedDict()

    async def start(self) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise TournamentError("--scheduler needs Dask: pip install 'spite-arena[dask]'") from None
        try:
            self.client = await Client(self.address, asynchronous=True, timeout=10)  # type: ignore[no-untyped-call]
        except OSError as error:
            raise TournamentError(f"cannot reach the Dask scheduler at {self.address}: {error}") from None
        if not self.slots:
            threads = self.client.nthreads()
            if inspect.isawaitable(threads):
                threads = await threads
            self.slots = max(1, sum(dict(threads).values()))

    async def bundle(self, seat: SeatJob) -> Bundle:
        """The bundle of ``seat``'s bot, made once (in a thread: it reads the bot's files)."""
        found = self._bundles.get(seat.spec)
        if found is not None:
            self._bundles.move_to_end(seat.spec)
            return found
        made = await asyncio.to_thread(bundle_of, seat)
        self._bundles[seat.spec] = made
        while sum(b.size for b in self._bundles.values()) > self.BUNDLE_MEMORY and len(self._bundles) > 1:
            self._bundles.popitem(last=False)
        return made

    async def run(self, slot: int, job: MatchJob) -> JobResult:
        try:
            bundles = [await self.bundle(seat) for seat in job.bots]
        except (BundleError, ManifestError, OSError) as error:
            return JobResult(job.match_id, "", False, error=f"cannot ship the bots to a worker: {error}",
                             platform_fault=True, incident=f"match {job.match_id}: {error}")
        by_digest = {b.digest: b for b in bundles}
        digests = [b.digest for b in bundles]
        sending: dict[str, Any] = {}
        placement: dict[str, Any] = {}
        for _ in range(self.ROUNDS):
            try:
                future = self.client.submit(run_shipped_job, job.to_dict(), digests, sending, pure=False,
                                            key=f"spite-match-{job.match_id}-{time.monotonic_ns()}", **placement)
                answer: dict[str, Any] = await future
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a task Dask gave up on (its workers kept dying), a lost scheduler
                raise WorkerDied(f"the Dask task failed: {type(error).__name__}: {error}") from None
            if not isinstance(answer, dict):
                raise WorkerDied(f"the Dask task answered {type(answer).__name__}, not a result")
            missing = answer.get("missing")
            if not missing:
                try:
                    delivered = await asyncio.to_thread(deliver, answer, job.replay_dir, job.log_dir)
                except ShippingError as error:
                    raise WorkerDied(f"worker {answer.get('worker')} sent a result this side cannot store: "
                                     f"{error}") from None
                return JobResult.from_dict(delivered)
            unknown = [d for d in missing if d not in by_digest]
            if unknown or not isinstance(missing, list):
                raise WorkerDied(f"worker {answer.get('worker')} asked for bundles this match does not use")
            sending = {d: by_digest[d].to_wire() for d in missing}
            if answer.get("address"):  # to the worker that asked, or, if it is gone, any other
                placement = {"workers": [str(answer["address"])], "allow_other_workers": True}
        raise WorkerDied(f"match {job.match_id}: the workers lacked its bots' bundles {self.ROUNDS} times running")

    async def stop(self) -> None:
        if self.client is not None:
            await self.client.close()


def bundle_of(seat: SeatJob) -> Bundle:
    """The bundle of ``seat``'s bot as the server has it; a :class:`BundleError` (or a
    :class:`referee.processes.manifest.ManifestError`) saying why it cannot go to a worker."""
    from referee.processes.manifest import bot_fingerprint

    from .bot_specs import resolve_bot

    manifest = resolve_bot(seat.spec)
    if manifest.path is None:
        raise BundleError(f"bot {seat.spec!r} is a command line, not a bot.toml: a worker needs a bot's folder "
                          f"(write a bot.toml next to it)")
    if seat.fingerprint and bot_fingerprint(manifest) != seat.fingerprint:
        raise BundleError(f"bot {manifest.name!r} changed since the tournament started (fingerprint mismatch)")
    return make_bundle(manifest.path, manifest.name)


def run_shipped_job(job: dict[str, Any], digests: list[str], bundles: dict[str, Any]) -> dict[str, Any]:
    """What a Dask task runs: play ``job`` with seat *i* played by the bundle ``digests[i]``
    from this worker's cache (:class:`tournaments.bundles.BundleCache`), after installing the
    ``bundles`` it was sent. The job's server paths (bots, replays, logs, store) are never
    opened here: the replays and logs are written in a private folder and come back in the
    result, under ``files``. A bundle not in the cache: ``{"missing": [...], "address": ...}``
    (the server sends it with the next try); one that fails its check: a failed result with an
    ``incident``. The match is played by this thread's own ``python -m tournaments.worker``,
    kept from one task to the next, so a job that says ``reuse = "warm"`` gets warm bots."""
    from .shipping import collect

    match_id = job.get("match_id")
    worker = worker_name()
    cache = BundleCache()
    try:
        for digest, wire in bundles.items():
            cache.install(digest, wire)
        missing = [d for d in dict.fromkeys(digests) if not cache.has(d)]
        if missing:
            return {"missing": missing, "address": _dask_address(), "worker": worker}
        specs = [str(cache.manifest(d)) for d in digests]
    except BundleError as error:
        refused = f"{worker} refused the game: {error}"
        return JobResult(match_id, worker, False, error=refused, platform_fault=True, incident=refused).to_dict()
    if len(specs) != len(job.get("bots", ())):
        return JobResult.failure(match_id, worker, "one bundle per seat expected").to_dict()
    loop, player, games = _thread_worker()
    folder = Path(tempfile.mkdtemp(prefix=f"{match_id}-", dir=games))
    try:
        shipped = MatchJob.from_dict({
            **job, "bots": [{"spec": spec} for spec in specs], "hide": [str(games)],  # one sandbox view: warm bots
            "replay_dir": str(folder / "replays") if job.get("replay_dir") else None,
            "log_dir": str(folder / "logs") if job.get("log_dir") else None,
            "live_dir": None})  # the server's live folder is not here: a game on another machine has no live view
        try:
            result = loop.run_until_complete(player.run(shipped)).to_dict()
        except (WorkerDied, OSError, ValueError) as error:  # the process died, a broken pipe, an unreadable answer
            result = JobResult.failure(match_id, worker, f"the worker process failed: {error}").to_dict()
        return collect(result, folder / "replays", folder / "logs")
    finally:
        remove_tree(folder)


_thread = threading.local()


def _thread_worker() -> tuple[asyncio.AbstractEventLoop, Any, Path]:
    """This thread's event loop, its ``python -m tournaments.worker`` (started on first use,
    again after it died) and the folder its games write in (hidden from every bot)."""
    found = getattr(_thread, "worker", None)
    if found is None:
        from referee.processes.scratch import OwnedScratch

        scratch = OwnedScratch("spite-dask-")  # removed by the next start on this machine if this one is killed
        games = Path(scratch.name) / "games"
        games.mkdir(mode=0o700)
        found = _thread.worker = (asyncio.new_event_loop(), LocalWorker(None, Path(scratch.name)), games, scratch)
    return found[0], found[1], found[2]


def stop_thread_worker() -> None:
    """Stop this thread's worker process and remove its folder (a Dask worker's threads keep
    theirs until the worker exits; its bots die with it)."""
    found = getattr(_thread, "worker", None)
    if found is not None:
        loop, player, _, scratch = found
        loop.run_until_complete(player.stop())
        loop.close()
        scratch.cleanup()
        del _thread.worker


def _dask_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return ""
