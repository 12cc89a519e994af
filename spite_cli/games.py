"""``spite games``: find games in the results store -- the ones a bot lost, drew, crashed in --
one line per game with its replay file (``--json`` for the same as data).

It reads through :mod:`tournaments.queries`, the query module ``spite web``'s games list
uses: the terminal and the browser find the same games."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from spite_engine.outcome import Ending
from tournaments.queries import RESULTS, GameFilter, GameRow, NotFound, Queries, QueryError

from .common import MAX_GAMES, OK, check_store, fail, print_json, ranged_int


def _replay(queries: Queries, game: GameRow) -> str | None:
    try:
        return str(queries.replay(game.match_id, game.game_number).path)
    except NotFound:
        return None


def _line(game: GameRow, bot: str | None, replay: str | None, tournament: str) -> str:
    seat = game.seats_of(bot)[0] if bot else None
    if seat is not None:
        opponents = ", ".join(f"{b} (seat {s})" for s, b in enumerate(game.bots) if s != seat)
        head = f"{game.result_for(str(bot)):<5} {game.bots[seat]} (seat {seat}) vs {opponents}"
    else:
        head = " vs ".join(game.bots) + ("  draw" if not game.winners else
                                          "  won by " + ", ".join(game.bots[w] for w in game.winners))
    where = f"{tournament}#{game.tournament_id} match {game.ordinal} game {game.game_number + 1}"
    return f"{head} · {game.ending} · {where} · {replay or '(no replay kept)'}"


def cmd_games(args: argparse.Namespace) -> int:
    if (args.opponent or args.result) and not args.bot:
        return fail("games", "--opponent and --result are seen from a bot's seat: give --bot NAME too")
    db = Path(args.db)
    check_store(db, must_exist=True)
    try:
        with Queries.open(db) as queries:
            tournament = queries.tournament(args.tournament.lstrip("#")).id if args.tournament is not None else None
            if args.bot and args.bot not in (known := queries.bot_names()):
                return fail("games", f"no bot {args.bot!r} in {db} (bots: {', '.join(known) or 'none'})")
            page = queries.games(GameFilter(bot=args.bot, opponent=args.opponent, result=args.result,
                                            ending=args.ending, tournament=tournament,
                                            limit=args.limit or MAX_GAMES * 1000))
            names = {t.id: t.name for t in queries.tournaments()}
            found = [(game, _replay(queries, game)) for game in page.games]
    except NotFound as error:
        return fail("games", str(error).replace(f" in {db.resolve()}", f" in {db}"))
    except QueryError as error:
        return fail("games", f"cannot read {db}: {error}")
    if args.json:
        data: list[dict[str, Any]] = []
        for game, replay in found:
            seat = game.seats_of(args.bot)[0] if args.bot else None
            data.append({**game.as_dict(), "tournament": names.get(game.tournament_id, ""), "replay": replay,
                         "seat": seat, "result": game.result_for(args.bot) if args.bot else None})
        print_json(json.dumps(data, indent=2))
        return OK
    for game, replay in found:
        print(_line(game, args.bot, replay, names.get(game.tournament_id, "")), flush=True)
    if not found:
        print("no games match", file=sys.stderr)
    return OK


def register(sub: Any) -> None:
    games = sub.add_parser("games", help="find games in the store (e.g. the ones a bot lost), with their replays",
                           description="One line per finished game in the results store, newest first, with its "
                                       "replay file. Example: spite games --bot mybot --result lost")
    games.add_argument("--bot", metavar="NAME", help="games this bot played (seen from its seat)")
    games.add_argument("--opponent", metavar="NAME", help="... against this bot (needs --bot)")
    games.add_argument("--result", choices=RESULTS, help="... that it won, lost or drew (needs --bot)")
    games.add_argument("--ending", choices=[e.value for e in Ending if e is not Ending.UNKNOWN], metavar="ENDING",
                       help="games that ended this way: " + ", ".join(e.value for e in Ending
                                                                       if e is not Ending.UNKNOWN))
    games.add_argument("--tournament", metavar="NAME|ID", help="only this tournament (default: all in the store)")
    games.add_argument("--limit", type=ranged_int(1, MAX_GAMES * 1000, "--limit"), help="at most this many lines")
    games.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    games.add_argument("--json", action="store_true", help="print the games as a JSON list on stdout")
    games.set_defaults(func=cmd_games)
