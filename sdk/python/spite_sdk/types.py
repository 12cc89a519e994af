"""The values a bot works with: immutable, typed, and named like the rules engine's.

A bot never sees protocol buffers. The SDK converts every message from the referee
into these values (:mod:`spite_sdk.convert`) and every answer back, so that a policy
written against these names runs unchanged in a bot process and in process against
the engine (``spite_engine``), whose numbering they share:

==========  ==================================  ====================================
value       numbering (engine and SDK)          notation
==========  ==================================  ====================================
MoveKind    PLAY=0, DISCARD=1, PASS=2
Source      HAND=0, STOCK=1, DISCARD_PILE=2
card        0 = Joker / Skip-Bo wild, 1 = Ace,  ``*``, ``A``, ``2``..``10``, ``J``,
            2..10, 11 = Jack, 12 = Queen,       ``Q``, ``K``
            13 = King
Move                                            ``H:7>C0``, ``S:K>C2``, ``D1:Q>C3``,
                                                ``H:9>D0``, ``pass``
==========  ==================================  ====================================

Piles are tuples of cards listed bottom to top; pile and seat indices are 0-based.
(The wire numbers kinds and sources from 1, keeping 0 for "unspecified"; only
:mod:`spite_sdk.convert` knows that.)
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Final, NamedTuple

Card = int
"""A card's rank, 0..13 (see the module docstring)."""

JOKER: Final = 0
ACE: Final = 1
JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13

_CARD_NAMES: Final = {JOKER: "*", ACE: "A", JACK: "J", QUEEN: "Q", KING: "K"}
_CARDS_BY_NAME: Final = {"*": JOKER, "JOKER": JOKER, "W": JOKER, "SB": JOKER,
                         "A": ACE, "J": JACK, "Q": QUEEN, "K": KING}


def card_name(card: Card) -> str:
    """Short display name: ``*`` (joker / wild), ``A``, ``2``..``10``, ``J``, ``Q``, ``K``.

    >>> [card_name(c) for c in (0, 1, 7, 12, 13)]
    ['*', 'A', '7', 'Q', 'K']
    """
    return _CARD_NAMES.get(card) or str(card)


def parse_card(text: str) -> Card:
    """Parse a card name (``*``, ``A``, ``J``, ``Q``, ``K``) or number 0..13; ``ValueError`` otherwise."""
    key = text.strip().upper()
    if key in _CARDS_BY_NAME:
        return _CARDS_BY_NAME[key]
    if key.isdigit() and 0 <= int(key) <= KING:
        return int(key)
    raise ValueError(f"not a card: {text!r} (expected *, A, 2..10, J, Q, K or 0..13)")


class MoveKind(IntEnum):
    """What a move does."""

    PLAY = 0
    """Play a card onto a centre pile."""
    DISCARD = 1
    """Put a hand card on one of the mover's discard piles; ends the turn."""
    PASS = 2
    """End the turn without discarding; legal only when no discard is."""


class Source(IntEnum):
    """Where a played card comes from."""

    HAND = 0
    """The mover's hand (also the source of every discard, and the unused source of PASS)."""
    STOCK = 1
    """The top card of the mover's stock (its team's stock with partners)."""
    DISCARD_PILE = 2
    """The top card of one of the mover's discard piles (``Move.index`` says which)."""


_NOTATION: Final = re.compile(r"(H|S|D\d)\s*:\s*(\*|[A-Z]+|\d{1,2})\s*>\s*([CD])(\d)")


