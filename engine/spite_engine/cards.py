"""Cards: a card is its rank, a small int.

Suits never matter in Spite and Malice or Skip-Bo, so the engine does not model
them: two cards of the same rank are the same value (and compare equal), and
nothing on the wire or in an observation can tell one deck's seven from another's.

Encoding (shared by every rule set):

====  =====================================================
rank  meaning
====  =====================================================
0     Joker (Spite and Malice) or the Skip-Bo wild card
1     Ace (Skip-Bo: 1)
2-10  pips
11    Jack (Skip-Bo: 11)
12    Queen (Skip-Bo: 12), the rank that completes a pile
13    King (Spite and Malice only; wild in most rule sets)
====  =====================================================
"""

from __future__ import annotations

from typing import Final

Card = int
"""A card's rank, 0..13; see the module docstring for the encoding."""

JOKER: Final = 0
ACE: Final = 1
JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13

_NAMES: Final = {0: "*", 1: "A", 11: "J", 12: "Q", 13: "K"}
_BY_NAME: Final = {
    "*": JOKER, "JOKER": JOKER, "W": JOKER, "SB": JOKER,
    "A": ACE, "J": JACK, "Q": QUEEN, "K": KING,
}


def card_name(card: Card) -> str:
    """Short display name: ``*`` (joker / wild), ``A``, ``2``..``10``, ``J``, ``Q``, ``K``."""
    return _NAMES.get(card) or str(card)


def parse_card(text: str) -> Card:
    """Parse a card name or number; raises ``ValueError`` on anything else."""
    key = text.strip().upper()
    if key in _BY_NAME:
        return _BY_NAME[key]
    if key.isdigit() and 0 <= int(key) <= KING:
        return int(key)
    raise ValueError(f"not a card: {text!r} (expected *, A, 2..10, J, Q, K or 0..13)")
