"""How strong the sample bots are: duplicate-deal matches in process, with 95% intervals.

    .venv/bin/python bench/bot_strength.py --rules skip-bo+short-20 --pairs planner:naive --games 10000
    .venv/bin/python bench/bot_strength.py --rules standard --games 2000          # every pairing
    .venv/bin/python bench/bot_strength.py --rules standard --pairs sampler:planner --games 300 --samples 8
    .venv/bin/python bench/bot_strength.py --rules skip-bo+short-20 --pairs tactician:h13-like --games 2000
    .venv/bin/python bench/bot_strength.py --rules standard --pairs sampler:planner --games 100 --referee

Each deal (a seed derived from ``--seed`` and the deal number) is played twice with the
seats swapped, so both bots get the same cards and the same first move in turn; ``--games``
counts games (two per deal). Bots are the sample bots' own code run in process on the
engine's observations: ``greedy``, ``random``, ``naive`` (``spite_sdk.policies``, seeded as
the sample bots seed themselves), ``skipbo-naive`` and ``h13-like`` (``spite_sdk.rivals``),
``planner`` (``spite_sdk.planning``), ``tactician`` (``spite_sdk.tactics``), ``apprentice``
(``spite_sdk.apprentice``; the tactician where it has no fit),
plans played the way the referee plays a plan, and ``sampler``
(``sample_bots/sampler/bot.py``) with a fixed ``--samples`` per sampled decision instead of
its clock, so runs are reproducible; ``sampler-t`` is the sampler on the tactician
(``SPITE_SAMPLER_BASE=tactician``: its candidates and its rollouts). ``searcher-oracle`` is
the searcher handed the true state as its only world instead of sampled ones: clairvoyant,
so not a bot, but the bound on what better-inferred worlds could give its search;
``searcher-hands`` is handed the rivals' true hands only (everything else hidden re-dealt in
each world): the bound on what reading the rivals' hands could give.

For each pairing it prints the first bot's wins / draws / losses, its win rate with a
Wilson 95% interval, how the deals went for it (``++`` both games won, ``+-`` one each,
``--`` both lost, ``d`` a draw in either), the share of stalemates (and of other draws), the
share of games stopped by the turn cap (whatever their result: adjudicated, such a game
usually has a winner, so W/D/L alone do not show it) and the CPU seconds spent. The deals of every pairing go to one
pool of ``--jobs`` processes (default 2: both cores), so pairings run side by side; ``--markdown`` repeats the rows as a
table for docs/bots.md.

``--referee`` plays the same kind of duplicate deals through the real referee instead, the
bots as processes started from their bot.toml, under a time control (``--decision-ms``,
``--bank-ms``; default 1 s and 10 s), two matches at a time (one per seat order): slower by
far, but the only way to measure a bot that spends its clock, like the sampler.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

import referee  # noqa: F401  # before spite_sdk imports grpc: see referee/__init__.py
from spite_engine import Ending, GameState, Outcome, RuleSet, observe, parse_rules
from spite_engine.rng import derive
from spite_sdk import policies
from spite_sdk.planning import plan_turn
from spite_sdk.rivals import h13_move, skipbo_naive_move
from spite_sdk.tactics import WEIGHTS as TACTICIAN_WEIGHTS
from spite_sdk.tactics import tactician_plan

ROOT = Path(__file__).resolve().parents[1]
BOTS = ("tactician", "apprentice", "planner", "searcher", "searcher-oracle", "searcher-hands", "sampler", "sampler-t",
        "greedy", "random", "naive", "skipbo-naive", "h13-like")

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


ROLLOUTS = 160
"""The searcher's rollouts per searched decision in process (``--rollouts``)."""
SEARCHER_Z: float | None = None
"""The searcher's significance gate in standard errors (``--searcher-z``; None: its own)."""
SEARCHER_OPTIONS: dict[str, Any] = {}
"""More of the searcher's settings (``--searcher-options``: keyword arguments of
``spite_sdk.search.Searcher``), for experiments."""


