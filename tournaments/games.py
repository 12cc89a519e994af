"""The games in the results store, found by bot, opponent, result, ending and tournament:
what ``spite games`` lists (one line per game with its replay file).

A read-only query over :class:`tournaments.store.Store` with a typed result; the CLI holds
no SQL. (``tournaments/queries.py`` is the web UI's query module; the two may merge.)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Literal

from .store import Store

Result = Literal["won", "lost", "drawn"]
RESULTS: tuple[Result, ...] = ("won", "lost", "drawn")


@dataclass(frozen=True)
class GameFilter:
    """What to look for; ``None`` matches anything. ``opponent`` and ``result`` need ``bot``."""

    bot: str | None = None
    opponent: str | None = None
    result: Result | None = None
    ending: str | None = None
    tournament: str | None = None
    """A tournament's name (every tournament of that name) or ``#ID`` / ``ID``."""
    limit: int | None = None


@dataclass(frozen=True)
class GameRow:
    """One game, seen from ``bot``'s seat when the filter names a bot."""

    tournament_id: int
    tournament: str
    match_ordinal: int
    round: int
    game_number: int
    bots: tuple[str, ...]
    """The bot in each seat."""
    winners: tuple[int, ...]
    """Seats that won (empty: a draw)."""
    ending: str
    reason: str
    offender: int | None
    moves: int
    turns: int
    replay: str | None
    seat: int | None = None
    """``bot``'s seat, with a bot in the filter."""
    result: Result | None = None
    """``bot``'s result, with a bot in the filter."""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["winners"] = list(self.winners)
        return data


def _result(seat: int, winners: tuple[int, ...]) -> Result:
    if not winners:
        return "drawn"
    return "won" if seat in winners else "lost"


def find_games(store: Store, wanted: GameFilter) -> list[GameRow]:
    """The finished games that match ``wanted``, in the order they were played."""
    where = ["m.status = 'done'"]
    params: list[Any] = []
    if wanted.tournament is not None:
        key = wanted.tournament.lstrip("#")
        if key.isdigit():
            where.append("t.id = ?")
            params.append(int(key))
        else:
            where.append("t.name = ?")
            params.append(wanted.tournament)
    if wanted.ending is not None:
        where.append("g.ending = ?")
        params.append(wanted.ending)
    sql = ("SELECT t.id, t.name, m.ordinal, m.round, g.game_number, m.bots, g.winners, g.ending, g.reason, "
           "g.offender, g.moves, g.turns, g.replay FROM games g JOIN matches m ON m.id = g.match_id "
           "JOIN tournaments t ON t.id = m.tournament_id WHERE " + " AND ".join(where)
           + " ORDER BY t.id, m.ordinal, g.game_number")
    found: list[GameRow] = []
    for (tid, tname, ordinal, round_, number, bots_json, winners_json, ending, reason, offender, moves, turns,
         replay) in store.db.execute(sql, params):
        bots = tuple(str(b) for b in json.loads(bots_json))
        winners = tuple(int(w) for w in json.loads(winners_json))
        base = GameRow(tid, tname, ordinal, round_, number, bots, winners, ending, reason, offender, moves, turns,
                       replay)
        if wanted.bot is None:
            found.append(base)
        else:
            for seat, name in enumerate(bots):
                if name != wanted.bot:
                    continue
                if wanted.opponent is not None and wanted.opponent not in (b for s, b in enumerate(bots) if s != seat):
                    continue
                result = _result(seat, winners)
                if wanted.result is not None and result != wanted.result:
                    continue
                found.append(GameRow(**{**base.__dict__, "seat": seat, "result": result}))
        if wanted.limit is not None and len(found) >= wanted.limit:
            return found[:wanted.limit]
    return found


def endings(store: Store) -> list[str]:
    """Every ending the store's games have (for a helpful error on an unknown ``--ending``)."""
    return [row[0] for row in store.db.execute("SELECT DISTINCT ending FROM games ORDER BY ending")]


def bot_names(store: Store) -> list[str]:
    """Every bot that entered a tournament in the store."""
    return [row[0] for row in store.db.execute("SELECT DISTINCT name FROM bots ORDER BY name")]
