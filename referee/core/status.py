"""The vocabulary of where a match and each of its seats stand, end to end: the referee's
reports, the tournament store, the CLI and the wire use these values (the wire's
``MatchState`` and ``SeatStatus`` enums name the same members).

Seat statuses are kaggle-environments' closed set: a seat is PENDING until its bot says
Hello, ACTIVE while it plays, and ends DONE (played to the end), ERROR (crashed or
disconnected), INVALID (illegal or malformed actions) or TIMEOUT (no answer in time, or
never connected).

Both are string enums: a member is its value (``SeatStatus.DONE == "done"``), so JSON and
the store hold the plain word.
"""

from __future__ import annotations

import enum


class MatchState(enum.StrEnum):
    WAITING = "waiting"
    """Seats are connecting."""
    RUNNING = "running"
    FINISHED = "finished"
    """Played to the end: every game has an outcome and the match has a result."""
    ABORTED = "aborted"
    """Stopped by an admin call or a shutdown before the end: no result."""
    VOID = "void"
    """The platform failed (not a bot): the match does not count and may be played again."""


class SeatStatus(enum.StrEnum):
    PENDING = "pending"
    ACTIVE = "active"
    DONE = "done"
    ERROR = "error"
    INVALID = "invalid"
    TIMEOUT = "timeout"


class FaultKind(enum.StrEnum):
    """What a seat did wrong, one member per fault in its report (the wire's ``FaultKind``
    names the same members, the stores keep the value). The first four are the answers the
    referee refused (an ``ActionResult``'s ``Fault``); the rest end the bot's part in a game."""

    TIMEOUT = "timeout"
    """No answer within the deadline plus the time bank, after it was given its time."""
    ILLEGAL_MOVE = "illegal_move"
    """A well-formed move the rules forbid now."""
    MALFORMED = "malformed"
    """Not a valid action, or (stdio) input that is no message at all."""
    WRONG_DECISION = "wrong_decision"
    """An action for a decision that does not exist yet."""
    NO_SHOW = "no_show"
    """Never said Hello within its connect time."""
    CRASH = "crash"
    """Its process exited during the match."""
    DISCONNECT = "disconnect"
    """Its stream ended while its process (if any) still ran."""
    UNKNOWN = "unknown"
    """Never produced: a fault recorded before kinds were (a store written by spite before
    schema 3), or one a newer referee names that this reader does not know."""