def make_agent(name: str, samples: int, weights: dict[str, float] | None = None) -> Agent:
    """The named bot as an in-process agent; ``weights`` change some of the tactician's
    (:data:`spite_sdk.tactics.WEIGHTS`), for ablations."""
    if name in ("searcher", "searcher-oracle", "searcher-hands"):
        from spite_sdk.search import Searcher
        options: dict[str, Any] = {**SEARCHER_OPTIONS, **({} if SEARCHER_Z is None else {"z": SEARCHER_Z})}
        if "value" in options:  # {"value": false}: version 3's count of stock cards at the leaf
            from spite_sdk.value import value_for
            options["value"] = value_for if options["value"] else None
        if name == "searcher-oracle":
            options["worlds"] = lambda view, rng: TRUE_STATE[0].clone()
        elif name == "searcher-hands":
            options["worlds"] = true_hands
        if weights:  # the searcher's own candidates and turns in its rollouts
            options["weights"] = {**TACTICIAN_WEIGHTS, **weights}
        searcher = Searcher(rollouts=ROLLOUTS, **options)  # no clock: a fixed count, reproducible anywhere
        return lambda view, rng: searcher.decide(view, rng)
    if name == "apprentice":
        from spite_sdk.apprentice import apprentice_for

        def apprentice(view: Any, rng: random.Random) -> list[Any]:
            model = apprentice_for(view.rules)
            return tactician_plan(view) if model is None else model(view)
        return apprentice
    if name == "planner":
        return lambda view, rng: plan_turn(view)
    if name == "tactician":
        tuned = None if not weights else {**TACTICIAN_WEIGHTS, **weights}
        return lambda view, rng: tactician_plan(view, tuned)
    if name in ("sampler", "sampler-t"):
        base = "tactician" if name == "sampler-t" else "planner"
        sampler = load_sampler_module().Sampler(budget_ms=None, samples=samples, base=base)
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
    """Play a plan as the referee does (referee/core/match.py): up to the first move that reveals
    something to ``seat`` (its draw, its stock's next card), ends its turn or ends the game."""
    for number, move in enumerate(moves):
        start = len(state.log)
        if number:
            state.apply_checked(move, seat)  # plan moves after the first are checked, as the referee does
        else:
            state.apply(move)
        if state.news_for(seat, start):
            return


TRUE_STATE: list[GameState] = []
"""The game :func:`play` is playing, for ``searcher-oracle`` and ``searcher-hands`` alone: the
only agents handed more than their observation (bounds, never bots)."""


def true_hands(view: Any, rng: random.Random) -> GameState:
    """A world for ``searcher-hands``: the true state with every hidden card but the other
    hands' re-dealt (the cards under the stock tops, the draw pile, the set-aside piles, and
    the order of future shuffles): what a perfect reading of the rivals' hands would give."""
    state = TRUE_STATE[0].clone()
    shown = [len(stock.visible) for stock in view.stocks]
    pool = state.draw_pile + state.set_aside
    pool += [c for stock, top in zip(state.stocks, shown) for c in stock[:len(stock) - top]]
    rng.shuffle(pool)
    state.draw_pile, pool = pool[:len(state.draw_pile)], pool[len(state.draw_pile):]
    state.set_aside, pool = pool[:len(state.set_aside)], pool[len(state.set_aside):]
    for number, (stock, top) in enumerate(zip(state.stocks, shown)):
        below = len(stock) - top
        state.stocks[number], pool = pool[:below] + stock[below:], pool[below:]
    assert not pool
    state.seed = rng.randrange(1 << 62)
    return state


def play(rules: RuleSet, seed: int, agents: list[Agent], bot_seed: int) -> Outcome:
    """Play one deal to the end with one agent per seat; each sees only its observation
    (but the two bounds, see :data:`TRUE_STATE`)."""
    state = GameState.new(rules, seed)
    TRUE_STATE[:] = [state]
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


