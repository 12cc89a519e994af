"""Shared helpers of the rules tests: the rule-set specs under test, card accounting,
seeded policies, crafted positions and state snapshots.

Nothing here is a test; the helpers only use the engine's public surface (the state's
lists are public, documented attributes).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Callable, Iterable, Sequence

from spite_engine import PRESETS, Card, GameState, Move, MoveKind, RuleSet, parse_card, parse_rules

COMBINATIONS = ("kings-only+short-15", "skip-bo+4p", "skip-bo+6p", "open-stock+no-block", "classic-20",
                "partners", "short-13+3p", "skip-bo+5p+no-block", "kings-only+open-stock+4p",
                "classic-20+3p", "skip-bo+open-stock+short-15", "classic-20+partners")
"""Combinations of presets exercised besides the presets themselves."""

SPECS = tuple(dict.fromkeys(PRESETS + COMBINATIONS))
"""Every rule-set spec the property and leak tests draw from (presets first, no repeats)."""

MAX_SEED = 2**64 - 1

Policy = Callable[[GameState, random.Random], Move]


def random_policy(state: GameState, rng: random.Random) -> Move:
    """Uniform over the legal moves."""
    return rng.choice(state.legal_moves())


def eager_policy(state: GameState, rng: random.Random) -> Move:
    """A random play when there is one (nine times in ten), else any random legal move.
    Random games mostly end in a stalemate; eager ones empty stocks too."""
    moves = state.legal_moves()
    plays = [m for m in moves if m.kind == MoveKind.PLAY]
    if plays and rng.random() < 0.9:
        return rng.choice(plays)
    return rng.choice(moves)


POLICIES: dict[str, Policy] = {"random": random_policy, "eager": eager_policy}


def all_cards(state: GameState) -> Counter[Card]:
    """The multiset of every card on the table: draw pile, stocks, hands, discard piles,
    centre piles and the set-aside pile."""
    cards: Counter[Card] = Counter(state.draw_pile)
    cards.update(state.set_aside)
    for pile in state.stocks + state.hands + state.centre:
        cards.update(pile)
    for seat_piles in state.discards:
        for pile in seat_piles:
            cards.update(pile)
    return cards


def play(state: GameState, rng: random.Random, moves: int, policy: Policy = random_policy) -> list[Move]:
    """Apply up to ``moves`` moves chosen by ``policy`` (fewer if the game ends); return them."""
    played: list[Move] = []
    while len(played) < moves and state.outcome is None:
        move = policy(state, rng)
        state.apply(move)
        played.append(move)
    return played


def snapshot(state: GameState) -> tuple[object, ...]:
    """Every field of ``state`` as immutable values, to compare states for equality."""
    return (
        state.rules, state.seed, tuple(state.draw_pile), tuple(map(tuple, state.stocks)),
        tuple(map(tuple, state.hands)), tuple(tuple(map(tuple, piles)) for piles in state.discards),
        tuple(map(tuple, state.centre)), tuple(state.set_aside), state.to_move, state.turn, state.outcome,
        tuple(state.log), tuple(state.cursors), state.shuffles, state.stuck_turns, state.turn_stuck,
        state.first_seat,
    )


def cards(text: str) -> list[Card]:
    """``"A 2 K *"`` -> ``[1, 2, 13, 0]``: a pile or hand written bottom to top."""
    return [parse_card(token) for token in text.split()]


def position(spec: str | RuleSet = "standard", *, to_move: int = 0, seed: int = 1,
             hands: Sequence[str] | None = None, stocks: Sequence[str] | None = None,
             centre: Sequence[str] | None = None, discards: Sequence[Sequence[str]] | None = None,
             draw_pile: str | None = None, set_aside: str | None = None) -> GameState:
    """A crafted position: ``GameState.new`` for the rule set, then the given lists set directly.

    Piles are written bottom to top (the last card is the top), e.g. ``stocks=["9 Q 7"]``
    gives seat 0 a stock whose top is 7. Lists not given keep the dealt cards. The crafted
    turn is an ordinary one: it is not counted toward a stalemate.
    """
    rules = parse_rules(spec) if isinstance(spec, str) else spec
    state = GameState.new(rules, seed, first_seat=to_move)
    if hands is not None:
        state.hands = [cards(h) for h in hands]
    if stocks is not None:
        state.stocks = [cards(s) for s in stocks]
    if centre is not None:
        state.centre = [cards(p) for p in centre]
    if discards is not None:
        state.discards = [[cards(p) for p in seat] for seat in discards]
    if draw_pile is not None:
        state.draw_pile = cards(draw_pile)
    if set_aside is not None:
        state.set_aside = cards(set_aside)
    state.turn_stuck = False
    state.stuck_turns = 0
    return state


def notation(moves: Iterable[Move]) -> list[str]:
    return [str(m) for m in moves]