class Move(NamedTuple):
    """One move: where a card comes from, which card, where it goes.

    Equal to the engine's move with the same fields (both are tuples of ints).

    >>> str(Move(MoveKind.PLAY, Source.DISCARD_PILE, 1, QUEEN, 3))
    'D1:Q>C3'
    >>> Move.parse("h:9>d0") == Move(MoveKind.DISCARD, Source.HAND, 0, 9, 0)
    True
    """

    kind: MoveKind
    source: Source
    """Where the card comes from (HAND for DISCARD; HAND, unused, for PASS)."""
    index: int  # type: ignore[assignment]  # the engine's field name; shadows tuple.index on purpose
    """The discard pile the card comes from when ``source`` is DISCARD_PILE, else 0."""
    card: Card
    """The card moved (0 for PASS)."""
    target: int
    """The centre pile for PLAY, the mover's discard pile for DISCARD, 0 for PASS."""

    def __str__(self) -> str:
        if self.kind == MoveKind.PASS:
            return "pass"
        source = ("H", "S", f"D{self.index}")[self.source]
        target = ("C" if self.kind == MoveKind.PLAY else "D") + str(self.target)
        return f"{source}:{card_name(self.card)}>{target}"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse the notation (``H:7>C0``, ``S:K>C2``, ``D1:Q>C3``, ``H:9>D0``, ``pass``);
        case and spaces around the punctuation do not matter. Raises ``ValueError``."""
        if not isinstance(text, str):
            raise ValueError(f"a move's notation is text, got {type(text).__name__}")
        if text.strip().lower() == "pass":
            return PASS_MOVE
        match = _NOTATION.fullmatch(text.strip().upper())
        if not match:
            raise ValueError(f"not a move: {text[:40]!r} (expected e.g. H:7>C0, S:K>C1, D2:Q>C3, H:9>D0, pass)")
        source, card_text, target_kind, target = match.groups()
        card = parse_card(card_text)
        if target_kind == "D":
            if source != "H":
                raise ValueError(f"{text!r}: only hand cards may be discarded")
            return cls(MoveKind.DISCARD, Source.HAND, 0, card, int(target))
        if source == "H":
            return cls(MoveKind.PLAY, Source.HAND, 0, card, int(target))
        if source == "S":
            return cls(MoveKind.PLAY, Source.STOCK, 0, card, int(target))
        return cls(MoveKind.PLAY, Source.DISCARD_PILE, int(source[1:]), card, int(target))


PASS_MOVE: Final = Move(MoveKind.PASS, Source.HAND, 0, 0, 0)
"""The one PASS move."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every option of the match's game (the referee sends it in :class:`Welcome`).

    ``docs/rules.md`` states what each option means.
    """

    name: str
    """Canonical spec, e.g. ``"standard"``, ``"kings-only+short-15"``, ``"skip-bo+4p"``."""
    version: int
    """Rules version: bumped whenever the same seed and moves would give another game."""
    players: int
    """Seats at the table; seats move in order 0, 1, 2, ..."""
    partners: bool
    """2 v 2: seats 0 and 2 against seats 1 and 3, one shared stock per team."""
    deck: str
    """``"spite"`` (52-card decks plus jokers) or ``"skip-bo"`` (12 x 1..12 plus 18 wilds)."""
    decks: int
    """Decks shuffled together."""
    jokers_per_deck: int
    kings_wild: bool
    stock_size: int
    """Cards dealt to each stock."""
    hand_size: int
    """Hands are refilled to this many cards."""
    centre_piles: int
    """Shared centre piles, built from Ace (1) up to Queen (12)."""
    discard_piles: int
    """Discard piles per seat."""
    open_stock: int
    """Face-up cards on top of each stock (3 with open-stock); only the top is playable."""
    no_block: bool
    """House rule: a non-wild card playable on a centre pile now may not be discarded."""
    completed_piles: str
    """``"shuffle"`` or ``"set-aside"``."""
    draw_pile_exhausted: str
    """``"play-on"`` or ``"draw-game"``."""
    discard_aces: bool
    """Whether Aces (Skip-Bo 1s) may be discarded."""
    scoring: str
    """``"win"`` or ``"stock-left"``."""
    match_points: int
    """0: games stand alone; N: the match is played until a seat or team reaches N points."""
    turn_cap: int
    """After this many turns a game is drawn."""
    wild_ranks: frozenset[Card]
    """Ranks that are wild on centre piles."""

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


class StockView(NamedTuple):
    """A stock as everyone sees it."""

    count: int  # type: ignore[assignment]  # the engine's field name; shadows tuple.count on purpose
    """Cards left in the stock."""
    visible: tuple[Card, ...]
    """Face-up cards, top first (one, or up to three with open-stock). Only the top is playable."""

    @property
    def top(self) -> Card | None:
        """The playable card, or ``None`` for an empty stock."""
        return self.visible[0] if self.visible else None


class EventKind(IntEnum):
    """What an event records (numbered like the engine's)."""

    DEAL = 0
    """The game begins; ``seat`` moves first."""
    TURN = 1
    """Turn number ``count`` begins for ``seat``."""
    MOVE = 2
    """``seat`` made ``move``."""
    DRAW = 3
    """``seat`` drew ``count`` cards; ``cards`` are filled only for the drawing seat."""
    REVEAL = 4
    """Stock ``pile`` shows ``cards`` face up (top first), ``count`` cards left in it."""
    PILE_COMPLETED = 5
    """Centre pile ``pile`` reached the Queen; its ``cards`` left the table."""
    SHUFFLE = 6
    """The draw pile was shuffled and holds ``count`` cards (its order is never sent)."""
    GAME_OVER = 7
    """The game is over."""


class Event(NamedTuple):
    """Something that happened in the game, as this seat may see it."""

    kind: EventKind
    seat: int = -1
    """The seat concerned, or -1."""
    move: Move | None = None
    """The move, for MOVE events."""
    cards: tuple[Card, ...] = ()
    """Cards shown (see :class:`EventKind` for which kinds carry them)."""
    count: int = 0  # type: ignore[assignment]  # the engine's field name; shadows tuple.count on purpose
    """A count (cards drawn, cards left, turn number), see :class:`EventKind`."""
    pile: int = -1
    """A pile index (stock or centre pile), or -1."""


class Ending(Enum):
    """How a game ended. The first four are the rules'; the others the referee's."""

    STOCK_EMPTIED = "stock-emptied"
    STALEMATE = "stalemate"
    TURN_CAP = "turn-cap"
    DRAW_PILE_EXHAUSTED = "draw-pile-exhausted"
    TIMEOUT = "timeout"
    ILLEGAL_MOVE = "illegal-move"
    MALFORMED = "malformed"
    CRASH = "crash"
    DISCONNECT = "disconnect"
    NO_SHOW = "no-show"
    FORFEIT = "forfeit"
    UNKNOWN = "unknown"
    """An ending this SDK does not know (a newer referee); see the outcome's ``reason``."""

    @property
    def by_rules(self) -> bool:
        """True when the game ended by the rules, False when the referee cut it off."""
        return self in _BY_RULES


_BY_RULES: Final = frozenset({Ending.STOCK_EMPTIED, Ending.STALEMATE, Ending.TURN_CAP, Ending.DRAW_PILE_EXHAUSTED})


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one game."""

    ending: Ending
    winners: tuple[int, ...]
    """Seats that won (both partners of a team); empty for a draw."""
    scores: tuple[int, ...]
    """Points per seat, by the rule set's scoring."""
    reason: str
    """One human-readable sentence, e.g. "seat 1 emptied its stock"."""
    offender: int | None = None
    """The seat at fault for the referee's endings."""

    @property
    def is_draw(self) -> bool:
        return not self.winners


class Observation(NamedTuple):
    """One seat's view of a game at one moment: what it may see, nothing else."""

    rules: RuleSet
    seat: int
    """The observing seat."""
    turn: int
    """Turn number, from 1."""
    to_move: int
    """The seat whose decision it is."""
    hand: tuple[Card, ...]
    """The observer's hand, sorted by rank."""
    hand_sizes: tuple[int, ...]
    """Cards in each seat's hand."""
    stocks: tuple[StockView, ...]
    """Each stock (one per seat, or one per team with partners); see ``my_stock``."""
    discard_piles: tuple[tuple[tuple[Card, ...], ...], ...]
    """Per seat, per discard pile, the cards bottom to top."""
    centre_piles: tuple[tuple[Card, ...], ...]
    """Per centre pile, the cards bottom to top; a pile's rank is its length."""
    draw_pile_count: int
    """Cards in the draw pile (its order is hidden from everyone)."""
    set_aside_count: int
    """Cards of completed piles waiting to become the draw pile (set-aside rule sets)."""
    events: tuple[Event, ...]
    """What happened since this seat's previous decision (its own last move included)."""
    legal_moves: tuple[Move, ...]
    """The observer's legal moves, in the engine's order, when it is to move; else empty."""
    outcome: Outcome | None = None
    """The game's result once it is over (the referee sends it in GameOver instead)."""

    @property
    def my_stock(self) -> StockView:
        """The stock this seat plays from."""
        return self.stocks[self.rules.stock_of(self.seat)]

    @property
    def centre_needs(self) -> tuple[int, ...]:
        """The rank each centre pile needs next (1 for an empty pile)."""
        return tuple(len(p) + 1 for p in self.centre_piles)

    @property
    def my_discard_piles(self) -> tuple[tuple[Card, ...], ...]:
        """This seat's discard piles, each bottom to top."""
        return self.discard_piles[self.seat]


class Policy(Enum):
    """What bad behaviour (timeout, illegal or malformed action, wrong decision id) gets."""

    FORFEIT = "forfeit"
    """The offending seat loses the game at once (and the rest of the match)."""
    SUBSTITUTE = "substitute"
    """The referee plays a fallback legal move and counts a strike; 3 strikes forfeit."""
    UNSPECIFIED = "unspecified"


class Fault(IntEnum):
    """What a bot did wrong with one action (numbered as on the wire)."""

    NONE = 0
    TIMEOUT = 1
    ILLEGAL_MOVE = 2
    MALFORMED = 3
    WRONG_DECISION = 4
    UNKNOWN = -1
    """A fault this SDK does not know (a newer referee); see the result's ``error``."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Limits on a seat's thinking time, in seconds."""

    decision: float
    """Per decision; overruns are paid from the bank."""
    bank: float
    """Per game, per seat, for overruns."""
    connect: float
    """To connect, and for the seat's first decision of the match."""


@dataclass(frozen=True, slots=True)
class Welcome:
    """The referee's answer to the bot's Hello: its seat and the terms of the match."""

    seat: int
    rules: RuleSet
    time_control: TimeControl
    games: int
    """Games in the match (with ``rules.match_points``, the most that will be played)."""
    match_id: str
    protocol_version: int
    seat_names: tuple[str, ...]
    """Each seat's bot name (empty for a seat not yet connected)."""
    policy: Policy


@dataclass(frozen=True, slots=True)
class Decision:
    """What ``Bot.decide`` may return instead of a bare move to attach a debug string.

    ``choice`` is a :class:`Move`, a plan (a list of moves to play in order), or an
    index into ``observation.legal_moves``. ``debug`` is stored in the replay, cut to
    256 bytes of UTF-8.
    """

    choice: Move | list[Move] | tuple[Move, ...] | int
    debug: str = ""


@dataclass(frozen=True, slots=True)
class DecisionContext:
    """The terms of the decision being made (``Bot.decision`` while ``decide`` runs).

    Times are ``time.monotonic()`` values taken when the request arrived, so they
    leave out the network: keep a margin.
    """

    decision_id: int
    game_number: int
    received: float
    """``time.monotonic()`` when the request arrived."""
    deadline: float
    """``time.monotonic()`` value after which the time bank is drawn on."""
    bank: float
    """Seconds left in this game's time bank (spent when a decision runs over)."""

    @property
    def final_deadline(self) -> float:
        """``time.monotonic()`` value at which the decision times out (deadline plus bank)."""
        return self.deadline + self.bank

    def time_left(self) -> float:
        """Seconds until ``deadline`` (negative once it has passed)."""
        return self.deadline - time.monotonic()


@dataclass(frozen=True, slots=True)
class ActionResult:
    """The referee's answer to one action."""

    decision_id: int
    applied: tuple[Move, ...]
    """Moves applied for the seat (several for a plan; the fallback move when the referee substituted one)."""
    dropped: int
    """Plan moves dropped unjudged because new information appeared."""
    fault: Fault
    """``Fault.NONE`` when the action was accepted as sent."""
    error: str
    """Why, in words, when ``fault`` is set."""
    strikes: int
    """Strikes this seat has in the current game (substitute policy; 3 forfeit)."""

    @property
    def ok(self) -> bool:
        return self.fault == Fault.NONE


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The result of the whole match."""

    points: tuple[int, ...]
    """Points per seat over the match."""
    wins: tuple[int, ...]
    """Games won per seat."""
    winners: tuple[int, ...]
    """Seats that won the match (both partners of a team); empty for a tie."""
    reason: str
