"""What every subcommand shares: the exit codes, the match options, a console for tables."""

from __future__ import annotations

import argparse

from rich.console import Console

from referee.match import Policy, TimeControl

def time_control(args: argparse.Namespace) -> TimeControl:
    return TimeControl(decision_ms=args.decision_ms, bank_ms=args.bank_ms, connect_ms=args.connect_ms)


def add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="standard", help="rule-set spec, e.g. standard, skip-bo+4p (docs/rules.md)")
    parser.add_argument("--seed", type=int, default=0, help="master seed of the match (default 0)")
    parser.add_argument("--games", type=int, default=1, help="games in the match (default 1)")
    parser.add_argument("--policy", choices=[p.value for p in Policy], default=Policy.SUBSTITUTE.value,
                        help="what bad behaviour gets (default substitute: fallback move + strike, 3 strikes forfeit)")
    parser.add_argument("--decision-ms", type=int, default=TimeControl.decision_ms, help="per-decision limit (ms)")
    parser.add_argument("--bank-ms", type=int, default=TimeControl.bank_ms, help="per-game time bank (ms)")
    parser.add_argument("--connect-ms", type=int, default=TimeControl.connect_ms,
                        help="allowance to connect and for the first decision (ms)")



def wide_console() -> Console:
    """A console for tables: the terminal's width, or wide enough not to wrap in a pipe or a CI log."""
    console = Console()
    return console if console.is_terminal else Console(width=200)

