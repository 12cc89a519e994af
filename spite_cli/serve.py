"""``spite serve COMPETITION.toml`` (host a ladder) and ``spite submit BOT_DIR`` (enter a bot).

docs/hosting.md has the whole story; the logic lives in :mod:`spite_arena`.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import io
import json
import os
import select
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from referee.core.labels import terminal_safe

from .common import UsageError, fail, ranged_int, scheduler_address

SKIPPED = {".git", "__pycache__", "node_modules", "target", ".venv"}


def cmd_serve(args: argparse.Namespace) -> int:
    from spite_arena.config import CompetitionError, load_competition
    from spite_arena.service import Service
    from spite_arena.store import ArenaStoreError
    from spite_web.serving import port_problem

    from .arena import check_arena_data

    for option, listen in (("--grpc", args.grpc), ("--web", args.web)):
        problem = port_problem(listen, option, "another spite serve")
        if problem:  # before anything is opened or written
            return fail("serve", problem)
    try:
        competition = load_competition(args.file)
        check_arena_data(Path(args.data), create=True)
        service = Service(competition, Path(args.data), web=args.web, grpc_listen=args.grpc,
                          scheduler=args.scheduler, trusted_proxies=args.trusted_proxy)
        from referee.transports.server import tune_gc

        tune_gc()
        asyncio.run(service.run())
    except (CompetitionError, ArenaStoreError, ValueError, OSError, RuntimeError) as error:
        print(f"spite serve: {error}", file=sys.stderr)
        return 2
    if service.interrupted:
        print("spite serve: stopped (Ctrl-C); start it again to go on where it stopped", file=sys.stderr)
        return 130
    return 0


def pack(bot_dir: Path) -> bytes:
    """The bot directory as a gzipped tar (no links, no caches, no dot-directories)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(bot_dir.rglob("*")):
            relative = path.relative_to(bot_dir)
            if any(part in SKIPPED or part.startswith(".") for part in relative.parts) or path.is_symlink():
                continue
            if path.is_file() or path.is_dir():
                archive.add(path, arcname=str(relative), recursive=False)
    return buffer.getvalue()


def _answer(status: int, body: bytes, reason: str = "") -> tuple[int, dict[str, Any]]:
    try:
        answer = json.loads(body or b"{}")
        return status, dict(answer) if isinstance(answer, dict) else {"error": f"HTTP {status}"}
    except ValueError:
        return status, {"error": reason or f"HTTP {status}"}


def _request(url: str, key: str) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return _answer(answer.status, answer.read())
    except urllib.error.HTTPError as error:
        return _answer(error.code, error.read(), str(error.reason))


def _upload(url: str, key: str, body: bytes) -> tuple[int, dict[str, Any]]:
    """POST the upload and read the server's answer, also when the server answers before
    the body is sent (a refusal: too big, unknown key, over the hourly limit): the body goes
    in pieces and sending stops as soon as the answer is there, so the answer is read
    instead of a reset connection."""
    parts = urllib.parse.urlsplit(url)
    connection: http.client.HTTPConnection = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection)(
        parts.hostname or "", parts.port, timeout=60)
    try:
        connection.putrequest("POST", parts.path or "/")
        connection.putheader("Authorization", f"Bearer {key}")
        connection.putheader("Content-Type", "application/gzip")
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        sock = connection.sock
        view = memoryview(body)
        for start in range(0, len(body), 1 << 16):
            # over TLS the socket may be readable for TLS's own records: only plain HTTP looks early
            if parts.scheme != "https" and select.select([sock], [], [], 0)[0]:
                break  # answered early
            try:
                sock.sendall(view[start:start + (1 << 16)])
            except (BrokenPipeError, ConnectionResetError):
                break  # closed while we sent: its answer may be waiting
        response = connection.getresponse()
        return _answer(response.status, response.read(), response.reason)
    finally:
        connection.close()


