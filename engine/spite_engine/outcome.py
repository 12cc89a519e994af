"""How games end (a closed set) and what they record: events and outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import NamedTuple

from .cards import Card
from .moves import Move


class Ending(StrEnum):
    """Every way a game can end. The first four are the rules'; the rest the referee's.

    A string enum: a member is its value (``Ending.STALEMATE == "stalemate"``), as JSON, the
    replays and the stores write it."""

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
    """Never produced here: what a reader (the Python SDK) makes of an ending it does not
    know, sent by a newer referee; the outcome's ``reason`` says what happened."""

    @property
    def by_rules(self) -> bool:
        """True when the game ended by the rules, False when the referee cut it off."""
        return self in _BY_RULES


_BY_RULES = frozenset({Ending.STOCK_EMPTIED, Ending.STALEMATE, Ending.TURN_CAP, Ending.DRAW_PILE_EXHAUSTED})


@dataclass(frozen=True)
class Outcome:
    """The result of a game: how it ended, who won, the points, and why, in words."""

    ending: Ending
    winners: tuple[int, ...]
    """Seats that won (both partners of a team); empty for a draw."""
    scores: tuple[int, ...]
    """Points per seat under the rule set's scoring (team mates get the same)."""
    reason: str
    """One human-readable sentence, e.g. "seat 1 emptied its stock"."""
    offender: int | None = None
    """For the referee's endings, the seat at fault."""

    @property
    def is_draw(self) -> bool:
        return not self.winners

    def to_dict(self) -> dict[str, object]:
        return {"ending": self.ending.value, "winners": list(self.winners), "scores": list(self.scores),
                "reason": self.reason, "offender": self.offender}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> "Outcome":
        offender = data.get("offender")
        return cls(Ending(data["ending"]), tuple(data["winners"]), tuple(data["scores"]),  # type: ignore[arg-type]
                   str(data["reason"]), offender if isinstance(offender, int) else None)


class EventKind(IntEnum):
    """What an event records. Visibility per kind is in ``docs/rules.md`` (Observations)."""

    DEAL = 0
    """The game begins; ``seat`` moves first. Public."""
    TURN = 1
    """Turn ``count`` begins for ``seat``. Public."""
    MOVE = 2
    """``seat`` made ``move``. Public."""
    DRAW = 3
    """``seat`` drew ``count`` cards. The count is public; ``cards`` only to that seat."""
    REVEAL = 4
    """Stock ``pile`` shows ``cards`` face up (top first) with ``count`` cards left. Public."""
    PILE_COMPLETED = 5
    """Centre pile ``pile`` reached the Queen; its ``cards`` left the table. Public."""
    SHUFFLE = 6
    """The draw pile was shuffled and now holds ``count`` cards; ``cards`` (the order) to nobody."""
    GAME_OVER = 7
    """The game ended; see the outcome. Public."""


class Event(NamedTuple):
    """One entry of a game's log, with full information; observations redact it per seat."""

    kind: EventKind
    seat: int = -1
    move: Move | None = None
    cards: tuple[Card, ...] = ()
    count: int = 0  # type: ignore[assignment]  # a wire field name; shadows tuple.count on purpose
    pile: int = -1

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"kind": self.kind.name.lower()}
        if self.seat >= 0:
            data["seat"] = self.seat
        if self.move is not None:
            data["move"] = str(self.move)
        if self.cards:
            data["cards"] = list(self.cards)
        if self.count:
            data["count"] = self.count
        if self.pile >= 0:
            data["pile"] = self.pile
        return data

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> "Event":
        move = data.get("move")
        return cls(EventKind[str(data["kind"]).upper()], int(data.get("seat", -1)),  # type: ignore[call-overload]
                   Move.parse(move) if isinstance(move, str) else None,
                   tuple(data.get("cards", ())),  # type: ignore[arg-type]
                   int(data.get("count", 0)), int(data.get("pile", -1)))  # type: ignore[call-overload]
