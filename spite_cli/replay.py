"""``spite replay``: show, step through or verify a replay file.

In a terminal it is interactive: one step at a time, keys to go forward and back by
step or by turn, jump to a turn, quit. Piped (or with ``--all``) it prints every step at
full width, debug strings whole; ``--turn N`` keeps one turn, ``--moves-only`` one line
per move. ``--verify`` re-simulates the game through the engine and checks that its rule set
is what its name says: exit 1 ("a check said no") with the first difference on a mismatch.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from rich.console import Console, Group
from rich.text import Text

from spite_engine import GameState, ReplayMismatch, observe, replay
from spite_engine.record import check_rule_set_name

from . import render
from .common import BOT_FAILED, OK, USAGE, QuietConsole, existing_file, fail, output_file, ranged_int


@dataclass
class Step:
    """One move of the game and the table just before it."""

    index: int
    seat: int
    move: Any
    turn: int
    state: GameState
    meta: dict[str, Any]


def _steps(loaded: Any, viewer: int | None) -> list[Step]:
    """Every move with the table before it; debug strings only where ``viewer`` may see them
    (:func:`referee.core.replay.debug_visible`: as seat K, only K's own)."""
    from referee.core.replay import move_notes

    record = loaded.record
    state = GameState.new(record.rules, record.seed, record.first_seat)
    meta_by_move = move_notes(loaded, viewer)
    steps: list[Step] = []
    for index, (seat, move) in enumerate(record.moves):
        meta = meta_by_move[index] if index < len(meta_by_move) else {}
        steps.append(Step(index, seat, move, state.turn, state.clone(), meta))
        state.apply(move)
    return steps


def _move_line(step: Step, names: Sequence[str]) -> str:
    spent = f"   {step.meta['us'] / 1000:.1f} ms" if step.meta.get("us") else ""
    debug = f'   debug: "{step.meta["debug"]}"' if step.meta.get("debug") else ""
    who = f"{names[step.seat]} (seat {step.seat})" if step.seat < len(names) else f"seat {step.seat}"
    return f"step {step.index} · turn {step.turn} · {who} plays {step.move}{spent}{debug}"


def _step_view(step: Step, names: Sequence[str], as_seat: int | None, total: int) -> Group:
    state = step.state
    parts: list[Any] = []
    if as_seat is None:
        parts.append(render.table(observe(state, step.seat), names,
                                  f"step {step.index}/{total - 1} · omniscient"))
        hands = "   ".join(f"seat {s}: {render.cards(sorted(h))}" for s, h in enumerate(state.hands))
        parts.append(Text(f"hands: {hands}   draw pile (top last): {render.cards(state.draw_pile[-10:])}"))
    else:
        parts.append(render.table(observe(state, as_seat), names, f"step {step.index}/{total - 1} · as seat {as_seat}"))
    parts.append(Text(_move_line(step, names), style="bold"))
    return Group(*parts)


KEYS_HELP = ("→/n/space next step · ←/p previous · ]/N next turn · [/P previous turn · "
             "g jump to a turn · home/end first/last · q quit")


def _read_key() -> str:
    """One key press (the terminal is in cbreak mode; the arrows' escape sequences read whole)."""
    key = sys.stdin.read(1)
    if key == "\x1b":
        key += sys.stdin.read(2)
        if key[-1] in "0123456789":
            key += sys.stdin.read(1)
    return key


def _interactive(console: Console, steps: list[Step], names: Sequence[str], as_seat: int | None,
                 outcome: str, start: int) -> None:
    """Step through ``steps`` with the keyboard. The terminal stays in cbreak mode for the
    whole session (so keys typed quickly are kept, not flushed), cooked only to type a turn."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd, termios.TCSANOW)
    try:
        _step_through(console, steps, names, as_seat, outcome, start, lambda: termios.tcsetattr(
            fd, termios.TCSANOW, saved), lambda: tty.setcbreak(fd, termios.TCSANOW))
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _step_through(console: Console, steps: list[Step], names: Sequence[str], as_seat: int | None, outcome: str,
                  start: int, cooked: Callable[[], object], cbreak: Callable[[], object]) -> None:
    index = start
    turns = sorted({s.turn for s in steps})
    while True:
        console.clear()
        console.print(_step_view(steps[index], names, as_seat, len(steps)))
        if index == len(steps) - 1 and outcome:
            console.print(Text(outcome, style="bold green"))
        console.print(Text(KEYS_HELP, style="dim"))
        key = _read_key()
        turn = steps[index].turn
        if key in ("q", "Q", "\x03", "\x04", "\x1b"):
            return
        if key in ("n", " ", "\r", "\x1b[C", "j"):
            index = min(index + 1, len(steps) - 1)
        elif key in ("p", "\x1b[D", "k", "\x7f"):
            index = max(index - 1, 0)
        elif key in ("]", "N", "\x1b[B"):
            index = next((s.index for s in steps if s.turn > turn), index)
        elif key in ("[", "P", "\x1b[A"):
            earlier = [t for t in turns if t < turn]
            if earlier:
                index = next(s.index for s in steps if s.turn == earlier[-1])
        elif key in ("\x1b[H", "\x1b[1~", "g0"):
            index = 0
        elif key in ("\x1b[F", "\x1b[4~", "G"):
            index = len(steps) - 1
        elif key == "g":
            cooked()
            try:
                answer = console.input(f"turn ({turns[0]}..{turns[-1]}): ").strip()
            finally:
                cbreak()
            if answer.isdigit():
                index = next((s.index for s in steps if s.turn >= int(answer)), len(steps) - 1)


def cmd_replay(args: argparse.Namespace) -> int:
    from referee.core import replay as replay_file

    try:
        loaded = replay_file.load(args.file)
    except replay_file.ReplayError as error:
        return fail("replay", str(error))
    except (OSError, EOFError, ValueError) as error:
        return fail("replay", f"{args.file}: not a readable replay ({error})")
    if args.verify:
        try:
            check_rule_set_name(loaded.record.rules)
            replay(loaded.record)
        except ReplayMismatch as error:
            return fail("replay", f"MISMATCH in {args.file}: {error}", BOT_FAILED)
        print(f"{args.file}: verified ({len(loaded.record.moves)} moves, {len(loaded.record.events)} events, "
              f"outcome: {loaded.record.outcome.reason if loaded.record.outcome else 'none'})")
        return OK
    record = loaded.record
    names = ([s.get("name", "?") for s in loaded.header.get("seats", [])]
             or [f"seat {i}" for i in range(record.rules.players)])
    if args.as_seat is not None and not 0 <= args.as_seat < record.rules.players:
        return fail("replay", f"--as-seat must be 0..{record.rules.players - 1}", USAGE)
    if args.html:
        from spite_web.standalone import write_html

        output_file("--html", Path(args.html))

        written = write_html(loaded, Path(args.html), Path(args.file).name, args.as_seat)
        print(f"{args.file}: viewer written to {written}")
        return OK
    steps = _steps(loaded, args.as_seat)
    outcome = render.name_seats(record.outcome.reason, names, record.outcome.offender) if record.outcome else ""
    if args.turn is not None:
        turns = sorted({s.turn for s in steps})
        if args.turn not in turns:
            return fail("replay", f"--turn {args.turn}: this game's turns are "
                                  f"{turns[0] if turns else 0}..{turns[-1] if turns else 0}", USAGE)
        shown = [s for s in steps if s.turn == args.turn]
    else:
        shown = steps
    terminal = QuietConsole()
    interactive = (terminal.is_terminal and sys.stdin.isatty() and not args.all and not args.moves_only
                   and bool(steps))
    if interactive:
        _interactive(terminal, steps, names, args.as_seat, outcome, shown[0].index if shown else 0)
        return OK
    # Piped: full width (nothing cropped), every step asked for.
    console = terminal if terminal.is_terminal else QuietConsole(width=100_000, soft_wrap=True)
    for step in shown:
        if args.moves_only:
            console.print(_move_line(step, names), markup=False, highlight=False)
        else:
            console.print(_step_view(step, names, args.as_seat, len(steps)))
            console.print()
    if outcome and (args.turn is None or (steps and args.turn == steps[-1].turn)):
        console.print(outcome, style="bold green", markup=False, highlight=False)
    return OK


def register(sub: Any) -> None:
    rep = sub.add_parser("replay", help="step through, print or verify a replay file",
                         description="In a terminal: step through the game (arrows/n/p by step, [ ] by turn, g to "
                                     "jump, q to quit). Piped or with --all: print it, at full width.")
    rep.add_argument("file", metavar="FILE", type=existing_file,
                     help="a replay file (.jsonl.gz), as named by spite play or spite games")
    rep.add_argument("--as-seat", type=ranged_int(0, 5, "--as-seat"), metavar="K",
                     help="show only what seat K knew at each step")
    rep.add_argument("--turn", type=ranged_int(0, 1_000_000, "--turn"), metavar="N", help="only turn N")
    rep.add_argument("--moves-only", action="store_true", help="one line per move, no tables")
    rep.add_argument("--all", action="store_true", help="print every step, also in a terminal (no stepping)")
    rep.add_argument("--verify", action="store_true",
                     help="re-simulate through the engine; exit 3 on any mismatch")
    rep.add_argument("--html", metavar="OUT.html",
                     help="write the replay viewer as one self-contained file (with --as-seat: only that seat's view)")
    rep.set_defaults(func=cmd_replay)
