"""The memory soak: a hosted ladder left to play many games while its memory is sampled.

    .venv/bin/python bench/soak.py [--games 20000] [--interval 5] [--parallel 2] [--json] [--samples FILE]

A real ``spite serve`` over a fresh data directory, on a competition like
``competitions/example.toml`` (house bots ``greedy``, ``naive`` and ``random``, standard rules,
duplicate deals, its time control; the request limit raised so the sampler's reads are not
refused), its games on warm worker processes, and one remote bot (the sample ``greedy``
through the Python SDK, ``SPITE_ARENA`` and ``SPITE_BOT_KEY``) joined through the lobby,
plays until ``--games`` games are done. Every ``--interval`` seconds a sampler records the
finished games (``arena.db``) and the resident set (``VmRSS``) of the ``spite serve``
process (and its anonymous pages, ``RssAnon``: its heap, without the shared libraries'
pages it touched), of every process under it (worker processes, sandboxes, warm bots) and of
the remote bot.

The report, per role (``serve``; ``workers``: the sum of everything under it; the largest
``tournaments.worker`` at each sample, and how many there were, as each is replaced by a fresh
one after ``RECYCLE_GAMES`` games; any process that lived the whole run; ``remote``): the slope of RSS against games (a
least-squares line, MB per 1,000 games) and the mean of the first and of the last 10% of the samples (the first
sample is taken once the first game is done, so start-up is not counted as growth), and the
RSS at the first sample and at 5,000, 10,000 and 20,000 games. The
slope is the figure: flat memory has a slope near 0 whatever the machine, while growth of
a few KB a game shows as MBs per 1,000. Nothing here is a pass/fail threshold; the tests
that would catch a leak count live entries after N games (``tests/arena/``).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPITE = [sys.executable, "-m", "spite_cli.main"]
BOTS = ["greedy", "naive", "random"]
PAGE_MB = 1 / 1024  # VmRSS is in kB
INTERRUPTED = threading.Event()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def finished(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0])
    except sqlite3.Error:
        return -1


def rss_mb(pid: int, field: str = "VmRSS") -> float | None:
    """A process's resident set (``field="RssAnon"``: only its anonymous pages, the heap;
    ``VmRSS`` also counts the pages of shared libraries and files it has touched)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1]) * PAGE_MB
    except OSError:
        return None
    return 0.0  # a zombie: no memory


def children() -> dict[int, list[int]]:
    """Every process's children, from one pass over ``/proc``."""
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        parent = int(text[text.rindex(")") + 2:].split()[1])
        tree.setdefault(parent, []).append(int(entry))
    return tree


