"""``spite play``: a match between bots on this machine, with a live table.

The result names every bot, says where the replays and the bots' logs went, and shows the
last lines of the log of any bot that failed (its traceback). Exit 1 when a bot failed
(crashed, timed out, moved illegally), 3 when the platform did (a void match).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.live import Live

from referee.core.match import Match, MatchConfig, Policy
from referee.processes.manifest import ManifestError
from spite_engine import RulesError, observe_public, parse_rules
from spite_engine.outcome import EventKind
from tournaments import botlogs
from tournaments.bot_specs import resolve_bot, sample_bot_names

from . import render
from .common import (
    BOT_FAILED,
    OK,
    PLATFORM,
    QuietConsole,
    UsageError,
    add_match_options,
    err_console,
    fail,
    output_dir,
    print_json,
    time_control,
    wide_console,
)


def cmd_play(args: argparse.Namespace) -> int:
    from referee.local import play_local_match

    replay_dir = None if args.no_replays or not args.replay_dir else Path(args.replay_dir)
    for option, value in (("--replay-dir", replay_dir), ("--log-dir", args.log_dir)):
        if value and Path(value).exists() and not Path(value).is_dir():
            return fail("play", f"{option} {value} is a file; a directory is expected")
    try:
        rules = parse_rules(args.rules)
        bots = [resolve_bot(spec) for spec in args.bots]
        if len(bots) != rules.players:
            raise ManifestError(f"{rules.name} seats {rules.players} bots; {len(bots)} given")
        for bot in {bot.path or bot.name: bot for bot in bots}.values():  # each manifest builds once
            bot.run_build()
        config = MatchConfig(rules, [b.name for b in bots], time_control(args), args.games, args.seed,
                             Policy(args.policy), replay_dir)
    except (RulesError, ManifestError, ValueError) as error:
        return fail("play", str(error).splitlines()[0] if str(error) else type(error).__name__)
    made: list[Path] = []
    try:  # created now, so a place nothing can be written to is one line, before any game
        for option, directory in (("--replay-dir", replay_dir), ("--log-dir", args.log_dir)):
            if directory:
                made += [] if Path(directory).exists() else [Path(directory)]
                output_dir(option, Path(directory))
    except UsageError:
        for directory in reversed(made):  # a bad --log-dir leaves no new replay directory behind
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise
    from referee.sandbox import detect, unisolated_warning

    warning = unisolated_warning(detect())
    if warning:  # one prominent line: these bots run as the organizer, unisolated
        err_console().print(warning, style="bold yellow", markup=False, highlight=False)
    # The bots' logs are always kept: next to the replays, or in a temporary directory the result names.
    log_dir = Path(args.log_dir) if args.log_dir else (replay_dir / "logs" if replay_dir
                                                       else Path(tempfile.mkdtemp(prefix="spite-logs-")))
    console = QuietConsole()
    live_view = console.is_terminal and not args.plain and not args.json
    progress = err_console()
    names = [b.name for b in bots]

    async def main() -> Any:
        live = Live(console=console, refresh_per_second=12, transient=False) if live_view else None
        queue: asyncio.Queue[Any] = asyncio.Queue()

        def on_start(match: Match) -> None:
            match.spectators.append(queue)
            asyncio.get_running_loop().create_task(_watch(match))

        async def _watch(match: Match) -> None:
            while (message := await queue.get()) is not None:
                if message.WhichOneof("body") == "game_over":
                    game = message.game_over.game_number
                    outcome = message.game_over.outcome
                    offender = outcome.offender if outcome.offender >= 0 else None
                    line = f"game {game + 1}/{args.games}: {render.name_seats(outcome.reason, names, offender)}"
                    if live is None:
                        progress.print(line, markup=False)
                    else:
                        live.console.print(line, markup=False)
                state = match.state
                if live is not None and state is not None:
                    recent = [render.describe_event(e, names) for e in state.log[-40:] if e.kind == EventKind.MOVE]
                    live.update(render.table(observe_public(state), names,
                                             f"game {match.game_number + 1}/{args.games} · {rules.name}", recent))

        if live is not None:
            live.start()
        try:
            return await play_local_match(bots, config, on_start=on_start, log_dir=log_dir)
        finally:
            if live is not None:
                live.stop()

    result = asyncio.run(main())
    summary = result.match.summary()
    for seat, exit_info, log in zip(summary["seats"], result.exits, result.logs):
        seat["exit_code"] = exit_info.returncode
        seat["log"] = str(log) if log else None
        seat["log_tail"] = botlogs.tail(log) if _failed(seat) else []
        seat["crash"] = botlogs.crash_summary(seat["log_tail"]) if seat["crashes"] else ""
    summary["log_dir"] = str(log_dir)
    if args.json:
        print_json(json.dumps(summary, indent=2))
    else:
        _print_match(wide_console(), summary, replay_dir)
    if summary["state"] in ("void", "aborted"):
        return PLATFORM
    return BOT_FAILED if any(_failed(s) for s in summary["seats"]) else OK


def _failed(seat: dict[str, Any]) -> bool:
    """Whether this seat's bot did anything wrong: a fault of any kind, or it did not finish."""
    return bool(seat["timeouts"] + seat["illegal_moves"] + seat["malformed"] + seat["crashes"]) \
        or seat["status"] not in ("done",)


