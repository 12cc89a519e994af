"""Rule sets, decks, the move notation and the errors of the checked path from the wire.

What each preset stands for (deck arithmetic, wild ranks, stock sizes), how specs combine,
and that bad specs, bad option combinations, bad deck arithmetic and bad move text are
refused with typed errors (RulesError, MalformedMoveError) saying what is wrong.
"""

from __future__ import annotations

import doctest
from collections import Counter

import pytest

import spite_engine
from spite_engine import (
    JOKER,
    KING,
    PASS_MOVE,
    MalformedMoveError,
    Move,
    MoveError,
    MoveKind,
    RulesError,
    RuleSet,
    Source,
    card_name,
    make_move,
    parse_card,
    parse_rules,
    preset,
)
from spite_engine.moves import DISCARD_FROM_HAND, PLAY_FROM_DISCARD, PLAY_FROM_HAND, PLAY_FROM_STOCK

from .support import SPECS

# -- decks -------------------------------------------------------------------------------------


def test_standard_deck_is_two_decks_and_four_jokers() -> None:
    """standard: 2 x 52 + 4 jokers = 108 cards; Kings and jokers are wild; stocks of 26, hands
    of 5, 4 centre piles, 4 discard piles, one stock card face up."""
    rules = parse_rules("standard")
    deck = Counter(rules.deck_cards())
    assert rules.deck_size == len(rules.deck_cards()) == 108
    assert deck[JOKER] == 4 and all(deck[r] == 8 for r in range(1, 14))
    assert rules.wild_ranks == {JOKER, KING}
    assert (rules.stock_size, rules.hand_size, rules.centre_piles, rules.discard_piles, rules.open_stock) == \
        (26, 5, 4, 4, 1)
    assert not rules.discard_aces and not rules.no_block and rules.completed_piles == "shuffle"


def test_kings_only_has_104_cards_and_only_kings_wild() -> None:
    """kings-only: the jokers leave the deck (104 cards); only Kings are wild."""
    rules = parse_rules("kings-only")
    deck = Counter(rules.deck_cards())
    assert rules.deck_size == 104 and deck[JOKER] == 0 and deck[KING] == 8
    assert rules.wild_ranks == {KING}


def test_skip_bo_deck() -> None:
    """skip-bo: 162 cards, twelve of each rank 1..12 and 18 wilds (rank 0), no Kings; stocks
    of 30; Skip-Bo wilds are the only wild; completed piles are set aside; 1s may be discarded."""
    rules = parse_rules("skip-bo")
    deck = Counter(rules.deck_cards())
    assert rules.deck_size == len(rules.deck_cards()) == 162
    assert deck[JOKER] == 18 and all(deck[r] == 12 for r in range(1, 13)) and deck[KING] == 0
    assert rules.wild_ranks == {JOKER}
    assert rules.stock_size == 30 and rules.completed_piles == "set-aside" and rules.discard_aces


@pytest.mark.parametrize("spec, stock", [("skip-bo+3p", 30), ("skip-bo+4p", 30), ("skip-bo+5p", 20),
                                         ("skip-bo+6p", 20), ("skip-bo+short-15+6p", 15),
                                         ("skip-bo+short-20", 20), ("skip-bo+short-20+6p", 20)])
def test_skip_bo_stocks_shrink_for_five_and_six_players(spec: str, stock: int) -> None:
    """Skip-Bo stocks are 30 cards, 20 with five or six players (a short stock stays short)."""
    rules = parse_rules(spec)
    assert rules.stock_size == stock and rules.deck_size == 162
    assert rules.players * (rules.stock_size + rules.hand_size) <= rules.deck_size


@pytest.mark.parametrize("spec", ["3p", "4p", "kings-only+4p", "short-13+3p"])
def test_three_and_four_players_use_three_decks(spec: str) -> None:
    """Spite and Malice for 3 or 4: three decks and their jokers (162 cards with jokers), so
    four stocks of 26 and four hands of 5 fit."""
    rules = parse_rules(spec)
    jokers = 0 if "kings-only" in spec else 6
    assert rules.decks == 3 and Counter(rules.deck_cards())[JOKER] == jokers
    assert rules.deck_size == 156 + jokers
    assert rules.players * (rules.stock_size + rules.hand_size) <= rules.deck_size
    if spec == "4p":
        assert rules.deck_size - 4 * 26 - 4 * 5 == 38


def test_partners() -> None:
    """partners: four seats, two stocks (one per team), two decks."""
    rules = parse_rules("partners")
    assert (rules.players, rules.partners, rules.stocks, rules.decks) == (4, True, 2, 2)


