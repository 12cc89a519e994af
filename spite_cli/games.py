"""``spite games``: find games in the results store -- the ones a bot lost, drew, crashed in --
one line per game with its replay file (``--json`` for the same as data)."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from spite_engine.outcome import Ending
from tournaments.games import RESULTS, GameFilter, GameRow, bot_names, find_games
from tournaments.store import Store, StoreError

from .common import MAX_GAMES, OK, check_store, fail, print_json, ranged_int


def _line(row: GameRow) -> str:
    if row.seat is not None:
        opponents = ", ".join(f"{b} (seat {s})" for s, b in enumerate(row.bots) if s != row.seat)
        head = f"{row.result:<5} {row.bots[row.seat]} (seat {row.seat}) vs {opponents}"
    else:
        head = " vs ".join(row.bots) + ("  draw" if not row.winners else
                                         "  won by " + ", ".join(row.bots[w] for w in row.winners))
    where = f"{row.tournament}#{row.tournament_id} match {row.match_ordinal} game {row.game_number + 1}"
    return f"{head} · {row.ending} · {where} · {row.replay or '(no replay kept)'}"


def cmd_games(args: argparse.Namespace) -> int:
    if (args.opponent or args.result) and not args.bot:
        return fail("games", "--opponent and --result are seen from a bot's seat: give --bot NAME too")
    db = Path(args.db)
    check_store(db, must_exist=True)
    try:
        with Store(db, readonly=True) as store:
            if args.tournament is not None and store.tournament(args.tournament) is None:
                return fail("games", f"no tournament {args.tournament!r} in {db}")
            if args.bot and args.bot not in (known := bot_names(store)):
                return fail("games", f"no bot {args.bot!r} in {db} (bots: {', '.join(known) or 'none'})")
            rows = find_games(store, GameFilter(args.bot, args.opponent, args.result, args.ending, args.tournament,
                                                args.limit))
    except (StoreError, sqlite3.DatabaseError) as error:
        return fail("games", f"cannot read {db}: {error}")
    if args.json:
        data: list[dict[str, Any]] = [row.to_dict() for row in rows]
        print_json(json.dumps(data, indent=2))
        return OK
    for row in rows:
        print(_line(row), flush=True)
    if not rows:
        print("no games match", file=sys.stderr)
    return OK


def register(sub: Any) -> None:
    games = sub.add_parser("games", help="find games in the store (e.g. the ones a bot lost), with their replays",
                           description="One line per finished game in the results store, with its replay file. "
                                       "Example: spite games --bot mybot --result lost")
    games.add_argument("--bot", metavar="NAME", help="games this bot played (seen from its seat)")
    games.add_argument("--opponent", metavar="NAME", help="... against this bot (needs --bot)")
    games.add_argument("--result", choices=RESULTS, help="... that it won, lost or drew (needs --bot)")
    games.add_argument("--ending", choices=[e.value for e in Ending], metavar="ENDING",
                       help="games that ended this way: " + ", ".join(e.value for e in Ending))
    games.add_argument("--tournament", metavar="NAME|ID", help="only this tournament (default: all in the store)")
    games.add_argument("--limit", type=ranged_int(1, MAX_GAMES * 1000, "--limit"), help="at most this many lines")
    games.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    games.add_argument("--json", action="store_true", help="print the games as a JSON list on stdout")
    games.set_defaults(func=cmd_games)
