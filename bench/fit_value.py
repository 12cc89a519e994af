#!/usr/bin/env python3
"""Fit the searcher's position value (:mod:`spite_sdk.value`) on tactician self-play.

    .venv/bin/python bench/fit_value.py --rules skip-bo+short-20 --games 2000 [--jobs 2] [--seed 77]

Plays ``--games`` tactician-v-tactician games in process (dealt from ``--seed`` under the
label ``value:<i>``, apart from ``bench/bot_strength.py``'s ``bot-strength:<i>`` deals), records
:func:`spite_sdk.value.features` at the start of every turn with whether that seat's side won
(a draw counts a half), and fits a logistic model by Newton's method (a small ridge keeps
features that never vary in the data from running off). The last fifth of the games is held
out: the report gives, on it, the log loss, the Brier score and the accuracy of

* ``constant``: the mover's share of wins, whatever the position;
* ``stock cards``: what the searcher's count of stock cards sees (both stocks' sizes and
  whether each stock top is open: the ``stock``, ``rival_stock``, ``top_open`` and
  ``rival_top_open`` features alone);
* ``value``: every feature.

The last line is the weights as :data:`spite_sdk.value.FITTED` holds them (``--json``: the
report as one JSON document on stdout instead). Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spite_engine import GameState, observe_lazy, parse_rules  # noqa: E402
from spite_engine.rng import derive  # noqa: E402
from spite_sdk.search import apply_plan  # noqa: E402
from spite_sdk.tactics import tactician_plan  # noqa: E402
from spite_sdk.value import FEATURES, features, logistic  # noqa: E402

BASELINE = ("bias", "stock", "top_open", "rival_stock", "rival_top_open")
"""The features the searcher's stock-card score reads (see the module docstring)."""
RIDGE = 1e-4
"""The ridge, per position, on every weight but the bias."""


def positions(job: tuple[str, int, list[int]]) -> list[tuple[int, list[float], float]]:
    """(game, features, the mover's result) at every turn start of the games numbered ``games``."""
    spec, seed, games = job
    rules = parse_rules(spec)
    rows: list[tuple[int, list[float], float]] = []
    for game in games:
        state = GameState.new(rules, derive(seed, f"value:{game}"))
        starts: list[tuple[int, list[float]]] = []
        turn = -1
        while state.outcome is None:
            if state.turn != turn:
                turn = state.turn
                starts.append((state.to_move, features(state)))
            seat = state.to_move
            apply_plan(state, tactician_plan(observe_lazy(state, seat)), seat)
        winners = state.outcome.winners
        for mover, row in starts:
            result = 0.5 if not winners else float(any(rules.team_of(w) == rules.team_of(mover) for w in winners))
            rows.append((game, row, result))
    return rows


