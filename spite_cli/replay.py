"""``spite replay``: show or verify a replay file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.console import Console

from spite_engine import GameState, ReplayMismatch, observe, replay
from spite_engine.outcome import EventKind

from . import render

def cmd_replay(args: argparse.Namespace) -> int:
    from referee import replay as replay_file

    try:
        loaded = replay_file.load(args.file)
    except replay_file.ReplayError as error:
        print(f"spite replay: {error}", file=sys.stderr)
        return 2
    if args.verify:
        try:
            replay(loaded.record)
        except ReplayMismatch as error:
            print(f"spite replay: MISMATCH in {args.file}: {error}", file=sys.stderr)
            return 1
        print(f"{args.file}: verified ({len(loaded.record.moves)} moves, {len(loaded.record.events)} events, "
              f"outcome: {loaded.record.outcome.reason if loaded.record.outcome else 'none'})")
        return 0
    record = loaded.record
    names = [s.get("name", "?") for s in loaded.header.get("seats", [])] or [f"seat {i}" for i in range(record.rules.players)]
    if args.as_seat is not None and not 0 <= args.as_seat < record.rules.players:
        print(f"spite replay: --as-seat must be 0..{record.rules.players - 1}", file=sys.stderr)
        return 2
    console = Console()
    state = GameState.new(record.rules, record.seed, record.first_seat)
    meta_by_move = [m for m, e in zip(loaded.meta, record.events) if e.kind == EventKind.MOVE]
    for step, (seat, move) in enumerate(record.moves):
        if args.as_seat is None:
            view = observe(state, seat)
            title = f"step {step} · omniscient"
            hands = "   ".join(f"seat {s}: {render.cards(sorted(h))}" for s, h in enumerate(state.hands))
        else:
            view = observe(state, args.as_seat)
            title = f"step {step} · as seat {args.as_seat}"
            hands = ""
        console.print(render.table(view, names, title))
        if hands:
            console.print(f"hands: {hands}   draw pile (top last): {render.cards(state.draw_pile[-10:])}")
        meta = meta_by_move[step] if step < len(meta_by_move) else {}
        debug = f'   debug: "{meta["debug"]}"' if meta.get("debug") else ""
        spent = f"   {meta['us'] / 1000:.1f} ms" if meta.get("us") else ""
        console.print(f"[bold]seat {seat} plays {move}[/bold]{spent}{debug}\n")
        state.apply(move)
    if record.outcome is not None:
        console.print(f"[bold green]{record.outcome.reason}[/bold green]")
    return 0


def register(sub: Any) -> None:
    rep = sub.add_parser("replay", help="show or verify a replay file")
    rep.add_argument("file")
    rep.add_argument("--as-seat", type=int, help="show only what this seat knew at each step")
    rep.add_argument("--verify", action="store_true", help="re-simulate through the engine; exit 1 on any mismatch")
    rep.set_defaults(func=cmd_replay)
