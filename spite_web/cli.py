"""``spite web``: serve the results store's pages, read-only (docs/web.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``spite web`` on the ``spite`` command's subparsers."""
    web: argparse.ArgumentParser = sub.add_parser("web", help="serve leaderboards, bot pages, games and replays in a browser (read-only)")
    web.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    web.add_argument("--listen", default="127.0.0.1:8000", help="host:port (default 127.0.0.1:8000)")
    web.add_argument("--referee", metavar="HOST:PORT",
                     help="a running referee (spite referee) whose matches /live/MATCH_ID spectates, public information only")
    web.add_argument("--admin-token-file", metavar="FILE", help="the referee's admin token (Spectate needs it)")
    web.set_defaults(func=run)
    return web


def parse_listen(text: str) -> tuple[str, int]:
    from .serving import split_listen

    return split_listen(text, "--listen")


def store_problem(db: Path) -> str:
    """Why ``db`` cannot be served (``""``: it can): missing, a directory, damaged, or not a
    tournament results store. Read-only, so a bad file is left as it was."""
    import sqlite3

    from tournaments.queries import Queries, QueryError

    if db.is_dir():
        return f"--db {db} is a directory; the results store is a file (e.g. spite.db)"
    if not db.is_file():
        return f"no results store at {db} (run `spite tournament FILE` first, or pass --db PATH)"
    try:
        with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as probe:
            tables = {row[0] for row in probe.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        probe.close()
        if "versions" in tables and "tournaments" not in tables:
            return f"--db {db} is an arena store (spite serve's arena.db), not a tournament results store"
    except sqlite3.DatabaseError:
        pass  # Queries says what is wrong with it, below
    try:
        with Queries.open(db) as queries:
            queries.tournaments()
    except QueryError as error:
        return str(error)
    except sqlite3.DatabaseError as error:
        return f"{db} is damaged ({error}); it was left as it was"
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
    bound = listener.getsockname()
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    print(f"spite web: serving {args.db} read-only on http://{shown}:{bound[1]}/ (Ctrl-C stops)", flush=True)
    server = uvicorn.Server(server_config(create_app(args.db, referee=args.referee, admin_token=token), host, port))
    server.run(sockets=[listener])
    return 0
