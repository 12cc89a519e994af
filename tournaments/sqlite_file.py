"""The results store's file, opened safely: one writer at a time (a ``flock`` on
``<db>.lock``, released by the kernel when its process ends, even by ``kill -9``), a damaged
or foreign file refused before a byte is written, and every SQLite error worded as one
:class:`StoreError` line. :mod:`tournaments.store` holds the tables on top of it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: no lock (documented in docs/tournaments.md)
    fcntl = None  # type: ignore[assignment]

SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(RuntimeError):
    """The store cannot do what was asked (missing, damaged or foreign file, full disk, a
    match in the wrong state...). The message is one line, fit to print as it is."""


class StoreLocked(StoreError):
    """Another process is writing to this store."""


def one_line(path: Path, error: sqlite3.Error, kind: type[StoreError] = StoreError) -> StoreError:
    """The sentence for an SQLite error on the store at ``path``, as a ``kind`` (the arena's
    store raises its own subclass)."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if "full" in text:  # SQLITE_FULL: "database or disk is full"
        return kind(f"{path}: the disk is full ({text}); the last change was not written, "
                    f"the store holds everything before it")
    if "malformed" in text or "not a database" in text or "encrypted" in text:
        return kind(f"{path}: not a Spite Arena results store, or a damaged one ({text}); "
                    f"it was left as it was")
    if "locked" in text or "busy" in text:
        return kind(f"{path}: the store is busy ({text}); another process holds it")
    return kind(f"{path}: the results store failed: {text}")


class Connection(sqlite3.Connection):
    """A connection whose every statement reports SQLite's errors as :class:`StoreError`."""

    store_path = Path()
    error_kind: type[StoreError] = StoreError

    def execute(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
        try:
            return super().execute(*args, **kwargs)
        except sqlite3.Error as error:
            raise one_line(self.store_path, error, self.error_kind) from None

    def executemany(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
        try:
            return super().executemany(*args, **kwargs)
        except sqlite3.Error as error:
            raise one_line(self.store_path, error, self.error_kind) from None


def connect(path: Path, uri: str | None = None, kind: type[StoreError] = StoreError, *,
            any_thread: bool = False) -> Connection:
    """A connection to the store at ``path`` (or the ``uri`` naming it) whose errors are
    ``kind``; ``any_thread``: usable from threads other than this one (the arena's writer)."""
    try:
        db = sqlite3.connect(uri or path, uri=uri is not None, timeout=30, isolation_level=None,
                             factory=Connection, check_same_thread=not any_thread)
    except sqlite3.Error as error:
        raise one_line(path, error, kind) from None
    assert isinstance(db, Connection)
    db.store_path, db.error_kind = path, kind
    return db


def check_existing(path: Path, kind: type[StoreError] = StoreError) -> None:
    """Refuse, without writing a byte, a file that is not a sound SQLite database."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    except OSError as error:
        raise kind(f"{path}: cannot read the results store: {error.strerror or error}") from None
    if size == 0:
        return
    with open(path, "rb") as file:
        head = file.read(len(SQLITE_MAGIC))
    if head != SQLITE_MAGIC:
        raise kind(f"{path}: not a Spite Arena results store (not an SQLite file); it was left as it was")
    db = connect(path, f"{path.resolve().as_uri()}?mode=ro", kind)
    try:
        found = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as error:  # raised while fetching (execute's own errors are StoreErrors)
        raise one_line(path, error, kind) from None
    finally:
        db.close()
    if [tuple(r) for r in found] != [("ok",)]:
        raise kind(f"{path}: the results store is damaged ({found[0][0]}); it was left as it was")


class WriterLock:
    """An exclusive ``flock`` on ``<db>.lock`` holding the owner's pid and command line."""

    def __init__(self, db_path: Path) -> None:
        self.path = db_path.with_name(db_path.name + ".lock")
        self.fd: int | None = None
        if fcntl is None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 4096, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise StoreLocked(f"{db_path} is in use by another writer ({holder}); wait for it to finish, "
                              f"or stop it, before writing to this store") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"process {os.getpid()}: {command_line()}".encode(), 0)
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.close(self.fd)  # closing releases the flock
            self.fd = None


def command_line() -> str:
    try:
        with open(f"/proc/{os.getpid()}/cmdline", "rb") as file:
            parts = file.read().split(b"\0")
        return " ".join(p.decode(errors="replace") for p in parts if p)[:200]
    except OSError:
        return "spite"
