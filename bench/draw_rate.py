"""How often standard-rules games between the sample bots are drawn (the source of
``tournaments.ratings.DEFAULT_DRAW_PROBABILITY``).

    .venv/bin/python bench/draw_rate.py [--deals 300] [--rules standard]

Plays every ordered pairing of greedy, random and naive in process (``tests/inprocess.py``:
the sample bots' own policies and seeding, no processes), ``--deals`` deals each, and prints
the draw rate per pairing, over the league (bots against others) and in self-play.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests/inprocess.py

from referee.core.match import MatchConfig  # noqa: E402
from spite_engine import parse_rules  # noqa: E402
from spite_engine.rng import derive  # noqa: E402
from tests.inprocess import play_match  # noqa: E402

BOTS = ("greedy", "random", "naive")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--rules", default="standard")
    args = parser.parse_args()
    rules = parse_rules(args.rules)
    started = time.perf_counter()
    league = [0, 0]
    selfplay = [0, 0]
    print(f"{'seat 0':>8} {'seat 1':>8}  draws")
    for a, b in itertools.product(BOTS, repeat=2):
        draws = 0
        for deal in range(args.deals):
            seed = derive(2024, f"draw-rate:{deal}")
            outcome = play_match(MatchConfig(rules, [a, b], seed=seed), [a, b], bot_seed=deal)[0]
            draws += outcome.is_draw
        tally = selfplay if a == b else league
        tally[0] += draws
        tally[1] += args.deals
        print(f"{a:>8} {b:>8}  {draws / args.deals:6.1%}")
    print(f"league (bots against others, {league[1]} games): {league[0] / league[1]:.1%} draws")
    print(f"self-play ({selfplay[1]} games): {selfplay[0] / selfplay[1]:.1%} draws")
    print(f"rules {rules.name}, {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
