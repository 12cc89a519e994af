#!/usr/bin/env python3
"""Decisions per second in process vs through the gRPC referee, on the same seeds and bots.

    .venv/bin/python bench/transport_speed.py [--games 20] [--rules standard] [--json]

(a) in process: the engine, ``observe()`` and the greedy policy, no network (a move
    is a decision);
(b) the same games through a real referee (Unix socket) with bot processes on the
    Python SDK, one decision per round trip;
(c) the same with a plan-sending greedy bot (each turn's plays sent as one plan);
(d) the stdio transport: the Python SDK on protobuf frames (as the sample bots' manifests
    say) and a Python bot speaking JSON lines; and any extra bot manifests given with
    ``--bot NAME=MANIFEST`` (e.g. a Go or Rust greedy bot; with ``--both-transports`` each
    one twice, on gRPC and on protobuf frames, whatever its manifest says; ``--bots-only``
    leaves out the Python SDK rows);
and the limits, in the same run (``bench/echo.py``): a bare gRPC bidi echo and a bare
JSON-lines pipe echo between two Python processes, one message each way per round trip,
the reply a decision's size (read by the client, as a bot reads it), nothing else.

Round trip = from the referee sending a DecisionRequest to it receiving the Action
(the bot's own thinking included; greedy thinks for microseconds). Every variant
plays the same seeds; the games themselves must agree, which the script checks. "trips/s"
counts the whole match's wall time, bot start-up included; "in play" (the SDK rows) only
the time from the first GameStart to MatchOver as the bots logged it, which is what the
echoes (no start-up) compare with.

Bot CPU per decision (the Python SDK rows): each greedy bot process runs under this script's
``--as-bot`` wrapper, which reads the process's CPU time (``time.process_time()``: every
thread, gRPC's included) at its first GameStart and at MatchOver and prints it to its log;
the column is both seats' CPU over both seats' decisions. It is the bot side of the wire:
reading and writing the stream, decoding each observation, the SDK's bookkeeping and the
greedy policy, start-up left out. ``--profile DIR`` also runs each bot under cProfile and
leaves its log, with the profile sorted by own time, in DIR. The row "on grpc.aio" plays (b)
with ``Bot.run()`` on the event loop (as on a grpcio without the blocking stream,
``spite_sdk.stream``) instead of its default blocking stream.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BOT_CPU = "bench: bot CPU"
BOT_WALL = "bench: bot wall"


def run_as_bot(script: str) -> None:
    """Run a Python SDK bot script as ``__main__``, printing its CPU time from its first
    GameStart to MatchOver to stderr (its log); with ``SPITE_BENCH_PROFILE=1`` under cProfile.
    Runs inside the bot's sandbox: only the standard library and the SDK are importable."""
    import runpy

    from spite_sdk import Bot

    if os.environ.get("SPITE_BENCH_STREAM") == "aio":  # Bot.run() as where grpcio has no blocking stream
        try:
            from spite_sdk import stream
        except ImportError:  # an SDK from before the blocking stream: grpc.aio is all it has
            pass
        else:
            stream.supported = lambda channel: False  # type: ignore[assignment]
    marks: dict[str, float] = {}
    profiler = None
    if os.environ.get("SPITE_BENCH_PROFILE") == "1":
        import cProfile

        profiler = cProfile.Profile()
    game_start, match_over = Bot.on_game_start, Bot.on_match_over

    def on_game_start(self: Any, game_number: int, observation: Any) -> None:
        marks.setdefault("start", time.process_time())
        marks.setdefault("wall", time.perf_counter())
        game_start(self, game_number, observation)

    def on_match_over(self: Any, result: Any) -> None:
        print(f"{BOT_CPU} {time.process_time() - marks.get('start', 0.0):.6f} s", file=sys.stderr, flush=True)
        print(f"{BOT_WALL} {time.perf_counter() - marks.get('wall', 0.0):.6f} s", file=sys.stderr, flush=True)
        if profiler is not None:  # now: the referee may stop the process once the match is over
            import pstats

            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(40)
        match_over(self, result)

    Bot.on_game_start, Bot.on_match_over = on_game_start, on_match_over  # type: ignore[method-assign]
    sys.argv = [script]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    if profiler is not None:
        profiler.enable()
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__" and sys.argv[1:2] == ["--as-bot"]:  # a bot process, in its sandbox
    run_as_bot(sys.argv[2])
    sys.exit(0)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import echo  # noqa: E402  (bench/echo.py)

from referee.core.deadlines import TimeControl  # noqa: E402
from referee.core.match import MatchConfig, Policy  # noqa: E402
from referee.local import play_local_match  # noqa: E402
from referee.processes.manifest import BotManifest, load_manifest  # noqa: E402
from spite_engine import parse_rules  # noqa: E402
from tests.inprocess import play_match  # noqa: E402

TIME = TimeControl(decision_ms=5000, bank_ms=30_000, connect_ms=30_000)


def percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def in_process(config: MatchConfig) -> dict[str, Any]:
    from spite_engine import GameState, observe
    from spite_sdk.policies import greedy_move

    decisions = 0
    started = time.perf_counter()
    endings = []
    for number in range(config.games):
        state = GameState.new(config.rules, config.game_seed(number))
        while state.outcome is None:
            state.apply(greedy_move(observe(state, state.to_move)))
            decisions += 1
        endings.append(state.outcome.ending.value)
    elapsed = time.perf_counter() - started
    return {"variant": "in process", "decisions": decisions, "moves": decisions, "seconds": elapsed,
            "decisions_per_s": decisions / elapsed, "p50_us": None, "p99_us": None, "endings": endings,
            "bot_cpu_us": None,
            "outcomes": [o.to_dict() for o in play_match(config, ["greedy"] * config.rules.players)]}


def measured(bot: BotManifest, profile: bool, aio: bool = False) -> BotManifest:
    """``bot`` (a Python SDK bot: ``python bot.py``) run under ``--as-bot``, which logs its CPU time."""
    python, script = bot.command
    env = dict(bot.env)
    if profile:
        env["SPITE_BENCH_PROFILE"] = "1"
    if aio:
        env["SPITE_BENCH_STREAM"] = "aio"
    return BotManifest(name=bot.name, command=(python, str(Path(__file__).resolve()), "--as-bot",
                                               str((bot.workdir / script).resolve())),
                       workdir=bot.workdir, language=bot.language, env=env, transport=bot.transport,
                       stdio_format=bot.stdio_format)


def logged_seconds(logs: list[Path | None], mark: str) -> list[float] | None:
    """The seconds the ``--as-bot`` wrapper logged under ``mark``, one per bot (None if any is missing)."""
    values = []
    for log in logs:
        lines = [line for line in (log.read_text(errors="replace").splitlines() if log and log.exists() else [])
                 if line.startswith(mark)]
        if not lines:
            return None
        values.append(float(lines[-1].split()[3]))
    return values


