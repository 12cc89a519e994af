"""How strong the sample bots are: duplicate-deal matches in process, with 95% intervals.

    .venv/bin/python bench/bot_strength.py --rules skip-bo+short-20 --pairs planner:naive --games 10000
    .venv/bin/python bench/bot_strength.py --rules standard --games 2000          # every pairing
    .venv/bin/python bench/bot_strength.py --rules standard --pairs sampler:planner --games 300 --samples 8

Each deal (a seed derived from ``--seed`` and the deal number) is played twice with the
seats swapped, so both bots get the same cards and the same first move in turn; ``--games``
counts games (two per deal). Bots are the sample bots' own code run in process on the
engine's observations: ``greedy``, ``random``, ``naive`` (``spite_sdk.policies``, seeded as
the sample bots seed themselves), ``skipbo-naive`` and ``h13-like`` (``spite_sdk.rivals``),
``planner`` (``spite_sdk.planning``), ``tactician`` (``sample_bots/tactician/strategy.py``),
plans played the way the referee plays a plan, and ``sampler``
(``sample_bots/sampler/bot.py``) with a fixed ``--samples`` per sampled decision instead of
its clock, so runs are reproducible.

For each pairing it prints the first bot's wins / draws / losses, its win rate with a
Wilson 95% interval, how the deals went for it (``++`` both games won, ``+-`` one each,
``--`` both lost, ``d`` a draw in either), the share of stalemates (and of other draws) and
the CPU seconds spent. The deals of every pairing go to one pool of ``--jobs`` processes
(default 2: both cores), so pairings run side by side; ``--markdown`` repeats the rows as a
table for docs/bots.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

from referee.rules import Ending, GameState, Outcome, RuleSet, observe, parse_rules
from referee.rules.rng import derive
from spite_sdk import policies
from spite_sdk.planning import plan_turn
from spite_sdk.rivals import h13_move, skipbo_naive_move

ROOT = Path(__file__).resolve().parents[1]
BOTS = ("tactician", "planner", "sampler", "greedy", "random", "naive", "skipbo-naive", "h13-like")

Agent = Callable[[Any, random.Random], list[Any]]
"""An in-process bot: (engine observation, the game's rng) -> a plan (one move or more)."""


_MODULES: dict[str, Any] = {}


def load_sample_module(bot: str, file: str = "bot.py") -> Any:
    """``sample_bots/<bot>/<file>`` as a module (sample bots are scripts, not packages)."""
    key = f"{bot}/{file}"
    if key not in _MODULES:
        name = f"sample_bot_{bot}_{Path(file).stem}".replace("-", "_")
        spec = importlib.util.spec_from_file_location(name, ROOT / "sample_bots" / bot / file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _MODULES[key] = module
    return _MODULES[key]


def load_sampler_module() -> Any:
    """``sample_bots/sampler/bot.py`` as a module."""
    return load_sample_module("sampler")


def make_agent(name: str, samples: int) -> Agent:
    """The named bot as an in-process agent."""
    if name == "planner":
        return lambda view, rng: plan_turn(view)
    if name == "tactician":
        tactician_plan = load_sample_module("tactician", "strategy.py").tactician_plan
        return lambda view, rng: tactician_plan(view)
    if name == "sampler":
        sampler = load_sampler_module().Sampler(budget_ms=None, samples=samples)
        return lambda view, rng: sampler.decide(view, rng)
    if name == "greedy":
        return lambda view, rng: [policies.greedy_move(view)]
    if name == "random":
        return lambda view, rng: [policies.random_move(view, rng)]
    if name == "naive":
        return lambda view, rng: [policies.naive_move(view, rng)]
    if name == "skipbo-naive":
        return lambda view, rng: [skipbo_naive_move(view, rng)]
    if name == "h13-like":
        return lambda view, rng: [h13_move(view, rng)]
    raise SystemExit(f"unknown bot {name!r}; known: {', '.join(BOTS)}")


def apply_plan(state: GameState, moves: list[Any], seat: int) -> None:
    """Play a plan as the referee does (referee/match.py): up to the first move that reveals
    something to ``seat`` (its draw, its stock's next card), ends its turn or ends the game."""
    for number, move in enumerate(moves):
        start = len(state.log)
        if number:
            state.apply_checked(move, seat)  # plan moves after the first are checked, as the referee does
        else:
            state.apply(move)
        if state.news_for(seat, start):
            return


def play(rules: RuleSet, seed: int, agents: list[Agent], bot_seed: int) -> Outcome:
    """Play one deal to the end with one agent per seat; each sees only its observation."""
    state = GameState.new(rules, seed)
    rngs = [random.Random(f"{bot_seed}:{seat}") for seat in range(rules.players)]
    while state.outcome is None:
        seat = state.to_move
        view = observe(state, seat)
        moves = agents[seat](view, rngs[seat])
        if moves[0] not in view.legal_moves:
            raise AssertionError(f"seat {seat} chose an illegal move {moves[0]} (seed {seed})")
        apply_plan(state, moves, seat)
    return state.outcome


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% with the default ``z``)."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


DEAL_SPLIT = ("both won", "split", "both lost", "with a draw")
"""How a deal went for the first bot over its two games (one in each seat order)."""


def run_deals(job: tuple[str, str, str, list[int], int, int]) -> list[float]:
    """Play ``deals`` of ``a`` against ``b`` (seats swapped within each deal); returns, for
    ``a``: [wins, draws, losses, stalemates, other draws, deals both won, deals split one
    win each, deals both lost, deals with a draw, CPU seconds]."""
    spec, a, b, deals, samples, master = job
    cpu = time.process_time()
    rules = parse_rules(spec)
    tally = [0.0] * 10
    players = rules.players
    for deal in deals:
        seed = derive(master, f"bot-strength:{deal}")
        results = []
        for swap in (0, 1):
            # a on even seats, b on odd seats (with partners: a team each); swapped in the second game.
            names = [(a if (seat + swap) % 2 == 0 else b) for seat in range(players)]
            agents = [make_agent(name, samples) for name in names]
            outcome = play(rules, seed, agents, bot_seed=deal)
            a_seats = {s for s in range(players) if names[s] == a}
            if not outcome.winners:
                tally[1] += 1
                tally[3 if outcome.ending is Ending.STALEMATE else 4] += 1
                results.append("d")
            elif a_seats & set(outcome.winners):
                tally[0] += 1
                results.append("w")
            else:
                tally[2] += 1
                results.append("l")
        if "d" in results:
            tally[8] += 1
        else:
            tally[5 + {2: 0, 1: 1, 0: 2}[results.count("w")]] += 1
    tally[9] = time.process_time() - cpu
    return tally


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """``a:b,c:d`` as pairs; an empty text: every pairing of the four fast bots."""
    if not text:
        return list(itertools.combinations(("planner", "greedy", "random", "naive"), 2))
    pairs = []
    for item in text.split(","):
        a, sep, b = item.partition(":")
        if not sep or a not in BOTS or b not in BOTS:
            raise SystemExit(f"--pairs: {item!r} is not a:b with a and b among {', '.join(BOTS)}")
        pairs.append((a, b))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--games", type=int, default=200, help="games per pairing (two per deal)")
    parser.add_argument("--pairs", default="", help="a:b,c:d (default: every pairing of planner, greedy, random, naive)")
    parser.add_argument("--samples", type=int, default=8, help="the sampler's samples per sampled decision")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes (default: 2, or 1 on a one-core machine)")
    parser.add_argument("--markdown", action="store_true", help="also print the rows as a markdown table")
    args = parser.parse_args()
    pairs = parse_pairs(args.pairs)
    deals = max(1, args.games // 2)
    print(f"rules {args.rules}, {2 * deals} games per pairing (duplicate deals), seed {args.seed}, "
          f"sampler {args.samples} samples/decision, {args.jobs} jobs", flush=True)
    print(f"{'bot':>12} {'vs':>12} {'games':>6} {'W':>6} {'D':>5} {'L':>6} {'win %':>7} {'95% interval':>16} "
          f"{'deals ++/+-/--/d':>20} {'stalemate':>9} {'other draw':>10} {'cpu s':>7}", flush=True)
    # Every pairing's deals are cut into chunks, all dealt to one pool: both cores stay busy
    # across pairings, and a pairing's row is printed as soon as its last chunk is in.
    chunks_per_pair = max(1, args.jobs * 4) if args.jobs > 1 else 1
    jobs = [(args.rules, a, b, list(range(i, deals, chunks_per_pair)), args.samples, args.seed)
            for a, b in pairs for i in range(min(chunks_per_pair, deals))]
    per_pair = len(jobs) // len(pairs)
    rows = []
    started = time.perf_counter()
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    try:
        results = pool.imap(run_deals, jobs) if pool is not None else map(run_deals, jobs)
        parts: list[list[float]] = []
        for part in results:
            parts.append(part)
            if len(parts) < per_pair:
                continue
            a, b = pairs[len(rows)]
            total = [sum(p[i] for p in parts) for i in range(10)]
            parts = []
            w, d, l, stale, other = (int(x) for x in total[:5])
            games = w + d + l
            low, high = wilson(w, games)
            split = "/".join(str(int(x)) for x in total[5:9])
            rows.append((a, b, games, w, d, l, w / games, low, high, split, stale / games, other / games, total[9]))
            print(f"{a:>12} {b:>12} {games:>6} {w:>6} {d:>5} {l:>6} {w / games:>7.1%} "
                  f"{f'[{low:.1%}, {high:.1%}]':>16} {split:>20} {stale / games:>9.1%} {other / games:>10.1%} "
                  f"{total[9]:>7.0f}", flush=True)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    print(f"wall {time.perf_counter() - started:.0f} s", flush=True)
    if args.markdown:
        print()
        print("| bot | vs | games | W | D | L | win % | 95% interval | deals ++ / +- / -- / draw | stalemate | CPU s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for a, b, games, w, d, l, rate, low, high, split, stale, _, cpu in rows:
            print(f"| {a} | {b} | {games:,} | {w:,} | {d:,} | {l:,} | **{rate:.1%}** | [{low:.1%}, {high:.1%}] | "
                  f"{split.replace('/', ' / ')} | {stale:.1%} | {cpu:.0f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
