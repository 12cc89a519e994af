"""Expert iteration: learn from the searcher's choices a better policy than the tactician's.

    .venv/bin/python bench/expert.py collect --rules skip-bo+short-20 --games 800 --out /tmp/sb.jsonl
    .venv/bin/python bench/expert.py fit /tmp/sb.jsonl --out /tmp/sb-model.json
    .venv/bin/python bench/expert.py duel --rules skip-bo+short-20 --model /tmp/sb-model.json --games 2000

The searcher (``spite_sdk.search``) compares the tactician's best few plans by rollouts; what
it finds at a decision is each candidate's mean score less the tactician's first choice's.
``collect`` plays the searcher against the tactician in process (duplicate deals of a seed
apart from the benchmarks') and writes, per searched decision, each candidate's features
less the first's (``spite_sdk.apprentice.differences``: what the seat knows of the table
once the plan is played) and the search's differences, one JSON line per decision. ``fit``
fits a linear model of the differences on the features (least squares weighted by the
samples, a small ridge; the first four fifths, then the held-out fifth's error beside no
model's, then all of them) and writes its weights, which ``spite_sdk.apprentice.FITTED``
holds per rule set. ``duel`` plays, against the tactician on the benchmarks' duplicate
deals, the ``apprentice`` on the model (the tactician's candidates, the model's first), the
``searcher-apprentice`` (the searcher whose candidates' order and own turns in the rollouts
are the apprentice's), ``searcher-ordered`` (its order only, the rollouts the tactician's) or
the ``searcher`` (without it), comma-separated.

Progress goes to stderr, results (JSON) to stdout.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

import referee  # noqa: F401  # before spite_sdk imports grpc: see referee/__init__.py
from spite_engine import Move, Observation, RuleSet, parse_rules
from spite_engine.rng import derive
from spite_sdk.apprentice import FEATURES, Apprentice, candidates, differences
from spite_sdk.search import MIN_SAMPLES, Searcher

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bot_strength  # noqa: E402


def collect_deals(job: tuple[str, list[int], int, int, list[float] | None]) -> list[dict[str, Any]]:
    """Play ``deals`` (the searcher against the tactician, seats swapped; on an apprentice of
    ``weights`` when given, which then orders its candidates and plays its own turns in the
    rollouts) and return the searched decisions, each candidate's difference to the
    tactician's first choice, in the tactician's order."""
    spec, deals, master, rollouts, weights = job
    rules = parse_rules(spec)
    model = None if weights is None else Apprentice(weights)
    records: list[dict[str, Any]] = []
    for deal in deals:
        seed = derive(master, f"expert:{deal}")
        for swap in (0, 1):
            searcher = Searcher(rollouts=rollouts, apprentice=None if model is None else lambda rules: model)

            def agent(view: Observation, rng: random.Random) -> list[Move]:
                plan = searcher.decide(view, rng)
                if searcher.last is not None:
                    found, diffs = searcher.last
                    means = [sum(d) / len(d) if d else 0.0 for d in diffs]
                    counts = [len(d) for d in diffs]
                    order = [found.index(c) for c in candidates(view)[0]]  # the tactician's order
                    first = order[0]
                    records.append({"x": differences(view, [found[i] for i in order])[1:],
                                    "d": [means[i] - means[first] for i in order[1:]],
                                    "n": [counts[i] for i in order[1:]]})
                return plan

            tactician = bot_strength.make_agent("tactician", 0)
            agents = [agent, tactician] if swap == 0 else [tactician, agent]
            bot_strength.play(rules, seed, agents, bot_seed=deal)
    return records


def collect(args: argparse.Namespace) -> None:
    deals = args.games // 2
    weights = load_model(args.apprentice) if args.apprentice else None
    jobs = [(args.rules, list(range(i, deals, args.jobs * 4)), args.seed, args.rollouts, weights)
            for i in range(args.jobs * 4)]
    started = time.monotonic()
    written = 0
    with open(args.out, "w") as out, multiprocessing.Pool(args.jobs) as pool:
        for records in pool.imap_unordered(collect_deals, jobs):
            for record in records:
                out.write(json.dumps(record) + "\n")
            written += len(records)
            print(f"  {written} searched decisions, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    print(json.dumps({"rules": args.rules, "games": deals * 2, "decisions": written, "out": args.out}))


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gaussian elimination with partial pivoting (a small dense system)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            continue
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] if abs(m[i][i]) >= 1e-12 else 0.0 for i in range(n)]


def load_model(path: str) -> list[float]:
    """The weights a ``fit`` wrote to ``path``; a file that is not one exits with one line."""
    try:
        model = json.loads(Path(path).read_text())
        weights = [float(w) for w in model["weights"]]
        Apprentice(weights)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"expert.py: {path} is not a model `expert.py fit` wrote ({error}); fit one first")
    return weights


def fit(args: argparse.Namespace) -> None:
    rows: list[tuple[list[float], float, int]] = []
    try:
        with open(args.targets) as targets:
            for line in targets:
                record = json.loads(line)
                rows += [(x, d, n) for x, d, n in zip(record["x"], record["d"], record["n"]) if n >= MIN_SAMPLES]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"expert.py fit: {args.targets} is not what `expert.py collect` writes ({error})")
    if len(rows) < 5 * len(FEATURES):
        raise SystemExit(f"expert.py fit: {len(rows)} candidates in {args.targets}, too few to fit "
                         f"{len(FEATURES)} weights; collect more games")
    k = len(FEATURES)
    cut = len(rows) * 4 // 5
    train, held = rows[:cut], rows[cut:]

    def weights_on(sample: list[tuple[list[float], float, int]]) -> list[float]:
        xtx = [[0.0] * k for _ in range(k)]
        xty = [0.0] * k
        for x, d, n in sample:
            for i in range(k):
                if x[i]:
                    xty[i] += n * x[i] * d
                    for j in range(k):
                        xtx[i][j] += n * x[i] * x[j]
        total = sum(n for _, _, n in sample)
        for i in range(k):
            xtx[i][i] += args.ridge * total
        return solve(xtx, xty)

    def loss(w: list[float], sample: list[tuple[list[float], float, int]]) -> float:
        total = sum(n for _, _, n in sample)
        return sum(n * (d - sum(a * b for a, b in zip(w, x))) ** 2 for x, d, n in sample) / total

    w = weights_on(train)
    zero = [0.0] * k
    agree = sum(1 for x, d, n in held if (d > 0) == (sum(a * b for a, b in zip(w, x)) > 0))
    print(f"  {len(rows)} candidate rows; held-out squared error {loss(w, held):.3f} "
          f"(no model: {loss(zero, held):.3f}); sign agreement {agree / max(1, len(held)):.3f}", file=sys.stderr)
    w = weights_on(rows)
    for name, value in zip(FEATURES, w):
        print(f"  {name:>16} {value:+.3f}", file=sys.stderr)
    print("  for spite_sdk.apprentice.FITTED: (" + ", ".join(f"{x:.4f}" for x in w) + ")", file=sys.stderr)
    Path(args.out).write_text(json.dumps({"features": FEATURES, "weights": w}))
    print(json.dumps({"rows": len(rows), "held_out_error": loss(weights_on(train), held),
                      "no_model_error": loss(zero, held), "out": args.out}))


DUELLISTS = ("apprentice", "searcher-apprentice", "searcher-ordered", "searcher")
"""What ``duel`` plays against the tactician (see the module docstring)."""


def duel_deals(job: tuple[str, list[int], int, list[float], str, int]) -> list[float]:
    """[wins, draws, losses, CPU s] of ``first`` against the tactician over ``deals`` (seats
    swapped): ``apprentice`` (the model's), ``searcher-apprentice`` (the searcher on it) or
    ``searcher`` (without it)."""
    spec, deals, master, weights, first, rollouts = job
    rules = parse_rules(spec)
    apprentice = Apprentice(weights)
    cpu = time.process_time()
    tally = [0.0, 0.0, 0.0, 0.0]
    for deal in deals:
        seed = derive(master, f"bot-strength:{deal}")
        for swap in (0, 1):
            if first == "apprentice":
                def agent(view: Observation, rng: random.Random) -> list[Move]:
                    return apprentice(view)
            else:
                def model(rules: RuleSet) -> Apprentice:
                    return apprentice
                searcher = Searcher(rollouts=rollouts, apprentice=None if first == "searcher" else model,
                                    apprentice_rollouts=first == "searcher-apprentice")

                def agent(view: Observation, rng: random.Random) -> list[Move]:
                    return searcher.decide(view, rng)
            tactician = bot_strength.make_agent("tactician", 0)
            agents = [agent, tactician] if swap == 0 else [tactician, agent]
            outcome = bot_strength.play(rules, seed, agents, bot_seed=deal)
            mine = 0 if swap == 0 else 1
            if not outcome.winners:
                tally[1] += 1
            elif mine in outcome.winners:
                tally[0] += 1
            else:
                tally[2] += 1
    tally[3] = time.process_time() - cpu
    return tally


def duel(args: argparse.Namespace) -> None:
    weights = load_model(args.model)
    deals = args.games // 2
    chunks = args.jobs * 4
    firsts = args.first.split(",")
    unknown = set(firsts) - set(DUELLISTS)
    if unknown:
        raise SystemExit(f"expert.py duel: unknown --first {', '.join(sorted(unknown))}; known: {', '.join(DUELLISTS)}")
    for first in firsts:
        jobs = [(args.rules, list(range(i, deals, chunks)), args.seed, weights, first, args.rollouts)
                for i in range(chunks)]
        tally = [0.0] * 4
        with multiprocessing.Pool(args.jobs) as pool:
            for part in pool.imap_unordered(duel_deals, jobs):
                tally = [a + b for a, b in zip(tally, part)]
                games = tally[0] + tally[1] + tally[2]
                print(f"  {first} v tactician: {games:.0f} games, {100 * tally[0] / games:.1f}%",
                      file=sys.stderr, flush=True)
        games = tally[0] + tally[1] + tally[2]
        low, high = bot_strength.wilson(tally[0] + tally[1] / 2, int(games))
        print(json.dumps({"rules": args.rules, "first": first, "games": games, "wins": tally[0], "draws": tally[1],
                          "losses": tally[2], "win_pct": round(100 * (tally[0] + tally[1] / 2) / games, 1),
                          "interval": [round(100 * low, 1), round(100 * high, 1)], "cpu_s": round(tally[3])}),
              flush=True)


def count(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low:,} to {high:,}, got {text!r}")
        return value
    return parse


def rule_set(text: str) -> str:
    """An argparse type: a rule-set spec ``parse_rules`` accepts, kept as text."""
    try:
        parse_rules(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error))
    return text


def ridge(text: str) -> float:
    """An argparse type: the ridge, from 0 to 1 (a share of the total sample weight)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--rules", type=rule_set, default="skip-bo+short-20")
    c.add_argument("--games", type=count(2, 1_000_000), default=400)
    c.add_argument("--seed", type=int, default=31)
    c.add_argument("--rollouts", type=count(12, 100_000), default=120)
    c.add_argument("--jobs", type=count(1, 64), default=2)
    c.add_argument("--apprentice", default="", metavar="MODEL",
                   help="a model fit wrote: the searcher on that apprentice (the next round)")
    c.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("targets")
    f.add_argument("--ridge", type=ridge, default=1e-3)
    f.add_argument("--out", required=True)
    d = sub.add_parser("duel")
    d.add_argument("--rules", type=rule_set, default="skip-bo+short-20")
    d.add_argument("--model", required=True)
    d.add_argument("--games", type=count(2, 1_000_000), default=2000)
    d.add_argument("--seed", type=int, default=2026)
    d.add_argument("--first", default="apprentice", help="comma-separated, of: " + ", ".join(DUELLISTS))
    d.add_argument("--rollouts", type=count(12, 100_000), default=120)
    d.add_argument("--jobs", type=count(1, 64), default=2)
    args = parser.parse_args()
    if args.command in ("collect", "fit"):
        out = Path(args.out).resolve()
        if not out.parent.is_dir():
            parser.error(f"--out: no folder {out.parent} to write {out.name} in")
    {"collect": collect, "fit": fit, "duel": duel}[args.command](args)


if __name__ == "__main__":
    main()
