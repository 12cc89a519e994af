"""The hosted ladder's throughput beside the league's, same bots, same machine, same run.

    .venv/bin/python bench/ladder_speed.py [--seconds 60] [--rounds 10] [--parallel 2] [--json]

1. **Ladder**: a real ``spite serve`` over a fresh data directory with the house bots
   ``greedy``, ``naive`` and ``random`` (standard rules, duplicate deals, ``parallel`` slots,
   the example competition's time control), left to play by itself. Its finished games are
   counted in its store (``arena.db``) once the first game is done and again ``--seconds``
   later: games per second of the ladder as a spectator sees it, sandbox, fresh seeds,
   journal, ratings and replays included.
2. **League**: ``spite tournament`` with the same three bots, the same ``parallel`` and
   ``--rounds`` rounds of duplicate deals (6 matches of one game per round), warm bots as the
   tournament file's default: games per second from its start to its end.

3. **Placement**: on the same running ladder, an entrant uploads a copy of ``greedy`` with
   ``spite submit`` (the checks run in the sandbox); from the moment ``spite submit`` has the
   checks' verdict to the upload's ``--placement-games``-th rated game (the issue's aim: 20
   games in under 30 s). Needs bubblewrap (``spite serve`` refuses uploads without it).

Both run here one after the other, so the ratio compares the two stacks on one machine at
one load (the load average is printed beside each). Nothing here is a pass/fail threshold.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPITE = [sys.executable, "-m", "spite_cli.main"]
BOTS = ["greedy", "naive", "random"]
TIME_CONTROL = "[time_control]\ndecision_ms = 1000\nbank_ms = 10000\nconnect_ms = 10000\n"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def finished(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0])
    except sqlite3.Error:
        return 0


def place(work: Path, competition: Path, data: Path, db: Path, web: str, games: int) -> dict[str, Any]:
    """Upload a copy of greedy and time it from the checks' verdict to its ``games``-th rated game."""
    added = subprocess.run([*SPITE, "arena", "add-entrant", "newcomer", "--data", str(data), "--json"], cwd=work,
                           capture_output=True, text=True)
    if added.returncode != 0:
        return {"error": added.stderr.strip()[-200:]}
    folder = work / "newcomer-bot"
    folder.mkdir()
    (folder / "bot.py").write_text((ROOT / "sample_bots" / "greedy" / "bot.py").read_text())
    (folder / "bot.toml").write_text((ROOT / "sample_bots" / "greedy" / "bot.toml").read_text()
                                     .replace('name = "greedy"', 'name = "newcomer"'))
    submitted = time.monotonic()
    done = subprocess.run([*SPITE, "submit", str(folder), "--server", f"http://{web}", "--json"], cwd=work,
                          capture_output=True, text=True,
                          env={**os.environ, "SPITE_BOT_KEY": json.loads(added.stdout)["key"]})
    checked = time.monotonic()
    if done.returncode != 0:
        return {"error": f"spite submit exited {done.returncode}: {done.stderr.strip()[-200:]}"}
    deadline = checked + 600
    played = 0
    while time.monotonic() < deadline:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as connection:
            row = connection.execute("SELECT games FROM versions WHERE bot = 'newcomer'").fetchone()
        played = int(row[0]) if row else 0
        if played >= games:
            break
        time.sleep(0.2)
    return {"games": played, "checks_s": round(checked - submitted, 1),
            "placement_s": round(time.monotonic() - checked, 1) if played >= games else None}


def ladder(work: Path, seconds: float, parallel: int, placement_games: int) -> dict[str, Any]:
    competition = work / "ladder.toml"
    competition.write_text(f'name = "bench"\nrules = "standard"\nhouse_bots = {json.dumps(BOTS)}\n'
                           f'parallel = {parallel}\nduplicate = true\npolicy = "substitute"\n' + TIME_CONTROL
                           + "[limits]\nrequests_per_minute = 10000\n")
    data = work / "arena-data"
    web = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen([*SPITE, "serve", str(competition), "--data", str(data), "--web",
                                web, "--grpc", f"127.0.0.1:{free_port()}"], cwd=work,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 1)
            if ready and (process.stdout.readline().startswith("spite serve:") or process.poll() is not None):
                break
        db = data / "arena.db"
        while finished(db) == 0 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        start, first = time.monotonic(), finished(db)
        load = os.getloadavg()[0]
        while time.monotonic() - start < seconds and process.poll() is None:
            time.sleep(0.5)
        games = finished(db) - first
        elapsed = time.monotonic() - start
        placement = place(work, competition, data, db, web, placement_games) if placement_games else None
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return {"games": games, "seconds": round(elapsed, 1), "games_per_s": round(games / elapsed, 3),
            "load": round((load + os.getloadavg()[0]) / 2, 1), "placement": placement}


def league(work: Path, rounds: int, parallel: int) -> dict[str, Any]:
    file = work / "league.toml"
    file.write_text(f'name = "bench"\nrules = "standard"\nbots = {json.dumps(BOTS)}\nseed = 7\nrounds = {rounds}\n'
                    f'parallel = {parallel}\npolicy = "substitute"\n' + TIME_CONTROL)
    load = os.getloadavg()[0]
    start = time.monotonic()
    done = subprocess.run([*SPITE, "tournament", str(file), "--db", str(work / "league.db"), "--plain"], cwd=work,
                          capture_output=True, text=True)
    elapsed = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"ladder_speed: the league failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
    games = rounds * 6
    return {"games": games, "seconds": round(elapsed, 1), "games_per_s": round(games / elapsed, 3),
            "load": round((load + os.getloadavg()[0]) / 2, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to count the ladder's games")
    parser.add_argument("--rounds", type=int, default=10, help="the league's rounds (6 games each)")
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--placement-games", type=int, default=20,
                        help="time an upload to this many rated games (0: no upload)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ladder-speed-") as scratch:
        work = Path(scratch)
        print("ladder_speed: the ladder (spite serve) ...", file=sys.stderr)
        served = ladder(work, args.seconds, args.parallel, args.placement_games)
        print("ladder_speed: the league (spite tournament) ...", file=sys.stderr)
        played = league(work, args.rounds, args.parallel)
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count(),
              "parallel": args.parallel, "bots": BOTS, "ladder": served, "league": played,
              "ratio": round(served["games_per_s"] / played["games_per_s"], 3) if played["games_per_s"] else None}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'':8} {'games':>6} {'seconds':>8} {'games/s':>8} {'load':>5}")
    for name in ("ladder", "league"):
        row = report[name]
        print(f"{name:8} {row['games']:>6} {row['seconds']:>8} {row['games_per_s']:>8} {row['load']:>5}")
    print(f"ladder / league: {report['ratio']}")
    placement = served.get("placement")
    if placement:
        if placement.get("error"):
            print(f"placement: {placement['error']}")
        else:
            print(f"placement: checks {placement['checks_s']} s, then {placement['games']} rated games in "
                  f"{placement['placement_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
