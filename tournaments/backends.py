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
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

from referee.manifest import ManifestError
from referee.scratch import OwnedScratch

from .bundles import Bundle, BundleError, make_bundle
from .jobs import JobResult, MatchJob, SeatJob
from .shipping import ShippingError, deliver


class TournamentError(RuntimeError):
    """The tournament cannot start or go on (the message says why and what to do)."""


class WorkerDied(RuntimeError):
    pass


class Backend(Protocol):
    slots: int

    async def start(self) -> None: ...

    async def run(self, slot: int, job: MatchJob) -> JobResult: ...

    async def stop(self) -> None: ...


class LocalWorker:
    """One ``python -m tournaments.worker`` process, pinned to a core, playing one match at a time."""

    def __init__(self, cpu: int | None, scratch: Path) -> None:
        self.cpu = cpu
        self.scratch = scratch
        self.process: asyncio.subprocess.Process | None = None
        self.stderr_path: Path | None = None

    async def start(self) -> None:
        from referee.launcher import die_with_parent

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

    async def run(self, job: MatchJob) -> JobResult:
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
            self.process = None
            raise WorkerDied(f"the worker process exited (code {code}) during the match: {tail.strip()}")
        return JobResult.from_dict(json.loads(line))

    async def stop(self) -> None:
        if self.process is None:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 5)
        except (asyncio.TimeoutError, TimeoutError):
            self.process.kill()
            await self.process.wait()


class LocalBackend:
    """Local worker processes, one per slot, pinned round-robin to the usable cores."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        try:
            cores = sorted(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = []
        self._scratch = OwnedScratch("spite-workers-")  # a killed runner's is removed on the next start
        self.workers = [LocalWorker(cores[i % len(cores)] if cores else None, Path(self._scratch.name))
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
        from .worker import run_shipped_job

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
    :class:`referee.manifest.ManifestError`) saying why it cannot go to a worker."""
    from referee.manifest import bot_fingerprint, resolve_bot

    manifest = resolve_bot(seat.spec)
    if manifest.path is None:
        raise BundleError(f"bot {seat.spec!r} is a command line, not a bot.toml: a worker needs a bot's folder "
                          f"(write a bot.toml next to it)")
    if seat.fingerprint and bot_fingerprint(manifest) != seat.fingerprint:
        raise BundleError(f"bot {manifest.name!r} changed since the tournament started (fingerprint mismatch)")
    return make_bundle(manifest.path, manifest.name)
