"""Tournament throughput, end to end, against the in-process limit.

    .venv/bin/python bench/tournament_speed.py [--rounds 3] [--parallel 1 2] [--reuse warm never]
                                               [--transport grpc stdio-protobuf] [--json]

A fixed league (greedy, random and naive; standard rules; master seed 7; ``--rounds`` rounds
of duplicate deals: 6 matches of one game per round) is run by the real tournament runner
into a fresh results store, once per ``--parallel`` value: worker processes, bot processes,
handshakes, store writes and ratings all included. Then the same schedule (same
seeds, same bot seeds) is played in process by ``tests/inprocess.py``: the rules engine
and the bots' policies with no processes and no wire, the ceiling for these bots. The
in-process outcomes are checked against the runner's, game by game. ``--reuse`` runs the league
with warm bot processes (the default) and with one process per match (``never``), each
``--parallel`` value with each. ``--transport`` names the bots' transports to play it with:
``stdio-protobuf`` (the default, as the sample bots' manifests say: the referee's pipes,
protobuf frames) and ``grpc`` (the bots dial the referee), each through temporary copies of
the sample bots' manifests.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.core.match import MatchConfig  # noqa: E402
from tests.inprocess import play_match  # noqa: E402
from tournaments.config import load_tournament  # noqa: E402
from tournaments.runner import RunOptions, run_tournament  # noqa: E402
from tournaments.schedule import bot_seed  # noqa: E402
from tournaments.store import Store  # noqa: E402

LEAGUE = """name = "bench"
rules = "standard"
bots = {bots}
seed = 7
rounds = {rounds}
reuse = "{reuse}"
"""


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


TRANSPORTS = {"grpc": 'transport = "grpc"\n', "stdio-protobuf": 'transport = "stdio"\nstdio_format = "protobuf"\n'}


def league_bots(directory: Path, transport: str) -> list[str]:
    """The league's bots: temporary copies of the sample bots whose manifests say ``transport``
    (the sample bots' own manifests, on stdio protobuf frames, are left alone)."""
    bots = []
    for name in ["greedy", "random", "naive"]:
        folder = directory / transport / name
        shutil.copytree(ROOT / "sample_bots" / name, folder, ignore=shutil.ignore_patterns("__pycache__"),
                        dirs_exist_ok=True)
        manifest = folder / "bot.toml"
        lines = [line for line in manifest.read_text().splitlines()
                 if not line.startswith(("transport", "stdio_format"))]
        manifest.write_text("\n".join(lines) + "\n" + TRANSPORTS[transport])
        bots.append(str(manifest))
    return bots


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the workers, and below them the
    bots): what a league costs whatever else the machine runs."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_league(directory: Path, rounds: int, parallel: int, reuse: str = "warm",
               transport: str = "grpc") -> dict[str, Any]:
    path = directory / "bench.toml"
    path.write_text(LEAGUE.format(rounds=rounds, reuse=reuse, bots=json.dumps(league_bots(directory, transport))))
    config = load_tournament(path)
    db = directory / f"bench-{parallel}-{reuse}-{transport}.db"
    started = time.perf_counter()
    outcome = run_tournament(config, RunOptions(db=db, parallel=parallel), out=io.StringIO())
    elapsed = time.perf_counter() - started
    with Store(db, readonly=True) as store:
        finished = store.finished(outcome.tournament_id)
    games = sum(len(m.games) for m in finished)
    outcomes = {m.ordinal: [(g.ending, list(g.winners)) for g in m.games] for m in finished}
    return {"parallel": parallel, "reuse": reuse, "transport": transport, "matches": outcome.done, "games": games,
            "seconds": round(elapsed, 2),
            "games_per_s": round(games / elapsed, 3), "outcomes": outcomes, "config": config, "finished": finished}


def in_process(finished: list[Any], config: Any) -> dict[str, Any]:
    started = time.perf_counter()
    outcomes = {}
    games = 0
    for m in finished:
        match = MatchConfig(config.rules, list(m.bots), games=config.match_games, seed=m.seed)
        played = play_match(match, list(m.bots), bot_seed=bot_seed(config.seed, m.round, m.unit))
        outcomes[m.ordinal] = [(o.ending.value, list(o.winners)) for o in played]
        games += len(played)
    elapsed = time.perf_counter() - started
    return {"games": games, "seconds": round(elapsed, 3), "games_per_s": round(games / elapsed, 1),
            "outcomes": outcomes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the league (6 matches each; default 3)")
    parser.add_argument("--parallel", type=int, nargs="+", default=[1, 2], help="parallel matches to measure")
    parser.add_argument("--reuse", nargs="+", choices=["warm", "never"], default=["warm"],
                        help="bot process reuse to measure (default: warm)")
    parser.add_argument("--transport", nargs="+", choices=list(TRANSPORTS), default=["stdio-protobuf"],
                        help="the bots' transports to measure: stdio protobuf frames (the sample bots' manifests; "
                             "default) and/or grpc")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    machine = {"date": dt.date.today().isoformat(), "nproc": os.cpu_count(), "cpu": cpu_model(),
               "python": platform.python_version()}
    runs = []
    with tempfile.TemporaryDirectory(prefix="spite-bench-") as scratch:
        for transport in args.transport:
            for reuse in args.reuse:
                for parallel in args.parallel:
                    cpu = cpu_seconds()
                    runs.append(run_league(Path(scratch), args.rounds, parallel, reuse, transport))
                    runs[-1]["cpu_s"] = round(cpu_seconds() - cpu, 2)
    cpu = cpu_seconds()
    limit = in_process(runs[0]["finished"], runs[0]["config"])
    limit["cpu_s"] = round(cpu_seconds() - cpu, 2)
    agree = all(run["outcomes"] == limit["outcomes"] for run in runs)
    figures = {"machine": machine, "rounds": args.rounds,
               "runner": [{k: v for k, v in run.items() if k not in ("outcomes", "config", "finished")}
                          for run in runs],
               "in_process": {k: v for k, v in limit.items() if k != "outcomes"},
               "outcomes_agree": agree}
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{machine['date']} · nproc {machine['nproc']} · {machine['cpu']} · Python {machine['python']}")
    print(f"league: greedy, random, naive · standard · {args.rounds} rounds · {runs[0]['matches']} matches "
          f"of one game")
    for run in runs:
        print(f"  tournament runner, {run['transport']}, reuse {run['reuse']}, parallel {run['parallel']}: "
              f"{run['games']} games in {run['seconds']:.1f} s "
              f"= {run['games_per_s']:.2f} games/s; {run['cpu_s']:.1f} CPU s = {run['games'] / run['cpu_s']:.1f} games "
              f"per CPU s")
    print(f"  in process (tests/inprocess.py, same seeds): {limit['games']} games in {limit['seconds']:.2f} s "
          f"= {limit['games_per_s']:.1f} games/s; {limit['games'] / max(limit['cpu_s'], 0.01):.1f} games per CPU s")
    print(f"  outcomes agree game by game: {'yes' if agree else 'NO'}")
    if not agree:
        sys.exit(1)


if __name__ == "__main__":
    main()
