"""Read-only questions about the results store, answered as typed values.

The one place that turns the store into what people read: ``spite leaderboard`` renders
:meth:`Queries.leaderboard` as a table, markdown, JSON or CSV; ``spite web`` renders the
same values as HTML pages and as JSON under ``/api/``. Nothing here writes, and nothing
outside :mod:`tournaments.store` and this module speaks SQL to the store.

Errors are of two kinds, so a web handler can answer 404 or 400 without looking inside:
:class:`NotFound` (no such tournament, bot, game or replay) and :class:`BadQuery` (a
filter or parameter that makes no sense).
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from referee.core.replay import bot_log_path
from referee.core.status import FaultKind
from spite_engine import Ending, RulesError, parse_rules

from .ratings import RatingParams, Ratings, placings
from .standings import StandingRow, Standings, head_to_head
from .standings import rows as standing_rows
from .store import FinishedMatch, GameRecord, Store, StoreError, TournamentRow, TournamentStatus
from .timing import bucket_value

RESULTS = ("won", "drawn", "lost")
"""A game's result from one bot's side, the words ``spite games --result`` and ``/games?result=`` take."""
ENDINGS = tuple(e.value for e in Ending)
RECENT_GAMES = 20


class QueryError(LookupError):
    """A question the store cannot answer; ``str()`` says why in words."""


class NotFound(QueryError):
    """No such tournament, bot, game or replay file."""


class BadQuery(QueryError):
    """A parameter that makes no sense (an unknown ending, a negative limit...)."""


@dataclass(frozen=True)
class TournamentInfo:
    id: int
    name: str
    file: str
    rules: str
    status: TournamentStatus
    created_at: str
    finished_at: str | None
    matches: dict[str, int]
    """Matches per status: pending, running, done, void."""

    @property
    def total(self) -> int:
        return sum(self.matches.values())


@dataclass(frozen=True)
class Leaderboard:
    tournament: TournamentInfo
    rows: tuple[StandingRow, ...]
    head_to_head: dict[str, dict[str, dict[str, float]]]
    """Row entrant -> column entrant -> {"score": wins + draws/2, "played": matches}."""
    title: str
    note: str
    """Why the ratings were recomputed, and the deals' commitment, if any."""
    rating: RatingParams
    recomputed: bool
    """Rated again from every finished match (new parameters, or the stored history did not fit)."""
    master_seed: int | None
    """None while a committed seed is still secret (the tournament is not finished)."""
    seed_commitment: str | None
    show_points: bool
    """Whether match points mean something beyond W/D/L under this rule set."""
    games: int
    match_draws: int

    @property
    def meta(self) -> dict[str, object]:
        """Title, note, tournament and rating parameters, as ``--format json`` prints them."""
        info = self.tournament
        tournament: dict[str, object] = {
            "id": info.id, "name": info.name, "file": info.file, "rules": info.rules, "status": info.status,
            "matches": dict(info.matches), "games": self.games, "match_draws": self.match_draws,
            "master_seed": self.master_seed}
        if self.seed_commitment:
            tournament["seed_commitment"] = self.seed_commitment
        return {"title": self.title, "note": self.note, "tournament": tournament,
                "ratings": {**self.rating.to_dict(), "recomputed": self.recomputed}}

    def board(self) -> list[dict[str, Any]]:
        return [row.as_dict() for row in self.rows]


