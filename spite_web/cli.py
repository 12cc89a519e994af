"""``spite web``: serve the results store's pages, read-only (docs/web.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``spite web`` on the ``spite`` command's subparsers."""
    web: argparse.ArgumentParser = sub.add_parser(
        "web", help="serve leaderboards, bot pages, games and replays in a browser (read-only)")
    web.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    web.add_argument("--listen", default="127.0.0.1:8000", help="host:port (default 127.0.0.1:8000)")
    web.add_argument("--referee", metavar="HOST:PORT",
                     help="a running referee (spite referee) whose matches /live/MATCH_ID spectates, "
                          "public information only")
    web.add_argument("--admin-token-file", metavar="FILE", help="the referee's admin token (Spectate needs it)")
    web.set_defaults(func=run)
    return web


def parse_listen(text: str) -> tuple[str, int]:
    from .serving import split_listen

    return split_listen(text, "--listen")


def store_tables(path: Path) -> set[str] | None:
    """The tables of SQLite file ``path`` (``None``: damaged), read without writing a byte: no
    ``-wal`` or ``-shm`` file appears beside a file that had none (``immutable``: with no
    ``-wal`` beside it, everything is in the file itself; with one, a writer may be live, so
    it is read through the WAL as usual)."""
    import sqlite3

    uri = path.resolve().as_uri() + ("?mode=ro" if Path(f"{path}-wal").exists() else "?mode=ro&immutable=1")
    try:
        db = sqlite3.connect(uri, uri=True)
        try:
            return {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return None


def store_problem(db: Path) -> str:
    """Why ``db`` cannot be served (``""``: it can): missing, a directory, damaged, or not a
    tournament results store. Read without writing a byte, so a bad file is left as it was."""
    if db.is_dir():
        return f"--db {db} is a directory; the results store is a file (e.g. spite.db)"
    if not db.is_file():
        return f"no results store at {db} (run `spite tournament FILE` first, or pass --db PATH)"
    with open(db, "rb") as head:
        magic = head.read(16)
    if magic != b"SQLite format 3\x00":
        return f"--db {db} is not a results store (not an SQLite file); it was left as it was"
    tables = store_tables(db)
    if tables is None:
        return f"--db {db} is damaged (not a readable SQLite database); it was left as it was"
    if "tournaments" not in tables:
        what = "an arena store (spite serve's arena.db)" if "versions" in tables else "another SQLite database"
        return f"--db {db} is {what}, not a tournament results store"
    return ""


def schema_problem(db: Path) -> str:
    """Why the store ``db`` cannot be read by this spite (its schema version), ``""`` if it can.
    Opening a WAL store may add its ``-shm`` file: asked only once the port is ours."""
    import sqlite3

    from tournaments.queries import Queries, QueryError

    try:
        with Queries.open(db) as queries:
            queries.tournaments()
    except QueryError as error:
        return str(error)
    except sqlite3.DatabaseError as error:
        return f"--db {db} is damaged ({error}); it was left as it was"
    return ""


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app
    from .serving import ListenError, bind_listener, server_config

    try:
        host, port = parse_listen(args.listen)
    except ValueError as error:
        print(f"spite web: {error}", file=sys.stderr)
        return 2
    token = None
    if args.referee:
        if not args.admin_token_file:
            print("spite web: --referee needs --admin-token-file (the referee's Spectate is an admin call)",
                  file=sys.stderr)
            return 2
        try:
            token = Path(args.admin_token_file).read_text().strip()
        except OSError as error:
            print(f"spite web: cannot read the admin token: {error}", file=sys.stderr)
            return 2
    problem = store_problem(Path(args.db))
    if problem:
        print(f"spite web: {problem}", file=sys.stderr)
        return 2
    try:
        listener = bind_listener(host, port, "--listen", "another spite web")
    except ListenError as error:
        print(f"spite web: {error}", file=sys.stderr)
        return 2
    problem = schema_problem(Path(args.db))
    if problem:
        listener.close()
        print(f"spite web: {problem}", file=sys.stderr)
        return 2
    bound = listener.getsockname()
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    print(f"spite web: serving {args.db} read-only on http://{shown}:{bound[1]}/ (Ctrl-C stops)", flush=True)
    server = uvicorn.Server(server_config(create_app(args.db, referee=args.referee, admin_token=token), host, port))
    server.run(sockets=[listener])
    return 0
