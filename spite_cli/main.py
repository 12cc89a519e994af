"""``spite``: the command line of Spite Arena. This module builds the parser and dispatches;
each subcommand group lives in a module of its own (play, replay, serve, seed, tournament,
check_bot, doctor), which adds its parser with ``register(sub)``.

    spite play BOT BOT... [--rules PRESET] [--seed N] [--games N] [--replay-dir DIR]
    spite replay FILE [--as-seat K] [--verify]
    spite referee --listen ADDR
    spite tournament FILE [--parallel N] [--resume | --resume-id ID] [--db PATH] [--plain] [--scheduler ADDR]
    spite leaderboard [--format table|json|csv|markdown] [--db PATH] [--tournament NAME|ID]
                      [--recompute [--mu X] [--sigma X] [--beta X] [--tau X] [--draw-probability X]]
    spite check-bot MANIFEST
    spite doctor [--json]
    spite seed commit|verify|reveal
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

from . import check_bot, doctor, play, replay, seed, serve, tournament


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="spite", description="Spite Arena: bots play Spite and Malice.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log the referee's work to stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in (play, replay, serve, tournament, doctor, seed, check_bot):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
