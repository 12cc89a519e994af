"""Property tests of the engine over random seeds, rule sets and move sequences.

Hypothesis draws the rule-set spec, the seed, the first few move choices and a policy;
long games continue with a ``random.Random`` seeded from the drawn seed, so an example
stays cheap to generate and still replays exactly. Every property below must hold for
every rule set the platform offers (presets and combinations, ``support.SPECS``).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from typing import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from spite_engine import GameRecord, GameState, IllegalMoveError, Move, RuleSet, observe, parse_rules, replay

from .support import MAX_SEED, POLICIES, SPECS, all_cards, snapshot

seeds = st.integers(min_value=0, max_value=MAX_SEED)
specs = st.sampled_from(SPECS)
choices = st.lists(st.integers(min_value=0, max_value=10**6), max_size=40)
"""The first moves of a game, as indices into ``legal_moves()`` (modulo its length)."""
policies = st.sampled_from(sorted(POLICIES))
turn_caps = st.one_of(st.none(), st.integers(min_value=1, max_value=40))
"""None keeps the rule set's cap; small caps make games end by TURN_CAP."""

MOVE_LIMIT = 100_000
"""No game may take more moves than this (the turn cap ends every game far sooner)."""


def rules_for(spec: str, turn_cap: int | None = None) -> RuleSet:
    rules = parse_rules(spec)
    return rules if turn_cap is None else dataclasses.replace(rules, turn_cap=turn_cap)


def moves_of(state: GameState, seed: int, first: list[int], policy: str) -> Iterator[Move]:
    """Yield the moves of a game as they are chosen: ``first`` (indices), then the policy."""
    rng = random.Random(seed)
    choose = POLICIES[policy]
    for count in range(MOVE_LIMIT):
        if state.outcome is not None:
            return
        if count < len(first):
            moves = state.legal_moves()
            yield moves[first[count] % len(moves)]
        else:
            yield choose(state, rng)
    raise AssertionError(f"no outcome after {MOVE_LIMIT} moves")


def play_game(rules: RuleSet, seed: int, first: list[int], policy: str) -> GameState:
    state = GameState.new(rules, seed)
    for move in moves_of(state, seed, first, policy):
        state.apply(move)
    return state


@settings(max_examples=40, deadline=None)
@given(spec=specs, seed=seeds, first=choices, policy=policies, turn_cap=turn_caps)
def test_every_card_is_accounted_for_at_every_step(spec: str, seed: int, first: list[int], policy: str,
                                                   turn_cap: int | None) -> None:
    """The multiset of draw pile + stocks + hands + discard piles + centre piles + set-aside
    equals the rule set's deck after the deal and after every move: no card is created,
    lost or duplicated by plays, refills, completed piles, shuffles or recycling."""
    rules = rules_for(spec, turn_cap)
    deck = Counter(rules.deck_cards())
    assert sum(deck.values()) == rules.deck_size
    state = GameState.new(rules, seed)
    assert all_cards(state) == deck
    for move in moves_of(state, seed, first, policy):
        state.apply(move)
        assert all_cards(state) == deck, f"after {move} on turn {state.turn}"


def check_table(state: GameState) -> None:
    """The shape rules of the table (see test_the_table_stays_well_formed)."""
    rules = state.rules
    wild = rules.wild_ranks
    for index, pile in enumerate(state.centre):
        for rank, card in enumerate(pile, start=1):
            assert card == rank or card in wild, f"centre pile {index} is not a build: {pile}"
        if state.outcome is None:
            assert len(pile) < rules.max_rank, f"centre pile {index} reached the Queen and stayed: {pile}"
    assert all(len(hand) <= rules.hand_size for hand in state.hands)
    if not rules.discard_aces:
        assert all(1 not in pile for piles in state.discards for pile in piles), "an Ace was discarded"
    if rules.completed_piles == "shuffle":
        assert state.set_aside == []
    assert 0 <= state.to_move < rules.players and 1 <= state.turn <= rules.turn_cap
    assert 0 <= state.stuck_turns < rules.players or state.outcome is not None


