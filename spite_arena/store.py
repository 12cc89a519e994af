"""The arena's store: its own SQLite file (``arena.db`` under ``--data``), WAL mode.

The ``spite serve`` process writes the games and the ratings; the CLI's organizer
commands (``spite arena add-entrant``, ``pause``, ``disable``...) write only their one row
each, in a short transaction (SQLite serialises writers; the server's next loop reads them).

What makes the ladder safe against ``kill -9``:

* a game is journaled ``pending`` with its seats and seeds before a worker takes it;
* its result, both versions' new ratings and its ``done`` mark are one transaction, so a
  game is counted once or not at all;
* on start, ``running`` games (cut off by the kill) go back to ``pending`` and are played
  again with the same seeds.

Keys are never stored: only the SHA-256 of a 32-byte random token, compared in constant time.
Seeds are 64-bit unsigned and stored as decimal TEXT.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
import hashlib
import hmac
import json
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from referee.core.reports import SeatFault
from spite_engine import Ending
from tournaments.ratings import RatingParams, Ratings, placings
from tournaments.sqlite_file import StoreError, WriterLock, check_existing, connect
from tournaments.store import ScheduleStatus

SCHEMA_VERSION = 2
STORE_FILE = "arena.db"
HOUSE = "house"
NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    key_hash TEXT,                   -- sha256 hex of the API key; NULL for the house
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY,
    entrant_id INTEGER NOT NULL REFERENCES entrants(id),
    bot TEXT NOT NULL,               -- the bot's name (its manifest's)
    version INTEGER NOT NULL,        -- 1, 2, ... per entrant and bot
    label TEXT NOT NULL,             -- what its manifest calls its version
    kind TEXT NOT NULL CHECK (kind IN ('house', 'upload', 'remote')),
    spec TEXT NOT NULL,              -- a sample bot's name or the path of its bot.toml
    status TEXT NOT NULL CHECK (status IN ('checking', 'active', 'retired', 'refused', 'disabled')),
    reason TEXT NOT NULL DEFAULT '', -- why refused or disabled (shown to the owner)
    checks TEXT NOT NULL DEFAULT '[]', -- JSON: the conformance checks' lines
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    last_played_at TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (entrant_id, bot, version)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    phase TEXT NOT NULL DEFAULT 'ladder' CHECK (phase IN ('ladder', 'finals')),
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'void')),
    versions TEXT NOT NULL,          -- JSON: version id per seat
    seed TEXT NOT NULL,
    bot_seed TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    worker TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    ending TEXT,
    reason TEXT,
    winners TEXT,                    -- JSON list of seats (empty: a draw)
    scores TEXT,                     -- JSON points per seat
    faults TEXT,                     -- JSON: per seat, the referee's faults ({"kind", "reason"}; strings before kinds)
    replay TEXT,                     -- the replay file (omniscient: organizer and owners only)
    logs TEXT,                       -- JSON: per seat, the bot's stderr log file or null
    error TEXT
);
CREATE INDEX IF NOT EXISTS games_status ON games (status);
CREATE INDEX IF NOT EXISTS games_deal ON games (seed, bot_seed);
CREATE TABLE IF NOT EXISTS ratings (
    game_id INTEGER NOT NULL REFERENCES games(id),
    version_id INTEGER NOT NULL REFERENCES versions(id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    PRIMARY KEY (game_id, version_id)
);
CREATE TABLE IF NOT EXISTS incidents (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    game_id INTEGER,
    kind TEXT NOT NULL,              -- 'retried', 'crash', 'timeout', 'platform', 'refused', 'benched', 'dropped'
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS builds (  -- uploads whose checks ran: builds_per_hour counts these
    entrant_id INTEGER NOT NULL REFERENCES entrants(id),
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS upload_slots (  -- uploads taken in and not judged yet
    id INTEGER PRIMARY KEY,
    entrant_id INTEGER NOT NULL REFERENCES entrants(id),
    version_id INTEGER,              -- once unpacked: the version being checked
    at TEXT NOT NULL
);
"""
ADDED_COLUMNS = (
    # (table, column, declaration): added to a store made before the column was
    ("versions", "platform_fault", "INTEGER NOT NULL DEFAULT 0"),  # its checks could not judge it (the server's fault)
    ("entrants", "banned", "TEXT"),  # why the organizer banned the entrant (NULL: not banned)
)


class ArenaStoreError(StoreError):
    """The store cannot do what was asked; the message says why."""


class VersionLimit(ArenaStoreError):
    """An entrant asked for more new versions than the competition allows (in an hour, in
    all, or bots on the board at once)."""


LEFT_UNPLAYED = "retired: left before its first game"
"""The reason of a remote version whose bot left without playing a game: off the board, and
the same version again if that bot joins again with the same version string."""


ABANDONED = frozenset({"no-show", "disconnect", "timeout", "crash"})
"""Endings that say the loser did not play the game out: it never came, left, stalled or died."""
FORFEITED = ABANDONED | {"illegal-move", "malformed", "forfeit"}
"""Endings by the referee's hand (not the rules'): rated for the seat at fault only."""


