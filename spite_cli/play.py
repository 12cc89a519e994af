"""``spite play``: a match between bots on this machine, with a live table."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.live import Live

from referee.manifest import ManifestError, resolve_bot
from referee.match import Match, MatchConfig, Policy
from spite_engine import RulesError, observe_public, parse_rules
from spite_engine.outcome import EventKind

from . import render
from .common import add_match_options, time_control

def cmd_play(args: argparse.Namespace) -> int:
    from referee.local import play_local_match

    try:
        rules = parse_rules(args.rules)
        bots = [resolve_bot(spec) for spec in args.bots]
        for bot in {bot.path or bot.name: bot for bot in bots}.values():  # each manifest builds once
            bot.run_build()
        if len(bots) != rules.players:
            raise ManifestError(f"{rules.name} seats {rules.players} bots; {len(bots)} given")
        config = MatchConfig(rules, [b.name for b in bots], time_control(args), args.games, args.seed,
                             Policy(args.policy), Path(args.replay_dir) if args.replay_dir else None)
    except (RulesError, ManifestError, ValueError) as error:
        print(f"spite play: {error}", file=sys.stderr)
        return 2
    console = Console()
    live_view = console.is_terminal and not args.plain
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
                    line = f"game {game + 1}/{args.games}: {message.game_over.outcome.reason}"
                    if live is None:
                        print(line, flush=True)
                    else:
                        live.console.print(line)
                state = match.state
                if live is not None and state is not None:
                    recent = [render.describe_event(e, names) for e in state.log[-40:] if e.kind == EventKind.MOVE]
                    live.update(render.table(observe_public(state), names,
                                             f"game {match.game_number + 1}/{args.games} · {rules.name}", recent))

        if live is not None:
            live.start()
        try:
            return await play_local_match(bots, config, on_start=on_start,
                                          log_dir=Path(args.log_dir) if args.log_dir else None)
        finally:
            if live is not None:
                live.stop()

    result = asyncio.run(main())
    summary = result.match.summary()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_match(console, summary)
    return 0


def _print_match(console: Console, summary: dict[str, Any]) -> None:
    from rich.table import Table

    seats = summary["seats"]
    table = Table(title=f"match {summary['match_id']} · {summary['rules']} · {len(summary['games'])} games")
    for column in ("seat", "bot", "points", "wins", "status", "faults", "decisions", "p50 ms", "p99 ms"):
        table.add_column(column)
    wins = [0] * len(seats)
    for game in summary["games"]:
        for s in game["outcome"]["winners"]:
            wins[s] += 1
    for s in seats:
        faults = s["timeouts"] + s["illegal_moves"] + s["malformed"] + s["crashes"]
        table.add_row(str(s["seat"]), s["name"], str(summary["points"][s["seat"]] if summary["points"] else 0),
                      str(wins[s["seat"]]), s["status"], str(faults), str(s["decisions"]),
                      f"{s['decision_us_p50'] / 1000:.2f}", f"{s['decision_us_p99'] / 1000:.2f}")
    console.print(table)
    draws = sum(1 for g in summary["games"] if not g["outcome"]["winners"])
    if draws:
        console.print(f"{draws} draw(s)")
    for s in seats:
        for fault in s["faults"][:5]:
            console.print(f"[yellow]seat {s['seat']} ({s['name']}): {fault}[/yellow]")
    replays = [g["replay"] for g in summary["games"] if g.get("replay")]
    if replays:
        console.print(f"replays: {Path(replays[0]).parent}/ ({len(replays)} files)")


def register(sub: Any) -> None:
    play = sub.add_parser("play", help="play a match between bots, with a live table")
    play.add_argument("bots", nargs="+", metavar="BOT",
                      help="a sample bot name (greedy, random, naive), a bot.toml, a .py file, or a command line")
    add_match_options(play)
    play.add_argument("--replay-dir", default="replays",
                      help="write one replay file per game here (default: ./replays; '' for none)")
    play.add_argument("--log-dir", help="write each bot's stdout/stderr here (capped)")
    play.add_argument("--plain", action="store_true", help="no live table (also when stdout is not a terminal)")
    play.add_argument("--json", action="store_true", help="print the match summary as JSON")
    play.set_defaults(func=cmd_play)
