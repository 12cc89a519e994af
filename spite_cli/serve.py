"""``spite referee``: a standalone referee server."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

def cmd_referee(args: argparse.Namespace) -> int:
    from referee.server import TlsConfig, TlsError, is_loopback, start_referee

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

    admin_token = os.environ.get("SPITE_ADMIN_TOKEN")
    if args.admin_token_file and Path(args.admin_token_file).exists():
        admin_token = Path(args.admin_token_file).read_text().strip()

    async def main() -> None:
        running = await start_referee(args.listen, admin_token, tls=tls)
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
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
        print("shutting down: aborting running matches", file=sys.stderr)
        await running.stop(grace=args.grace)

    asyncio.run(main())
    return 0


def register(sub: Any) -> None:
    ref = sub.add_parser("referee", help="run a standalone referee server")
    ref.add_argument("--listen", default="127.0.0.1:50051", help="host:port or unix:/path (default 127.0.0.1:50051)")
    ref.add_argument("--admin-token-file", help="read the admin token from FILE, or write a new one there")
    ref.add_argument("--grace", type=float, default=5.0, help="seconds to let streams close on shutdown")
    ref.add_argument("--tls-cert", metavar="FILE", help="serve TLS with this certificate chain (PEM)")
    ref.add_argument("--tls-key", metavar="FILE", help="the certificate's private key (PEM)")
    ref.add_argument("--tls-client-ca", metavar="FILE",
                     help="mutual TLS: admit only clients whose certificate this CA (PEM) signed")
    ref.add_argument("--insecure", action="store_true",
                     help="allow plaintext on a non-loopback address (refused without it)")
    ref.set_defaults(func=cmd_referee)