@dataclass(frozen=True)
class GameRow:
    """One finished game, as the games list and the bot pages show it."""

    tournament_id: int
    match_id: int
    ordinal: int
    game_number: int
    rules: str
    bots: tuple[str, ...]
    entrants: tuple[str, ...]
    ending: Ending
    by_rules: bool
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str
    offender: int | None
    moves: int
    turns: int
    has_replay: bool

    def seats_of(self, name: str) -> tuple[int, ...]:
        return tuple(s for s, (b, e) in enumerate(zip(self.bots, self.entrants)) if name in (b, e))

    def result_for(self, name: str) -> str | None:
        """``won``, ``drawn`` or ``lost`` for the bot or entrant ``name``; None if it did not play."""
        seats = self.seats_of(name)
        if not seats:
            return None
        if not self.winners:
            return "drawn"
        return "won" if set(seats) & set(self.winners) else "lost"

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class GameFilter:
    """The games list's filters; every field optional. ``result`` is from ``bot``'s side."""

    bot: str | None = None
    opponent: str | None = None
    result: str | None = None
    ending: Ending | None = None
    rules: str | None = None
    tournament: int | None = None
    limit: int = 100
    offset: int = 0

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> "GameFilter":
        """From query parameters; raises :class:`BadQuery` naming the one that is wrong."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(params) - known)
        if unknown:
            raise BadQuery(f"unknown filter {unknown[0]!r} (known: {', '.join(sorted(known))})")
        values: dict[str, Any] = {k: v for k, v in params.items() if v != ""}
        for key in ("tournament", "limit", "offset"):
            if key in values:
                try:
                    values[key] = int(values[key])
                except ValueError:
                    raise BadQuery(f"{key} must be a whole number, got {values[key]!r}") from None
        if "ending" in values:
            if values["ending"] not in ENDINGS:
                raise BadQuery(f"ending must be one of {', '.join(ENDINGS)}, got {values['ending']!r}")
            values["ending"] = Ending(values["ending"])
        found = cls(**values)
        if found.result is not None and found.result not in RESULTS:
            raise BadQuery(f"result must be one of {', '.join(RESULTS)}, got {found.result!r}")
        if found.result is not None and found.bot is None:
            raise BadQuery("result needs bot: it is the result from that bot's side")
        if not 1 <= found.limit <= 1000:
            raise BadQuery(f"limit must be 1..1000, got {found.limit}")
        if found.offset < 0:
            raise BadQuery(f"offset must be 0 or more, got {found.offset}")
        return found

    def accepts(self, game: GameRow) -> bool:
        if self.bot is not None and not game.seats_of(self.bot):
            return False
        if self.opponent is not None:
            mine = set(game.seats_of(self.bot)) if self.bot is not None else set()
            if not set(game.seats_of(self.opponent)) - mine:
                return False
        if self.result is not None and self.bot is not None and game.result_for(self.bot) != self.result:
            return False
        return self.ending is None or game.ending == self.ending

    def as_params(self) -> dict[str, str]:
        """The non-default filters as query parameters (for links to other pages)."""
        defaults = GameFilter()
        return {f.name: str(getattr(self, f.name)) for f in dataclasses.fields(self)
                if getattr(self, f.name) != getattr(defaults, f.name)}


@dataclass(frozen=True)
class GamesPage:
    filter: GameFilter
    games: tuple[GameRow, ...]
    total: int
    """Games matching the filter (``games`` is the ``limit`` of them from ``offset``)."""


@dataclass(frozen=True)
class RatingPoint:
    ordinal: int
    """The match (place in the schedule) after which this rating held."""
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class OpponentRecord:
    name: str
    score: float
    """Wins plus half the draws, in matches."""
    played: int

    @property
    def win_rate(self) -> float:
        return self.score / self.played if self.played else 0.0


@dataclass(frozen=True)
class Fault:
    match_id: int
    ordinal: int
    seat: int
    kind: FaultKind
    reason: str


@dataclass(frozen=True)
class HistogramBar:
    ms: float
    """The bucket's representative decision time, in milliseconds."""
    count: int


@dataclass(frozen=True)
class BotLog:
    """A bot's captured stdout/stderr for one match (a tournament with ``log_dir``)."""

    match_id: int
    seat: int
    bot: str
    path: Path


@dataclass(frozen=True)
class BotPage:
    tournament: TournamentInfo
    name: str
    standing: StandingRow
    versions: tuple[dict[str, str], ...]
    """Per member bot: name, version (the manifest's, and each one a Hello reported), fingerprint, spec."""
    ratings: tuple[RatingPoint, ...]
    opponents: tuple[OpponentRecord, ...]
    endings: dict[str, int]
    """Games this entrant played, by ending."""
    histogram: tuple[HistogramBar, ...]
    recent_games: tuple[GameRow, ...]
    faults: tuple[Fault, ...]
    logs: tuple[BotLog, ...] = field(default=())


@dataclass(frozen=True)
class ReplayRef:
    """A game's replay file, as the store knows it."""

    tournament_id: int
    match_id: int
    game_number: int
    path: Path
    bots: tuple[str, ...]