def test_classic_20() -> None:
    """classic-20: stocks of 20, three centre piles, no jokers (Kings wild), the game is drawn
    when a draw finds the draw pile empty, the winner scores the loser's stock, matches to 50."""
    rules = parse_rules("classic-20")
    assert (rules.stock_size, rules.centre_piles, rules.deck_size, rules.wild_ranks) == (20, 3, 104, frozenset({KING}))
    assert rules.draw_pile_exhausted == "draw-game" and rules.scoring == "stock-left"
    assert rules.match_points == 50


@pytest.mark.parametrize("spec, options", [
    ("short-13", {"stock_size": 13}), ("short-15", {"stock_size": 15}), ("short-20", {"stock_size": 20}),
    ("open-stock", {"open_stock": 3}),
    ("no-block", {"no_block": True}),
])
def test_option_presets_change_only_their_option(spec: str, options: dict[str, object]) -> None:
    """Each option preset is a set of overrides on the standard rules, nothing else."""
    standard, rules = parse_rules("standard").to_dict(), parse_rules(spec).to_dict()
    changed = {k: v for k, v in rules.items() if standard[k] != v}
    assert changed == {"name": spec, **options}


# -- specs -------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, name", [
    ("standard", "standard"), (" Standard ", "standard"), ("short-15+kings-only", "kings-only+short-15"),
    ("4p+skip-bo", "skip-bo+4p"), ("no-block+open-stock", "open-stock+no-block"),
    ("standard+3p", "3p"), ("partners+classic-20", "classic-20+partners"),
])
def test_specs_have_a_canonical_name(spec: str, name: str) -> None:
    """A spec is case- and order-insensitive; the rule set records its canonical name."""
    assert parse_rules(spec).name == name
    assert parse_rules(name) == parse_rules(spec)


@pytest.mark.parametrize("spec", SPECS)
def test_rule_sets_round_trip_through_dicts(spec: str) -> None:
    """to_dict / from_dict is the identity; rule sets are hashable values."""
    rules = parse_rules(spec)
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert hash(rules) == hash(parse_rules(spec)) and preset(spec) == rules


@pytest.mark.parametrize("spec, words", [
    ("blitz", "unknown preset 'blitz'"), ("standard+jokers", "unknown preset 'jokers'"),
    ("", "empty"), ("+", "empty"),
    ("skip-bo+classic-20", "at most one"), ("standard+skip-bo", "at most one"), ("3p+4p", "at most one"),
    ("no-block+no-block", "at most one"), ("short-13+short-15", "exclusive"),
    ("short-15+short-20", "exclusive"),
    ("partners+4p", "partners fixes 4 players"), ("partners+3p", "partners fixes 4 players"),
    ("5p", "2 to 4"), ("kings-only+6p", "2 to 4"),
])
def test_bad_specs_are_refused(spec: str, words: str) -> None:
    """Unknown presets and impossible combinations raise RulesError naming the problem."""
    with pytest.raises(RulesError, match=words):
        parse_rules(spec)


@pytest.mark.parametrize("options, words", [
    ({"stock_size": 50}, "2 stocks of 50 and 2 hands of 5 need 110 cards, the deck has 108"),
    ({"players": 4, "decks": 1, "jokers_per_deck": 0}, "need 124 cards, the deck has 52"),
    ({"deck": "skip-bo", "decks": 1, "stock_size": 30, "players": 6}, "need 210 cards, the deck has 162"),
    ({"hand_size": 60}, "need 172 cards"),
    ({"players": 7}, "players must be 2..6"), ({"players": 1}, "players must be 2..6"),
    ({"partners": True}, "partners needs exactly 4 players"),
    ({"jokers_per_deck": 0, "kings_wild": False}, "at least one wild rank"),
    ({"centre_piles": 9}, "at most 8 centre piles"), ({"open_stock": 0}, "open_stock must be at least 1"),
    ({"completed_piles": "burn"}, "completed_piles must be"), ({"deck": "tarot"}, "unknown deck"),
    ({"turn_cap": 0}, "turn_cap must be at least 1"),
])
def test_bad_rule_sets_are_refused(options: dict[str, object], words: str) -> None:
    """A rule set that is not a playable game -- bad deck arithmetic included -- cannot be built."""
    with pytest.raises(RulesError, match=words):
        RuleSet(**options)  # type: ignore[arg-type]
    with pytest.raises(RulesError):
        RuleSet.from_dict({**RuleSet().to_dict(), **options})


def test_unknown_rule_set_options_are_refused() -> None:
    """from_dict names the options it does not know."""
    with pytest.raises(RulesError, match="unknown rule-set options: \\['speed'\\]"):
        RuleSet.from_dict({**RuleSet().to_dict(), "speed": 2})
    assert issubclass(RulesError, ValueError)


# -- cards and the move notation ------------------------------------------------------------------