def fit(rows: Sequence[Sequence[float]], labels: Sequence[float], iterations: int = 25) -> list[float]:
    """Logistic regression by Newton's method with :data:`RIDGE`."""
    k = len(rows[0])
    weights = [0.0] * k
    n = len(rows)
    for _ in range(iterations):
        gradient = [0.0] * k
        hessian = [[0.0] * k for _ in range(k)]
        for row, y in zip(rows, labels):
            p = logistic(weights, row)
            error = p - y
            w = p * (1 - p)
            for i in range(k):
                xi = row[i]
                if xi:
                    gradient[i] += error * xi
                    wxi = w * xi
                    hrow = hessian[i]
                    for j in range(i + 1):
                        hrow[j] += wxi * row[j]
        for i in range(k):
            for j in range(i):
                hessian[j][i] = hessian[i][j]
            if i:
                gradient[i] += RIDGE * n * weights[i]
                hessian[i][i] += RIDGE * n
        step = solve(hessian, gradient)
        weights = [w - s for w, s in zip(weights, step)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return weights


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix`` x = ``vector`` by Gaussian elimination with partial pivoting."""
    k = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, k):
            f = a[r][col] / a[col][col]
            if f:
                for c in range(col, k + 1):
                    a[r][c] -= f * a[col][c]
    x = [0.0] * k
    for r in range(k - 1, -1, -1):
        x[r] = (a[r][k] - sum(a[r][c] * x[c] for c in range(r + 1, k))) / a[r][r]
    return x


def scores(weights: Sequence[float], rows: Sequence[Sequence[float]], labels: Sequence[float]) -> dict[str, float]:
    """Log loss, Brier score and accuracy (a draw never counts as right) of ``weights``."""
    loss = brier = right = 0.0
    for row, y in zip(rows, labels):
        p = min(max(logistic(weights, row), 1e-12), 1 - 1e-12)
        loss -= y * math.log(p) + (1 - y) * math.log(1 - p)
        brier += (p - y) ** 2
        right += (p > 0.5) == (y == 1.0) and y != 0.5
    n = len(rows)
    return {"log_loss": loss / n, "brier": brier / n, "accuracy": right / n}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="skip-bo+short-20")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="the report as one JSON document on stdout")
    args = parser.parse_args(argv)
    if not 10 <= args.games <= 1_000_000:
        parser.error("--games must be from 10 to 1,000,000")
    if not 1 <= args.jobs <= 64:
        parser.error("--jobs must be from 1 to 64")
    rules = parse_rules(args.rules)
    if rules.players != 2:
        parser.error("the value is for two-seat rule sets")
    started = time.monotonic()
    chunks = [list(range(i, args.games, args.jobs * 8)) for i in range(args.jobs * 8)]
    data: list[tuple[int, list[float], float]] = []
    with multiprocessing.Pool(args.jobs) as pool:
        for done, rows in enumerate(pool.imap_unordered(positions, [(args.rules, args.seed, c) for c in chunks]), 1):
            data += rows
            print(f"{done}/{len(chunks)} chunks, {len(data):,} positions, {time.monotonic() - started:.0f} s",
                  file=sys.stderr)
    data.sort(key=lambda item: item[0])  # the games' order, whatever order the jobs finished in: the same sums
    cut = args.games * 4 // 5
    train = [(row, y) for game, row, y in data if game < cut]
    test = [(row, y) for game, row, y in data if game >= cut]
    report: dict[str, Any] = {"rules": args.rules, "games": args.games, "seed": args.seed,
                              "positions": len(data), "held_out": len(test), "models": {}}
    base_rate = sum(y for _, y in train) / len(train)
    constant = [math.log(base_rate / (1 - base_rate))]
    report["models"]["constant"] = scores(constant, [[1.0] for _ in test], [y for _, y in test])
    picks = [FEATURES.index(name) for name in BASELINE]
    narrow = fit([[row[i] for i in picks] for row, _ in train], [y for _, y in train])
    report["models"]["stock cards"] = scores(narrow, [[row[i] for i in picks] for row, _ in test], [y for _, y in test])
    weights = fit([row for row, _ in train], [y for _, y in train])
    report["models"]["value"] = scores(weights, [row for row, _ in test], [y for _, y in test])
    report["weights"] = dict(zip(FEATURES, weights))
    report["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.rules}: {args.games} tactician games (seed {args.seed}), {len(data):,} turn starts, "
          f"{len(test):,} held out (the last fifth of the games), {report['seconds']} s")
    print(f"{'model':<12} {'log loss':>9} {'Brier':>7} {'accuracy':>9}")
    for name, s in report["models"].items():
        print(f"{name:<12} {s['log_loss']:9.4f} {s['brier']:7.4f} {s['accuracy']:9.1%}")
    for name, w in zip(FEATURES, weights):
        print(f"  {name:<22} {w:+.4f}")
    print(f'    "{args.rules}": (' + ", ".join(f"{w:.4f}" for w in weights) + "),")
    return 0


if __name__ == "__main__":
    sys.exit(main())