class Queries:
    """Questions to one store, opened read-only (``mode=ro``): nothing here can write."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @classmethod
    def open(cls, db: Path | str) -> "Queries":
        """Open ``db`` read-only; raises :class:`NotFound` if it is missing or not a store."""
        try:
            return cls(Store(db, readonly=True))
        except StoreError as error:
            raise NotFound(str(error)) from None

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Queries":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- tournaments ----------------------------------------------------------------------

    def tournaments(self) -> list[TournamentInfo]:
        """Every tournament of the store, newest first."""
        return [self._info(row) for row in reversed(self.store.tournaments())]

    def tournament(self, ref: int | str | None = None) -> TournamentInfo:
        return self._info(self._row(ref))

    def _row(self, ref: int | str | None) -> TournamentRow:
        found = self.store.tournament(ref)
        if found is None:
            which = f"no tournament {ref!r}" if ref not in (None, "") else "no tournament"
            raise NotFound(f"{which} in {self.store.path}")
        return found

    def _info(self, row: TournamentRow) -> TournamentInfo:
        return TournamentInfo(row.id, row.name, row.file, str(row.config.get("rules", "?")), row.status,
                              row.created_at, row.finished_at, self.store.counts(row.id))

    # -- the leaderboard ------------------------------------------------------------------

    def leaderboard(self, ref: int | str | None = None, *, overrides: Mapping[str, float] | None = None,
                    recompute: bool = False) -> Leaderboard:
        """Standings, ratings and head to head of tournament ``ref`` (default: the latest).

        Ratings are the stored history's unless ``recompute`` or ``overrides`` (TrueSkill
        parameters) ask to rate every finished match again."""
        overrides = dict(overrides or {})
        found = self._row(ref)
        params = RatingParams.from_dict({**found.config.get("rating", {}), **overrides})
        try:
            params.environment()
        except (ValueError, ZeroDivisionError) as error:
            raise BadQuery(f"bad rating parameters {params}: {error}") from None
        standings, ratings, finished, recompute, note = self._standings(found, params, recompute or bool(overrides))
        info = self._info(found)
        rows = tuple(standing_rows(standings, ratings))
        h2h = head_to_head(standings, [row.name for row in rows])
        title = (f"{found.name} (#{found.id}) · {info.rules} · {info.matches['done']}/{info.total} matches · "
                 f"{found.status}" + (" · recomputed" if recompute else ""))
        commitment = found.config.get("seed_commitment") or None
        if commitment:
            note = "; ".join(filter(None, [note, f"deals committed: {commitment}"]))
        try:
            show_points = parse_rules(info.rules).scores_points
        except RulesError:  # a rule set this version no longer knows: show everything
            show_points = True
        master_seed = found.master_seed if not commitment or found.status is TournamentStatus.FINISHED else None
        return Leaderboard(info, rows, h2h, title, note, params, recompute, master_seed,
                           str(commitment) if commitment else None, show_points, standings.games, standings.draws)

    def _standings(self, found: TournamentRow, params: RatingParams, recompute: bool
                   ) -> tuple[Standings, Ratings, list[FinishedMatch], bool, str]:
        entrants = self.store.entrants(found.id)
        finished = self.store.finished(found.id)
        standings = Standings(entrants)
        ratings = Ratings(params, [e.name for e in entrants])
        for match in finished:
            standings.add(match)
            if recompute:
                ratings.update(placings(match.entrants, match.points))
        for bot, why in self.store.benched(found.id).items():
            standings.bench(bot, why)
        note = ""
        if not recompute:
            history = list(self.store.rating_history(found.id))
            for _, entrant, mu, sigma in history:
                ratings.set(entrant, mu, sigma)
            rated = len({ordinal for ordinal, *_ in history})
            if rated < len(finished):
                note = (f"ratings cover the first {rated} finished matches of the schedule; {len(finished) - rated} "
                        f"finished later wait for earlier ones (--recompute rates all of them)")
        return standings, ratings, finished, recompute, note

    # -- ratings over time ----------------------------------------------------------------

    def rating_history(self, ref: int | str | None = None) -> dict[str, tuple[RatingPoint, ...]]:
        """Per entrant, its rating after each of its rated matches, in schedule order."""
        found = self._row(ref)
        history: dict[str, list[RatingPoint]] = {e.name: [] for e in self.store.entrants(found.id)}
        for ordinal, entrant, mu, sigma in self.store.rating_history(found.id):
            history.setdefault(entrant, []).append(RatingPoint(ordinal, mu, sigma))
        return {name: tuple(points) for name, points in history.items()}

    # -- games ----------------------------------------------------------------------------

    def games(self, wanted: GameFilter = GameFilter()) -> GamesPage:
        """Finished games matching ``wanted``, newest first (by tournament, then schedule)."""
        rows = [g for g in self._all_games(wanted) if wanted.accepts(g)]
        rows.reverse()
        return GamesPage(wanted, tuple(rows[wanted.offset:wanted.offset + wanted.limit]), len(rows))

    def _all_games(self, wanted: GameFilter) -> Iterable[GameRow]:
        if wanted.tournament is not None:
            tournaments = [self._row(wanted.tournament)]
        else:
            tournaments = self.store.tournaments()
        for found in tournaments:
            rules = str(found.config.get("rules", "?"))
            if wanted.rules is not None and rules != wanted.rules:
                continue
            for match in self.store.finished(found.id):
                yield from (_game_row(found.id, rules, match, game) for game in match.games)

    def bot_names(self) -> list[str]:
        """Every bot that entered a tournament in the store, sorted."""
        return [str(row[0]) for row in self.store.db.execute("SELECT DISTINCT name FROM bots ORDER BY name")]

    def replay(self, match_id: int, game_number: int) -> ReplayRef:
        """The replay file of a game, by the store's own record of it (never a path from outside).

        Raises :class:`NotFound` when the game is unknown, was played without replays, or its
        file is gone."""
        game = self.store.db.execute(
            "SELECT g.replay, m.tournament_id, m.bots FROM games g JOIN matches m ON m.id = g.match_id "
            "WHERE g.match_id = ? AND g.game_number = ?", (match_id, game_number)).fetchone()
        if game is None:
            raise NotFound(f"no game {game_number} of match {match_id} in {self.store.path}")
        if not game["replay"]:
            raise NotFound(f"game {game_number} of match {match_id} was played without a replay_dir")
        path = Path(game["replay"])
        if not path.is_file():
            raise NotFound(f"the replay of game {game_number} of match {match_id} is gone ({path.name})")
        return ReplayRef(int(game["tournament_id"]), match_id, game_number, path, tuple(json.loads(game["bots"])))

    # -- a bot's page ---------------------------------------------------------------------

    def bot(self, name: str, ref: int | str | None = None) -> BotPage:
        """Everything about entrant (or member bot) ``name`` in tournament ``ref``."""
        board = self.leaderboard(ref)
        found = self._row(board.tournament.id)
        standing = next((r for r in board.rows if r.name == name), None)
        if standing is None:
            standing = next((r for r in board.rows if name in r.members), None)
        if standing is None:
            raise NotFound(f"no bot {name!r} in tournament {found.name!r} (#{found.id})")
        entrant = standing.name
        finished = self.store.finished(found.id)
        rules = str(found.config.get("rules", "?"))
        games = [_game_row(found.id, rules, m, g) for m in finished for g in m.games]
        mine = [g for g in games if g.seats_of(entrant)]
        histogram: Counter[int] = Counter()
        faults: list[Fault] = []
        hello: dict[str, set[str]] = {}
        for match in finished:
            for seat in match.seats:
                if match.entrants[seat.seat] != entrant:
                    continue
                histogram.update(seat.decision_histogram)
                hello.setdefault(seat.bot, set()).add(seat.version)
                faults += [Fault(match.id, match.ordinal, seat.seat, f.kind, f.reason) for f in seat.faults]
        versions = tuple({**bot, "reported": ", ".join(sorted(hello.get(bot["name"], ())))}
                         for bot in self.store.bots(found.id) if bot["name"] in standing.members)
        opponents = tuple(OpponentRecord(other, cell["score"], int(cell["played"]))
                          for other, cell in board.head_to_head.get(entrant, {}).items())
        return BotPage(
            board.tournament, entrant, standing, versions, self.rating_history(found.id).get(entrant, ()),
            opponents, dict(Counter(g.ending for g in mine).most_common()),
            tuple(HistogramBar(round(bucket_value(b) / 1000, 3), n) for b, n in sorted(histogram.items())),
            tuple(reversed(mine[-RECENT_GAMES:])), tuple(faults), self._logs(found, finished, entrant))

    def _logs(self, found: TournamentRow, finished: list[FinishedMatch], entrant: str) -> tuple[BotLog, ...]:
        """The bot's captured output per match, where the tournament kept logs and replays
        (the log file is named after the referee's match id, which the replay file carries)."""
        log_dir = found.config.get("log_dir")
        if not log_dir:
            return ()
        logs = []
        for match in finished:
            replay = next((g.replay for g in match.games if g.replay), None)
            if not replay:
                continue
            prefix = Path(replay).name.rsplit("-g", 1)[0]
            for seat, (bot, who) in enumerate(zip(match.bots, match.entrants)):
                path = bot_log_path(log_dir, prefix, seat, bot)
                if who == entrant and path.is_file():
                    logs.append(BotLog(match.id, seat, bot, path))
        return tuple(logs)

    def log(self, name: str, match_id: int, seat: int, ref: int | str | None = None) -> BotLog:
        """One of :meth:`bot`'s logs, found by the same rule (so only those files are ever read)."""
        for log in self.bot(name, ref).logs:
            if log.match_id == match_id and log.seat == seat:
                return log
        raise NotFound(f"no log of {name!r} for match {match_id}, seat {seat}")


def _game_row(tournament_id: int, rules: str, match: FinishedMatch, game: GameRecord) -> GameRow:
    return GameRow(tournament_id, match.id, match.ordinal, game.game_number, rules, match.bots, match.entrants,
                   game.ending, game.by_rules, game.winners, game.scores, game.reason, game.offender, game.moves,
                   game.turns, bool(game.replay))