def entrant_key(args: argparse.Namespace) -> str:
    """The entrant's key: ``--key-file``, else ``$SPITE_BOT_KEY``, else ``--key`` (with a
    warning: a command line is readable by every user of the machine, in ``ps``)."""
    if args.key_file:
        try:
            key = Path(args.key_file).read_text().strip()
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"cannot read --key-file {args.key_file}: {getattr(error, 'strerror', None) or error}") \
                from None
        if not key:
            raise UsageError(f"--key-file {args.key_file} is empty")
        return key
    if os.environ.get("SPITE_BOT_KEY", "").strip():
        if args.key:
            raise UsageError("give the key once: SPITE_BOT_KEY is set, drop --key")
        return os.environ["SPITE_BOT_KEY"].strip()
    if args.key:
        print("spite submit: warning: --key shows your key to every user of this machine (ps); "
              "set SPITE_BOT_KEY or use --key-file FILE instead", file=sys.stderr, flush=True)
        return str(args.key)
    raise UsageError("no key: set SPITE_BOT_KEY, or pass --key-file FILE")


def cmd_submit(args: argparse.Namespace) -> int:
    bot_dir = Path(args.bot_dir)
    if not (bot_dir / "bot.toml").is_file():
        print(f"spite submit: {bot_dir} has no bot.toml", file=sys.stderr)
        return 2
    key = entrant_key(args)
    server = args.server.rstrip("/")

    def done(payload: dict[str, Any], code: int) -> int:
        if args.json:
            print(json.dumps(payload))
        else:
            for line in payload.get("checks", []):
                print(terminal_safe(str(line)))
            verdict = "not judged" if payload.get("platform_fault") else payload.get("status", "refused")
            print(terminal_safe(f"{verdict}: {payload.get('reason') or payload.get('error') or 'ok'}"))
        return code

    try:
        status, answer = _upload(f"{server}/api/submit", key, pack(bot_dir))
        if status in (401, 403):
            print(terminal_safe(f"spite submit: {server} refused the key ({answer.get('error', status)}): "
                                f"check --key or SPITE_BOT_KEY"), file=sys.stderr)
            return 2
        if status != 202:
            return done({"status": "refused", "error": answer.get("error", f"HTTP {status}"), "http_status": status},
                        3 if status >= 500 else 1)
        if not args.json:
            print(terminal_safe(f"uploaded {answer['bot']} as version id {answer['version_id']}; checking..."),
                  flush=True)
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            status, version = _request(f"{server}{answer['poll']}", key)
            if status == 200 and version.get("status") != "checking":
                return done(version, 0 if version.get("status") == "active" else
                            3 if version.get("platform_fault") else 1)
            time.sleep(1)
        return done({"status": "checking", "error": f"no verdict after {args.timeout} s"}, 1)
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError, KeyError) as error:
        print(terminal_safe(f"spite submit: cannot reach {server}: {error}"), file=sys.stderr)
        return 2


def register(sub: Any) -> None:
    serve = sub.add_parser("serve", help="host a competition: a ladder, its workers and its web pages")
    serve.add_argument("file", help="the competition file (competitions/example.toml)")
    serve.add_argument("--data", default="arena-data",
                       help="the store, uploads, logs and replays (default ./arena-data)")
    serve.add_argument("--web", default="127.0.0.1:8000", help="web pages and API address (default 127.0.0.1:8000)")
    serve.add_argument("--grpc", default="127.0.0.1:50051",
                       help="the remote bots' lobby address (default 127.0.0.1:50051)")
    serve.add_argument("--scheduler", type=scheduler_address, metavar="tcp://HOST:8786",
                       help="play games on a Dask cluster (tcp://HOST:8786) instead of local workers")
    serve.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                       help="a reverse proxy (address or network, e.g. 127.0.0.1) whose X-Forwarded-For names the "
                            "client; repeatable. Without it the client is the TCP peer, whatever the header says")
    serve.set_defaults(func=cmd_serve)

    submit = sub.add_parser("submit", help="upload a bot directory to a competition and wait for its checks")
    submit.add_argument("bot_dir", help="the bot's directory, with its bot.toml")
    submit.add_argument("--server", required=True, help="the competition's web address, http://HOST:PORT")
    submit.add_argument("--key-file", metavar="FILE", help="a file holding your entrant key (or set SPITE_BOT_KEY)")
    submit.add_argument("--key", help="your entrant key; visible to other users in ps: prefer SPITE_BOT_KEY "
                                      "or --key-file")
    submit.add_argument("--json", action="store_true", help="print the verdict as JSON")
    submit.add_argument("--timeout", type=ranged_int(1, 86_400, "--timeout"), default=900,
                        help="seconds to wait for the checks, 1..86400 (default 900)")
    submit.set_defaults(func=cmd_submit)
