"""Rule sets: one immutable, versioned value per combination of options.

A preset is a named set of option overrides, not a code path: ``parse_rules``
applies the named presets of a spec such as ``"kings-only+short-15"`` or
``"skip-bo+4p"`` to the defaults, and ``RuleSet`` checks that the result is a
playable game (enough cards for every stock and hand). ``docs/rules.md`` states
the rules each option stands for.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Final, Literal

from .cards import JOKER, KING, QUEEN, Card

RULES_VERSION: Final = 2
"""Bumped whenever a rule changes the games a (rule set, seed, moves) triple produces."""

MAX_PILES: Final = 8
"""Upper bound on centre and discard piles (the move tables are sized by it)."""

DeckKind = Literal["spite", "skip-bo"]
CompletedPiles = Literal["shuffle", "set-aside"]
DrawPileExhausted = Literal["play-on", "draw-game"]
Scoring = Literal["win", "stock-left"]
Unfinished = Literal["adjudicate", "draw"]


class RulesError(ValueError):
    """A rule-set spec or option combination that does not make a playable game."""


@dataclass(frozen=True)
class RuleSet:
    """Every option of a game. Build one with :func:`parse_rules` or :func:`preset`."""

    name: str = "standard"
    """Canonical spec this rule set was built from, e.g. ``"kings-only+short-15"``."""
    players: int = 2
    """Seats at the table, 2..6. Seats move in order 0, 1, 2, ..."""
    partners: bool = False
    """2 v 2: seats 0 and 2 against 1 and 3, one shared stock per team."""
    deck: DeckKind = "spite"
    """``spite``: 52-card decks (ranks A..K) plus jokers; ``skip-bo``: 12 x (1..12) + 18 wilds."""
    decks: int = 2
    """How many decks are shuffled together."""
    jokers_per_deck: int = 2
    """Jokers added per 52-card deck (``spite`` only)."""
    kings_wild: bool = True
    """Kings are wild (``spite`` only). Jokers and Skip-Bo wilds are always wild."""
    stock_size: int = 26
    """Cards dealt to each stock (one per seat, or one per team with ``partners``)."""
    hand_size: int = 5
    """Hands are refilled to this size."""
    centre_piles: int = 4
    """Centre (building) piles, shared, built from Ace (1) up to Queen (12)."""
    discard_piles: int = 4
    """Each seat's own discard piles."""
    open_stock: int = 1
    """Cards face up on top of each stock (visible to all). Only the top one is playable."""
    no_block: bool = False
    """House rule: a non-wild card that could be played on a centre pile now may not be discarded."""
    completed_piles: CompletedPiles = "shuffle"
    """``shuffle``: a completed centre pile is shuffled into the draw pile at once;
    ``set-aside``: it waits until the draw pile runs out, then becomes the new draw pile."""
    draw_pile_exhausted: DrawPileExhausted = "play-on"
    """``play-on``: a hand that cannot be refilled stays short; ``draw-game``: the game is drawn."""
    discard_aces: bool = False
    """Whether Aces (Skip-Bo 1s) may be discarded."""
    scoring: Scoring = "win"
    """``win``: 1 point to each winner; ``stock-left``: the winner scores the cards left
    in the losers' stocks."""
    match_points: int = 0
    """0: each game stands alone; N: a match is played until a seat (team) reaches N points."""
    turn_cap: int = 2000
    """Safety net: after this many turns the game stops (ending ``TURN_CAP``) and is settled
    as ``unfinished`` says."""
    unfinished: Unfinished = "adjudicate"
    """How a game that stops with no stock emptied (stalemate, turn cap) is settled:
    ``adjudicate``: the seat (team) with the fewest cards left in its stock wins, equal
    stocks draw; ``draw``: always a draw."""
    version: int = RULES_VERSION

    def __post_init__(self) -> None:
        problems = []
        if not 2 <= self.players <= 6:
            problems.append(f"players must be 2..6, got {self.players}")
        if self.partners and self.players != 4:
            problems.append("partners needs exactly 4 players")
        if self.deck not in ("spite", "skip-bo"):
            problems.append(f"unknown deck {self.deck!r}")
        for field, low in (("decks", 1), ("stock_size", 1), ("hand_size", 1), ("centre_piles", 1),
                           ("discard_piles", 1), ("open_stock", 1), ("turn_cap", 1)):
            if getattr(self, field) < low:
                problems.append(f"{field} must be at least {low}")
        if self.centre_piles > MAX_PILES or self.discard_piles > MAX_PILES:
            problems.append(f"at most {MAX_PILES} centre piles and {MAX_PILES} discard piles")
        if self.jokers_per_deck < 0 or self.match_points < 0:
            problems.append("jokers_per_deck and match_points must not be negative")
        if self.completed_piles not in ("shuffle", "set-aside"):
            problems.append(f"completed_piles must be shuffle or set-aside, got {self.completed_piles!r}")
        if self.draw_pile_exhausted not in ("play-on", "draw-game"):
            problems.append(f"draw_pile_exhausted must be play-on or draw-game, got {self.draw_pile_exhausted!r}")
        if self.unfinished not in ("adjudicate", "draw"):
            problems.append(f"unfinished must be adjudicate or draw, got {self.unfinished!r}")
        if self.scoring not in ("win", "stock-left"):
            problems.append(f"scoring must be win or stock-left, got {self.scoring!r}")
        if not self.wild_ranks:
            problems.append("a rule set needs at least one wild rank")
        if not problems:
            dealt = self.stocks * self.stock_size + self.players * self.hand_size
            if dealt > self.deck_size:
                problems.append(
                    f"{self.stocks} stocks of {self.stock_size} and {self.players} hands of "
                    f"{self.hand_size} need {dealt} cards, the deck has {self.deck_size}")
        if problems:
            raise RulesError(f"rule set {self.name!r}: " + "; ".join(problems))

    @property
    def scores_points(self) -> bool:
        """Whether a match's points say more than its wins, draws and losses: cards left in
        the losers' stocks are scored, or a match is played to ``match_points``."""
        return self.scoring != "win" or bool(self.match_points)

    @property
    def stocks(self) -> int:
        """Number of stocks: one per seat, or one per team with ``partners``."""
        return 2 if self.partners else self.players

    def stock_of(self, seat: int) -> int:
        """Index of the stock that ``seat`` plays from (its team's with ``partners``)."""
        return seat % 2 if self.partners else seat

    def team_of(self, seat: int) -> int:
        """The seat's team: itself, or ``seat % 2`` with ``partners``."""
        return self.stock_of(seat)

    @property
    def max_rank(self) -> int:
        """The rank that completes a centre pile (Queen / 12)."""
        return QUEEN

    @cached_property
    def wild_ranks(self) -> frozenset[Card]:
        """Ranks that play as any rank on a centre pile (computed once: policies ask every decision)."""
        wild = set()
        if self.deck == "skip-bo" or self.jokers_per_deck > 0:
            wild.add(JOKER)
        if self.deck == "spite" and self.kings_wild:
            wild.add(KING)
        return frozenset(wild)

    def deck_cards(self) -> tuple[Card, ...]:
        """The whole deck, in a fixed order, before the shuffle."""
        if self.deck == "skip-bo":
            return tuple([JOKER] * (18 * self.decks) + [r for r in range(1, 13) for _ in range(12 * self.decks)])
        return tuple([JOKER] * (self.jokers_per_deck * self.decks)
                     + [r for r in range(1, 14) for _ in range(4 * self.decks)])

    @property
    def deck_size(self) -> int:
        return (162 if self.deck == "skip-bo" else 52 + self.jokers_per_deck) * self.decks

    def to_dict(self) -> dict[str, Any]:
        """Every option, JSON-ready."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RuleSet":
        """Inverse of :meth:`to_dict`; unknown keys are an error."""
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - fields
        if unknown:
            raise RulesError(f"unknown rule-set options: {sorted(unknown)}")
        return cls(**data)


# Presets: named option overrides. A spec is presets joined by '+', applied in the
# order bases, options, player count; see docs/rules.md for each.
BASES: Final[dict[str, dict[str, Any]]] = {
    "standard": {},
    "skip-bo": {"deck": "skip-bo", "decks": 1, "stock_size": 30, "completed_piles": "set-aside",
                "discard_aces": True},
    "classic-20": {"stock_size": 20, "centre_piles": 3, "jokers_per_deck": 0,
                   "draw_pile_exhausted": "draw-game", "scoring": "stock-left", "match_points": 50},
}
OPTIONS: Final[dict[str, dict[str, Any]]] = {
    "kings-only": {"jokers_per_deck": 0},
    "short-13": {"stock_size": 13},
    "short-15": {"stock_size": 15},
    "short-20": {"stock_size": 20},
    "open-stock": {"open_stock": 3},
    "no-block": {"no_block": True},
    "partners": {"players": 4, "partners": True},
    "unfinished-draw": {"unfinished": "draw"},
}
PLAYER_COUNTS: Final = {f"{n}p": n for n in range(2, 7)}

PRESETS: Final = ("standard", "kings-only", "short-13", "short-15", "open-stock", "no-block",
                  "skip-bo", "partners", "classic-20", "3p", "4p")
"""The presets users pick from; any '+' combination that makes a playable game also works."""


def _players_overrides(options: dict[str, Any], players: int) -> dict[str, Any]:
    """Deck arithmetic for more seats (docs/rules.md, "3 and 4 players")."""
    out: dict[str, Any] = {"players": players}
    if options.get("deck") == "skip-bo":
        if players >= 5 and options.get("stock_size") == 30:
            out["stock_size"] = 20
    elif players >= 3:
        out["decks"] = 3
    return out


MAX_SPEC_CHARS: Final = 200
"""The longest rule-set spec :func:`parse_rules` reads (every preset at once is under 100)."""


@lru_cache(maxsize=256)
def parse_rules(spec: str) -> RuleSet:
    """Build the rule set for ``spec``: presets joined by ``+`` (``"skip-bo+4p"``).

    Parsed once per process: the same spec gives the same (frozen) rule set, however many
    layers ask (a refused spec is not remembered, so the cache holds only real rule sets).

    Raises :class:`RulesError` naming the unknown preset or the impossible combination (a
    spec is at most :data:`MAX_SPEC_CHARS` characters; messages quote at most 60 of them).
    """
    if len(spec) > MAX_SPEC_CHARS:
        raise RulesError(f"a rule-set spec is at most {MAX_SPEC_CHARS} characters, got {len(spec)}")
    shown = spec if len(spec) <= 60 else spec[:57] + "..."
    tokens = [t.strip().lower() for t in spec.split("+") if t.strip()]
    if not tokens:
        raise RulesError("empty rule-set spec")
    bases = [t for t in tokens if t in BASES]
    options = sorted((t for t in tokens if t in OPTIONS), key=list(OPTIONS).index)
    counts = [t for t in tokens if t in PLAYER_COUNTS]
    unknown = [t for t in tokens if t not in BASES and t not in OPTIONS and t not in PLAYER_COUNTS]
    if unknown:
        known = ", ".join(list(BASES) + list(OPTIONS) + ["3p", "4p", "5p", "6p"])
        raise RulesError(f"unknown preset {unknown[0][:40]!r} in {shown!r}; known: {known}")
    if len(bases) > 1 or len(counts) > 1 or len(set(options)) != len(options):
        raise RulesError(f"{shown!r}: at most one of {sorted(BASES)}, one player count, each option once")
    shorts = [o for o in options if o.startswith("short-")]
    if len(shorts) > 1:
        raise RulesError(f"{shown!r}: {' and '.join(shorts)} are exclusive (one stock size)")
    if counts and "partners" in options:
        raise RulesError(f"{shown!r}: partners fixes 4 players; drop {counts[0]}")
    values: dict[str, Any] = {}
    base = bases[0] if bases else "standard"
    values.update(BASES[base])
    for option in options:
        values.update(OPTIONS[option])
    if counts:
        players = PLAYER_COUNTS[counts[0]]
        if values.get("deck", "spite") == "spite" and players > 4:
            raise RulesError(f"{shown!r}: Spite and Malice is played by 2 to 4 (skip-bo by up to 6)")
        values.update(_players_overrides(values, players))
    ordered = ([base] if base != "standard" or not (options or counts) else []) + options + counts
    return RuleSet(name="+".join(ordered), **values)


def preset(name: str = "standard") -> RuleSet:
    """Alias of :func:`parse_rules` for a single preset name."""
    return parse_rules(name)
