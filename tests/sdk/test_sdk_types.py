"""The SDK's values: move notation, rule-set helpers, observation properties."""

from __future__ import annotations

import pytest
from _sdk_values import rule_set

from spite_sdk import PASS_MOVE, Decision, Move, MoveKind, Observation, Source, StockView, card_name, parse_card

PLAY, DISCARD, PASS = MoveKind
HAND, STOCK, DISCARD_PILE = Source

NOTATION = [
    ("H:7>C0", Move(PLAY, HAND, 0, 7, 0)),
    ("S:K>C2", Move(PLAY, STOCK, 0, 13, 2)),
    ("D1:Q>C3", Move(PLAY, DISCARD_PILE, 1, 12, 3)),
    ("H:9>D0", Move(DISCARD, HAND, 0, 9, 0)),
    ("H:*>C1", Move(PLAY, HAND, 0, 0, 1)),
    ("H:A>C0", Move(PLAY, HAND, 0, 1, 0)),
    ("H:10>D3", Move(DISCARD, HAND, 0, 10, 3)),
    ("D3:J>C2", Move(PLAY, DISCARD_PILE, 3, 11, 2)),
    ("pass", PASS_MOVE),
]


@pytest.mark.parametrize("text, move", NOTATION)
def test_notation_round_trips(text: str, move: Move) -> None:
    assert str(move) == text
    assert Move.parse(text) == move
    assert Move.parse(str(move)) == move


@pytest.mark.parametrize("text, move", [
    ("h:7>c0", Move(PLAY, HAND, 0, 7, 0)),
    (" S : k > C2 ", Move(PLAY, STOCK, 0, 13, 2)),
    ("PASS", PASS_MOVE),
    ("H:12>C0", Move(PLAY, HAND, 0, 12, 0)),
    ("H:joker>C0", Move(PLAY, HAND, 0, 0, 0)),
])
def test_parse_is_lenient_about_case_spaces_and_card_names(text: str, move: Move) -> None:
    assert Move.parse(text) == move


@pytest.mark.parametrize("text", ["", "H7C0", "X:7>C0", "S:7>D0", "D1:7>D0", "H:14>C0", "H:Z>C0", "H:7>E0", "passs"])
def test_parse_rejects_what_is_not_a_move(text: str) -> None:
    with pytest.raises(ValueError):
        Move.parse(text)


def test_moves_are_immutable_tuples_numbered_like_the_engine() -> None:
    move = Move.parse("D1:Q>C3")
    assert move == (0, 2, 1, 12, 3)
    assert (move.kind, move.source) == (0, 2)
    with pytest.raises(AttributeError):
        move.card = 5  # type: ignore[misc]


def test_cards() -> None:
    assert [card_name(c) for c in range(14)] == ["*", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    assert [parse_card(card_name(c)) for c in range(14)] == list(range(14))
    with pytest.raises(ValueError):
        parse_card("14")


def test_stock_of_and_team_of_follow_partners() -> None:
    alone = rule_set(players=4, stock_size=20)  # the engine refuses four stocks of 26 from 108 cards
    assert [alone.stock_of(s) for s in range(4)] == [0, 1, 2, 3] == [alone.team_of(s) for s in range(4)]
    assert alone.stocks == 4
    partners = rule_set(name="partners", players=4, partners=True)
    assert [partners.stock_of(s) for s in range(4)] == [0, 1, 0, 1] == [partners.team_of(s) for s in range(4)]
    assert partners.stocks == 2


def test_rule_sets_are_frozen() -> None:
    with pytest.raises(AttributeError):
        rule_set().players = 3  # type: ignore[misc]


def test_observation_properties() -> None:
    observation = Observation(
        rules=rule_set(name="partners", players=4, partners=True), seat=3, turn=9, to_move=3,
        hand=(2, 5, 13), hand_sizes=(5, 4, 5, 3),
        stocks=(StockView(10, (7,)), StockView(0, ())),
        discard_piles=((), (), (), ((4, 3), (), (9,), ())),
        centre_piles=((1, 2, 3), (), (1,), (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)),
        draw_pile_count=40, set_aside_count=0, events=(), legal_moves=(PASS_MOVE,))
    assert observation.my_stock == StockView(0, ()) and observation.my_stock.top is None
    assert observation.stocks[0].top == 7
    assert observation.centre_needs == (4, 1, 2, 12)
    assert observation.my_discard_piles == ((4, 3), (), (9,), ())
    assert observation.outcome is None


def test_decision_wraps_any_choice() -> None:
    assert Decision(3).debug == ""
    assert Decision([PASS_MOVE], "why").choice == [PASS_MOVE]


def test_docstring_examples() -> None:
    import doctest

    import spite_sdk.types

    assert doctest.testmod(spite_sdk.types).failed == 0
