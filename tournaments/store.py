"""The results store: one SQLite file (default ``spite.db``), WAL mode, one writer.

The tournament runner is the only writer; ``spite leaderboard`` and anyone else read
(WAL lets them read while it writes). What makes a run resumable after ``kill -9`` or a
power cut:

* the schedule is journaled (every match ``pending``, with its seats and seed) in one
  transaction before any of its games runs;
* a match goes ``pending -> running`` when a worker takes it; a finished match's games,
  seat reports and rating rows are written *and* it is marked ``done`` in one
  transaction, so a match is either done with all its results or not done at all;
* on resume, ``running`` matches (cut off by the crash) and ``void`` ones (a worker
  failed) go back to ``pending`` and are played again with the same seeds.

Seeds are 64-bit unsigned, more than SQLite's signed INTEGER holds: they are stored as
decimal TEXT.

Tables: ``tournaments``, ``bots``, ``entrants``, ``matches`` (the schedule and its
status), ``games`` (one row per finished game), ``seat_results`` (per match and seat:
faults, decision wall and CPU times), ``ratings`` (the rating history, one row per entrant
per match in schedule order), ``incidents`` (every failed attempt at a match: a worker or
referee that died, a referee too late to judge a deadline; the match was played again),
``benched`` (bots taken out for failing chronically, and why; their matches left are void
and stay void on resume).

Schema 2 added the CPU columns and the last two tables; a schema-1 file is upgraded in place.

One writer per store, every SQLite error as one :class:`StoreError` sentence, and a
damaged or foreign file left exactly as it was: :mod:`tournaments.sqlite_file` opens the
file that way; readers take no lock.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from referee.core.reports import SeatFault
from referee.core.status import SeatStatus
from spite_engine import Ending

from .jobs import JobResult
from .schedule import Entrant, ScheduledMatch
from .sqlite_file import StoreError as StoreError
from .sqlite_file import StoreLocked as StoreLocked
from .sqlite_file import WriterLock, check_existing, connect

SCHEMA_VERSION = 3
DEFAULT_DB = "spite.db"


class ScheduleStatus(enum.StrEnum):
    """Where a scheduled match is (the ``matches.status`` column; a ladder's game, too)."""

    PENDING = "pending"
    """Journaled, waiting for a worker (again, after a resume)."""
    RUNNING = "running"
    """Taken by a worker."""
    DONE = "done"
    """Played: its games and seats are stored."""
    VOID = "void"
    """Not played: a worker or the referee failed, or a bot in it was benched."""


class TournamentStatus(enum.StrEnum):
    """A tournament's ``status`` column."""

    RUNNING = "running"
    FINISHED = "finished"
    """Every match journaled is done or void, and the stop rule journals no more."""
    STOPPED = "stopped"
    """Interrupted; ``--resume`` goes on."""


class IncidentKind(enum.StrEnum):
    """What an ``incidents`` row records."""

    RETRIED = "retried"
    """A failed attempt at a match, played again."""
    VOID = "void"
    """The match's last failed attempt: it stays void."""
    BENCHED = "benched"
    """A bot taken out for failing chronically."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    file TEXT NOT NULL,              -- the tournament file it was started from
    config TEXT NOT NULL,            -- JSON: everything a --resume must agree with
    master_seed TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'stopped')),
    created_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE TABLE IF NOT EXISTS bots (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    fingerprint TEXT NOT NULL,       -- SHA-256 of the manifest and the bot's files
    spec TEXT NOT NULL,              -- how the tournament file named it
    PRIMARY KEY (tournament_id, name)
);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    name TEXT NOT NULL,
    members TEXT NOT NULL,           -- JSON list of bot names (a partners team has two)
    PRIMARY KEY (tournament_id, name)
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    ordinal INTEGER NOT NULL,        -- place in the schedule; ratings apply in this order
    round INTEGER NOT NULL,
    unit INTEGER NOT NULL,           -- the duplicate deal set within the round
    rotation INTEGER NOT NULL,       -- the seat rotation within the set
    entrants TEXT NOT NULL,          -- JSON: entrant per seat
    bots TEXT NOT NULL,              -- JSON: bot per seat
    seed TEXT NOT NULL,
    bot_seed TEXT NOT NULL,
    max_games INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'void')),
    attempts INTEGER NOT NULL DEFAULT 0,
    worker TEXT,
    started_at TEXT,
    finished_at TEXT,
    elapsed_s REAL,
    points TEXT,                     -- JSON: match points per seat (done only)
    error TEXT,                      -- why a match is void
    UNIQUE (tournament_id, ordinal),
    UNIQUE (tournament_id, round, unit, rotation)
);
CREATE INDEX IF NOT EXISTS matches_status ON matches (tournament_id, status);
CREATE TABLE IF NOT EXISTS games (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    game_number INTEGER NOT NULL,
    seed TEXT NOT NULL,
    first_seat INTEGER NOT NULL,
    ending TEXT NOT NULL,            -- spite_engine.Ending value
    by_rules INTEGER NOT NULL,       -- 1: ended by the rules; 0: cut off by the referee
    winners TEXT NOT NULL,           -- JSON list of seats (empty: a draw)
    scores TEXT NOT NULL,            -- JSON list of points per seat
    reason TEXT NOT NULL,
    offender INTEGER,
    moves INTEGER NOT NULL,
    turns INTEGER NOT NULL,
    replay TEXT,
    PRIMARY KEY (match_id, game_number)
);
CREATE TABLE IF NOT EXISTS seat_results (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    entrant TEXT NOT NULL,
    version TEXT NOT NULL,           -- what the bot said in its Hello
    status TEXT NOT NULL,
    points INTEGER NOT NULL,
    timeouts INTEGER NOT NULL,
    illegal_moves INTEGER NOT NULL,
    malformed INTEGER NOT NULL,
    crashes INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    decision_us_p50 INTEGER NOT NULL,
    decision_us_p99 INTEGER NOT NULL,
    decision_histogram TEXT NOT NULL, -- JSON {bucket: count}, see tournaments.worker.histogram
    faults TEXT NOT NULL,            -- JSON list of {"kind", "reason"} (referee.core.reports.SeatFault)
    cpu_us_p50 INTEGER NOT NULL DEFAULT 0,   -- CPU time of the bot's processes per decision
    cpu_us_p99 INTEGER NOT NULL DEFAULT 0,
    cpu_us_total INTEGER NOT NULL DEFAULT 0, -- over all its decisions in the match
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS incidents (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    match_id INTEGER REFERENCES matches(id),
    at TEXT NOT NULL,
    kind TEXT NOT NULL,              -- 'retried', 'void', 'benched'
    platform_fault INTEGER NOT NULL, -- 1: the platform failed (not rated, played again)
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS benched (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    bot TEXT NOT NULL,
    at TEXT NOT NULL,
    reason TEXT NOT NULL,
    PRIMARY KEY (tournament_id, bot)
);
CREATE TABLE IF NOT EXISTS ratings (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    ordinal INTEGER NOT NULL,        -- the match (by schedule place) after which this holds
    entrant TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    PRIMARY KEY (tournament_id, ordinal, entrant)
);
"""


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class TournamentRow:
    id: int
    name: str
    file: str
    config: dict[str, Any]
    master_seed: int
    status: TournamentStatus
    created_at: str
    finished_at: str | None


@dataclass(frozen=True)
class MatchRow:
    id: int
    tournament_id: int
    ordinal: int
    round: int
    unit: int
    rotation: int
    entrants: tuple[str, ...]
    bots: tuple[str, ...]
    seed: int
    bot_seed: int
    max_games: int
    status: ScheduleStatus
    attempts: int
    error: str | None


@dataclass(frozen=True)
class Incident:
    """A failed attempt at a match, or a benching (the ``incidents`` table)."""

    match_id: int | None
    """None for a benching."""
    at: str
    kind: IncidentKind
    platform_fault: bool
    """The platform failed (a worker or the referee), not a bot."""
    detail: str


@dataclass(frozen=True)
class GameRecord:
    """One game of a done match, as the store holds it (the ``games`` table)."""

    match_id: int
    game_number: int
    seed: int
    first_seat: int
    ending: Ending
    by_rules: bool
    """Ended by the rules (not cut off by the referee)."""
    winners: tuple[int, ...]
    """Seats; empty: a draw."""
    scores: tuple[int, ...]
    reason: str
    offender: int | None
    moves: int
    turns: int
    replay: str | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> GameRecord:
        return cls(row["match_id"], row["game_number"], int(row["seed"]), row["first_seat"], Ending(row["ending"]),
                   bool(row["by_rules"]), tuple(json.loads(row["winners"])), tuple(json.loads(row["scores"])),
                   row["reason"], row["offender"], row["moves"], row["turns"], row["replay"])


@dataclass(frozen=True)
class SeatRecord:
    """One seat of a done match, as the store holds it (the ``seat_results`` table)."""

    match_id: int
    seat: int
    bot: str
    entrant: str
    version: str
    """What the bot said in its Hello."""
    status: SeatStatus
    points: int
    timeouts: int
    illegal_moves: int
    malformed: int
    crashes: int
    decisions: int
    decision_us_p50: int
    decision_us_p99: int
    decision_histogram: dict[int, int]
    """Decisions per time bucket (:func:`tournaments.timing.histogram`)."""
    faults: tuple[SeatFault, ...]
    cpu_us_p50: int
    cpu_us_p99: int
    cpu_us_total: int
    """CPU time of the bot's processes over all its decisions in the match."""

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> SeatRecord:
        return cls(row["match_id"], row["seat"], row["bot"], row["entrant"], row["version"],
                   SeatStatus(row["status"]),
                   row["points"], row["timeouts"], row["illegal_moves"], row["malformed"], row["crashes"],
                   row["decisions"], row["decision_us_p50"], row["decision_us_p99"],
                   {int(k): v for k, v in json.loads(row["decision_histogram"]).items()},
                   tuple(SeatFault.from_json(f) for f in json.loads(row["faults"])), row["cpu_us_p50"],
                   row["cpu_us_p99"], row["cpu_us_total"])


@dataclass(frozen=True)
class FinishedMatch:
    """A done match as the leaderboard and the ratings read it."""

    id: int
    ordinal: int
    round: int
    unit: int
    rotation: int
    entrants: tuple[str, ...]
    bots: tuple[str, ...]
    seed: int
    points: tuple[int, ...]
    elapsed_s: float
    games: tuple[GameRecord, ...]
    seats: tuple[SeatRecord, ...]


class Store:
    """A connection to the store file. Open one per process; only the runner writes."""

    def __init__(self, path: Path | str = DEFAULT_DB, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self._lock: WriterLock | None = None
        if readonly:
            if not self.path.exists():
                raise StoreError(f"no results store at {self.path} (run `spite tournament FILE` first, "
                                 f"or pass --db PATH)")
            if self.path.is_dir():
                raise StoreError(f"{self.path} is a directory, not a results store")
            check_existing(self.path)
            self.db = connect(self.path, f"{self.path.resolve().as_uri()}?mode=ro")
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(f"{self.path}: cannot create its folder: {error.strerror or error}") from None
            if self.path.is_dir():
                raise StoreError(f"{self.path} is a directory, not a results store")
            check_existing(self.path)  # a damaged or foreign file is refused before a lock file appears beside it
            try:
                self._lock = WriterLock(self.path)
            except OSError as error:
                raise StoreError(f"{self.path}: cannot take the writer's lock: {error.strerror or error}") from None
            try:
                check_existing(self.path)
                self.db = connect(self.path)
                self._open_for_writing()
            except BaseException:
                self._lock.release()
                raise
        self.db.row_factory = sqlite3.Row
        version = self._schema_version()
        if version != SCHEMA_VERSION:
            self.close()
            raise StoreError(f"{self.path}: results store schema {version}, this spite reads {SCHEMA_VERSION}")

    def _open_for_writing(self) -> None:
        self.db.execute("PRAGMA journal_mode=WAL")
        # FULL: a committed match survives a power cut too (one fsync per match is cheap).
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        with self.transaction():
            for statement in _statements(SCHEMA):
                self.db.execute(statement)
            self.db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                            (str(SCHEMA_VERSION),))
            self._upgrade()

    def _upgrade(self) -> None:
        """Bring an older store up to ``SCHEMA_VERSION`` (inside the opening transaction)."""
        if self._schema_version() == 1:
            columns = {r[1] for r in self.db.execute("PRAGMA table_info(seat_results)")}
            for column in ("cpu_us_p50", "cpu_us_p99", "cpu_us_total"):
                if column not in columns:
                    self.db.execute(f"ALTER TABLE seat_results ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
            self.db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        if self._schema_version() == 2:  # faults were their reasons alone: now each has a kind
            rows = self.db.execute("SELECT match_id, seat, faults FROM seat_results").fetchall()
            self.db.executemany("UPDATE seat_results SET faults = ? WHERE match_id = ? AND seat = ?",
                                [(json.dumps([SeatFault.from_json(f).to_json() for f in json.loads(faults)]),
                                  match_id, seat) for match_id, seat, faults in rows])
            self.db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")

    def _schema_version(self) -> int | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: not a Spite Arena results store ({error})") from None
        except StoreError as error:
            if "no such table" in str(error):
                raise StoreError(f"{self.path}: not a Spite Arena results store (no meta table)") from None
            raise
        return int(row[0]) if row else None

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    class _Transaction:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, kind: object, *exc: object) -> None:
            if kind is None:
                try:
                    self.db.execute("COMMIT")
                    return
                except StoreError:
                    self._rollback()
                    raise
            self._rollback()

        def _rollback(self) -> None:
            try:
                self.db.execute("ROLLBACK")
            except StoreError:  # SQLite may have rolled back already (a full disk does)
                pass

    def transaction(self) -> "Store._Transaction":
        """``with store.transaction():`` -- all or nothing."""
        return Store._Transaction(self.db)

    # -- tournaments ----------------------------------------------------------------------

    def create_tournament(self, name: str, file: str, config: dict[str, Any], master_seed: int,
                          bots: Iterable[tuple[str, str, str, str]], entrants: Iterable[Entrant]) -> int:
        """A new tournament with its bots (name, version, fingerprint, spec) and entrants."""
        with self.transaction():
            cursor = self.db.execute(
                "INSERT INTO tournaments (name, file, config, master_seed, status, created_at) "
                "VALUES (?, ?, ?, ?, 'running', ?)", (name, file, json.dumps(config), str(master_seed), now()))
            tournament_id = int(cursor.lastrowid or 0)
            self.db.executemany("INSERT INTO bots (tournament_id, name, version, fingerprint, spec) "
                                "VALUES (?, ?, ?, ?, ?)", [(tournament_id, *bot) for bot in bots])
            self.db.executemany("INSERT INTO entrants (tournament_id, name, members) VALUES (?, ?, ?)",
                                [(tournament_id, e.name, json.dumps(list(e.members))) for e in entrants])
        return tournament_id

    def tournament(self, ref: int | str | None = None) -> TournamentRow | None:
        """By id, by name (the latest of that name), or the latest of all with None."""
        if ref is None:
            row = self.db.execute("SELECT * FROM tournaments ORDER BY id DESC LIMIT 1").fetchone()
        elif isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
            row = self.db.execute("SELECT * FROM tournaments WHERE id = ?", (int(ref),)).fetchone()
        else:
            row = self.db.execute("SELECT * FROM tournaments WHERE name = ? ORDER BY id DESC LIMIT 1",
                                  (ref,)).fetchone()
        if row is None:
            return None
        return TournamentRow(row["id"], row["name"], row["file"], json.loads(row["config"]), int(row["master_seed"]),
                             TournamentStatus(row["status"]), row["created_at"], row["finished_at"])

    def tournaments(self) -> list[TournamentRow]:
        rows = self.db.execute("SELECT id FROM tournaments ORDER BY id").fetchall()
        return [t for t in (self.tournament(int(r["id"])) for r in rows) if t is not None]

    def set_status(self, tournament_id: int, status: TournamentStatus) -> None:
        with self.transaction():
            self.db.execute("UPDATE tournaments SET status = ?, finished_at = ? WHERE id = ?",
                            (status.value, now() if status is not TournamentStatus.RUNNING else None, tournament_id))

    def bots(self, tournament_id: int) -> list[dict[str, str]]:
        return [dict(r) for r in self.db.execute(
            "SELECT name, version, fingerprint, spec FROM bots WHERE tournament_id = ? ORDER BY name",
            (tournament_id,))]

    def entrants(self, tournament_id: int) -> list[Entrant]:
        return [Entrant(r["name"], tuple(json.loads(r["members"]))) for r in self.db.execute(
            "SELECT name, members FROM entrants WHERE tournament_id = ? ORDER BY rowid", (tournament_id,))]

    # -- the schedule ---------------------------------------------------------------------

    def journal(self, tournament_id: int, matches: Sequence[ScheduledMatch], max_games: int) -> None:
        """Write scheduled matches as ``pending``, all in one transaction, after those already there."""
        with self.transaction():
            row = self.db.execute("SELECT COALESCE(MAX(ordinal), -1) FROM matches WHERE tournament_id = ?",
                                  (tournament_id,)).fetchone()
            first = int(row[0]) + 1
            self.db.executemany(
                "INSERT INTO matches (tournament_id, ordinal, round, unit, rotation, entrants, bots, seed, bot_seed, "
                "max_games) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(tournament_id, first + i, m.round, m.unit, m.rotation, json.dumps(list(m.entrants)),
                  json.dumps(list(m.bots)), str(m.seed), str(m.bot_seed), max_games) for i, m in enumerate(matches)])

    def matches(self, tournament_id: int, status: ScheduleStatus | None = None) -> list[MatchRow]:
        """The schedule in order (optionally only the matches with ``status``)."""
        query = "SELECT * FROM matches WHERE tournament_id = ?"
        args: tuple[Any, ...] = (tournament_id,)
        if status is not None:
            query += " AND status = ?"
            args += (status.value,)
        return [_match_row(r) for r in self.db.execute(query + " ORDER BY ordinal", args)]

    def counts(self, tournament_id: int) -> dict[str, int]:
        counts = dict.fromkeys((status.value for status in ScheduleStatus), 0)
        for row in self.db.execute("SELECT status, COUNT(*) FROM matches WHERE tournament_id = ? GROUP BY status",
                                   (tournament_id,)):
            counts[row[0]] = row[1]
        return counts

    def recover(self, tournament_id: int) -> int:
        """After a crash: matches left ``running`` or ``void`` go back to ``pending``, and rating
        rows from the first of them on are dropped (they are recomputed in order). Returns how
        many matches were reset."""
        benched = set(self.benched(tournament_id))
        with self.transaction():
            rows = self.db.execute("SELECT id, ordinal, bots, status FROM matches WHERE tournament_id = ? "
                                   "AND status IN ('running', 'void')", (tournament_id,)).fetchall()
            reset = [r for r in rows if r["status"] == "running" or not benched & set(json.loads(r["bots"]))]
            if not reset:
                return 0
            self.db.executemany("UPDATE matches SET status = 'pending', worker = NULL, started_at = NULL, "
                                "error = NULL WHERE id = ?", [(r["id"],) for r in reset])
            first = min(r["ordinal"] for r in reset)
            self.db.execute("DELETE FROM ratings WHERE tournament_id = ? AND ordinal >= ?", (tournament_id, first))
            return len(reset)

    def mark_running(self, match_id: int, worker: str) -> None:
        with self.transaction():
            updated = self.db.execute(
                "UPDATE matches SET status = 'running', worker = ?, started_at = ?, attempts = attempts + 1 "
                "WHERE id = ? AND status = 'pending'", (worker, now(), match_id)).rowcount
            if updated != 1:
                raise StoreError(f"match {match_id} is not pending")

    def release(self, match_id: int) -> None:
        """A running match that was not finished (the run was stopped): pending again."""
        with self.transaction():
            self.db.execute("UPDATE matches SET status = 'pending', worker = NULL, started_at = NULL "
                            "WHERE id = ? AND status = 'running'", (match_id,))

    def record(self, match: MatchRow, result: JobResult,
               ratings: Sequence[tuple[int, str, float, float]] = ()) -> None:
        """Write a finished match's games and seat reports, mark it done, and add rating rows
        (ordinal, entrant, mu, sigma) -- one transaction. A match recorded twice is an error."""
        summary = result.summary
        if summary is None:
            raise StoreError(f"match {match.id}: a result without a played match cannot be recorded")
        points = summary.points
        histograms = result.histograms or tuple({} for _ in summary.seats)
        with self.transaction():
            updated = self.db.execute(
                "UPDATE matches SET status = 'done', finished_at = ?, elapsed_s = ?, points = ?, worker = ?, "
                "error = NULL WHERE id = ? AND status IN ('pending', 'running')",
                (now(), result.elapsed_s, json.dumps(points), result.worker, match.id)).rowcount
            if updated != 1:
                raise StoreError(f"match {match.id} (ordinal {match.ordinal}) is already finished")
            self.db.executemany(
                "INSERT INTO games (match_id, game_number, seed, first_seat, ending, by_rules, winners, scores, "
                "reason, offender, moves, turns, replay) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(match.id, g.game_number, str(g.seed), g.first_seat, g.outcome.ending.value,
                  int(g.outcome.ending.by_rules), json.dumps(g.outcome.winners), json.dumps(g.outcome.scores),
                  g.outcome.reason, g.outcome.offender, g.moves, g.turns, g.replay) for g in summary.games])
            self.db.executemany(
                "INSERT INTO seat_results (match_id, seat, bot, entrant, version, status, points, timeouts, "
                "illegal_moves, malformed, crashes, decisions, decision_us_p50, decision_us_p99, decision_histogram, "
                "faults, cpu_us_p50, cpu_us_p99, cpu_us_total) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(match.id, s.seat, match.bots[s.seat], match.entrants[s.seat], s.version, s.status.value,
                  points[s.seat], s.timeouts, s.illegal_moves, s.malformed, s.crashes, s.decisions,
                  s.decision_us_p50, s.decision_us_p99, json.dumps(histograms[s.seat]),
                  json.dumps([f.to_json() for f in s.faults]),
                  s.cpu_us_p50, s.cpu_us_p99, s.cpu_us_total)
                 for s in summary.seats])
            self._add_ratings(match.tournament_id, ratings)

    def mark_void(self, match: MatchRow, error: str, ratings: Sequence[tuple[int, str, float, float]] = ()) -> None:
        """A match that could not be played (the worker failed, not the bots); not counted."""
        with self.transaction():
            self.db.execute("UPDATE matches SET status = 'void', finished_at = ?, error = ? "
                            "WHERE id = ? AND status IN ('pending', 'running')", (now(), error[:4000], match.id))
            self._add_ratings(match.tournament_id, ratings)

    def add_incident(self, tournament_id: int, match_id: int | None, kind: IncidentKind, detail: str,
                     platform_fault: bool) -> None:
        """Record a failed attempt at a match (``retried``/``void``) or a bot ``benched``."""
        with self.transaction():
            self.db.execute("INSERT INTO incidents (tournament_id, match_id, at, kind, platform_fault, detail) "
                            "VALUES (?, ?, ?, ?, ?, ?)",
                            (tournament_id, match_id, now(), kind.value, int(platform_fault), detail[:4000]))

    def incidents(self, tournament_id: int) -> list[Incident]:
        return [Incident(r["match_id"], r["at"], IncidentKind(r["kind"]), bool(r["platform_fault"]), r["detail"])
                for r in self.db.execute("SELECT match_id, at, kind, platform_fault, detail FROM incidents "
                                         "WHERE tournament_id = ? ORDER BY id", (tournament_id,))]

    def bench(self, tournament_id: int, bot: str, reason: str, matches: Sequence[MatchRow],
              ratings: Sequence[tuple[int, str, float, float]] = ()) -> None:
        """Bench ``bot``: record why, and void its ``matches`` not yet played -- one transaction."""
        with self.transaction():
            self.db.execute("INSERT OR REPLACE INTO benched (tournament_id, bot, at, reason) VALUES (?, ?, ?, ?)",
                            (tournament_id, bot, now(), reason[:4000]))
            self.db.executemany("UPDATE matches SET status = 'void', finished_at = ?, error = ? "
                                "WHERE id = ? AND status = 'pending'",
                                [(now(), f"not played: {bot} is benched ({reason})"[:4000], m.id) for m in matches])
            self.db.execute("INSERT INTO incidents (tournament_id, match_id, at, kind, platform_fault, detail) "
                            "VALUES (?, NULL, ?, 'benched', 0, ?)", (tournament_id, now(), f"{bot}: {reason}"[:4000]))
            self._add_ratings(tournament_id, ratings)

    def benched(self, tournament_id: int) -> dict[str, str]:
        """Benched bots of the tournament, with the reason."""
        return {r["bot"]: r["reason"] for r in self.db.execute(
            "SELECT bot, reason FROM benched WHERE tournament_id = ? ORDER BY at", (tournament_id,))}

    def put_ratings(self, tournament_id: int, ratings: Sequence[tuple[int, str, float, float]]) -> None:
        """Write rating rows computed again from stored results (a resumed run): they are derived
        data, normally already there, so existing rows are replaced."""
        with self.transaction():
            self.db.executemany("INSERT OR REPLACE INTO ratings (tournament_id, ordinal, entrant, mu, sigma) "
                                "VALUES (?, ?, ?, ?, ?)", [(tournament_id, *row) for row in ratings])

    def _add_ratings(self, tournament_id: int, ratings: Sequence[tuple[int, str, float, float]]) -> None:
        self.db.executemany("INSERT INTO ratings (tournament_id, ordinal, entrant, mu, sigma) VALUES (?, ?, ?, ?, ?)",
                            [(tournament_id, *row) for row in ratings])

    # -- reading results ------------------------------------------------------------------

    def finished(self, tournament_id: int, match_id: int | None = None) -> list[FinishedMatch]:
        """Every done match (or just ``match_id``), in schedule order, with its games and seat reports."""
        where = "m.tournament_id = ? AND m.status = 'done'" + (" AND m.id = ?" if match_id is not None else "")
        args: tuple[Any, ...] = (tournament_id,) + ((match_id,) if match_id is not None else ())
        games: dict[int, list[GameRecord]] = {}
        for r in self.db.execute(f"SELECT g.* FROM games g JOIN matches m ON m.id = g.match_id WHERE {where} "
                                 "ORDER BY g.match_id, g.game_number", args):
            games.setdefault(r["match_id"], []).append(GameRecord.from_row(r))
        seats: dict[int, list[SeatRecord]] = {}
        for r in self.db.execute(f"SELECT s.* FROM seat_results s JOIN matches m ON m.id = s.match_id WHERE {where} "
                                 "ORDER BY s.match_id, s.seat", args):
            seats.setdefault(r["match_id"], []).append(SeatRecord.from_row(r))
        out = []
        for r in self.db.execute(f"SELECT * FROM matches m WHERE {where} ORDER BY m.ordinal", args):
            out.append(FinishedMatch(r["id"], r["ordinal"], r["round"], r["unit"], r["rotation"],
                                     tuple(json.loads(r["entrants"])), tuple(json.loads(r["bots"])), int(r["seed"]),
                                     tuple(json.loads(r["points"])), r["elapsed_s"] or 0.0,
                                     tuple(games.get(r["id"], [])), tuple(seats.get(r["id"], []))))
        return out

    def finished_match(self, match_id: int) -> FinishedMatch:
        row = self.db.execute("SELECT tournament_id FROM matches WHERE id = ?", (match_id,)).fetchone()
        found = self.finished(int(row[0]), match_id) if row else []
        if not found:
            raise StoreError(f"match {match_id} is not done")
        return found[0]

    def rating_history(self, tournament_id: int) -> Iterator[tuple[int, str, float, float]]:
        yield from ((r[0], r[1], r[2], r[3]) for r in self.db.execute(
            "SELECT ordinal, entrant, mu, sigma FROM ratings WHERE tournament_id = ? ORDER BY ordinal, entrant",
            (tournament_id,)))

    def latest_ratings(self, tournament_id: int) -> dict[str, tuple[float, float]]:
        """Each entrant's newest (mu, sigma) from the rating history."""
        latest: dict[str, tuple[float, float]] = {}
        for _, entrant, mu, sigma in self.rating_history(tournament_id):
            latest[entrant] = (mu, sigma)
        return latest


def _match_row(r: sqlite3.Row) -> MatchRow:
    return MatchRow(r["id"], r["tournament_id"], r["ordinal"], r["round"], r["unit"], r["rotation"],
                    tuple(json.loads(r["entrants"])), tuple(json.loads(r["bots"])), int(r["seed"]), int(r["bot_seed"]),
                    r["max_games"], ScheduleStatus(r["status"]), r["attempts"], r["error"])


def _statements(script: str) -> list[str]:
    """Split the schema into statements (executescript would commit the open transaction)."""
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
