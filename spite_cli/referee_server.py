"""``spite referee``: a standalone referee server."""

from __future__ import annotations

import argparse
import asyncio
import errno
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from .common import UsageError, fail, not_a_directory, ranged_float


def listen_problem(listen: str) -> str:
    """Why the referee cannot listen on ``listen`` (``""``: it can, as far as can be told first):
    not ``host:port`` or ``unix:/path``, a port out of range, a port in use, a missing directory."""
    if listen.startswith("unix:"):
        path = Path(listen[len("unix:"):])
        if not path.parent.is_dir():
            return f"--listen {listen}: no directory {path.parent}"
        return ""
    host, colon, port_text = listen.rpartition(":")
    if not colon or not port_text.isdigit():
        return f"--listen {listen}: expected HOST:PORT (a port 0..65535) or unix:/path"
    port = int(port_text)
    if port > 65535:
        return f"--listen {listen}: port {port} is out of range (0..65535)"
    host = host.strip("[]") or "127.0.0.1"
    if port == 0:
        return ""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        return f"--listen {listen}: unknown host {host!r} ({error.strerror})"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return f"--listen {listen}: port {port} is in use (another referee?); choose another port"
            return f"--listen {listen}: cannot listen there: {error.strerror}"
    return ""


def cmd_referee(args: argparse.Namespace) -> int:
    from referee.transports.server import TlsConfig, TlsError, is_loopback, start_referee

    problem = listen_problem(args.listen)
    if problem:
        return fail("referee", problem)

    tls: TlsConfig | None = None
    if bool(args.tls_cert) != bool(args.tls_key):
        print("spite referee: --tls-cert and --tls-key go together (give both, or neither)", file=sys.stderr)
        return 2
    if args.tls_client_ca and not args.tls_cert:
        print("spite referee: --tls-client-ca (mutual TLS) needs --tls-cert and --tls-key", file=sys.stderr)
        return 2
    if args.tls_cert:
        tls = TlsConfig(Path(args.tls_cert), Path(args.tls_key),
                        Path(args.tls_client_ca) if args.tls_client_ca else None)
        try:
            tls.credentials()  # read every file now: a bad one is a clear error, not a traceback
        except TlsError as error:
            print(f"spite referee: {error}", file=sys.stderr)
            return 2
    elif not is_loopback(args.listen) and not args.insecure:
        print(f"spite referee: refusing to listen on {args.listen} without TLS: seat and admin tokens would cross "
              "the network in the clear. Give --tls-cert and --tls-key (docs/security.md), listen on "
              "127.0.0.1 or unix:/path, or pass --insecure on a network you trust", file=sys.stderr)
        return 2

    if args.admin_token_file and not Path(args.admin_token_file).parent.resolve().is_dir():
        return fail("referee", f"--admin-token-file {args.admin_token_file}: no directory "
                               f"{Path(args.admin_token_file).parent}")
    admin_token = os.environ.get("SPITE_ADMIN_TOKEN")
    if args.admin_token_file and Path(args.admin_token_file).exists():
        try:
            admin_token = Path(args.admin_token_file).read_text().strip()
        except (OSError, UnicodeDecodeError) as error:
            return fail("referee", f"cannot read --admin-token-file {args.admin_token_file}: {error}")
        if not admin_token:
            return fail("referee", f"--admin-token-file {args.admin_token_file} is empty; remove it to have "
                                   "a new token written there")

    async def main() -> None:
        try:
            running = await start_referee(args.listen, admin_token, tls=tls)
        except RuntimeError as error:  # gRPC could not bind after all
            raise UsageError(f"cannot listen on {args.listen}: {str(error).split(';')[0]}") from None
        if args.admin_token_file and not Path(args.admin_token_file).exists():
            path = Path(args.admin_token_file)
            path.write_text(running.admin_token + "\n")
            path.chmod(0o600)
        elif not admin_token:
            print("no admin token given (SPITE_ADMIN_TOKEN or --admin-token-file): admin calls are disabled "
                  "for this run; pass --admin-token-file FILE to have one written", file=sys.stderr)
        print(f"spite referee listening on {running.address} ({running.mode})", flush=True)
        if tls is None and not is_loopback(args.listen):
            print("WARNING: plaintext on a network address (--insecure): anyone on the path can read seat and "
                  "admin tokens", file=sys.stderr, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
        print("shutting down: aborting running matches", file=sys.stderr)
        await running.stop(grace=args.grace)

    from referee.transports.server import tune_gc

    tune_gc()
    asyncio.run(main())
    return 0


def register(sub: Any) -> None:
    ref = sub.add_parser("referee", help="run a standalone referee server")
    ref.add_argument("--listen", default="127.0.0.1:50051", help="host:port or unix:/path (default 127.0.0.1:50051)")
    ref.add_argument("--admin-token-file", type=not_a_directory, metavar="FILE",
                     help="read the admin token from FILE, or write a new one there")
    ref.add_argument("--grace", type=ranged_float(0, 3600), default=5.0,
                     help="seconds to let streams close on shutdown, 0..3600 (default 5)")
    ref.add_argument("--tls-cert", metavar="FILE", help="serve TLS with this certificate chain (PEM)")
    ref.add_argument("--tls-key", metavar="FILE", help="the certificate's private key (PEM)")
    ref.add_argument("--tls-client-ca", metavar="FILE",
                     help="mutual TLS: admit only clients whose certificate this CA (PEM) signed")
    ref.add_argument("--insecure", action="store_true",
                     help="allow plaintext on a non-loopback address (refused without it)")
    ref.set_defaults(func=cmd_referee)