def over_wire(label: str, config: MatchConfig, bots: list[BotManifest], *,
              profile_dir: Path | None = None) -> dict[str, Any]:
    for bot in {b.name: b for b in bots}.values():
        bot.run_build()
    with tempfile.TemporaryDirectory(prefix="spite-bench-logs-") as scratch:
        started = time.perf_counter()
        result = asyncio.run(play_local_match(bots, config, log_dir=Path(scratch)))
        elapsed = time.perf_counter() - started
        cpu, walls = logged_seconds(result.logs, BOT_CPU), logged_seconds(result.logs, BOT_WALL)
        if profile_dir is not None:
            profile_dir.mkdir(parents=True, exist_ok=True)
            for log in result.logs:
                if log is not None and log.exists():
                    shutil.copy(log, profile_dir / f"{label.split(',')[-1].strip().replace(' ', '-')}-{log.name}")
    seats = [s.report for s in result.match.seats]
    times = [t for r in seats for t in r.decision_us]
    decisions = sum(r.decisions for r in seats)
    summary = result.match.summary()
    faults = sum(r.timeouts + r.illegal_moves + r.malformed + r.crashes for r in seats)
    return {"variant": label, "decisions": decisions, "seconds": elapsed, "decisions_per_s": decisions / elapsed,
            "p50_us": percentile(times, 0.5), "p99_us": percentile(times, 0.99), "faults": faults,
            "bot_cpu_us": None if cpu is None or not decisions else sum(cpu) / decisions * 1e6,
            # play: from the first GameStart to MatchOver as the bots saw it (start-up left out)
            "play_decisions_per_s": decisions / max(walls) if walls and max(walls) > 0 else None,
            "moves": sum(g["moves"] for g in summary["games"]),
            "endings": [g["outcome"]["ending"] for g in summary["games"]],
            "outcomes": [g["outcome"] for g in summary["games"]]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--bot", action="append", default=[], metavar="LABEL=MANIFEST",
                        help="also measure this bot manifest playing greedy against itself")
    parser.add_argument("--both-transports", action="store_true",
                        help="measure each --bot twice: on gRPC and on protobuf frames, whatever its manifest says")
    parser.add_argument("--bots-only", action="store_true",
                        help="leave out the Python SDK rows: in process, then the --bot rows only")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="run the Python SDK bots under cProfile and keep their logs (the profiles) in DIR")
    args = parser.parse_args()
    rules = parse_rules(args.rules)
    config = MatchConfig(rules, ["greedy"] * rules.players, TIME, args.games, args.seed, Policy.FORFEIT)
    greedy = load_manifest(ROOT / "sample_bots" / "greedy")
    plan = BotManifest(name="greedy-plan", command=greedy.command, workdir=greedy.workdir,
                       env={"SPITE_GREEDY_PLAN": "1"})
    stdio = BotManifest(name="stdio-greedy", command=(sys.executable, str(ROOT / "tests" / "bots" / "stdio_bot.py"),
                                                      "greedy"), workdir=ROOT, transport="stdio")
    frames = BotManifest(name="greedy", command=greedy.command, workdir=greedy.workdir, transport="stdio",
                         stdio_format="protobuf")
    greedy = BotManifest(name="greedy", command=greedy.command, workdir=greedy.workdir)  # on gRPC
    profile = args.profile is not None
    rows = [in_process(config)]
    if not args.bots_only:
        rows += [
            over_wire("gRPC, Python SDK, one move per decision", config,
                      [measured(greedy, profile)] * rules.players, profile_dir=args.profile),
            over_wire("gRPC, Python SDK, plans", config, [measured(plan, profile)] * rules.players,
                      profile_dir=args.profile),
            over_wire("gRPC, Python SDK on grpc.aio, one move", config,
                      [measured(greedy, profile, aio=True)] * rules.players, profile_dir=args.profile),
            over_wire("stdio, Python SDK, protobuf frames", config,
                      [measured(frames, profile)] * rules.players, profile_dir=args.profile),
            over_wire("stdio, Python, JSON lines", config, [stdio] * rules.players)]
    for spec in args.bot:
        label, _, path = spec.partition("=")
        manifest = load_manifest(path)
        if args.both_transports:
            on_grpc = dataclasses.replace(manifest, transport="grpc", stdio_format="json")
            on_frames = dataclasses.replace(manifest, transport="stdio", stdio_format="protobuf")
            rows.append(over_wire(f"{label} on gRPC", config, [on_grpc] * rules.players))
            rows.append(over_wire(f"stdio, {label} on frames", config, [on_frames] * rules.players))
        else:
            rows.append(over_wire(label, config, [manifest] * rules.players))
    trips = max(2000, *(row["decisions"] for row in rows[1:]))
    limits = {"grpc": echo.grpc_round_trips(args.rules, trips), "pipe": echo.pipe_round_trips(args.rules, trips)}
    base = rows[0]
    for row in rows:
        row["moves_per_s"] = row["moves"] / row["seconds"]
        row["ratio_to_in_process"] = row["moves_per_s"] / base["moves_per_s"]
        row["same_games_as_in_process"] = row["outcomes"] == base["outcomes"]
        limit = limits["pipe"] if row["variant"].startswith("stdio") else limits["grpc"]
        row["ratio_to_echo"] = None if row is base else row["decisions_per_s"] / limit["per_s"]
        play = row.get("play_decisions_per_s")
        row["play_ratio_to_echo"] = None if play is None else play / limit["per_s"]
    for row in rows:
        del row["outcomes"]
    report = {"date": time.strftime("%Y-%m-%d"), "machine": platform.machine(), "python": platform.python_version(),
              "rules": rules.name, "games": args.games, "seed": args.seed, "rows": rows, "limits": limits}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{rules.name}, {args.games} games, seed {args.seed}, greedy vs greedy")
    print("moves/s: game moves per wall second; round trips: decisions asked of the bots; "
          "ratio: moves/s over in process")
    print(f"{'variant':42} {'moves':>6} {'round trips':>11} {'moves/s':>8} {'ratio':>7} {'trips/s':>8} "
          f"{'of echo':>7} {'in play':>8} {'of echo':>7} {'p50 us':>7} {'p99 us':>7} {'bot CPU':>7}  same games")
    for row in rows:
        p50 = f"{row['p50_us']:.0f}" if row["p50_us"] is not None else "-"
        p99 = f"{row['p99_us']:.0f}" if row["p99_us"] is not None else "-"
        of_echo = f"{row['ratio_to_echo']:.0%}" if row["ratio_to_echo"] is not None else "-"
        bot_cpu = f"{row['bot_cpu_us']:.0f}" if row["bot_cpu_us"] is not None else "-"
        play = f"{row['play_decisions_per_s']:.0f}" if row.get("play_decisions_per_s") else "-"
        play_echo = f"{row['play_ratio_to_echo']:.0%}" if row.get("play_ratio_to_echo") is not None else "-"
        print(f"{row['variant']:42} {row['moves']:6d} {row['decisions']:11d} {row['moves_per_s']:8.0f} "
              f"{row['ratio_to_in_process']:7.4f} {row['decisions_per_s']:8.0f} {of_echo:>7} {play:>8} {play_echo:>7} "
              f"{p50:>7} {p99:>7} {bot_cpu:>7}  {row['same_games_as_in_process']}")
    for name, label in (("grpc", "limit: bare gRPC echo, Python"),
                        ("pipe", "limit: bare JSON-lines pipe echo, Python")):
        limit = limits[name]
        print(f"{label:42} {'':6} {limit['round_trips']:11.0f} {'':8} {'':7} {limit['per_s']:8.0f} {'100%':>7} "
              f"{'':8} {'':7} {limit['p50_us']:7.0f} {limit['p99_us']:7.0f}")
    print("trips/s: round trips per wall second, bot start-up included; in play: round trips per second from the "
          "first GameStart to MatchOver (start-up left out, as the echo has none); of echo: over the echo's trips/s "
          "(stdio over the pipe echo's); bot CPU: the bot processes' CPU us per decision "
          "(first GameStart to MatchOver)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
