"""A league on Dask workers that share nothing but the scheduler, beside the same league on
local workers, same bots, same machine, same run; and what a bundle costs.

    .venv/bin/python bench/dask_speed.py [--rounds 10] [--workers 2] [--json]

1. **Local**: ``spite tournament`` with ``greedy``, ``naive`` and ``random``, ``--rounds``
   rounds of duplicate deals (6 matches of one game per round), ``parallel`` = ``--workers``,
   warm bots (the tournament file's default): games per second from start to end. The limit.
2. **Dask**: the same file with ``--scheduler``, on a real ``dask scheduler`` and ``--workers``
   ``dask worker`` processes (one thread each, a HOME and TMPDIR of their own, so a cold
   bundle cache): every match is a task that plays in a fresh ``python -m tournaments.worker``
   from the bots' bundles and ships its replay and logs back.
   Per game: a slot's wall time (``seconds x slots / games``) beside the time the worker
   process spent playing it (the store's ``elapsed_s``): the difference is what the task's
   trip costs (scheduling, the bundle check, the result and its files).
3. **Bundles**: the time to make the ``greedy`` bundle, to install it and to check it before a
   game (what every game pays per seat), and the same for a 16 MiB bot folder (the per-MB
   cost); the bytes a game's result carries back (replay and logs), from the Dask run's files.

The load average is printed beside each figure. Nothing here is a pass/fail threshold.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BOTS = ["greedy", "naive", "random"]
DASK = Path(sys.executable).with_name("dask")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def league(work: Path, name: str, rounds: int, parallel: int, scheduler: str | None) -> dict[str, Any]:
    folder = work / name
    folder.mkdir()
    file = folder / "league.toml"
    file.write_text(f'name = "bench"\nrules = "standard"\nbots = {json.dumps(BOTS)}\nseed = 7\nrounds = {rounds}\n'
                    f'parallel = {parallel}\nmatch_games = 1\nreplay_dir = "{folder / "replays"}"\n'
                    f'log_dir = "{folder / "logs"}"\n')
    command = [sys.executable, "-m", "spite_cli.main", "tournament", str(file), "--db", str(folder / "t.db")]
    started = time.perf_counter()
    done = subprocess.run(command + (["--scheduler", scheduler] if scheduler else []), cwd=folder,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{name}: spite tournament exited {done.returncode}: {done.stdout[-800:]}{done.stderr[-800:]}")
    games = rounds * 6
    import sqlite3

    with sqlite3.connect(f"file:{folder / 't.db'}?mode=ro", uri=True) as db:
        played = float(db.execute("SELECT SUM(elapsed_s) FROM matches WHERE status = 'done'").fetchone()[0] or 0)
    files = [p for p in (folder / "replays").rglob("*") if p.is_file()] + \
            [p for p in (folder / "logs").rglob("*") if p.is_file()]
    return {"games": games, "seconds": round(seconds, 2), "games_per_s": round(games / seconds, 2),
            "load": round(os.getloadavg()[0], 1),
            "shipped_bytes_per_game": sum(p.stat().st_size for p in files) // games,
            "slot_s_per_game": round(seconds * parallel / games, 3), "play_s_per_game": round(played / games, 3)}


def cluster(work: Path, workers: int) -> tuple[str, list[subprocess.Popen[bytes]]]:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes = [subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                   "--no-dashboard"],
                                  cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    for index in range(workers):
        home = work / f"worker{index}"
        (home / "tmp").mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPITE_", "XDG_"))}
        env.update(HOME=str(home), TMPDIR=str(home / "tmp"))
        processes.append(subprocess.Popen(
            [str(DASK), "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", f"w{index}",
             "--local-directory", str(home / "tmp")], cwd=home, env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL))
    from distributed import Client

    with Client(address, timeout=120) as client:  # type: ignore[no-untyped-call]
        client.wait_for_workers(workers, timeout=120)
    return address, processes


def bundle_costs(work: Path) -> dict[str, Any]:
    from tournaments.bundles import BundleCache, make_bundle

    def timed(folder: Path) -> dict[str, Any]:
        runs = 20
        started = time.perf_counter()
        for _ in range(runs):
            bundle = make_bundle(folder / "bot.toml")
        made = (time.perf_counter() - started) / runs
        cache = BundleCache(work / f"cache-{folder.name}")
        started = time.perf_counter()
        cache.install(bundle.digest, bundle.to_wire())
        installed = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(runs):
            cache.manifest(bundle.digest)
        checked = (time.perf_counter() - started) / runs
        return {"bytes": bundle.size, "files": len(bundle.files), "make_ms": round(made * 1000, 2),
                "install_ms": round(installed * 1000, 2), "check_ms": round(checked * 1000, 2)}

    greedy = work / "greedy"
    shutil.copytree(ROOT / "sample_bots" / "greedy", greedy, ignore=shutil.ignore_patterns("__pycache__"))
    big = work / "big"
    shutil.copytree(greedy, big)
    (big / "weights.bin").write_bytes(os.urandom(16 * 1024 * 1024))
    return {"greedy": timed(greedy), "16MiB": timed(big), "load": round(os.getloadavg()[0], 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="the league's rounds (6 games each), 1..1000")
    parser.add_argument("--workers", type=int, default=2, help="Dask workers and local slots, 1..64")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.rounds <= 1000 or not 1 <= args.workers <= 64:
        parser.error("--rounds must be 1..1000 and --workers 1..64")
    with tempfile.TemporaryDirectory(prefix="spite-dask-bench-") as name:
        work = Path(name)
        local = league(work, "local", args.rounds, args.workers, None)
        address, processes = cluster(work, args.workers)
        try:
            remote = league(work, "dask", args.rounds, args.workers, address)
        finally:
            for process in reversed(processes):
                process.send_signal(signal.SIGKILL)
                process.wait()
        bundles = bundle_costs(work)
    report = {"machine": {"nproc": os.cpu_count(), "python": sys.version.split()[0]},
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "local": local, "dask": remote,
              "ratio": round(remote["games_per_s"] / local["games_per_s"], 3), "bundles": bundles}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'':6} {'games':>6} {'seconds':>8} {'games/s':>8} {'load':>5} {'bytes/game back':>16} "
          f"{'slot s/game':>12} {'of it playing':>14}")
    for key in ("local", "dask"):
        row = report[key]
        print(f"{key:6} {row['games']:>6} {row['seconds']:>8} {row['games_per_s']:>8} {row['load']:>5} "
              f"{row['shipped_bytes_per_game']:>16} {row['slot_s_per_game']:>12} {row['play_s_per_game']:>14}")
    print(f"dask / local: {report['ratio']}")
    for key in ("greedy", "16MiB"):
        row = bundles[key]
        print(f"bundle {key}: {row['bytes']} bytes in {row['files']} files: make {row['make_ms']} ms, "
              f"install {row['install_ms']} ms, check before a game {row['check_ms']} ms (load {bundles['load']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
