"""Moves: small immutable values with a text notation, and the errors of the checked path.

A move names where a card comes from, which card, and where it goes. Hand cards are
named by rank (equal ranks are the same card), pile indices are 0-based.

============  =========================================  ==================
kind          meaning                                    notation
============  =========================================  ==================
PLAY          hand / stock top / discard top -> centre   ``H:7>C0``, ``S:K>C2``, ``D1:Q>C3``
DISCARD       hand -> own discard pile (ends the turn)   ``H:9>D0``
PASS          ends the turn when no discard is legal     ``pass``
============  =========================================  ==================

Every move value is interned: ``legal_moves`` hands out the same objects each time,
so generating moves allocates nothing.
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Final, NamedTuple

from .cards import KING, Card, card_name, parse_card
from .ruleset import MAX_PILES


class MoveKind(IntEnum):
    PLAY = 0
    DISCARD = 1
    PASS = 2


class Source(IntEnum):
    HAND = 0
    STOCK = 1
    DISCARD_PILE = 2


class MoveError(ValueError):
    """Base of the errors raised on the checked path for untrusted moves."""


class MalformedMoveError(MoveError):
    """The input is not a move at all (bad notation, field out of range)."""


class IllegalMoveError(MoveError):
    """A well-formed move that the rules do not allow now; ``str()`` says why."""


class Move(NamedTuple):
    kind: MoveKind
    source: Source
    """Where the card comes from (HAND for DISCARD; HAND for PASS, unused)."""
    index: int  # type: ignore[assignment]  # a wire field name; shadows tuple.index on purpose
    """Discard pile the card comes from when ``source`` is DISCARD_PILE, else 0."""
    card: Card
    """The card moved (0 for PASS)."""
    target: int
    """Centre pile for PLAY, discard pile for DISCARD, 0 for PASS."""

    def __str__(self) -> str:
        if self.kind == MoveKind.PASS:
            return "pass"
        source = ("H", "S", f"D{self.index}")[self.source]
        target = ("C" if self.kind == MoveKind.PLAY else "D") + str(self.target)
        return f"{source}:{card_name(self.card)}>{target}"

    @classmethod
    def parse(cls, text: str) -> "Move":
        """Parse the notation above; raises :class:`MalformedMoveError`."""
        if not isinstance(text, str):
            raise MalformedMoveError(f"a move is text, got {type(text).__name__}")
        if text.strip().lower() == "pass":
            return PASS_MOVE
        match = _NOTATION.fullmatch(text.strip().upper())
        if not match:
            raise MalformedMoveError(f"not a move: {text[:40]!r} (expected e.g. H:7>C0, S:K>C1, D2:Q>C3, H:9>D0, pass)")
        source, card_text, target_kind, target = match.groups()
        try:
            card = parse_card(card_text)
        except ValueError as error:
            raise MalformedMoveError(str(error)) from None
        target_index = int(target)
        if source == "H" and target_kind == "D":
            return make_move(MoveKind.DISCARD, Source.HAND, 0, card, target_index)
        if target_kind == "D":
            raise MalformedMoveError(f"{text!r}: only hand cards may be discarded")
        if source == "H":
            return make_move(MoveKind.PLAY, Source.HAND, 0, card, target_index)
        if source == "S":
            return make_move(MoveKind.PLAY, Source.STOCK, 0, card, target_index)
        return make_move(MoveKind.PLAY, Source.DISCARD_PILE, int(source[1:]), card, target_index)


_NOTATION: Final = re.compile(r"(H|S|D\d)\s*:\s*(\*|[A-Z]+|\d{1,2})\s*>\s*([CD])(\d)")

PASS_MOVE: Final = Move(MoveKind.PASS, Source.HAND, 0, 0, 0)

_CARDS: Final = range(KING + 1)
_PILES: Final = range(MAX_PILES)
# Interned move tables, indexed [card][target] (and [index] first for discard piles).
PLAY_FROM_HAND: Final = [[Move(MoveKind.PLAY, Source.HAND, 0, c, t) for t in _PILES] for c in _CARDS]
PLAY_FROM_STOCK: Final = [[Move(MoveKind.PLAY, Source.STOCK, 0, c, t) for t in _PILES] for c in _CARDS]
PLAY_FROM_DISCARD: Final = [[[Move(MoveKind.PLAY, Source.DISCARD_PILE, i, c, t) for t in _PILES] for c in _CARDS]
                            for i in _PILES]
DISCARD_FROM_HAND: Final = [[Move(MoveKind.DISCARD, Source.HAND, 0, c, t) for t in _PILES] for c in _CARDS]


class LegalMoves(tuple[Move, ...]):
    """A tuple of legal moves in the engine's order (``GameState.legal_moves``): the plays
    from the stock, then from the hand by rank, then from the discard piles by pile, each
    card's by centre pile; then the discards by rank, each rank's by discard pile; or, when
    there is no discard, pass last. ``observe`` hands its legal moves out as one.

    It equals the plain tuple of the same moves. Its type is the promise of that order, so a
    policy may rely on it (``spite_sdk.policies.greedy_move`` does: it reads the plays from
    the front and the discards from the back instead of every move); any other sequence of
    moves, reordered or rebuilt, is a plain tuple or list and makes no such promise."""

    __slots__ = ()


class MovesByMask(dict):  # type: ignore[type-arg]  # plain dict: the base moves.pxd declares
    """One row of an interned table by a bit mask of target piles: ``row_moves[0b101]`` is
    the tuple of the row's moves to piles 0 and 2, in pile order, built on first use (a
    ``dict[int, tuple[Move, ...]]``)."""

    __slots__ = ("row",)

    def __init__(self, row: list[Move]) -> None:
        super().__init__()
        self.row = row

    def __missing__(self, mask: int) -> tuple[Move, ...]:
        moves = tuple(move for target, move in enumerate(self.row) if mask >> target & 1)
        self[mask] = moves
        return moves


# The same tables by target mask, so that generating moves is one lookup per card.
PLAYS_FROM_HAND: Final = [MovesByMask(row) for row in PLAY_FROM_HAND]
PLAYS_FROM_STOCK: Final = [MovesByMask(row) for row in PLAY_FROM_STOCK]
PLAYS_FROM_DISCARD: Final = [[MovesByMask(row) for row in pile] for pile in PLAY_FROM_DISCARD]
DISCARDS_FROM_HAND: Final = [MovesByMask(row) for row in DISCARD_FROM_HAND]


def make_move(kind: int, source: int, index: int, card: int, target: int) -> Move:
    """The interned move with these fields; raises :class:`MalformedMoveError` if out of range."""
    try:
        kind, source = MoveKind(kind), Source(source)
    except ValueError:
        raise MalformedMoveError(f"unknown move kind {kind!r} or source {source!r}") from None
    if kind == MoveKind.PASS:
        return PASS_MOVE
    for name, value, bound in (("card", card, KING + 1), ("target", target, MAX_PILES), ("index", index, MAX_PILES)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < bound:
            raise MalformedMoveError(f"move {name} must be an integer in 0..{bound - 1}, got {value!r}")
    if kind == MoveKind.DISCARD:
        if source != Source.HAND:
            raise MalformedMoveError("only hand cards may be discarded")
        return DISCARD_FROM_HAND[card][target]
    if source == Source.HAND:
        return PLAY_FROM_HAND[card][target]
    if source == Source.STOCK:
        return PLAY_FROM_STOCK[card][target]
    return PLAY_FROM_DISCARD[index][card][target]