class UploadLimit(ArenaStoreError):
    """An upload over the entrant's limits (HTTP 429); ``retry_after`` is in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _duration(seconds: int) -> str:
    return f"{seconds} s" if seconds < 120 else f"{(seconds + 59) // 60} min"


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", errors="replace")).hexdigest()


def new_key() -> str:
    """A fresh API key: 32 random bytes, URL-safe."""
    return "sk_" + secrets.token_urlsafe(32)


def check_name(name: str, what: str = "name") -> str:
    """A name (an entrant's, a bot's): 1-40 letters, digits, '_', '-' or '.', starting with a
    letter or a digit (so never ``.`` or ``..``: entrants' names are directories under ``DATA``)."""
    if not isinstance(name, str) or not name or len(name) > 40 or not set(name) <= NAME_CHARS \
            or not name[0].isalnum():
        raise ArenaStoreError(f"{what} must be 1-40 characters of letters, digits, '_', '-' or '.', starting with a "
                              f"letter or a digit, got {str(name)[:50]!r}")
    return name


def name_key(name: str) -> str:
    """What makes two names the same entrant: case and trailing dots do not count
    (``Alice``, ``alice`` and ``alice.`` are one; ``House`` and ``house.`` are the house)."""
    return name.rstrip(".").lower()


@dataclass(frozen=True)
class Entrant:
    id: int
    name: str
    banned: str | None = None
    """Why the organizer banned it (``spite arena ban``); None: not banned."""


class VersionKind(enum.StrEnum):
    """Where a bot version comes from (the ``versions.kind`` column)."""

    HOUSE = "house"
    """One of the competition's ``house_bots``."""
    UPLOAD = "upload"
    """Uploaded by its entrant, built and checked here."""
    REMOTE = "remote"
    """Runs on its entrant's machine and joins through the lobby."""


class VersionStatus(enum.StrEnum):
    """A bot version's place on the ladder (the ``versions.status`` column)."""

    CHECKING = "checking"
    """Uploaded; its checks have not ended."""
    ACTIVE = "active"
    """On the ladder."""
    RETIRED = "retired"
    """Replaced by a newer version of the same bot, or its remote bot left unplayed."""
    REFUSED = "refused"
    """Failed its checks."""
    DISABLED = "disabled"
    """Taken off by the organizer, a ban or the bench."""


class GamePhase(enum.StrEnum):
    """Which part of the competition a game belongs to (the ``games.phase`` column)."""

    LADDER = "ladder"
    FINALS = "finals"


class LadderIncident(enum.StrEnum):
    """What an ``incidents`` row of the arena store records."""

    RETRIED = "retried"
    """A game the platform could not play, to be played again."""
    PLATFORM = "platform"
    """A game the platform could not play, left void; or checks the server cut short."""
    CRASH = "crash"
    TIMEOUT = "timeout"
    REFUSED = "refused"
    """An upload that failed its checks or could not be taken."""
    BENCHED = "benched"
    DROPPED = "dropped"
    """A game not played: a version in it left the ladder before it started."""
    BUNDLE = "bundle"
    """A bot's bundle that a Dask worker could not unpack."""


@dataclass(frozen=True)
class Version:
    id: int
    entrant: str
    bot: str
    version: int
    label: str
    kind: VersionKind
    spec: str
    status: VersionStatus
    reason: str
    checks: tuple[str, ...]
    mu: float
    sigma: float
    games: int
    last_played_at: str | None
    created_at: str
    platform_fault: bool = False
    """Not judged: its checks were cut short by the server (too slow, or they could not run)."""

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def title(self) -> str:
        return f"{self.entrant}/{self.bot} v{self.version}"


@dataclass(frozen=True)
class Game:
    id: int
    phase: GamePhase
    status: ScheduleStatus
    versions: tuple[int, ...]
    seed: int
    bot_seed: int
    attempts: int
    created_at: str
    finished_at: str | None
    ending: Ending | None
    reason: str | None
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    faults: tuple[tuple[SeatFault, ...], ...]
    """Per seat, the referee's faults (a store written before kinds were kept: of unknown kind)."""
    replay: str | None
    logs: tuple[str | None, ...]
    error: str | None


@dataclass(frozen=True)
class Incident:
    """A row of the arena store's ``incidents`` table: something an organizer should see."""

    id: int
    at: str
    kind: LadderIncident
    game_id: int | None
    """The game it concerns, if any (an upload refused or a bot benched has none)."""
    detail: str

    def to_dict(self) -> dict[str, Any]:
        """As ``spite arena incidents --json`` and the admin page's ``/api/admin`` give it."""
        return {"id": self.id, "at": self.at, "kind": str(self.kind), "game_id": self.game_id, "detail": self.detail}


def _version(row: sqlite3.Row) -> Version:
    return Version(row["id"], row["entrant"], row["bot"], row["version"], row["label"], VersionKind(row["kind"]),
                   row["spec"], VersionStatus(row["status"]), row["reason"], tuple(json.loads(row["checks"])),
                   row["mu"], row["sigma"], row["games"], row["last_played_at"], row["created_at"],
                   bool(row["platform_fault"]) if "platform_fault" in row.keys() else False)


def _game(row: sqlite3.Row) -> Game:
    def load(text: str | None, default: Any) -> Any:
        return json.loads(text) if text else default
    return Game(row["id"], GamePhase(row["phase"]), ScheduleStatus(row["status"]), tuple(json.loads(row["versions"])),
                int(row["seed"]), int(row["bot_seed"]), row["attempts"], row["created_at"], row["finished_at"],
                Ending(row["ending"]) if row["ending"] else None, row["reason"], tuple(load(row["winners"], [])),
                tuple(load(row["scores"], [])),
                tuple(tuple(SeatFault.from_json(f) for f in seat) for seat in load(row["faults"], [])), row["replay"],
                tuple(load(row["logs"], [])),
                row["error"])


VERSION_SELECT = ("SELECT v.*, e.name AS entrant FROM versions v JOIN entrants e ON e.id = v.entrant_id")


class ArenaStore:
    """A connection to ``DATA/arena.db``. ``readonly`` for the web's per-request reads."""

    def __init__(self, data: Path | str, *, readonly: bool = False, writer: bool = False) -> None:
        """``readonly``: the web's per-request reads. ``writer``: the serving process, the one
        long-lived writer, which holds ``arena.db.lock`` (a second ``spite serve`` over the same
        data is refused); the organizer's commands write their one row each without it. A
        damaged or foreign file is refused before anything is written; SQLite's errors are one
        line each (:mod:`tournaments.sqlite_file`)."""
        self.data = Path(data)
        self.path = self.data / STORE_FILE
        self._lock: WriterLock | None = None
        if readonly:
            if not self.path.exists():
                raise ArenaStoreError(f"no arena store at {self.path}")
            self.db = connect(self.path, f"{self.path.resolve().as_uri()}?mode=ro", ArenaStoreError, any_thread=True)
        else:
            self.data.mkdir(parents=True, exist_ok=True)
            check_existing(self.path, ArenaStoreError)
            if writer:
                self._lock = WriterLock(self.path)
            try:
                self.db = connect(self.path, None, ArenaStoreError, any_thread=True)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.execute("PRAGMA foreign_keys=ON")
                with self.transaction():
                    lines = [line.split("--", 1)[0] for line in SCHEMA.splitlines()]
                    for statement in "\n".join(lines).split(";"):
                        if statement.strip():
                            self.db.execute(statement)
                    self.db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                                    (str(SCHEMA_VERSION),))
                    for table, column, declaration in ADDED_COLUMNS:
                        if column not in {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}:
                            self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
                    # schema 1 kept each fault as its words: read as faults of unknown kind
                    self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version' AND value = '1'",
                                    (str(SCHEMA_VERSION),))
            except BaseException:
                if self._lock is not None:
                    self._lock.release()
                raise
        self.db.row_factory = sqlite3.Row
        version = self.meta("schema_version")
        if version != str(SCHEMA_VERSION):
            raise ArenaStoreError(f"{self.path}: arena store schema {version}, this spite reads {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> ArenaStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- meta: flags the organizer sets -------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self.db.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    @property
    def paused(self) -> bool:
        return self.meta("paused") == "1"

    # -- entrants and keys -------------------------------------------------------------

    def add_entrant(self, name: str) -> str:
        """A new entrant; returns its API key (shown once: only its hash is kept)."""
        check_name(name, "an entrant's name")
        if name_key(name) == HOUSE:
            raise ArenaStoreError(f"{name!r} is taken: {HOUSE!r} is the organizer's own entrant")
        key = new_key()
        try:
            with self.transaction():  # one writer at a time: the look-up and the insert are atomic
                for (taken,) in self.db.execute("SELECT name FROM entrants"):
                    if name_key(taken) == name_key(name):
                        raise ArenaStoreError(f"an entrant named {taken!r} exists already" + (
                            "" if taken == name else "; names that differ only in case or trailing dots are one"))
                self.db.execute("INSERT INTO entrants (name, key_hash, created_at) VALUES (?, ?, ?)",
                                (name, hash_key(key), now()))
        except sqlite3.IntegrityError:
            raise ArenaStoreError(f"an entrant named {name!r} exists already") from None
        return key

    def rotate_key(self, name: str) -> str:
        key = new_key()
        with self.transaction():
            done = self.db.execute("UPDATE entrants SET key_hash = ? WHERE name = ? AND key_hash IS NOT NULL",
                                   (hash_key(key), name)).rowcount
        if not done:
            raise ArenaStoreError(f"no entrant {name!r}")
        return key

    def entrant_for_key(self, key: str) -> Entrant | None:
        """The key's entrant, compared in constant time over every stored hash."""
        wanted = hash_key(key)
        found: Entrant | None = None
        for row in self.db.execute("SELECT id, name, key_hash, banned FROM entrants WHERE key_hash IS NOT NULL"):
            if hmac.compare_digest(row["key_hash"], wanted):
                found = Entrant(row["id"], row["name"], row["banned"])
        return found

    def key_hashes(self) -> dict[str, str]:
        """Each entrant's current key hash, by name (not the house's, nor a banned entrant's)."""
        return {r["name"]: r["key_hash"] for r in
                self.db.execute("SELECT name, key_hash FROM entrants WHERE key_hash IS NOT NULL AND banned IS NULL")}

    def ban(self, name: str, reason: str) -> int:
        """Ban an entrant: its key is refused from now on (Joins, uploads, its pages) and every
        version of it still on the ladder (active or being checked) is disabled with the
        reason. Returns how many versions that took off."""
        reason = reason.strip() or "no reason given"
        with self.transaction():
            row = self.db.execute("SELECT id FROM entrants WHERE name = ? AND key_hash IS NOT NULL",
                                  (name,)).fetchone()
            if row is None:
                raise ArenaStoreError(f"no entrant {name!r} (spite arena status lists the board's entrants)")
            self.db.execute("UPDATE entrants SET banned = ? WHERE id = ?", (reason[:500], row["id"]))
            return int(self.db.execute(
                "UPDATE versions SET status = 'disabled', reason = ? WHERE entrant_id = ? "
                "AND status IN ('active', 'checking')", (f"banned: {reason[:500]}", row["id"])).rowcount)

    def check_room(self, entrant_id: int, bot: str, *, bots: int | None, versions: int | None) -> None:
        """Raise :class:`VersionLimit` if the entrant may not make a new version of ``bot``: it
        made ``versions`` versions already, or ``bot`` is not on the board and ``bots`` of its
        bots are (active or being checked). Call it inside the transaction that adds one."""
        if versions is not None:
            made = self.db.execute("SELECT COUNT(*) FROM versions WHERE entrant_id = ?", (entrant_id,)).fetchone()[0]
            if made >= versions:
                raise VersionLimit(f"this entrant made {made} bot versions, the competition's most "
                                   f"([limits] versions); ask the organizer")
        if bots is not None:
            board = {r[0] for r in self.db.execute(
                "SELECT DISTINCT bot FROM versions WHERE entrant_id = ? AND status IN ('active', 'checking')",
                (entrant_id,))}
            if bot not in board and len(board) >= bots:
                raise VersionLimit(f"this entrant has {len(board)} bots on the board ({', '.join(sorted(board))}), "
                                   f"the competition's most ([limits] bots); replace one of them with a new "
                                   f"version under its name, or ask the organizer to disable one")

    def retire_unplayed(self, version_id: int | None = None) -> int:
        """Take off the board a remote version (or every one) that never played a game: its
        bot left (or the server restarted) before its first. It comes back, the same version,
        if that bot joins again with the same version string."""
        sql = "UPDATE versions SET status = 'retired', reason = ? WHERE kind = 'remote' AND status = 'active' " \
              "AND games = 0"
        args: list[Any] = [LEFT_UNPLAYED]
        if version_id is not None:
            sql += " AND id = ?"
            args.append(version_id)
        with self.transaction():
            return int(self.db.execute(sql, args).rowcount)

    def entrant(self, name: str) -> Entrant | None:
        row = self.db.execute("SELECT id, name FROM entrants WHERE name = ?", (name,)).fetchone()
        return None if row is None else Entrant(row["id"], row["name"])

    def entrants(self) -> list[Entrant]:
        return [Entrant(r["id"], r["name"]) for r in self.db.execute("SELECT id, name FROM entrants ORDER BY id")]

    def _house(self) -> int:
        row = self.db.execute("SELECT id FROM entrants WHERE name = ?", (HOUSE,)).fetchone()
        if row is not None:
            return int(row[0])
        return int(self.db.execute("INSERT INTO entrants (name, key_hash, created_at) VALUES (?, NULL, ?)",
                                   (HOUSE, now())).lastrowid or 0)

    # -- versions ----------------------------------------------------------------------

    def ensure_house_bot(self, bot: str, label: str, spec: str, params: RatingParams) -> int:
        """The house bot's active version (a new one if its files' spec changed)."""
        with self.transaction():
            house = self._house()
            row = self.db.execute("SELECT id FROM versions WHERE entrant_id = ? AND bot = ? AND spec = ? "
                                  "AND status = 'active'", (house, bot, spec)).fetchone()
            if row is not None:
                return int(row[0])
            return self._add_version(house, bot, label, VersionKind.HOUSE, spec, VersionStatus.ACTIVE, params)

    def _add_version(self, entrant_id: int, bot: str, label: str, kind: VersionKind, spec: str, status: VersionStatus,
                     params: RatingParams) -> int:
        number = self.db.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM versions WHERE entrant_id = ? "
                                 "AND bot = ?", (entrant_id, bot)).fetchone()[0]
        cursor = self.db.execute(
            "INSERT INTO versions (entrant_id, bot, version, label, kind, spec, status, mu, sigma, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (entrant_id, bot, number, label, kind, spec, status, params.mu, params.sigma, now()))
        return int(cursor.lastrowid or 0)

    def remote_version(self, entrant_id: int, bot: str, label: str, params: RatingParams, *,
                       new_per_hour: int | None = None, bots: int | None = None,
                       versions: int | None = None) -> int:
        """The active remote version of the entrant's bot with this version label: the same
        one on every Join, a new one (retiring the bot's others) when the label changes.

        With ``new_per_hour``, an entrant that made that many remote versions in the last
        hour gets :class:`VersionLimit` instead of another (join spam, and a benched bot
        renaming its version to escape the bench); ``bots`` and ``versions`` are the
        entrant's limits on the board (:meth:`check_room`)."""
        with self.transaction():
            row = self.db.execute("SELECT id, status, reason FROM versions WHERE entrant_id = ? AND bot = ? "
                                  "AND label = ? AND kind = 'remote' ORDER BY id DESC LIMIT 1",
                                  (entrant_id, bot, label)).fetchone()
            if row is not None and row["status"] in (VersionStatus.ACTIVE, VersionStatus.DISABLED):
                return int(row["id"])
            if row is not None and row["status"] == VersionStatus.RETIRED and row["reason"] == LEFT_UNPLAYED:
                self.check_room(entrant_id, bot, bots=bots, versions=None)
                self.db.execute("UPDATE versions SET status = 'retired' WHERE entrant_id = ? AND bot = ? "
                                "AND status = 'active'", (entrant_id, bot))
                self.db.execute("UPDATE versions SET status = 'active', reason = '' WHERE id = ?", (row["id"],))
                return int(row["id"])
            self.check_room(entrant_id, bot, bots=bots, versions=versions)
            if new_per_hour is not None:
                since = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)).isoformat(timespec="milliseconds")
                made = self.db.execute("SELECT COUNT(*) FROM versions WHERE entrant_id = ? AND kind = 'remote' "
                                       "AND created_at >= ?", (entrant_id, since)).fetchone()[0]
                if made >= new_per_hour:
                    raise VersionLimit(f"this key made {made} remote bot versions in the last hour, the most there "
                                       f"may be; join with the version string of its active version, or wait an hour")
            self.db.execute("UPDATE versions SET status = 'retired' WHERE entrant_id = ? AND bot = ? "
                            "AND status = 'active'", (entrant_id, bot))
            return self._add_version(entrant_id, bot, label, VersionKind.REMOTE, f"remote:{bot}", VersionStatus.ACTIVE,
                                     params)

    def add_checking_version(self, entrant_id: int, bot: str, label: str, kind: VersionKind, spec: str,
                             params: RatingParams, slot: int | None = None) -> int:
        """A new version to check; ``slot`` (from :meth:`reserve_upload`) is now its upload's."""
        with self.transaction():
            vid = self._add_version(entrant_id, bot, label, kind, spec, VersionStatus.CHECKING, params)
            if slot is not None:
                self.db.execute("UPDATE upload_slots SET version_id = ? WHERE id = ?", (vid, slot))
            return vid

    def finish_check(self, version_id: int, passed: bool, checks: Sequence[str], reason: str = "", *,
                     platform_fault: bool = False) -> None:
        """A checked version goes active (retiring the bot's previous ones) or is refused; its
        upload slot is freed and, unless the server cut its checks short (``platform_fault``),
        the upload counts against ``builds_per_hour`` -- all in one transaction."""
        with self.transaction():
            row = self.db.execute("SELECT entrant_id, bot FROM versions WHERE id = ?", (version_id,)).fetchone()
            if passed:
                self.db.execute("UPDATE versions SET status = 'retired' WHERE entrant_id = ? AND bot = ? "
                                "AND status = 'active' AND id != ?", (row["entrant_id"], row["bot"], version_id))
            self.db.execute("UPDATE versions SET status = ?, checks = ?, reason = ?, platform_fault = ? WHERE id = ?",
                            (VersionStatus.ACTIVE if passed else VersionStatus.REFUSED, json.dumps(list(checks)),
                             reason, int(platform_fault and not passed), version_id))
            slot = self.db.execute("SELECT id, at FROM upload_slots WHERE version_id = ?", (version_id,)).fetchone()
            if slot is not None:
                self.db.execute("DELETE FROM upload_slots WHERE id = ?", (slot["id"],))
            if slot is not None and not (platform_fault and not passed):
                self.db.execute("INSERT INTO builds (entrant_id, at) VALUES (?, ?)", (row["entrant_id"], slot["at"]))

    # -- uploads: builds_per_hour and one check at a time -------------------------------

    def reserve_upload(self, entrant_id: int, per_hour: int, at_once: int) -> int:
        """Take an upload slot for the entrant before its body is read, or raise
        :class:`UploadLimit` (saying when the next upload is allowed).

        Counting and taking are one transaction, so concurrent uploads cannot all pass the
        count. Uploads being unpacked or checked hold a slot (at most ``at_once``) and count
        against ``per_hour`` until judged; :meth:`release_upload` frees the slot of an upload
        refused before its checks (it costs nothing), :meth:`finish_check` that of a checked one.
        Uploads the server could not judge cost nothing either, up to ``per_hour`` of them."""
        with self.transaction():
            stamp = dt.datetime.now(dt.timezone.utc)
            since = (stamp - dt.timedelta(hours=1)).isoformat(timespec="milliseconds")
            busy = int(self.db.execute("SELECT COUNT(*) FROM upload_slots WHERE entrant_id = ?",
                                       (entrant_id,)).fetchone()[0])
            if busy >= at_once:
                raise UploadLimit(f"your previous upload is still being checked ({busy} at once is the limit); "
                                  f"send the next one after its verdict", 10)
            checked = [r[0] for r in self.db.execute("SELECT at FROM builds WHERE entrant_id = ? AND at >= ? "
                                                     "ORDER BY at", (entrant_id, since))]
            if len(checked) + busy >= per_hour:
                if len(checked) < per_hour:  # the rest are still being checked
                    raise UploadLimit(f"{per_hour} uploads an hour are checked and yours are in use; "
                                      f"send the next one after the verdict of the one being checked", 10)
                free_at = dt.datetime.fromisoformat(checked[len(checked) - per_hour]) + dt.timedelta(hours=1)
                wait = max(1, int((free_at - stamp).total_seconds()) + 1)
                raise UploadLimit(f"{len(checked)} of your uploads were checked in the last hour, the limit is "
                                  f"{per_hour}; the next is allowed at {free_at.strftime('%H:%M:%S')} UTC "
                                  f"(in {_duration(wait)})", wait)
            # free, but not without end: a bot could slow the reference bot down to be checked for nothing
            unjudged = [r[0] for r in self.db.execute("SELECT created_at FROM versions WHERE entrant_id = ? AND "
                                                      "platform_fault = 1 AND created_at >= ? ORDER BY created_at",
                                                      (entrant_id, since))]
            if len(unjudged) >= per_hour:
                free_at = dt.datetime.fromisoformat(unjudged[len(unjudged) - per_hour]) + dt.timedelta(hours=1)
                wait = max(1, int((free_at - stamp).total_seconds()) + 1)
                raise UploadLimit(f"the server could not judge {len(unjudged)} of your uploads in the last hour (it "
                                  f"is too busy); the next is allowed at {free_at.strftime('%H:%M:%S')} UTC "
                                  f"(in {_duration(wait)})", wait)
            cursor = self.db.execute("INSERT INTO upload_slots (entrant_id, at) VALUES (?, ?)",
                                     (entrant_id, stamp.isoformat(timespec="milliseconds")))
            return int(cursor.lastrowid or 0)

    def release_upload(self, slot: int) -> None:
        """An upload refused before any check ran: its slot back, nothing counted."""
        with self.transaction():
            self.db.execute("DELETE FROM upload_slots WHERE id = ?", (slot,))

    def recover_uploads(self) -> int:
        """After a restart: slots of uploads cut off before their version existed, or whose
        version is judged, are freed (a version still ``checking`` keeps its slot: it is
        checked again)."""
        with self.transaction():
            return self.db.execute(
                "DELETE FROM upload_slots WHERE version_id IS NULL OR version_id NOT IN "
                "(SELECT id FROM versions WHERE status = 'checking')").rowcount

    def set_version_status(self, version_id: int, status: VersionStatus, reason: str = "") -> None:
        with self.transaction():
            if not self.db.execute("UPDATE versions SET status = ?, reason = ? WHERE id = ?",
                                   (status, reason, version_id)).rowcount:
                raise ArenaStoreError(f"no bot version {version_id}")

    def enable_version(self, version_id: int) -> Version:
        """Put a disabled version (by the organizer or benched) back on the ladder; an
        :class:`ArenaStoreError` saying what to do when it cannot go back."""
        with self.transaction():
            row = self.db.execute("SELECT v.entrant_id, v.bot, v.status, e.name, e.banned FROM versions v "
                                  "JOIN entrants e ON e.id = v.entrant_id WHERE v.id = ?", (version_id,)).fetchone()
            if row is None:
                raise ArenaStoreError(f"no bot version {version_id} (the leaderboard and /bots/ID show the ids)")
            if row["status"] != VersionStatus.DISABLED:
                raise ArenaStoreError(f"version {version_id} is {row['status']}, not disabled: only a disabled "
                                      f"version can be enabled")
            if row["banned"] is not None:
                raise ArenaStoreError(f"entrant {row['name']} is banned ({row['banned']}); its versions stay off")
            other = self.db.execute("SELECT id FROM versions WHERE entrant_id = ? AND bot = ? AND status = 'active' "
                                    "AND id != ?", (row["entrant_id"], row["bot"], version_id)).fetchone()
            if other is not None:
                raise ArenaStoreError(f"{row['name']}/{row['bot']} has another active version (id {other[0]}); "
                                      f"disable that one first")
            self.db.execute("UPDATE versions SET status = 'active', reason = '' WHERE id = ?", (version_id,))
        version = self.version(version_id)
        if version is None:
            raise ArenaStoreError(f"no bot version {version_id}")
        return version

    def entrant_rows(self) -> list[dict[str, Any]]:
        """Every entrant (not the house) for the organizer: name, ban, versions by status."""
        rows = []
        for entrant in self.db.execute("SELECT id, name, banned, created_at FROM entrants WHERE key_hash IS NOT NULL "
                                       "ORDER BY id"):
            statuses = {r["status"]: r["n"] for r in self.db.execute(
                "SELECT status, COUNT(*) AS n FROM versions WHERE entrant_id = ? GROUP BY status", (entrant["id"],))}
            rows.append({"name": entrant["name"], "banned": entrant["banned"], "created_at": entrant["created_at"],
                         "versions": statuses})
        return rows

    def builds_since(self, entrant_id: int, since: str) -> int:
        """Uploads of the entrant whose checks ran since ``since`` (ISO time)."""
        return int(self.db.execute("SELECT COUNT(*) FROM builds WHERE entrant_id = ? AND at >= ?",
                                   (entrant_id, since)).fetchone()[0])

    def version(self, version_id: int) -> Version | None:
        row = self.db.execute(VERSION_SELECT + " WHERE v.id = ?", (version_id,)).fetchone()
        return None if row is None else _version(row)

    def versions(self, *, statuses: Sequence[VersionStatus] = (), entrant: str | None = None) -> list[Version]:
        sql, args = VERSION_SELECT + " WHERE 1", list[Any]()
        if statuses:
            sql += f" AND v.status IN ({','.join('?' * len(statuses))})"
            args += list(statuses)
        if entrant is not None:
            sql += " AND e.name = ?"
            args.append(entrant)
        return [_version(r) for r in self.db.execute(sql + " ORDER BY v.id", args)]

    # -- games -------------------------------------------------------------------------

    def recover(self) -> int:
        """After a crash: games cut off while running go back to pending (same seeds)."""
        with self.transaction():
            return self.db.execute("UPDATE games SET status = 'pending' WHERE status = 'running'").rowcount

    def add_game(self, versions: Sequence[int], seed: int, bot_seed: int, phase: GamePhase = GamePhase.LADDER) -> int:
        with self.transaction():
            cursor = self.db.execute(
                "INSERT INTO games (phase, versions, seed, bot_seed, created_at) VALUES (?, ?, ?, ?, ?)",
                (phase, json.dumps(list(versions)), str(seed), str(bot_seed), now()))
            return int(cursor.lastrowid or 0)

    def reseed(self, game_id: int, seed: int, bot_seed: int) -> None:
        """New seeds for a game never counted (a remote bot could remember the old deal)."""
        with self.transaction():
            self.db.execute("UPDATE games SET seed = ?, bot_seed = ? WHERE id = ? AND status = 'pending'",
                            (str(seed), str(bot_seed), game_id))

    def take_game(self, game_id: int, worker: str) -> None:
        with self.transaction():
            self.db.execute("UPDATE games SET status = 'running', attempts = attempts + 1, worker = ? "
                            "WHERE id = ? AND status = 'pending'", (worker, game_id))

    def pending_games(self, phase: GamePhase = GamePhase.LADDER) -> list[Game]:
        return [_game(r) for r in self.db.execute(
            "SELECT * FROM games WHERE status = 'pending' AND phase = ? ORDER BY id", (phase,))]

    def finish_game(self, game_id: int, *, ending: Ending, reason: str, winners: Sequence[int], scores: Sequence[int],
                    faults: Sequence[Sequence[SeatFault]], replay: str | None, logs: Sequence[str | None],
                    params: RatingParams, rated: bool = True, offender: int | None = None) -> None:
        """Record a played game and, in the same transaction, its versions' new ratings.

        ``offender``: the seat at fault when the referee ended the game (a no-show, an abandon,
        a forfeit, :data:`FORFEITED`). Such a game is rated and counted for that seat only:
        the others neither gain from it nor spend a game on it, so a bot that forfeits on
        purpose cannot feed a friend rating, and a no-show does not use up an opponent's
        placement games."""
        with self.transaction():
            row = self.db.execute("SELECT status, versions FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None or row["status"] == ScheduleStatus.DONE:
                return  # never counted twice
            versions: list[int] = json.loads(row["versions"])
            stamp = now()
            self.db.execute(
                "UPDATE games SET status = 'done', finished_at = ?, ending = ?, reason = ?, winners = ?, scores = ?, "
                "faults = ?, replay = ?, logs = ?, error = NULL WHERE id = ?",
                (stamp, ending, reason, json.dumps(list(winners)), json.dumps(list(scores)),
                 json.dumps([[f.to_json() for f in seat] for seat in faults]), replay, json.dumps(list(logs)), game_id))
            ratings = Ratings(params)
            for vid in set(versions):
                r = self.db.execute("SELECT mu, sigma FROM versions WHERE id = ?", (vid,)).fetchone()
                ratings.set(str(vid), r["mu"], r["sigma"])
            counted = set(versions)
            if offender is not None and ending in FORFEITED and 0 <= offender < len(versions):
                counted = {versions[offender]}
            if rated and len(set(versions)) == len(versions):
                # rank by the game's result: a winner 0, the others 1; a draw all 0
                points = [1 if seat in winners else 0 for seat in range(len(versions))]
                for name, rating in ratings.update(placings([str(v) for v in versions], points)).items():
                    if int(name) in counted:
                        self.db.execute("UPDATE versions SET mu = ?, sigma = ? WHERE id = ?",
                                        (rating.mu, rating.sigma, int(name)))
            for vid in set(versions):
                self.db.execute("UPDATE versions SET games = games + ?, last_played_at = ? WHERE id = ?",
                                (int(vid in counted), stamp, vid))
                rating = self.db.execute("SELECT mu, sigma FROM versions WHERE id = ?", (vid,)).fetchone()
                self.db.execute("INSERT OR REPLACE INTO ratings (game_id, version_id, mu, sigma) VALUES (?, ?, ?, ?)",
                                (game_id, vid, rating["mu"], rating["sigma"]))

    def abandoned(self, version_id: int, last: int) -> tuple[int, int]:
        """Of the version's ``last`` finished ladder games, how many it lost by not playing
        them out (:data:`ABANDONED`: the seat not among the winners of such an ending), and how
        many games that looked at."""
        rows = self.db.execute(
            "SELECT versions, winners, ending FROM games WHERE status = 'done' AND phase = 'ladder' AND EXISTS "
            "(SELECT 1 FROM json_each(games.versions) WHERE json_each.value = ?) ORDER BY id DESC LIMIT ?",
            (version_id, last)).fetchall()
        lost = 0
        for row in rows:
            seats, winners = json.loads(row["versions"]), json.loads(row["winners"] or "[]")
            mine = [seat for seat, vid in enumerate(seats) if vid == version_id]
            if row["ending"] in ABANDONED and winners and not set(mine) & set(winners):
                lost += 1
        return lost, len(rows)

    def void_game(self, game_id: int, error: str, *, retry: bool, kind: LadderIncident | None = None) -> None:
        """A game the platform could not play: back to pending (retry) or void, with an incident
        (``kind``: its kind, default ``retried`` or ``platform``)."""
        with self.transaction():
            self.db.execute("UPDATE games SET status = ?, error = ? WHERE id = ? AND status != 'done'",
                            (ScheduleStatus.PENDING if retry else ScheduleStatus.VOID, error[:2000], game_id))
            self.db.execute("INSERT INTO incidents (at, game_id, kind, detail) VALUES (?, ?, ?, ?)",
                            (now(), game_id, kind or (LadderIncident.RETRIED if retry else LadderIncident.PLATFORM),
                             error[:2000]))

    def rerun_void(self) -> int:
        """Void games back to pending, to be played again; a game with a remote seat gets a
        fresh deal (its bot may have seen the old deal's start before the game was cut off).
        Games of a version no longer active stay void (nobody would play them)."""
        with self.transaction():
            rows = self.db.execute(
                "SELECT g.id, MAX(v.kind = 'remote') AS remote FROM games g, json_each(g.versions) j "
                "JOIN versions v ON v.id = j.value WHERE g.status = 'void' GROUP BY g.id "
                "HAVING MIN(v.status = 'active') = 1").fetchall()
            for row in rows:
                if row["remote"]:
                    self.db.execute("UPDATE games SET seed = ?, bot_seed = ? WHERE id = ?",
                                    (str(secrets.randbits(64)), str(secrets.randbits(63)), row["id"]))
                self.db.execute("UPDATE games SET status = 'pending', attempts = 0 WHERE id = ?", (row["id"],))
            return len(rows)

    def add_incident(self, kind: LadderIncident, detail: str, game_id: int | None = None) -> None:
        with self.transaction():
            self.db.execute("INSERT INTO incidents (at, game_id, kind, detail) VALUES (?, ?, ?, ?)",
                            (now(), game_id, kind, detail[:2000]))

    def incidents(self, limit: int = 100) -> list[Incident]:
        """The newest ``limit`` incidents, newest first."""
        return [Incident(r["id"], r["at"], LadderIncident(r["kind"]), r["game_id"], r["detail"])
                for r in self.db.execute("SELECT * FROM incidents ORDER BY id DESC LIMIT ?", (limit,))]

    def game(self, game_id: int) -> Game | None:
        row = self.db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else _game(row)

    def games(self, *, version_id: int | None = None, status: ScheduleStatus = ScheduleStatus.DONE, limit: int = 50,
              phase: GamePhase | None = None) -> list[Game]:
        """The newest games of a ``status`` (a :meth:`game_page` without its count)."""
        return self.game_page(version_ids=() if version_id is None else (version_id,), status=status, limit=limit,
                              phase=phase)[0]

    def set_spec(self, version_id: int, spec: str) -> None:
        """Where a version's ``bot.toml`` lives (an upload moves from its staging folder)."""
        with self.transaction():
            self.db.execute("UPDATE versions SET spec = ? WHERE id = ?", (spec, version_id))

    def deal_partner(self, game: Game) -> Game | None:
        """The other half of ``game``'s duplicate deal (the same seeds, seats swapped), if any."""
        row = self.db.execute("SELECT * FROM games WHERE seed = ? AND bot_seed = ? AND phase = ? AND id != ? "
                              "ORDER BY id LIMIT 1", (str(game.seed), str(game.bot_seed), game.phase,
                                                      game.id)).fetchone()
        return None if row is None else _game(row)

    def deal_over(self, game: Game) -> bool:
        """Whether ``game`` and the other half of its deal are both over for good: the other
        half done, or void with a version no longer active (``rerun-void`` never plays it)."""
        if game.status is not ScheduleStatus.DONE:
            return False
        partner = self.deal_partner(game)
        if partner is None or partner.status is ScheduleStatus.DONE:
            return True
        if partner.status is not ScheduleStatus.VOID:
            return False
        active = {v.id for v in self.versions(statuses=(VersionStatus.ACTIVE,))}
        return not all(v in active for v in partner.versions)

    def open_deals(self) -> set[tuple[int, int]]:
        """The deals (seeds) with a game not over for good: pending, running, or void and
        playable again (every version still active): what :meth:`deal_over` says no to."""
        active = {v.id for v in self.versions(statuses=(VersionStatus.ACTIVE,))}
        return {(int(r["seed"]), int(r["bot_seed"])) for r in self.db.execute(
            "SELECT seed, bot_seed, status, versions FROM games WHERE status != 'done'")
            if r["status"] != ScheduleStatus.VOID or all(v in active for v in json.loads(r["versions"]))}

    def game_page(self, *, version_ids: Sequence[int] = (), result: str | None = None, ending: str | None = None,
                  limit: int = 50, offset: int = 0, phase: GamePhase | None = None,
                  status: ScheduleStatus = ScheduleStatus.DONE) -> tuple[list[Game], int]:
        """Games of a ``status`` (finished by default), newest first, filtered: with one of
        ``version_ids`` in a seat, ``result`` from their side (won, drawn, lost), by
        ``ending``; one page of them and how many match in all."""
        sql, args = " FROM games WHERE status = ?", list[Any]([status])
        if phase:
            sql += " AND phase = ?"
            args.append(phase)
        if ending:
            sql += " AND ending = ?"
            args.append(ending)
        if version_ids:
            ids = ",".join(str(int(v)) for v in version_ids)
            seats = f"SELECT s.key FROM json_each(games.versions) s WHERE s.value IN ({ids})"
            sql += f" AND EXISTS ({seats})"
            won = f"EXISTS (SELECT 1 FROM json_each(games.winners) w WHERE w.value IN ({seats}))"
            if result == "won":
                sql += f" AND {won}"
            elif result == "drawn":
                sql += " AND winners = '[]'"
            elif result == "lost":
                sql += f" AND winners != '[]' AND NOT {won}"
        total = int(self.db.execute("SELECT COUNT(*)" + sql, args).fetchone()[0])
        rows = self.db.execute("SELECT *" + sql + " ORDER BY id DESC LIMIT ? OFFSET ?", (*args, limit, offset))
        return [_game(r) for r in rows], total

    def records(self, phase: GamePhase = GamePhase.LADDER) -> dict[int, tuple[int, int, int]]:
        """Per version: its finished games won, drawn and lost."""
        return self._tally("s.value", "", (phase,))

    def head_to_head(self, version_id: int, phase: GamePhase = GamePhase.LADDER) -> dict[int, tuple[int, int, int]]:
        """Per opponent version: the finished games ``version_id`` won, drew and lost against it."""
        return self._tally("o.value", ", json_each(g.versions) o WHERE s.value = ? AND o.key != s.key AND",
                           (version_id, phase))

    def _tally(self, key: str, join: str, args: tuple[Any, ...]) -> dict[int, tuple[int, int, int]]:
        """Won, drawn, lost per ``key`` over the finished games of a phase, from seat ``s``'s side."""
        found: dict[int, tuple[int, int, int]] = {}
        where = join if join else " WHERE"
        for row in self.db.execute(
                "SELECT " + key + " AS vid, SUM(EXISTS (SELECT 1 FROM json_each(g.winners) w WHERE w.value = s.key)) "
                "AS won, SUM(g.winners = '[]') AS drawn, COUNT(*) AS played FROM games g, json_each(g.versions) s"
                + where + " g.status = 'done' AND g.phase = ? GROUP BY " + key, args):
            found[int(row["vid"])] = (int(row["won"]), int(row["drawn"]),
                                      int(row["played"]) - int(row["won"]) - int(row["drawn"]))
        return found

    def rating_history(self, version_id: int) -> list[tuple[str, float, float]]:
        """The version's rating after each of its games, oldest first: ``(finished_at, mu, sigma)``."""
        return [(r["finished_at"] or "", float(r["mu"]), float(r["sigma"])) for r in self.db.execute(
            "SELECT g.finished_at, r.mu, r.sigma FROM ratings r JOIN games g ON g.id = r.game_id "
            "WHERE r.version_id = ? ORDER BY g.id", (version_id,))]

    def counts(self) -> dict[str, int]:
        found = {s.value: 0 for s in ScheduleStatus}
        for row in self.db.execute("SELECT status, COUNT(*) AS n FROM games GROUP BY status"):
            found[row["status"]] = row["n"]
        return found
