"""Golden data of the rules engine: perft move counts and whole-game playthroughs.

The golden files under ``tests/golden/`` are the executable statement of the rules:
``test_perft.py`` and ``test_playthroughs.py`` regenerate them in memory with the
functions below and diff. After an intended rule change (bump ``RULES_VERSION``),
regenerate them all and review the diff::

    .venv/bin/python -m tests.rules.golden --regen

Without ``--regen`` the command only reports which files are out of date (exit 1 if any).

Perft (``tests/golden/perft/<preset>.json``): ``perft(state, d)`` is the number of leaves
of the move tree ``d`` moves deep, as in chess: a move that ends the game is a leaf only
at the last ply, and a finished game has no moves. Chance is fixed by the seed (draws and
shuffles happen inside ``apply``), so the tree is deterministic. Each file holds a few
fresh deals and mid-game positions; a mid-game position stores the moves that reach it,
so the file does not depend on ``random``'s algorithms.

Playthroughs (``tests/golden/playthroughs/<preset>.txt``): one whole game per preset with
the reference greedy policy (``spite_sdk.policies.greedy_move``) in every seat, printed
step by step in the format documented at the top of each file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from spite_engine import (
    PRESETS,
    RULES_VERSION,
    Card,
    Event,
    EventKind,
    GameState,
    Move,
    Observation,
    observe,
    observe_public,
    parse_rules,
)
from spite_sdk.policies import greedy_move

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
PERFT_DIR = GOLDEN / "perft"
PLAYTHROUGH_DIR = GOLDEN / "playthroughs"
REGEN_COMMAND = ".venv/bin/python -m tests.rules.golden --regen"

PERFT_DEPTH = 3
PERFT_DEALS = (1, 2, 3)
"""Seeds of the fresh deals in every perft file."""
PERFT_MIDGAMES = ((10, 20), (11, 40))
"""(seed, moves): mid-game positions reached by a ``random.Random(seed)`` uniform policy."""

PLAYTHROUGH_SEEDS: dict[str, int] = {
    "standard": 11, "kings-only": 16, "short-13": 13, "short-15": 32, "open-stock": 50, "no-block": 57,
    "skip-bo": 66, "partners": 18, "classic-20": 14, "3p": 96, "4p": 47,
}
"""The seed of each preset's playthrough: among the shortest greedy games of seeds 0..99
(``--shortest`` lists them), one that ends with an emptied stock, except no-block (a
stalemate) and classic-20 (the draw pile runs out), so those endings are shown too, and
standard (seed 11), whose step 84 shows decision 3's refill of an already empty hand when a
completed pile brings cards to an empty draw pile."""

_CHARS = {0: "*", 1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}


# -- perft -------------------------------------------------------------------------------------

def perft(state: GameState, depth: int) -> int:
    """Leaves of the move tree ``depth`` (>= 1) moves deep from ``state``."""
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = state.clone()
        child.apply(move)
        total += perft(child, depth - 1)
    return total


def perft_positions(spec: str) -> list[dict[str, Any]]:
    """The positions of ``spec``'s perft file, counts included (computed now)."""
    rules = parse_rules(spec)
    positions = []
    for seed in PERFT_DEALS:
        state = GameState.new(rules, seed)
        positions.append({"seed": seed, "moves": [], "perft": [perft(state, d) for d in range(1, PERFT_DEPTH + 1)]})
    for seed, count in PERFT_MIDGAMES:
        state = GameState.new(rules, seed)
        rng = random.Random(seed)
        moves = []
        for _ in range(count):
            move = rng.choice(state.legal_moves())
            state.apply(move)
            moves.append(str(move))
        if state.outcome is not None:
            raise RuntimeError(f"{spec}: seed {seed} ended within {count} moves; pick another mid-game seed")
        positions.append({"seed": seed, "moves": moves,
                          "perft": [perft(state, d) for d in range(1, PERFT_DEPTH + 1)]})
    return positions


def perft_document(spec: str) -> dict[str, Any]:
    return {
        "_about": "perft golden file: leaves of the move tree at depths 1..N from each position "
                  "(tests/rules/golden.py says how they are counted)",
        "_regenerate": REGEN_COMMAND,
        "rules": spec,
        "rules_version": RULES_VERSION,
        "positions": perft_positions(spec),
    }