@settings(max_examples=30, deadline=None)
@given(spec=specs, seed=seeds, first=choices, policy=policies)
def test_the_table_stays_well_formed(spec: str, seed: int, first: list[int], policy: str) -> None:
    """After every move: each centre pile is a build (its n-th card is rank n or a wild) that is
    cleared when it reaches the Queen; no hand holds more than hand_size cards; no Ace lies on
    a discard pile unless the rule set allows it; nothing is set aside unless completed piles
    are; the seat to move, the turn and the stalemate count are in range."""
    state = GameState.new(parse_rules(spec), seed)
    check_table(state)
    for move in moves_of(state, seed, first, policy):
        state.apply(move)
        check_table(state)


@settings(max_examples=20, deadline=None)
@given(spec=specs, seed=seeds, first=choices, policy=policies)
def test_legal_moves_are_accepted_unique_and_deterministic(spec: str, seed: int, first: list[int],
                                                           policy: str) -> None:
    """At every step of a game: ``legal_moves()`` is non-empty, has no duplicates, is the same
    list (of the same interned objects) when asked twice, matches the mover's observation,
    and every move in it is accepted by ``apply_checked`` on a clone for the seat to move."""
    rules = parse_rules(spec)
    state = GameState.new(rules, seed)
    for count, chosen in enumerate(moves_of(state, seed, first, policy)):
        if count == 150:  # the property is per step: a game's first 150 steps are plenty
            break
        moves = state.legal_moves()
        assert moves, "a seat to move always has a move (at least pass)"
        assert len(set(moves)) == len(moves), moves
        again = state.legal_moves()
        assert again == moves and all(a is b for a, b in zip(again, moves))
        assert observe(state, state.to_move).legal_moves == tuple(moves)
        for move in moves:
            child = state.clone()
            child.apply_checked(move, state.to_move)
        assert chosen in moves
        state.apply(chosen)


@settings(max_examples=40, deadline=None)
@given(spec=specs, seed=seeds, first=choices, policy=policies, turn_cap=turn_caps)
def test_games_end_by_the_rules_within_the_turn_cap(spec: str, seed: int, first: list[int], policy: str,
                                                    turn_cap: int | None) -> None:
    """Every game reaches an outcome, ended by the rules (stock emptied, stalemate, turn cap
    or draw pile exhausted), within the turn cap; a finished game has no legal moves,
    refuses further moves, and its scores and winners agree."""
    rules = rules_for(spec, turn_cap)
    state = play_game(rules, seed, first, policy)
    outcome = state.outcome
    assert outcome is not None and outcome.ending.by_rules
    assert state.turn <= rules.turn_cap
    assert state.legal_moves() == []
    assert len(outcome.scores) == rules.players
    assert all(score > 0 for seat, score in enumerate(outcome.scores) if seat in outcome.winners)
    assert all(score == 0 for seat, score in enumerate(outcome.scores) if seat not in outcome.winners)
    # Rules version 2: a game stopped by a stalemate or the turn cap is adjudicated on the
    # stocks (fewest cards left wins, equal draws); only draw-pile-exhausted is always a draw.
    left = [len(stock) for stock in state.stocks]
    if outcome.ending.value == "draw-pile-exhausted":
        assert outcome.is_draw
    elif outcome.ending.value != "stock-emptied":
        if left.count(min(left)) > 1 or rules.unfinished == "draw":
            assert outcome.is_draw
        else:
            leader = left.index(min(left))
            assert set(outcome.winners) == {s for s in range(rules.players) if rules.stock_of(s) == leader}
    if outcome.ending.value == "stock-emptied":
        (stock,) = {rules.stock_of(seat) for seat in outcome.winners}
        assert state.stocks[stock] == []
        assert set(outcome.winners) == {s for s in range(rules.players) if rules.stock_of(s) == stock}
    if outcome.ending.value == "turn-cap":
        assert state.turn == rules.turn_cap
    try:
        state.apply_checked(Move.parse("pass"))
    except IllegalMoveError as error:
        assert "over" in str(error)
    else:
        raise AssertionError("a finished game accepted a move")


