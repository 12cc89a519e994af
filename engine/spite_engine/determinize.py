"""Determinization: a full game state consistent with one seat's observation.

A bot that searches (plans a turn, samples what it cannot see, runs Monte Carlo
rollouts) needs a state it may ``apply`` moves to. ``determinize`` builds one from
what the seat sees: its own hand, every visible stock card, the discard and centre
piles are copied; everything hidden (other hands, the cards under the stock tops,
the draw pile, the set-aside pile) is dealt at random from the cards the seat has not
seen, with every pile keeping its size. Different ``rng`` values give different
worlds, all consistent with the observation; none of them is the real one.
"""

from __future__ import annotations

import random
from collections import Counter

from .cards import Card
from .observation import Observation
from .ruleset import RuleSet
from .state import GameState


def unseen_cards(observation: Observation, rules: RuleSet) -> list[Card]:
    """The deck minus every card the observation shows, sorted."""
    pool = Counter(rules.deck_cards())
    shown: list[Card] = list(observation.hand)
    for stock in observation.stocks:
        shown.extend(stock.visible)
    for piles in observation.discard_piles:
        for pile in piles:
            shown.extend(pile)
    for pile in observation.centre_piles:
        shown.extend(pile)
    pool.subtract(shown)
    if any(count < 0 for count in pool.values()):
        raise ValueError("the observation shows cards the rule set's deck does not have")
    return sorted(pool.elements())


def determinize(observation: Observation, rules: RuleSet, rng: random.Random, seed: int = 0) -> GameState:
    """A state consistent with ``observation`` (a bot's, as the SDK hands it over, or one
    built in process), hidden cards dealt by ``rng``; its own future shuffles use ``seed``."""
    if observation.seat < 0:
        raise ValueError("a spectator's public view cannot be determinized: it has no hand")
    hidden = unseen_cards(observation, rules)
    rng.shuffle(hidden)

    def take(count: int) -> list[Card]:
        if count > len(hidden):
            raise ValueError("the observation's counts exceed the unseen cards")
        cards = hidden[len(hidden) - count:]
        del hidden[len(hidden) - count:]
        return cards

    # A blank state, not a dealt one: dealing would shuffle a whole deck only to replace
    # every pile (about half the cost of a sample in a search).
    state = GameState.blank(rules, seed, observation.to_move)
    state.hands = [list(observation.hand) if s == observation.seat else take(size)
                   for s, size in enumerate(observation.hand_sizes)]
    state.stocks = []
    for stock in observation.stocks:
        below = take(stock.count - len(stock.visible))
        state.stocks.append(below + list(reversed(stock.visible)))
    state.discards = [[list(p) for p in piles] for piles in observation.discard_piles]
    state.centre = [list(p) for p in observation.centre_piles]
    state.set_aside = take(observation.set_aside_count)
    state.draw_pile = take(observation.draw_pile_count)
    state.turn = observation.turn
    state.to_move = observation.to_move
    state.outcome = None
    state.log = []
    state.cursors = [0] * rules.players
    state.stuck_turns = 0
    state.turn_stuck = False
    return state