def _print_match(console: Console, summary: dict[str, Any], replay_dir: Path | None) -> None:
    from rich.table import Table

    seats = summary["seats"]
    names = [s["name"] for s in seats]
    games = summary["games"]
    wins = [0] * len(seats)
    for game in games:
        for s in game["outcome"]["winners"]:
            wins[s] += 1
    cells: dict[str, list[str]] = {"seat": [], "bot": [], "points": [], "wins": [], "status": [], "faults": [],
                                   "decisions": [], "p50 ms": [], "p99 ms": [], "ms p50/p99": []}
    for s in seats:
        faults = s["timeouts"] + s["illegal_moves"] + s["malformed"] + s["crashes"]
        p50, p99 = s["decision_us_p50"] / 1000, s["decision_us_p99"] / 1000
        for key, value in (("seat", str(s["seat"])), ("bot", s["name"]),
                           ("points", str(summary["points"][s["seat"]] if summary["points"] else 0)),
                           ("wins", str(wins[s["seat"]])), ("status", s["status"]), ("faults", str(faults)),
                           ("decisions", str(s["decisions"])), ("p50 ms", f"{p50:.2f}"), ("p99 ms", f"{p99:.2f}"),
                           ("ms p50/p99", f"{p50:.1f}/{p99:.1f}")):
            cells[key].append(value)
    layouts = (("seat", "bot", "points", "wins", "status", "faults", "decisions", "p50 ms", "p99 ms"),
               ("seat", "bot", "points", "wins", "status", "faults", "decisions", "ms p50/p99"),
               ("seat", "bot", "points", "wins", "faults", "decisions", "ms p50/p99"),
               ("seat", "bot", "points", "wins", "faults", "decisions"))
    widths = {k: max([cell_len(k)] + [cell_len(v) for v in values]) for k, values in cells.items()}
    keys = next((layout for layout in layouts if sum(widths[k] + 3 for k in layout) + 1 <= console.width),
                layouts[-1])  # the widest that fits: numbers are never cut
    table = Table(title=f"match {summary['match_id']} · {summary['rules']} · {len(games)} "
                        f"game{'s' if len(games) != 1 else ''}")
    for key in keys:
        numeric = key not in ("bot", "status")
        table.add_column(key, no_wrap=True, justify="right" if numeric else "left",
                         min_width=widths[key] if numeric else None, overflow="fold" if numeric else "ellipsis")
    for i, s in enumerate(seats):
        table.add_row(*(cells[k][i] for k in keys), style="red" if _failed(s) else None)
    console.print(table)
    if len(games) == 1 and games[0]["outcome"].get("offender") is None:
        outcome = games[0]["outcome"]
        console.print(render.name_seats(outcome["reason"], names, outcome.get("offender")), markup=False)
    draws = sum(1 for g in games if not g["outcome"]["winners"])
    if draws and len(games) > 1:
        console.print(f"{draws} draw(s)")
    for s in seats:
        who = f"{s['name']} (seat {s['seat']})"
        for fault in s["faults"][:5]:
            console.print(f"{who}: {render.name_seats(fault['reason'], names)}", style="yellow", markup=False)
        if s["log_tail"]:
            if s["crash"]:
                console.print(f"{who} crashed: {s['crash']}", style="bold red", markup=False)
            console.print(f"last lines of {who}'s log ({s['log']}):", style="bold", markup=False)
            for line in s["log_tail"]:
                console.print("  " + line, markup=False, overflow="fold")
    replays = [g["replay"] for g in games if g.get("replay")]
    where = (f"replays: {Path(replays[0]).parent}/ ({len(replays)} file{'s' if len(replays) != 1 else ''}; "
             f"spite replay FILE, or --no-replays)" if replays else "no replays written")
    console.print(f"{where}; bot logs: {summary['log_dir']}/", markup=False, highlight=False)


def register(sub: Any) -> None:
    play = sub.add_parser("play", help="play a match between bots, with a live table",
                          description="Play a match between bots on this machine, with a live table in a terminal.")
    play.add_argument("bots", nargs="+", metavar="BOT",
                      help=f"a sample bot ({', '.join(sample_bot_names())}), a bot.toml or its directory, "
                           "a .py file, or a command line")
    add_match_options(play)
    play.add_argument("--replay-dir", default="replays", metavar="DIR",
                      help="write one replay file per game here (default: ./replays)")
    play.add_argument("--no-replays", action="store_true", help="write no replay files")
    play.add_argument("--log-dir", metavar="DIR",
                      help="keep each bot's stdout/stderr here, capped (default: DIR/logs of the replays, "
                           "else a temporary directory the result names)")
    play.add_argument("--plain", action="store_true", help="no live table (also when stdout is not a terminal)")
    play.add_argument("--json", action="store_true",
                      help="print the match summary as JSON on stdout (progress goes to stderr)")
    play.set_defaults(func=cmd_play)
