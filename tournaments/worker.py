"""Plays tournament matches: one JSON job per line on stdin, one JSON result per line on stdout.

    python -m tournaments.worker [--cpu N]

The runner keeps one worker per parallel slot (``--cpu`` pins it, and so the referee and
the bots it launches, to one core); on Dask, each worker thread keeps one and hands it its
tasks' jobs, the bots read from bundles (:func:`tournaments.backends.run_shipped_job`). Either way the match is
played by the same code: a referee in this process and each bot a subprocess
(:func:`referee.local.play_local_match`).
A long-lived worker plays jobs that say ``reuse = "warm"`` on one referee that stays up
and on warm bot processes kept from one job to the next (:class:`referee.pool.BotPool`);
a single job, or ``reuse = "never"``, gets fresh processes, as before.

A job names each seat's bot by the spec the tournament file used (a sample bot's name, or
a manifest path) and the fingerprint the runner saw: the worker loads the bot itself (so
``{python}`` is its own interpreter) and refuses to play a bot whose files differ.

Only results go to stdout; anything else printed in this process goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from referee.processes.manifest import bot_fingerprint

from .jobs import JobResult, MatchJob, Reuse
from .timing import histogram

if TYPE_CHECKING:
    from referee.pool import BotPool

def worker_name(cpu: int | None = None) -> str:
    return f"{socket.gethostname()}:{os.getpid()}" + (f"/cpu{cpu}" if cpu is not None else "")


async def play(job: MatchJob, worker: str = "", pool: BotPool | None = None) -> JobResult:
    """Play one job's match; never raises: a failure is a result with ``ok`` false. With a
    ``pool`` and a job that allows it, on warm bot processes."""
    from referee.core.feed import feed_path
    from referee.core.match import MatchConfig
    from referee.local import play_local_match

    from . import botlogs
    from .bot_specs import resolve_bot

    started = time.perf_counter()
    worker = worker or worker_name()
    try:
        bots = []
        for seat in job.bots:
            manifest = resolve_bot(seat.spec)
            if seat.fingerprint and bot_fingerprint(manifest) != seat.fingerprint:
                return JobResult.failure(job.match_id, worker,
                                         f"bot {manifest.name!r} on worker {worker} differs from the runner's copy "
                                         f"(fingerprint mismatch): update this machine's checkout")
            bots.append(manifest)
        config = MatchConfig(job.rules, [b.name for b in bots], job.time_control, job.games, job.seed,
                             job.policy, Path(job.replay_dir) if job.replay_dir else None, thinking=job.thinking,
                             lag_limit_ms=job.lag_limit_ms, hide_names=job.hide_names,
                             live_feed=feed_path(Path(job.live_dir), job.match_id) if job.live_dir else None)
        log_dir = Path(job.log_dir) if job.log_dir else None
        if pool is not None and job.reuse is Reuse.WARM:
            pool.max_matches = job.max_matches
            local = await pool.play(bots, config, bot_seed=job.bot_seed, log_dir=log_dir,
                                    hide=[Path(p) for p in job.hide])
        else:
            local = await play_local_match(bots, config, bot_seed=job.bot_seed, log_dir=log_dir,
                                           hide=[Path(p) for p in job.hide])
    except Exception as error:  # a worker failure (not the bots'): the runner retries, then voids
        return JobResult.failure(job.match_id, worker, f"{type(error).__name__}: {error}")
    match = local.match
    summary = match.report()
    crashed = []  # a crash's traceback and log, for the failing-bots panel
    for report, log in zip(summary.seats, local.logs):
        if report.crashes and log is not None:
            crash = botlogs.crash_summary(botlogs.tail(log)) or " | ".join(botlogs.tail(log, 2))
            report = dataclasses.replace(report, crash=crash, log=str(log))
        crashed.append(report)
    summary = dataclasses.replace(summary, seats=tuple(crashed))
    return JobResult.from_summary(job.match_id, worker, summary,
                                  histograms=tuple(histogram(seat.report.decision_us) for seat in match.seats),
                                  elapsed_s=round(time.perf_counter() - started, 4))


def run_job(job: MatchJob) -> JobResult:
    """Play one job in a fresh event loop (for callers without one)."""
    return asyncio.run(play(job))


def pin(cpu: int | None) -> int | None:
    """Pin this process (and the bots it will start) to ``cpu``; None where the OS does not allow."""
    if cpu is None or not hasattr(os, "sched_setaffinity"):
        return None
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:
        return None
    return cpu


async def serve(jobs: TextIO, results: TextIO, worker: str) -> None:
    import referee.local  # noqa: F401  (loaded before the first job arrives, not during it)
    from referee.pool import BotPool

    pool: BotPool | None = None
    started = BotPool()
    try:
        await started.start()
        pool = started
    except Exception as error:  # e.g. a socket path too long: play every match cold, as before warm bots
        print(f"{worker}: no warm bot processes on this worker ({type(error).__name__}: {error}); "
              f"every match gets fresh ones", file=sys.stderr, flush=True)
        await started.close()
    try:
        await _serve(jobs, results, worker, pool)
    finally:
        if pool is not None:
            await pool.close()


async def _serve(jobs: TextIO, results: TextIO, worker: str, pool: BotPool | None) -> None:
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, jobs.readline):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as error:
            result = JobResult.failure(None, worker, f"not a JSON job: {error}")
        else:
            try:
                job = MatchJob.from_dict(data)
            except (KeyError, TypeError, ValueError) as error:
                match_id = data.get("match_id") if isinstance(data, dict) else None
                result = JobResult.failure(match_id, worker, f"not a match job: {type(error).__name__}: {error}")
            else:
                result = await play(job, worker, pool)
        results.write(json.dumps(result.to_dict()) + "\n")
        results.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tournaments.worker", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu", type=int, help="pin this worker and its bots to this core")
    args = parser.parse_args(argv)
    cpu = pin(args.cpu)
    # Keep stdout for results alone: whatever else writes to fd 1 (a library, a stray print)
    # lands on stderr instead.
    results = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from referee.transports.server import tune_gc

    tune_gc()
    asyncio.run(serve(sys.stdin, results, worker_name(cpu)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