def descendants(tree: dict[int, list[int]], pid: int) -> list[int]:
    found, stack = [], list(tree.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(tree.get(child, []))
    return found


def command_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            words = cmdline.read().split(b"\0")
    except OSError:
        return "process"
    text = [w.decode(errors="replace") for w in words if w]
    if "-m" in text[:-1]:
        return text[text.index("-m") + 1]
    return " ".join(Path(w).name for w in text[:2]) or "process"


@dataclass
class Sample:
    t: float
    games: int
    serve: float
    serve_anon: float
    workers: float
    processes: int
    remote: float
    each: dict[int, float] = field(default_factory=dict)


class Sampler(threading.Thread):
    def __init__(self, serve: int, remote: int, db: Path, interval: float) -> None:
        super().__init__(daemon=True)
        self.serve, self.remote, self.db, self.interval = serve, remote, db, interval
        self.samples: list[Sample] = []
        self.names: dict[int, str] = {}
        """A short name per process seen (its command line's module or script)."""
        self.stop = threading.Event()
        self.start_t = time.monotonic()

    def sample(self) -> Sample | None:
        games = finished(self.db)
        serve = rss_mb(self.serve)
        if serve is None or games < 0:
            return None
        tree = children()
        each = {pid: mb for pid in descendants(tree, self.serve) if (mb := rss_mb(pid)) is not None}
        for pid in each:
            if pid not in self.names:
                self.names[pid] = command_name(pid)
        remote = sum(mb for pid in [self.remote, *descendants(tree, self.remote)] if (mb := rss_mb(pid)) is not None)
        return Sample(round(time.monotonic() - self.start_t, 1), games, serve, rss_mb(self.serve, "RssAnon") or 0.0,
                      sum(each.values()), len(each), remote, each)

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            sample = self.sample()
            if sample is not None and sample.games > 0:
                self.samples.append(sample)


def slope_per_1000(points: list[tuple[float, float]]) -> float | None:
    """The least-squares slope of y against x, per 1,000 of x."""
    if len(points) < 3:
        return None
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    return 1000 * sum((x - mx) * (y - my) for x, y in points) / sxx


MARKS = (5_000, 10_000, 20_000)
"""The games at which the report gives each role's RSS (and at the first sample)."""


def at_marks(points: list[tuple[float, float]]) -> dict[str, float]:
    """The RSS at the first sample, and at the first sample at or past each of ``MARKS`` reached."""
    found = {f"at {int(points[0][0])}": round(points[0][1], 1)} if points else {}
    for mark in MARKS:
        reached = next((y for x, y in points if x >= mark), None)
        if reached is not None:
            found[f"at {mark}"] = round(reached, 1)
    return found


def summary(points: list[tuple[float, float]]) -> dict[str, Any]:
    tenth = max(1, len(points) // 10)
    first = [y for _, y in points[:tenth]]
    last = [y for _, y in points[-tenth:]]
    slope = slope_per_1000(points)
    return {"samples": len(points), "games": [int(points[0][0]), int(points[-1][0])] if points else [],
            "slope_mb_per_1000_games": None if slope is None else round(slope, 3),
            "first_10pct_mb": round(sum(first) / len(first), 1) if first else None,
            "last_10pct_mb": round(sum(last) / len(last), 1) if last else None,
            "min_mb": round(min(y for _, y in points), 1) if points else None,
            "max_mb": round(max(y for _, y in points), 1) if points else None, "mb": at_marks(points)}


def analyse(samples: list[Sample], names: dict[int, str]) -> dict[str, Any]:
    roles: dict[str, list[tuple[float, float]]] = {"serve": [(s.games, s.serve) for s in samples],
             "serve (anonymous pages)": [(s.games, s.serve_anon) for s in samples],
             "workers (sum)": [(s.games, s.workers) for s in samples],
             "processes under serve": [(s.games, float(s.processes)) for s in samples],
             "remote bot": [(s.games, s.remote) for s in samples]}
    lives: dict[int, int] = {}
    for s in samples:
        for pid in s.each:
            lives[pid] = lives.get(pid, 0) + 1
    workers = {pid for pid in lives if names.get(pid) == "tournaments.worker"}
    roles["the largest tournaments.worker"] = [(s.games, max(mb for pid, mb in s.each.items() if pid in workers))
                                               for s in samples if workers & s.each.keys()]
    for pid in sorted(p for p, n in lives.items() if n >= 0.9 * len(samples)):  # a process kept the whole run
        roles[f"{names.get(pid, 'process')} (pid {pid})"] = [(s.games, s.each[pid]) for s in samples if pid in s.each]
    found = {name: summary(points) for name, points in roles.items() if points}
    if "the largest tournaments.worker" in found:  # replaced every RECYCLE_GAMES games (tournaments/backends.py)
        found["the largest tournaments.worker"]["processes"] = len(workers)
    return found


TRACE_FLAG = "--as-traced-serve"
"""Internal: ``soak.py --as-traced-serve DIR ARGS...`` is ``spite ARGS...`` under tracemalloc,
dumping a snapshot (and the count of live objects by type) to DIR at each SIGUSR1."""


def traced_serve(folder: Path, argv: list[str]) -> int:
    import gc
    import pickle
    import tracemalloc
    from collections import Counter

    from spite_cli.main import main as spite

    tracemalloc.start(15)
    dumps = [0]

    def dump(signum: int, frame: Any) -> None:
        gc.collect()
        snapshot = tracemalloc.take_snapshot().filter_traces(
            (tracemalloc.Filter(False, tracemalloc.__file__),
             tracemalloc.Filter(False, "<frozen importlib._bootstrap*")))
        kinds = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.get_objects())
        dumps[0] += 1
        with open(folder / f"snapshot-{dumps[0]}.pickle", "wb") as out:
            pickle.dump((snapshot, dict(kinds)), out)
        (folder / f"snapshot-{dumps[0]}.done").touch()

    signal.signal(signal.SIGUSR1, dump)
    return spite(argv)


def snapshot_now(serve: int, folder: Path, number: int, games: int, marks: list[int]) -> None:
    os.kill(serve, signal.SIGUSR1)
    deadline = time.monotonic() + 300
    while not (folder / f"snapshot-{number}.done").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    marks.append(games)


def diff_snapshots(folder: Path, marks: list[int], top: int = 15) -> dict[str, Any]:
    """What grew in serve between its first and last snapshot: tracemalloc lines and live objects by type."""
    import pickle

    if len(marks) < 2:
        return {}
    with open(folder / "snapshot-1.pickle", "rb") as first_file:
        first, first_kinds = pickle.load(first_file)
    with open(folder / f"snapshot-{len(marks)}.pickle", "rb") as last_file:
        last, last_kinds = pickle.load(last_file)
    stats = last.compare_to(first, "traceback")
    lines = []
    for stat in stats[:top]:
        frames = [f"{frame.filename.replace(str(ROOT) + '/', '')}:{frame.lineno}" for frame in stat.traceback[-4:]]
        lines.append({"kb": round(stat.size_diff / 1024, 1), "count": stat.count_diff,
                      "where": " <- ".join(reversed(frames))})
    kinds = sorted(((n - first_kinds.get(k, 0), k) for k, n in last_kinds.items()), reverse=True)[:top]
    return {"games": [marks[0], marks[-1]], "grew": lines,
            "objects": [{"type": k, "more": n} for n, k in kinds if n > 0]}


def competition_file(work: Path, parallel: int) -> Path:
    file = work / "soak.toml"
    example = (ROOT / "competitions" / "example.toml").read_text()
    # The example as it is, with its name, parallel and a request limit the sampler cannot hit.
    text = example.replace('name = "example"', 'name = "soak"').replace("parallel = 2", f"parallel = {parallel}")
    text = text.replace("requests_per_minute = 120", "requests_per_minute = 10000")
    file.write_text(text)
    return file


def wait_ready(process: subprocess.Popen[str], seconds: float) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + seconds
    lines = []
    while time.monotonic() < deadline and process.poll() is None:
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            line = process.stdout.readline()
            lines.append(line)
            if line.startswith("spite serve:"):
                return line.strip()
    raise SystemExit(f"soak: spite serve did not start: {''.join(lines)[-500:]}")


def drain(stream: Any, sink: Path) -> threading.Thread:
    def copy() -> None:
        with open(sink, "a") as out:
            for line in stream:
                out.write(line)
    thread = threading.Thread(target=copy, daemon=True)
    thread.start()
    return thread


def stop(process: subprocess.Popen[str], how: signal.Signals = signal.SIGINT) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, how)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def soak(work: Path, games: int, interval: float, parallel: int, max_seconds: float,
         trace: bool = False) -> dict[str, Any]:
    competition = competition_file(work, parallel)
    data = work / "arena-data"
    web, grpc = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    added = subprocess.run([*SPITE, "arena", "add-entrant", "remote", "--data", str(data), "--json"], cwd=work,
                           capture_output=True, text=True)
    if added.returncode != 0:
        raise SystemExit(f"soak: spite arena add-entrant failed: {added.stderr.strip()[-300:]}")
    key = json.loads(added.stdout)["key"]
    traces = work / "traces"
    command = [sys.executable, __file__, TRACE_FLAG, str(traces)] if trace else SPITE
    if trace:
        traces.mkdir()
    marks: list[int] = []
    serve = subprocess.Popen([*command, "serve", str(competition), "--data", str(data), "--web", web, "--grpc", grpc],
                             cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)
    remote: subprocess.Popen[str] | None = None
    sampler: Sampler | None = None
    try:
        wait_ready(serve, 120)
        drain(serve.stdout, work / "serve.log")
        remote = subprocess.Popen([sys.executable, str(ROOT / "sample_bots" / "greedy" / "bot.py")],
                                  cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  start_new_session=True,
                                  env={**os.environ, "SPITE_ARENA": grpc, "SPITE_BOT_KEY": key})
        drain(remote.stdout, work / "remote.log")
        db = data / "arena.db"
        sampler = Sampler(serve.pid, remote.pid, db, interval)
        sampler.start()
        started = time.monotonic()
        load = [os.getloadavg()[0]]
        last_print = started
        while time.monotonic() - started < max_seconds and not INTERRUPTED.is_set():
            INTERRUPTED.wait(min(interval, 5))
            if serve.poll() is not None:
                raise SystemExit(f"soak: spite serve exited {serve.returncode}: see {work / 'serve.log'}")
            done = finished(db)
            if time.monotonic() - last_print >= 60:
                last_print = time.monotonic()
                load.append(os.getloadavg()[0])
                latest = sampler.samples[-1] if sampler.samples else None
                print(f"soak: {done} games in {time.monotonic() - started:.0f} s, load {load[-1]:.1f}"
                      + (f", serve {latest.serve:.1f} MB, workers {latest.workers:.1f} MB "
                         f"({latest.processes} processes), remote {latest.remote:.1f} MB" if latest else ""),
                      file=sys.stderr, flush=True)
            if trace and len(marks) < 1 and done >= games // 10:
                snapshot_now(serve.pid, traces, 1, done, marks)
            if done >= games:
                if trace:
                    snapshot_now(serve.pid, traces, 2, done, marks)
                break
        elapsed = time.monotonic() - started
        sampler.stop.set()
        sampler.join()
        final = sampler.sample()
        if final is not None:
            sampler.samples.append(final)
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as connection:
            counts = dict(connection.execute("SELECT status, COUNT(*) FROM games GROUP BY status").fetchall())
            remote_games = int(connection.execute(
                "SELECT COALESCE(SUM(games), 0) FROM versions WHERE kind = 'remote'").fetchone()[0])
    finally:
        if sampler is not None:
            sampler.stop.set()
        if remote is not None:
            stop(remote, signal.SIGTERM)
        stop(serve)
    load.append(os.getloadavg()[0])
    return {"games": counts, "remote_games": remote_games, "seconds": round(elapsed, 1),
            "games_per_s": round(counts.get("done", 0) / elapsed, 2) if elapsed else None,
            "load": [round(min(load), 1), round(max(load), 1)], "roles": analyse(sampler.samples, sampler.names),
            "samples": sampler.samples, "traced": diff_snapshots(traces, marks) if trace else None}


