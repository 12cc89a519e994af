"""docs/replays.md, "Seeds and shuffles", is enough to re-create every deal: this module
implements it from the text alone (hashlib and hmac, nothing from the engine's rng) and
checks the deal, the first seat and every later shuffle of whole games of every preset."""

from __future__ import annotations

import hashlib
import hmac
import random

import pytest

from spite_engine import PRESETS, EventKind, GameState, parse_rules
from spite_engine.ruleset import RuleSet

from .support import eager_policy


def key(seed: int) -> bytes:
    return seed.to_bytes(8, "big")


def derive(seed: int, label: str) -> int:
    return int.from_bytes(hmac.new(key(seed), label.encode("ascii"), hashlib.sha256).digest()[:8], "big")


def words(seed: int, number: int):  # type: ignore[no-untyped-def]
    k = hmac.new(key(seed), f"shuffle:{number}".encode("ascii"), hashlib.sha256).digest()
    length = 64
    position = 0
    while True:
        stream = hashlib.shake_256(k).digest(8 * length)
        while position < length:
            yield int.from_bytes(stream[8 * position:8 * position + 8], "big")
            position += 1
        length *= 2


def shuffle(items: list[int], seed: int, number: int) -> list[int]:
    out = list(items)
    stream = words(seed, number)
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        while True:
            w = next(stream)
            if w < 2**64 - (2**64 % bound):
                break
        j = w % bound
        out[i], out[j] = out[j], out[i]
    return out


def sorted_deck(rules: RuleSet) -> list[int]:
    if rules.deck == "skip-bo":
        return [0] * (18 * rules.decks) + [r for r in range(1, 13) for _ in range(12 * rules.decks)]
    return [0] * (rules.jokers_per_deck * rules.decks) + [r for r in range(1, 14) for _ in range(4 * rules.decks)]


@pytest.mark.parametrize("spec", PRESETS)
@pytest.mark.parametrize("seed", [0, 7, 2**64 - 1])
def test_the_documented_derivation_reproduces_every_deal_and_shuffle(spec: str, seed: int) -> None:
    rules = parse_rules(spec)
    state = GameState.new(rules, seed)
    deck = shuffle(sorted_deck(rules), seed, 0)
    assert list(state.log[0].cards) == deck
    assert state.first_seat == derive(seed, "first-seat") % rules.players
    for index in range(rules.stocks):
        assert state.stocks[index] == deck[-rules.stock_size:]
        del deck[-rules.stock_size:]
    for seat in range(rules.players):
        assert state.hands[seat] == deck[-rules.hand_size:][::-1]
        del deck[-rules.hand_size:]
    assert state.draw_pile == deck
    draw_pile, set_aside, number = deck, [], 1
    rng = random.Random(seed)
    while state.outcome is None:
        start = len(state.log)
        state.apply(eager_policy(state, rng))
        for event in state.log[start:]:
            if event.kind == EventKind.DRAW:
                assert list(event.cards) == draw_pile[::-1][:len(event.cards)]
                del draw_pile[len(draw_pile) - len(event.cards):]
            elif event.kind == EventKind.PILE_COMPLETED:
                if rules.completed_piles == "shuffle":
                    draw_pile = draw_pile + list(event.cards)
                else:
                    set_aside = set_aside + list(event.cards)
            elif event.kind == EventKind.SHUFFLE:
                if rules.completed_piles == "set-aside":
                    assert draw_pile == []
                    draw_pile, set_aside = set_aside, []
                draw_pile = shuffle(draw_pile, seed, number)
                number += 1
                assert list(event.cards) == draw_pile
    assert state.shuffles == number
