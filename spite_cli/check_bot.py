"""``spite check-bot MANIFEST``: run the conformance kit (tournaments.checkbot) and print its report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from referee.manifest import ManifestError, load_manifest, resolve_bot
from referee.match import TimeControl
from tournaments.checkbot import check_bot


def cmd_check_bot(args: argparse.Namespace) -> int:
    try:
        manifest = load_manifest(args.manifest) if Path(args.manifest).exists() else resolve_bot(args.manifest)
    except ManifestError as error:
        print(f"FAIL  manifest       {error}")
        return 1
    print(f"checking {manifest.name} {manifest.version} ({manifest.transport}) against the greedy reference bot")
    checks = check_bot(manifest, games=args.games, log_dir=Path(args.log_dir) if args.log_dir else None,
                       time_control=TimeControl(decision_ms=args.decision_ms))
    for check in checks:
        print(check.line(), flush=True)
    failed = [c for c in checks if not c.passed]
    print(f"{len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def register(sub: Any) -> None:
    parser = sub.add_parser("check-bot", help="check that a bot is ready for a tournament (conformance kit)")
    parser.add_argument("manifest", help="the bot's bot.toml (or its directory, or a sample bot name)")
    parser.add_argument("--games", type=int, default=3, help="games in the main match (default 3)")
    parser.add_argument("--decision-ms", type=int, default=TimeControl.decision_ms,
                        help="per-decision limit to check against (default 1000)")
    parser.add_argument("--log-dir", help="keep the bot's logs here")
    parser.set_defaults(func=cmd_check_bot)