def main() -> int:
    for sig in (signal.SIGINT, signal.SIGTERM):  # stop early: report the games played so far
        signal.signal(sig, lambda signum, frame: INTERRUPTED.set())
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000, help="play until this many games are done (1..10^7)")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between samples (0.2..600)")
    parser.add_argument("--parallel", type=int, default=2, help="games at once (1..64)")
    parser.add_argument("--max-seconds", type=float, default=6 * 3600, help="stop by then whatever the count")
    parser.add_argument("--samples", type=Path, help="also write every sample here (CSV)")
    parser.add_argument("--keep", type=Path, help="play in this (new) directory and keep it")
    parser.add_argument("--trace", action="store_true",
                        help="run serve under tracemalloc and report what grew from 10%% of the games to the end")
    parser.add_argument("--json", action="store_true")
    if sys.argv[1:2] == [TRACE_FLAG]:
        return traced_serve(Path(sys.argv[2]), sys.argv[3:])
    args = parser.parse_args()
    for name, value, low, high in (("--games", args.games, 1, 10**7), ("--interval", args.interval, 0.2, 600),
                                   ("--parallel", args.parallel, 1, 64),
                                   ("--max-seconds", args.max_seconds, 1, 7 * 86400)):
        if not low <= value <= high:
            print(f"soak: {name} must be in {low}..{high}, got {value}", file=sys.stderr)
            return 2
    if args.keep is not None and args.keep.exists():
        print(f"soak: {args.keep} exists; give a new directory to --keep", file=sys.stderr)
        return 2
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.keep is not None:
        args.keep.mkdir(parents=True)
        result = soak(args.keep.resolve(), args.games, args.interval, args.parallel, args.max_seconds, args.trace)
    else:
        with tempfile.TemporaryDirectory(prefix="spite-soak-") as scratch:
            result = soak(Path(scratch), args.games, args.interval, args.parallel, args.max_seconds, args.trace)
    samples: list[Sample] = result.pop("samples")
    if args.samples is not None:
        with open(args.samples, "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["t_s", "games", "serve_mb", "serve_anon_mb", "workers_mb", "processes", "remote_mb"])
            for s in samples:
                writer.writerow([s.t, s.games, round(s.serve, 2), round(s.serve_anon, 2), round(s.workers, 2),
                                 s.processes, round(s.remote, 2)])
    report = {"date": date, "cores": os.cpu_count(), "parallel": args.parallel, "house_bots": BOTS,
              "remote_bot": "greedy (Python SDK)", **result}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"soak: {report['games'].get('done', 0)} games done ({report['remote_games']} with the remote bot) in "
          f"{report['seconds']} s ({report['games_per_s']} games/s), load {report['load'][0]}-{report['load'][1]}, "
          f"{report['date']}; games by status: {report['games']}")
    print(f"{'':50} {'MB/1000 games':>13} {'first 10%':>9} {'last 10%':>9} {'min':>6} {'max':>6}  MB at games")
    for name, row in report["roles"].items():
        slope = row["slope_mb_per_1000_games"]
        label = f"{name} ({row['processes']} processes)" if "processes" in row else name
        print(f"{label:50} {'-' if slope is None else f'{slope:+.3f}':>13} {row['first_10pct_mb']:>9} "
              f"{row['last_10pct_mb']:>9} {row['min_mb']:>6} {row['max_mb']:>6}  "
              + ", ".join(f"{at}: {mb}" for at, mb in row["mb"].items()))
    traced = report.get("traced")
    if traced:
        print(f"serve under tracemalloc, games {traced['games'][0]} to {traced['games'][1]}: what grew")
        for line in traced["grew"]:
            print(f"  {line['kb']:+10.1f} KB {line['count']:+8d} blocks  {line['where']}")
        print("  live objects by type: " + ", ".join(f"{o['type']} +{o['more']}" for o in traced["objects"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