@settings(max_examples=25, deadline=None)
@given(spec=specs, seed=seeds, first=choices, policy=policies, turn_cap=turn_caps)
def test_same_seed_and_moves_give_the_same_game_and_records_replay(spec: str, seed: int, first: list[int],
                                                                   policy: str, turn_cap: int | None) -> None:
    """A game is a function of (rule set, seed, moves): replaying the moves on a new deal of
    the same seed gives the same log and outcome; the GameRecord survives a JSON round trip
    through to_dict/from_dict, and ``replay()`` reproduces it event for event."""
    rules = rules_for(spec, turn_cap)
    state = play_game(rules, seed, first, policy)
    record = GameRecord.from_state(state)

    again = GameState.new(rules, seed)
    for seat, move in record.moves:
        assert again.to_move == seat
        again.apply(move)
    assert again.log == state.log and again.outcome == state.outcome

    restored = GameRecord.from_dict(json.loads(json.dumps(record.to_dict())))
    assert restored == record
    replayed = replay(restored)
    assert replayed.log == state.log
    assert replayed.outcome == state.outcome
    assert snapshot(replayed) == snapshot(state)


def mutable_parts(state: GameState) -> list[object]:
    """Every list of the state, outer and inner (the pile lists included)."""
    parts: list[object] = [state.draw_pile, state.set_aside, state.log, state.cursors, state.stocks, state.hands,
                           state.discards, state.centre, *state.stocks, *state.hands, *state.centre, *state.discards]
    return parts + [pile for piles in state.discards for pile in piles]


@settings(max_examples=30, deadline=None)
@given(spec=specs, seed=seeds, first=choices, policy=policies, data=st.data())
def test_clone_is_independent_of_the_original(spec: str, seed: int, first: list[int], policy: str,
                                              data: st.DataObject) -> None:
    """A clone equals its original, shares none of its lists, and playing on either leaves the
    other untouched, at any point of a game."""
    rules = parse_rules(spec)
    state = GameState.new(rules, seed)
    stop = data.draw(st.integers(min_value=0, max_value=120), label="moves before cloning")
    for count, move in enumerate(moves_of(state, seed, first, policy)):
        if count == stop:
            break
        state.apply(move)
    before = snapshot(state)
    clone = state.clone()
    assert snapshot(clone) == before
    for mine, theirs in zip(mutable_parts(state), mutable_parts(clone)):
        assert mine is not theirs, "the clone shares a list with the original"

    rng = random.Random(seed ^ 1)
    for _ in range(30):
        if clone.outcome is not None:
            break
        clone.apply(rng.choice(clone.legal_moves()))
    assert snapshot(state) == before, "playing on the clone changed the original"

    clone = state.clone()
    cloned = snapshot(clone)
    for _ in range(30):
        if state.outcome is not None:
            break
        state.apply(rng.choice(state.legal_moves()))
    assert snapshot(clone) == cloned, "playing on the original changed the clone"


@settings(max_examples=20, deadline=None)
@given(spec=specs, seed=seeds)
def test_the_deal(spec: str, seed: int) -> None:
    """A new game: stocks of ``stock_size`` (one per team with partners) with their top(s)
    revealed, full hands, empty centre and discard piles, the rest in the draw pile, turn 1
    for the first seat; the log starts with the shuffle, the deal, the reveals and the draws."""
    rules = parse_rules(spec)
    state = GameState.new(rules, seed)
    assert [len(s) for s in state.stocks] == [rules.stock_size] * rules.stocks
    assert len(state.draw_pile) == rules.deck_size - rules.stocks * rules.stock_size - rules.players * rules.hand_size
    assert all(len(h) == rules.hand_size for h in state.hands)
    assert state.centre == [[] for _ in range(rules.centre_piles)]
    assert state.discards == [[[] for _ in range(rules.discard_piles)] for _ in range(rules.players)]
    assert state.set_aside == [] and state.turn == 1 and state.to_move == state.first_seat
    kinds = [e.kind.name for e in state.log]
    assert kinds == (["SHUFFLE", "DEAL"] + ["REVEAL"] * rules.stocks + ["DRAW"] * rules.players + ["TURN"])
    for index, stock in enumerate(state.stocks):
        reveal = state.log[2 + index]
        assert reveal.pile == index and reveal.count == len(stock)
        assert list(reveal.cards) == stock[::-1][:rules.open_stock]