def test_card_names() -> None:
    """Cards are ranks 0..13 with short names; names and numbers parse back."""
    assert [card_name(c) for c in range(14)] == ["*", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                                 "J", "Q", "K"]
    for card in range(14):
        assert parse_card(card_name(card)) == card == parse_card(str(card))
    assert parse_card("joker") == parse_card("SB") == parse_card("w") == JOKER
    for bad in ("14", "-1", "X", "", "1.5"):
        with pytest.raises(ValueError):
            parse_card(bad)


def every_move() -> list[Move]:
    moves = [PASS_MOVE]
    for table in (PLAY_FROM_HAND, PLAY_FROM_STOCK, DISCARD_FROM_HAND):
        moves += [m for row in table for m in row]
    moves += [m for table in PLAY_FROM_DISCARD for row in table for m in row]
    return moves


def test_every_move_round_trips_through_its_notation() -> None:
    """Move.parse(str(move)) gives back the very same (interned) move, for every move."""
    moves = every_move()
    assert len(set(moves)) == len(moves) == 1 + 3 * 14 * 8 + 8 * 14 * 8
    for move in moves:
        assert Move.parse(str(move)) is move
        assert make_move(move.kind, move.source, move.index, move.card, move.target) is move


@pytest.mark.parametrize("text, move", [
    ("pass", PASS_MOVE), (" PASS ", PASS_MOVE), ("h:7>c0", PLAY_FROM_HAND[7][0]),
    (" H : K > C3 ", PLAY_FROM_HAND[13][3]),
    ("S:*>C1", PLAY_FROM_STOCK[0][1]), ("D2:Q>C3", PLAY_FROM_DISCARD[2][12][3]), ("H:10>D1", DISCARD_FROM_HAND[10][1]),
    ("H:joker>C0", PLAY_FROM_HAND[0][0]), ("H:13>C2", PLAY_FROM_HAND[13][2]),
])
def test_move_notation_is_lenient_about_case_and_spaces(text: str, move: Move) -> None:
    """Notation: H (hand), S (stock top), Dn (discard pile n) : card > Cn (centre) or Dn, or pass."""
    assert Move.parse(text) is move


@pytest.mark.parametrize("text, words", [
    ("", "not a move"), ("play 7", "not a move"), ("H:7>X0", "not a move"), ("H:7>C10", "not a move"),
    ("H:7", "not a move"), ("H:K>C 3", "not a move"), ("S:7>D0", "only hand cards may be discarded"),
    ("D1:7>D0", "only hand cards may be discarded"), ("H:Z>C0", "not a card"), ("H:14>C0", "not a card"),
    ("H:7>C9", "target must be an integer in 0..7"), ("D9:7>C0", "index must be an integer in 0..7"),
])
def test_bad_move_text_is_malformed(text: str, words: str) -> None:
    """Text that names no move raises MalformedMoveError (a MoveError, not an IllegalMoveError)."""
    with pytest.raises(MalformedMoveError, match=words):
        Move.parse(text)


def test_non_text_is_malformed() -> None:
    """Only text is parsed."""
    with pytest.raises(MalformedMoveError, match="a move is text"):
        Move.parse(7)  # type: ignore[arg-type]
    assert issubclass(MalformedMoveError, MoveError) and issubclass(MoveError, ValueError)


@pytest.mark.parametrize("fields", [
    (9, 0, 0, 1, 0), (0, 7, 0, 1, 0), (0, 0, 0, 14, 0), (0, 0, 0, -1, 0), (0, 0, 0, 1, 8), (0, 2, 8, 1, 0),
    (0, 0, 0, True, 0), (0, 0, 0, 1.0, 0), (1, 1, 0, 5, 0),
])
def test_make_move_refuses_fields_out_of_range(fields: tuple[int, int, int, int, int]) -> None:
    """make_move (the wire's path) refuses unknown kinds and sources, and out-of-range fields."""
    with pytest.raises(MalformedMoveError):
        make_move(*fields)


def test_make_move_builds_the_interned_moves() -> None:
    """make_move returns the shared move values; PASS ignores the other fields."""
    assert make_move(MoveKind.PASS, Source.STOCK, 3, 4, 5) is PASS_MOVE
    assert make_move(0, 2, 3, 12, 1) is PLAY_FROM_DISCARD[3][12][1]


def test_the_package_docstring_example_runs() -> None:
    """The usage example in engine/spite_engine/__init__.py is a passing doctest."""
    result = doctest.testmod(spite_engine, raise_on_error=False)
    assert result.attempted > 0 and result.failed == 0


def test_a_spec_is_parsed_once_per_process() -> None:
    """Every layer that names a rule set gets the same frozen object for the same spec (issue 29,
    item 4); a refused spec is refused each time, never remembered."""
    assert parse_rules("skip-bo+short-20") is parse_rules("skip-bo+short-20")
    for _ in range(2):
        with pytest.raises(RulesError):
            parse_rules("skip-bo+no-such-preset")
