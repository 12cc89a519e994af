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