def perft_text(spec: str) -> str:
    """The perft file: JSON, one position per line so that diffs point at the position."""
    document = perft_document(spec)
    positions = document.pop("positions")
    head = json.dumps(document, indent=1)[:-2]
    body = ",\n".join("  " + json.dumps(p) for p in positions)
    return f'{head},\n "positions": [\n{body}\n ]\n}}\n'


def replay_position(spec: str, seed: int, moves: list[str]) -> GameState:
    """The position a perft entry names: the deal of ``seed`` and then ``moves``, checked."""
    state = GameState.new(parse_rules(spec), seed)
    for text in moves:
        state.apply_checked(Move.parse(text))
    return state


# -- playthroughs ------------------------------------------------------------------------------

def card_chars(cards: tuple[Card, ...] | list[Card]) -> str:
    """One character per card: ``*`` wild/joker, ``A``, ``2``..``9``, ``T``, ``J``, ``Q``, ``K``."""
    return "".join(_CHARS.get(c) or str(c) for c in cards)


def _piles(piles: tuple[tuple[Card, ...], ...]) -> str:
    return "|".join(card_chars(p) or "-" for p in piles)


def render_event(event: Event) -> str:
    """One event, compactly. Redacted events (no cards) show only the count."""
    kind = event.kind
    if kind == EventKind.SHUFFLE:
        return f"shuffle[{event.count}]" + (f" {card_chars(event.cards)}" if event.cards else "")
    if kind == EventKind.DEAL:
        return f"deal first=s{event.seat}"
    if kind == EventKind.TURN:
        return f"turn {event.count} s{event.seat}"
    if kind == EventKind.MOVE:
        return f"s{event.seat} {event.move}"
    if kind == EventKind.DRAW:
        return f"draw s{event.seat} " + (card_chars(event.cards) if event.cards else f"x{event.count}")
    if kind == EventKind.REVEAL:
        return f"reveal S{event.pile} {card_chars(event.cards) or '-'} ({event.count})"
    if kind == EventKind.PILE_COMPLETED:
        return f"complete C{event.pile} {card_chars(event.cards)}"
    return "game over" + (f" s{event.seat}" if event.seat >= 0 else "")


def render_public(view: Observation) -> str:
    """The fields every seat sees alike (and a spectator too)."""
    stocks = " ".join(f"{s.count}:{card_chars(s.visible) or '-'}" for s in view.stocks)
    discards = " ".join(f"s{seat} {_piles(piles)}" for seat, piles in enumerate(view.discard_piles))
    hands = " ".join(str(n) for n in view.hand_sizes)
    return (f"centre {_piles(view.centre_piles)} · stocks {stocks} · discards {discards} · hands {hands}"
            f" · draw {view.draw_pile_count} · aside {view.set_aside_count}")


_PUBLIC_FIELDS = ("rules", "turn", "to_move", "hand_sizes", "stocks", "discard_piles", "centre_piles",
                  "draw_pile_count", "set_aside_count", "outcome")


def _check_views(state: GameState, views: list[Observation], public: Observation) -> None:
    """Every seat's view agrees with the public one on the public fields, and only the seat
    to move has (exactly the state's) legal moves. Raises AssertionError otherwise."""
    for seat, view in enumerate(views):
        for name in _PUBLIC_FIELDS:
            if getattr(view, name) != getattr(public, name):
                raise AssertionError(f"seat {seat}'s view differs from the public one in {name}")
        mine = tuple(state.legal_moves()) if seat == state.to_move and state.outcome is None else ()
        if view.legal_moves != mine:
            raise AssertionError(f"seat {seat}'s legal moves {view.legal_moves} != {mine}")