def run_deals(job: tuple[str, str, str, list[int], int, int, dict[str, float]]) -> list[float]:
    """Play ``deals`` of ``a`` against ``b`` (seats swapped within each deal); returns, for
    ``a``: [wins, draws, losses, stalemates, other draws, deals both won, deals split one
    win each, deals both lost, deals with a draw, CPU seconds, games stopped by the turn cap]."""
    spec, a, b, deals, samples, master, weights = job
    cpu = time.process_time()
    rules = parse_rules(spec)
    tally = [0.0] * 11
    players = rules.players
    for deal in deals:
        seed = derive(master, f"bot-strength:{deal}")
        results = []
        for swap in (0, 1):
            # a on even seats, b on odd seats (with partners: a team each); swapped in the second game.
            names = [(a if (seat + swap) % 2 == 0 else b) for seat in range(players)]
            agents = [make_agent(name, samples, weights if (seat + swap) % 2 == 0 else None)
                      for seat, name in enumerate(names)]
            outcome = play(rules, seed, agents, bot_seed=deal)
            a_seats = {s for s in range(players) if (s + swap) % 2 == 0}  # by seat: a and b may be one bot
            tally[10] += outcome.ending is Ending.TURN_CAP
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


def run_referee_deals(spec: str, a: str, b: str, deals: int, master: int, decision_ms: int, bank_ms: int,
                      env: dict[str, dict[str, str]], per_match: int, times: list[int] | None = None) -> list[float]:
    """Play ``deals`` of ``a`` against ``b`` through the real referee, the bots as processes
    started from their bot.toml, under a time control: a block of ``per_match`` deals is a
    match of ``a`` against ``b`` and one of ``b`` against ``a`` on the same seed, run side
    by side (game k of both is dealt alike, and the other seat moves first). Returns the
    same tally as :func:`run_deals` (the turn caps as element 12), plus the timeouts of ``a``
    and of ``b`` (elements 10 and 11); element 9 is wall seconds, not CPU. ``times`` (when
    given) gets every decision time of ``a``, in microseconds, as the referee measured it."""
    import asyncio
    import dataclasses

    from referee.core.deadlines import TimeControl
    from referee.core.match import MatchConfig, Policy
    from referee.local import play_local_match
    from tournaments.bot_specs import resolve_bot

    rules = parse_rules(spec)
    if rules.players != 2:
        raise SystemExit("--referee plays two-seat rule sets only")
    manifests = {name: resolve_bot(name) for name in (a, b)}
    for name, extra in env.items():
        manifests[name] = dataclasses.replace(manifests[name], env={**manifests[name].env, **extra})
    control = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms, connect_ms=20_000)
    tally = [0.0] * 13
    started = time.perf_counter()

    async def block(number: int, games: int) -> None:
        seed = derive(master, f"bot-strength-referee:{number}")
        lineups = ([a, b], [b, a])
        configs = [MatchConfig(rules, names, control, games=games, seed=seed, policy=Policy.SUBSTITUTE)
                   for names in lineups]
        results = await asyncio.gather(*(play_local_match([manifests[n] for n in names], config, bot_seed=number)
                                         for names, config in zip(lineups, configs)))
        by_game: dict[int, list[str]] = {}
        for names, result in zip(lineups, results):
            summary = result.match.summary()
            a_seat = names.index(a)
            if times is not None:
                times.extend(result.match.seats[a_seat].report.decision_us)
            tally[10] += summary["seats"][a_seat]["timeouts"]
            tally[11] += summary["seats"][1 - a_seat]["timeouts"]
            for game in summary["games"]:
                outcome = game["outcome"]
                winners = outcome["winners"]
                tally[12] += outcome["ending"] == Ending.TURN_CAP.value
                if not winners:
                    tally[1] += 1
                    tally[3 if outcome["ending"] == Ending.STALEMATE.value else 4] += 1
                    mark = "d"
                elif a_seat in winners:
                    tally[0] += 1
                    mark = "w"
                else:
                    tally[2] += 1
                    mark = "l"
                by_game.setdefault(game["game_number"], []).append(mark)
        for marks in by_game.values():
            if "d" in marks or len(marks) != 2:
                tally[8] += 1
            else:
                tally[5 + {2: 0, 1: 1, 0: 2}[marks.count("w")]] += 1

    async def all_blocks() -> None:
        done = 0
        number = 0
        while done < deals:
            games = min(per_match, deals - done)
            await block(number, games)
            done += games
            number += 1
            print(f"  ... {done}/{deals} deals, {a} {int(tally[0])}-{int(tally[1])}-{int(tally[2])}, "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)

    asyncio.run(all_blocks())
    tally[9] = time.perf_counter() - started
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
    global ROLLOUTS, SEARCHER_Z, SEARCHER_OPTIONS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--games", type=int, default=200, help="games per pairing (two per deal)")
    parser.add_argument("--pairs", default="",
                        help="a:b,c:d (default: every pairing of planner, greedy, random, naive)")
    parser.add_argument("--samples", type=int, default=8, help="the sampler's samples per sampled decision")
    parser.add_argument("--rollouts", type=int, default=ROLLOUTS,
                        help="the searcher's rollouts per searched decision (default %(default)s)")
    parser.add_argument("--searcher-z", type=float, default=None,
                        help="the searcher's gate: a gain must be this many standard errors "
                             "(default: its own, spite_sdk.search.Z)")
    parser.add_argument("--searcher-options", default="", metavar="JSON",
                        help="more of the searcher's settings, e.g. '{\"horizon\": 3}' (Searcher's keyword arguments)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes (default: 2, or 1 on a one-core machine)")
    parser.add_argument("--markdown", action="store_true", help="also print the rows as a markdown table")
    parser.add_argument("--referee", action="store_true",
                        help="play through the referee, bots as processes, under --decision-ms / --bank-ms")
    parser.add_argument("--decision-ms", type=int, default=1000)
    parser.add_argument("--bank-ms", type=int, default=10_000)
    parser.add_argument("--deals-per-match", type=int, default=10)
    parser.add_argument("--env", action="append", default=[], metavar="BOT:NAME=VALUE",
                        help="extra environment for a bot process with --referee (e.g. sampler:SPITE_SAMPLER_MS=400)")
    parser.add_argument("--weights", default="", metavar="JSON",
                        help="change some of the tactician's weights, e.g. '{\"pile_card\": 2.5}', for the "
                             "first bot of each pairing only (ablations; tactician:tactician plays them against "
                             "the shipped ones)")
    args = parser.parse_args()
    weights: dict[str, float] = json.loads(args.weights) if args.weights else {}
    unknown = set(weights) - set(TACTICIAN_WEIGHTS)
    if unknown:
        raise SystemExit(f"--weights: unknown {', '.join(sorted(unknown))}; known: {', '.join(TACTICIAN_WEIGHTS)}")
    pairs = parse_pairs(args.pairs)
    deals = max(1, args.games // 2)
    ROLLOUTS = args.rollouts  # read by make_agent in this process and, forked, in the pool's
    SEARCHER_Z = args.searcher_z
    SEARCHER_OPTIONS = json.loads(args.searcher_options) if args.searcher_options else {}
    if args.referee:
        env: dict[str, dict[str, str]] = {}
        for item in args.env:
            bot, _, assignment = item.partition(":")
            name, _, value = assignment.partition("=")
            env.setdefault(bot, {})[name] = value
        print(f"rules {args.rules}, {2 * deals} games per pairing (duplicate deals) through the referee, "
              f"decision {args.decision_ms} ms, bank {args.bank_ms} ms, seed {args.seed}, env {env}", flush=True)
        for a, b in pairs:
            times: list[int] = []
            total = run_referee_deals(args.rules, a, b, deals, args.seed, args.decision_ms, args.bank_ms, env,
                                      args.deals_per_match, times)
            times.sort()
            p50, p99 = ((times[min(len(times) - 1, int(q * len(times)))] / 1000 for q in (0.5, 0.99))
                        if times else (0.0, 0.0))
            w, d, lost = (int(x) for x in total[:3])
            games = w + d + lost
            low, high = wilson(w, games)
            split = " / ".join(str(int(x)) for x in total[5:9])
            print(f"| {a} | {b} | {games:,} | {w:,} | {d:,} | {lost:,} | **{w / games:.1%}** | "
                  f"[{low:.1%}, {high:.1%}] | "
                  f"{split} | {total[3] / games:.1%} | turn cap {total[12] / games:.1%} | "
                  f"timeouts {int(total[10])} / {int(total[11])} | "
                  f"{a} decision p50 / p99 {p50:.0f} / {p99:.0f} ms (limit {args.decision_ms} ms) | "
                  f"{total[9]:.0f} s wall |", flush=True)
        return
    print(f"rules {args.rules}, {2 * deals} games per pairing (duplicate deals), seed {args.seed}, "
          f"sampler {args.samples} samples/decision, searcher {args.rollouts} rollouts"
          + (f" {SEARCHER_OPTIONS}" if SEARCHER_OPTIONS else "") + f", {args.jobs} jobs"
          + (f", tactician weights changed: {weights}" if weights else ""), flush=True)
    print(f"{'bot':>12} {'vs':>12} {'games':>6} {'W':>6} {'D':>5} {'L':>6} {'win %':>7} {'95% interval':>16} "
          f"{'deals ++/+-/--/d':>20} {'stalemate':>9} {'other draw':>10} {'turn cap':>8} {'cpu s':>7}", flush=True)
    # Every pairing's deals are cut into chunks, all dealt to one pool: both cores stay busy
    # across pairings, and a pairing's row is printed as soon as its last chunk is in.
    # With one job, chunks of 5 deals, and a running tally on stderr after each: a long run
    # stopped early (a time limit) still says how far it got.
    chunks_per_pair = max(1, args.jobs * 4) if args.jobs > 1 else max(1, deals // 5)
    jobs = [(args.rules, a, b, list(range(i, deals, chunks_per_pair)), args.samples, args.seed, weights)
            for a, b in pairs for i in range(min(chunks_per_pair, deals))]
    per_pair = len(jobs) // len(pairs)
    rows: list[tuple[Any, ...]] = []
    started = time.perf_counter()
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    try:
        results = pool.imap(run_deals, jobs) if pool is not None else map(run_deals, jobs)
        parts: list[list[float]] = []
        for part in results:
            parts.append(part)
            if args.jobs == 1:
                running = [sum(p[i] for p in parts) for i in range(3)]
                played = sum(running)
                low, high = wilson(running[0], int(played))
                print(f"  {pairs[len(rows)][0]} v {pairs[len(rows)][1]}: {int(played)} games, W/D/L "
                      f"{'/'.join(str(int(x)) for x in running)}, {running[0] / played:.1%} [{low:.1%}, {high:.1%}]",
                      file=sys.stderr, flush=True)
            if len(parts) < per_pair:
                continue
            a, b = pairs[len(rows)]
            total = [sum(p[i] for p in parts) for i in range(11)]
            parts = []
            w, d, lost, stale, other = (int(x) for x in total[:5])
            games = w + d + lost
            low, high = wilson(w, games)
            split = "/".join(str(int(x)) for x in total[5:9])
            capped = total[10] / games
            rows.append((a, b, games, w, d, lost, w / games, low, high, split, stale / games, other / games, capped,
                         total[9]))
            print(f"{a:>12} {b:>12} {games:>6} {w:>6} {d:>5} {lost:>6} {w / games:>7.1%} "
                  f"{f'[{low:.1%}, {high:.1%}]':>16} {split:>20} {stale / games:>9.1%} {other / games:>10.1%} "
                  f"{capped:>8.1%} {total[9]:>7.0f}", flush=True)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    print(f"wall {time.perf_counter() - started:.0f} s", flush=True)
    if args.markdown:
        print()
        print("| bot | vs | games | W | D | L | win % | 95% interval | deals ++ / +- / -- / draw | stalemate | "
              "turn cap | CPU s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for row in rows:
            a, b, games, wins, draws, losses, rate, low, high, split, stale, _, capped, cpu = row
            print(f"| {a} | {b} | {games:,} | {wins:,} | {draws:,} | {losses:,} | **{rate:.1%}** | "
                  f"[{low:.1%}, {high:.1%}] | {split.replace('/', ' / ')} | {stale:.1%} | {capped:.1%} | {cpu:.0f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
