"""The values a bot works with: immutable, typed, and the rules engine's own.

A bot never sees protocol buffers. The SDK converts every message from the referee
into these values (:mod:`spite_wire`, through :mod:`spite_sdk.convert`) and every answer
back. The game's values -- cards, moves, rule sets, events, outcomes, observations --
*are* the engine's (:mod:`spite_engine`): a bot gets the same :class:`Observation` the
engine builds, so a policy, :func:`spite_engine.determinize.determinize` or a search
over :class:`spite_engine.GameState` works on it without conversion:

==========  ==================================  ====================================
value       numbering                           notation
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
:mod:`spite_wire` knows that.)

The rest of this module is the session's own vocabulary, which the engine has no use
for: the referee's :class:`Welcome`, time control, fault policy, action results and the
match's result.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import Enum, IntEnum

from spite_engine import (
    ACE,
    JACK,
    JOKER,
    KING,
    PASS_MOVE,
    QUEEN,
    Card,
    Ending,
    Event,
    EventKind,
    Move,
    MoveKind,
    Observation,
    Outcome,
    RuleSet,
    Source,
    StockView,
    card_name,
    parse_card,
)

__all__ = [
    "ACE", "JACK", "JOKER", "KING", "PASS_MOVE", "QUEEN", "Card", "Ending", "Event", "EventKind", "Move",
    "MoveKind", "Observation", "Outcome", "RuleSet", "Source", "StockView", "card_name", "parse_card",
    "ActionResult", "Decision", "DecisionContext", "Fault", "MatchResult", "Policy", "TimeControl", "Welcome",
]


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
