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
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--listen wants host:port, got {text!r}")
    return host.strip("[]"), int(port)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app

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
    if not Path(args.db).is_file():
        print(f"spite web: no results store at {args.db} (run `spite tournament FILE` first, or pass --db PATH)",
              file=sys.stderr)
        return 2
    print(f"spite web: serving {args.db} read-only on http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(create_app(args.db, referee=args.referee, admin_token=token), host=host, port=port,
                log_level="warning")
    return 0
