#!/usr/bin/env python3
"""What a live feed costs the referee: CPU per decision with and without each match writing
its public feed (``referee.core.feed``, a hosted ladder's live view), in the same run.

    .venv/bin/python bench/live_feed.py [--matches 50] [--seconds 5] [--rounds 3] [--json]

The match loop without a wire (bench/referee_load.py's ``run_loop``: real ``Match`` objects,
every seat answering ``move_index`` 0 at once, in this process) is run ``--rounds`` times
without feeds and with them, alternately, so that the machine's load falls on both alike.
The limit beside the feed's figure is the referee's own work per decision without it, from
the same run: a feed writes one line per move (base64 of the events' protobuf), so it adds a
small share of that and nothing per seat.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from referee_load import run_loop  # noqa: E402  (bench/referee_load.py)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=50, help="concurrent two-seat matches (1..2000, default 50)")
    parser.add_argument("--seconds", type=float, default=5.0, help="measured window per round (1..600, default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each variant (1..20, default 3)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args()
    if not 1 <= args.matches <= 2000 or not 1 <= args.seconds <= 600 or not 1 <= args.rounds <= 20:
        parser.error("--matches 1..2000, --seconds 1..600, --rounds 1..20")
    plain: list[float] = []
    fed: list[float] = []
    with tempfile.TemporaryDirectory(prefix="spite-live-bench-") as directory:
        for _ in range(args.rounds):
            plain.append(asyncio.run(run_loop(args.matches, 1.0, args.seconds, "standard"))["cpu_us_per_decision"])
            fed.append(asyncio.run(run_loop(args.matches, 1.0, args.seconds, "standard",
                                            Path(directory)))["cpu_us_per_decision"])
    without, with_feed = statistics.median(plain), statistics.median(fed)
    document = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "cpus": os.cpu_count(), "load_average": os.getloadavg(), "matches": args.matches,
                "rounds": args.rounds, "cpu_us_per_decision_without_feed": plain,
                "cpu_us_per_decision_with_feed": fed, "median_without": without, "median_with": with_feed,
                "feed_us_per_decision": with_feed - without, "feed_share": (with_feed - without) / without}
    rounds = {name: ", ".join(f"{v:.0f}" for v in values) for name, values in (("plain", plain), ("fed", fed))}
    report = [f"{document['date']}  {os.cpu_count()} CPUs  load {os.getloadavg()[0]:.1f}  {args.matches} matches, "
              f"{args.rounds} rounds of {args.seconds:g} s each",
              f"referee CPU per decision, no feed (the limit): {without:.0f} µs  (rounds: {rounds['plain']})",
              f"referee CPU per decision, with a feed:         {with_feed:.0f} µs  (rounds: {rounds['fed']})",
              f"the feed adds {with_feed - without:.0f} µs per decision, {document['feed_share']:.0%} of the "
              f"referee's own work"]
    print(json.dumps(document, indent=2) if args.json else "\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
