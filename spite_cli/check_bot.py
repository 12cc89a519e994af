"""``spite check-bot MANIFEST``: run the conformance kit (tournaments.checkbot) and print its
report, one line per check (``--json``: one object). Exit 1 if a check failed."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from referee.core import limits
from referee.core.deadlines import TimeControl
from referee.core.labels import terminal_safe
from referee.processes.manifest import ManifestError, load_manifest
from spite_engine import RulesError, parse_rules
from tournaments.bot_specs import resolve_bot
from tournaments.checkbot import check_bot

from .common import BOT_FAILED, OK, PLATFORM, USAGE, err_console, fail, print_json, ranged, ranged_int


def cmd_check_bot(args: argparse.Namespace) -> int:
    try:
        rules = parse_rules(args.rules)
    except RulesError as error:
        return fail("check-bot", f"--rules: {error}")
    try:
        manifest = (load_manifest(args.manifest) if Path(args.manifest).exists() and Path(args.manifest).suffix != ".py"
                    else resolve_bot(args.manifest))
    except ManifestError as error:
        message = str(error).splitlines()[0] if str(error) else "not a bot manifest"
        if args.json:
            print_json(json.dumps({"bot": None, "ok": False, "error": message, "checks": []}, indent=2))
        return fail("check-bot", message, USAGE)
    if manifest.workdir.resolve() == Path("/"):
        return fail("check-bot", f"{args.manifest}: workdir is / (the whole filesystem); give the bot's own "
                                 "directory", USAGE)
    log_dir = Path(args.log_dir) if args.log_dir else Path(tempfile.mkdtemp(prefix="spite-check-bot-"))
    if log_dir.exists() and not log_dir.is_dir():
        return fail("check-bot", f"--log-dir {log_dir} is a file; a directory is expected")
    progress = err_console()
    version = f" {manifest.version}" if manifest.version else ""
    header = terminal_safe(f"checking {manifest.name}{version} ({manifest.transport}) against the greedy reference "
                           f"bot, main match {args.rules}; logs in {log_dir}/")
    if args.json:
        progress.print(header, markup=False, highlight=False)
    else:
        print(header, flush=True)
    checks = check_bot(manifest, games=args.games, log_dir=log_dir, rules=rules,
                       time_control=TimeControl(decision_ms=args.decision_ms))
    failed = [c for c in checks if c.failed]
    skipped = [c for c in checks if c.skipped]
    passed = len(checks) - len(failed) - len(skipped)
    if args.json:
        print_json(json.dumps({"bot": manifest.name, "version": manifest.version, "transport": manifest.transport,
                               "rules": args.rules, "log_dir": str(log_dir), "ok": not failed,
                               "passed": passed, "failed": len(failed), "skipped": len(skipped),
                               "checks": [c.to_dict() for c in checks]}, indent=2))
    else:
        for check in checks:
            print(check.line(), flush=True)
        print(f"{passed} passed, {len(failed)} failed" + (f", {len(skipped)} not run" if skipped else ""))
    if any(c.platform for c in failed):
        return PLATFORM  # the reference bot missed its limits too: this machine could not judge the bot
    return BOT_FAILED if failed else OK


def register(sub: Any) -> None:
    parser = sub.add_parser("check-bot", help="check that a bot is ready for a tournament (conformance kit)",
                            description="Play the bot against the greedy sample bot through a real referee, "
                                        "and report each check: PASS, FAIL with what to fix, or SKIP.")
    parser.add_argument("manifest", metavar="BOT",
                        help="the bot's bot.toml (or its directory), a .py file, or a sample bot name")
    parser.add_argument("--rules", default="standard", metavar="PRESET",
                        help="the rules of the main match (default standard; skip-bo for a Skip-Bo-only bot); "
                             "the variant checks build on them")
    parser.add_argument("--games", type=ranged_int(1, 100, "--games"), default=3,
                        help="games in the main match, 1..100 (default 3)")
    parser.add_argument("--decision-ms", type=ranged(limits.DECISION_MS, "--decision-ms"),
                        default=TimeControl.decision_ms, help="per-decision limit to check against (default 1000)")
    parser.add_argument("--log-dir", metavar="DIR", help="keep the bot's logs here (default: a temporary directory)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.set_defaults(func=cmd_check_bot)