def playthrough_text(spec: str, seed: int | None = None) -> str:
    """The whole playthrough file of ``spec`` (a game of the greedy policy from ``seed``)."""
    rules = parse_rules(spec)
    seed = PLAYTHROUGH_SEEDS[spec] if seed is None else seed
    state = GameState.new(rules, seed)
    lines = [
        f"# Playthrough of {rules.name!r} (rules version {rules.version}), seed {seed}, first seat "
        f"{state.first_seat}; every seat plays spite_sdk.policies.greedy_move.",
        f"# Regenerate: {REGEN_COMMAND}   (tests/rules/test_playthroughs.py diffs this file)",
        "# Cards: * joker/wild, A, 2..9, T (10), J, Q, K; Skip-Bo uses the same characters for 1..12.",
        "# Piles are written bottom to top, '-' is an empty pile, '|' separates piles; stocks are",
        "#   count:face-up cards (top first). Each step shows:",
        "#   events  - the log since the previous step, unredacted (chance: shuffles with their order,",
        "#             every draw with its cards, reveals; and turns, completed piles, game over);",
        "#   public  - what every seat's observation (and observe_public) shows alike;",
        "#   hands   - each seat's own hand, the private part of its observation;",
        "#   seen    - the events in the mover's observation (redacted for it: others' draws show",
        "#             only a count, shuffles no order);",
        "#   legal   - the mover's legal moves, in the engine's order; move - the one chosen.",
        f"rules: {json.dumps(rules.to_dict(), sort_keys=True)}",
    ]
    shown = 0
    step = 0
    while True:
        views = [observe(state, s) for s in range(rules.players)]
        public = observe_public(state)
        _check_views(state, views, public)
        events = [e for e in state.log[shown:] if e.kind != EventKind.MOVE]
        shown = len(state.log)
        header = f"== end · turn {state.turn}" if state.outcome else \
            f"== step {step} · turn {state.turn} · seat {state.to_move} to move"
        lines.append(header)
        lines.append("events: " + (" | ".join(render_event(e) for e in events) or "-"))
        lines.append("public: " + render_public(public))
        lines.append("hands: " + " · ".join(f"s{s} {card_chars(v.hand) or '-'}" for s, v in enumerate(views)))
        if state.outcome is not None:
            outcome = state.outcome
            lines.append(f"outcome: {outcome.ending.value} winners={list(outcome.winners)} "
                         f"scores={list(outcome.scores)}: {outcome.reason}")
            break
        mover = views[state.to_move]
        lines.append("seen: " + (" | ".join(render_event(e) for e in mover.events) or "-"))
        lines.append(f"legal ({len(mover.legal_moves)}): " + " ".join(str(m) for m in mover.legal_moves))
        move = greedy_move(mover)
        lines.append(f"move: {move}")
        state.apply_checked(move, state.to_move)
        step += 1
    return "\n".join(lines) + "\n"


# -- command line ------------------------------------------------------------------------------

def golden_files() -> dict[Path, Any]:
    """Every golden file, mapped to a function giving its expected text."""
    files: dict[Path, Any] = {}
    for spec in PRESETS:
        files[PERFT_DIR / f"{spec}.json"] = lambda spec=spec: perft_text(spec)
        files[PLAYTHROUGH_DIR / f"{spec}.txt"] = lambda spec=spec: playthrough_text(spec)
    return files


def shortest_games(spec: str, seeds: range = range(100), count: int = 5) -> list[tuple[int, int, str]]:
    """(moves, seed, ending) of the ``count`` shortest greedy games of ``spec`` ending by a stock."""
    rules = parse_rules(spec)
    games = []
    for seed in seeds:
        state = GameState.new(rules, seed)
        moves = 0
        while state.outcome is None:
            state.apply(greedy_move(observe(state, state.to_move)))
            moves += 1
        games.append((moves, seed, state.outcome.ending.value))
    return sorted(games)[:count]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.rules.golden", description=__doc__.split("\n")[0])
    parser.add_argument("--regen", action="store_true", help="rewrite every golden file")
    parser.add_argument("--shortest", action="store_true", help="list short greedy games per preset")
    args = parser.parse_args(argv)
    if args.shortest:
        for spec in PRESETS:
            print(spec, shortest_games(spec))
        return 0
    stale = 0
    for path, make in golden_files().items():
        text = make()
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        stale += 1
        if args.regen:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path.relative_to(GOLDEN.parent.parent)} ({len(text)} bytes)")
        else:
            print(f"out of date: {path.relative_to(GOLDEN.parent.parent)}")
    if not stale:
        print("every golden file is up to date")
    return 0 if args.regen or not stale else 1


if __name__ == "__main__":
    sys.exit(main())
