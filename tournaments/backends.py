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
from pathlib import Path
from typing import Any, Protocol

from referee.scratch import OwnedScratch

from .jobs import JobResult, MatchJob


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
    """Matches as tasks on a Dask cluster; each task runs ``python -m tournaments.worker`` on its worker."""

    def __init__(self, address: str, slots: int | None) -> None:
        self.address = address
        self.slots = slots or 0
        self.client: Any = None

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

    async def run(self, slot: int, job: MatchJob) -> JobResult:
        from .worker import run_job_in_subprocess

        future = self.client.submit(run_job_in_subprocess, job.to_dict(), pure=False,
                                    key=f"spite-match-{job.match_id}-{time.monotonic_ns()}")
        return JobResult.from_dict(await future)

    async def stop(self) -> None:
        if self.client is not None:
            await self.client.close()
