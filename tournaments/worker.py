"""Plays tournament matches: one JSON job per line on stdin, one JSON result per line on stdout.

    python -m tournaments.worker [--cpu N]

The runner keeps one worker per parallel slot (``--cpu`` pins it, and so the referee and
the bots it launches, to one core); a Dask task runs one with a single job
(:func:`run_job_in_subprocess`). Either way the match is played by the same code: a
referee in this process and each bot a subprocess (:func:`referee.local.play_local_match`).

A job names each seat's bot by the spec the tournament file used (a sample bot's name, or
a manifest path) and the fingerprint the runner saw: the worker loads the bot itself (so
``{python}`` is its own interpreter) and refuses to play a bot whose files differ.

Only results go to stdout; anything else printed in this process goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from referee.manifest import bot_fingerprint

from .timing import histogram

def worker_name(cpu: int | None = None) -> str:
    return f"{socket.gethostname()}:{os.getpid()}" + (f"/cpu{cpu}" if cpu is not None else "")


async def play(job: dict[str, Any], worker: str = "") -> dict[str, Any]:
    """Play one job's match; never raises: a failure is a result with ``ok: false``."""
    from referee.local import play_local_match
    from referee.match import LAG_LIMIT_MS, MatchConfig, Policy, Thinking, TimeControl
    from spite_engine import parse_rules
    from referee.manifest import resolve_bot

    from . import botlogs

    started = time.perf_counter()
    base = {"match_id": job.get("match_id"), "worker": worker or worker_name()}
    try:
        bots = []
        for seat in job["bots"]:
            manifest = resolve_bot(seat["spec"])
            if seat.get("fingerprint") and bot_fingerprint(manifest) != seat["fingerprint"]:
                return {**base, "ok": False, "error": f"bot {manifest.name!r} on worker {base['worker']} differs from "
                                                      f"the runner's copy (fingerprint mismatch): update this "
                                                      f"machine's checkout"}
            bots.append(manifest)
        config = MatchConfig(parse_rules(job["rules"]), [b.name for b in bots], TimeControl(**job["time_control"]),
                             job["games"], job["seed"], Policy(job["policy"]),
                             Path(job["replay_dir"]) if job.get("replay_dir") else None,
                             thinking=Thinking(job.get("thinking", Thinking.ALLOWED.value)),
                             lag_limit_ms=job.get("lag_limit_ms", LAG_LIMIT_MS))
        local = await play_local_match(bots, config, bot_seed=job["bot_seed"],
                                       log_dir=Path(job["log_dir"]) if job.get("log_dir") else None,
                                       hide=[Path(p) for p in job.get("hide", [])])
    except Exception as error:  # a worker failure (not the bots'): the runner retries, then voids
        return {**base, "ok": False, "error": f"{type(error).__name__}: {error}"}
    match = local.match
    summary = match.summary()
    for seat, log in zip(summary["seats"], local.logs):  # a crash's traceback, for the failing-bots panel
        if seat["crashes"] and log is not None:
            seat["log"] = str(log)
            seat["crash"] = botlogs.crash_summary(botlogs.tail(log)) or " | ".join(botlogs.tail(log, 2))
    if summary["state"] == "void":
        return {**base, "ok": False, "platform_fault": True, "error": f"void: {summary['void_reason']}",
                "summary": summary}
    if summary["state"] != "finished" or not summary["points"]:
        return {**base, "ok": False, "error": f"the referee ended the match {summary['state']}", "summary": summary}
    return {**base, "ok": True, "summary": summary,
            "histograms": [histogram(seat.report.decision_us) for seat in match.seats],
            "elapsed_s": round(time.perf_counter() - started, 4)}


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Play one job in a fresh event loop (for callers without one)."""
    return asyncio.run(play(job))


def run_job_in_subprocess(job: dict[str, Any]) -> dict[str, Any]:
    """Play one job in a new ``python -m tournaments.worker`` (what a Dask task runs): the
    match gets a process of its own, as with the local runner."""
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "tournaments.worker"], input=json.dumps(job) + "\n",
                              capture_output=True, text=True)
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines:
            tail = done.stderr.strip()[-1500:]
            return {"match_id": job.get("match_id"), "worker": worker_name(), "ok": False,
                    "error": f"the worker exited with code {done.returncode}: {tail}"}
        result: dict[str, Any] = json.loads(lines[-1])
    except (OSError, ValueError) as error:
        return {"match_id": job.get("match_id"), "worker": worker_name(), "ok": False,
                "error": f"could not run the worker: {error}"}
    result["elapsed_s"] = round(time.perf_counter() - started, 4)
    return result


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

    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, jobs.readline):
        if not line.strip():
            continue
        try:
            job = json.loads(line)
        except ValueError as error:
            result: dict[str, Any] = {"ok": False, "worker": worker, "error": f"not a JSON job: {error}"}
        else:
            result = await play(job, worker)
        results.write(json.dumps(result) + "\n")
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
    asyncio.run(serve(sys.stdin, results, worker_name(cpu)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
