#!/usr/bin/env python3
"""What a decision costs on each local transport: gRPC, stdio protobuf frames, stdio JSON lines.

    .venv/bin/python bench/stdio_formats.py [--games 20] [--repeat 3] [--json]

Greedy against greedy, the same seeds, through a real referee in this process with real bot
processes (sandboxed as by default), one variant after another:

- gRPC: the Python SDK's greedy sample bot on the referee's Unix socket (compact session);
- stdio, protobuf frames: the same bot, its manifest switched to ``transport = "stdio"``,
  ``stdio_format = "protobuf"`` (the SDK plays on the pipes, compact session);
- stdio, JSON lines: ``tests/bots/stdio_bot.py greedy``, a plain Python bot (no SDK, which
  does not speak JSON lines; the full session) choosing with the SDK's greedy policy.

Per variant: round trips (the referee's DecisionRequest sent to its Action received; p50 and
p99), the referee's CPU per decision (this process's CPU time over the matches, launching
included, divided by the decisions), the bots' CPU per decision (the sandbox's per-decision
CPU accounting, summed over both seats, over the decisions), and whether the games equal the
in-process ones. CPU time, not wall time, is what a loaded machine leaves comparable; each
figure is the median of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.core.deadlines import TimeControl  # noqa: E402
from referee.core.match import MatchConfig, Policy  # noqa: E402
from referee.local import play_local_match  # noqa: E402
from referee.processes.manifest import BotManifest, load_manifest  # noqa: E402
from spite_engine import parse_rules  # noqa: E402
from tests.inprocess import play_match  # noqa: E402

TIME = TimeControl(decision_ms=5000, bank_ms=30_000, connect_ms=30_000)


def variants() -> dict[str, BotManifest]:
    greedy = load_manifest(ROOT / "sample_bots" / "greedy")
    frames = BotManifest(name="greedy", command=greedy.command, workdir=greedy.workdir, language="python",
                         transport="stdio", stdio_format="protobuf")
    lines = BotManifest(name="stdio-greedy", command=(sys.executable, str(ROOT / "tests" / "bots" / "stdio_bot.py"),
                                                      "greedy"), workdir=ROOT, language="python", transport="stdio")
    return {"gRPC, Python SDK": greedy, "stdio protobuf frames, Python SDK": frames,
            "stdio JSON lines, Python (no SDK)": lines}


def percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def measure(bot: BotManifest, config: MatchConfig) -> dict[str, Any]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = asyncio.run(play_local_match([bot] * config.rules.players, config))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    seats = [s.report for s in result.match.seats]
    decisions = sum(r.decisions for r in seats)
    trips = [t for r in seats for t in r.decision_us]
    return {"decisions": decisions, "seconds": wall, "round_trips_per_s": decisions / wall,
            "p50_us": percentile(trips, 0.5), "p99_us": percentile(trips, 0.99),
            "referee_cpu_us": cpu * 1e6 / decisions,
            "bot_cpu_us": sum(sum(r.decision_cpu_us) for r in seats) / decisions,
            "faults": sum(r.timeouts + r.illegal_moves + r.malformed + r.crashes for r in seats),
            "outcomes": [(g.outcome.ending.value, list(g.outcome.winners)) for g in result.match.results]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=3, help="runs per variant; figures are their medians")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rules = parse_rules("standard")
    config = MatchConfig(rules, ["greedy"] * rules.players, TIME, args.games, args.seed, Policy.FORFEIT)
    expected = [(o.ending.value, list(o.winners)) for o in play_match(config, ["greedy"] * rules.players)]
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in variants()}
    for _ in range(args.repeat):  # interleaved, so a change in the machine's load touches every variant
        for label, bot in variants().items():
            runs[label].append(measure(bot, config))
    rows = []
    for label, measured in runs.items():
        row: dict[str, Any] = {"variant": label, "runs": len(measured)}
        for key in ("decisions", "seconds", "round_trips_per_s", "p50_us", "p99_us", "referee_cpu_us", "bot_cpu_us"):
            row[key] = statistics.median(m[key] for m in measured)
        row["faults"] = sum(m["faults"] for m in measured)
        row["same_games_as_in_process"] = all(m["outcomes"] == expected for m in measured)
        rows.append(row)
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load": os.getloadavg(),
              "nproc": os.cpu_count(), "games": args.games, "seed": args.seed, "rows": rows}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0 if all(r["same_games_as_in_process"] and not r["faults"] for r in rows) else 1
    print(f"{report['date']} · load {' '.join(f'{x:.1f}' for x in report['load'])} · nproc {report['nproc']} · "
          f"greedy v greedy, standard, {args.games} games, seed {args.seed}, median of {args.repeat}")
    print(f"{'variant':36} {'trips':>6} {'trips/s':>8} {'p50 us':>7} {'p99 us':>7} {'referee CPU us':>14} "
          f"{'bots CPU us':>11}  same games")
    for row in rows:
        print(f"{row['variant']:36} {row['decisions']:6.0f} {row['round_trips_per_s']:8.0f} {row['p50_us']:7.0f} "
              f"{row['p99_us']:7.0f} {row['referee_cpu_us']:14.0f} {row['bot_cpu_us']:11.0f}  "
              f"{row['same_games_as_in_process'] and not row['faults']}")
    print("CPU us: per decision (referee: this process over the whole matches; bots: both seats, within decisions)")
    return 0 if all(r["same_games_as_in_process"] and not r["faults"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
