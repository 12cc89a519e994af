"""The range of every count and size a user or an admin call may give the referee.

One table, used by :class:`referee.core.match.MatchConfig` and :class:`referee.core.match.TimeControl`
(whose constructors refuse anything outside it), by ``CreateMatch`` (which answers
``INVALID_ARGUMENT`` with the sentence), by the CLI, and by the tournament and competition
files, whose fields are read with :meth:`Range.field` (a :class:`FieldError` names the
field): the same value is refused the same way wherever it is given.
docs/protocol.md ("Limits") lists the same ranges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Mapping


class LimitError(ValueError):
    """A count or size outside its documented range; the message is one sentence."""


class FieldError(LimitError):
    """A field of a file's table (a tournament's, a competition's, a job's) that is out of
    its range: ``field`` is its dotted name (``time_control.bank_ms``), ``problem`` what is
    wrong with it. A loader adds the file's name in front of the sentence."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"field '{field}': {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class Range:
    """An inclusive range of integers, with the name a user knows the value by."""

    name: str
    low: int
    high: int

    def check(self, value: int) -> int:
        """``value`` if it is in range; else raise :class:`LimitError` naming the range."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise LimitError(f"{self.name} must be a whole number in {self.low}..{self.high}, got {value!r}")
        if not self.low <= value <= self.high:
            raise LimitError(f"{self.name} must be {self.low}..{self.high}, got {value}")
        return value

    def field(self, table: Mapping[str, object], key: str, default: int, where: str = "") -> int:
        """``table[key]`` (``default`` if absent) if it is in range; else :class:`FieldError`
        naming ``where`` + ``key``."""
        value = table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
            bounds = f"{self.low}..{self.high}" if self.low == 0 else f"at least {self.low} and at most {self.high}"
            raise FieldError(where + key, f"must be an integer, {bounds}; got {value!r}")
        return value

    def __str__(self) -> str:
        return f"{self.low}..{self.high}"


GAMES: Final = Range("games", 1, 10_000)
"""Games in one match (with match points: the most that will be played)."""
SEED: Final = Range("seed", 0, 2**64 - 1)
"""A master seed (the engine's seed range)."""
DECISION_MS: Final = Range("decision_ms", 1, 600_000)
"""Thinking time per decision, ms (10 minutes at most)."""
BANK_MS: Final = Range("bank_ms", 0, 3_600_000)
"""The per-game time bank, ms (0: no bank; an hour at most)."""
CONNECT_MS: Final = Range("connect_ms", 1, 600_000)
"""Time to connect and for the first decision, ms."""
MATCH_POINTS: Final = Range("match_points", 0, 10_000)
"""Points that win a match (0: games stand alone)."""
ROUNDS: Final = Range("rounds", 1, 10_000)
"""Rounds of a tournament."""
PLAN_MOVES: Final = Range("plan length", 1, 32)
"""Moves in one plan (an Action's plan)."""
NAME_BYTES: Final = Range("name length (UTF-8 bytes)", 0, 64)
"""Seat and bot names, and bot versions."""
DEBUG_BYTES: Final = 256
"""A decision's debug text is cut to this many UTF-8 bytes (not refused)."""

ALL: Final = (GAMES, SEED, DECISION_MS, BANK_MS, CONNECT_MS, MATCH_POINTS, ROUNDS, PLAN_MOVES, NAME_BYTES)
"""Every range, for documentation and tests."""


def check_name(value: str, what: str = "name") -> str:
    """``value`` if it fits :data:`NAME_BYTES` and has no control characters; else :class:`LimitError`."""
    size = len(value.encode())
    if size > NAME_BYTES.high:
        raise LimitError(f"{what} must be at most {NAME_BYTES.high} bytes of UTF-8, got {size}")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise LimitError(f"{what} must not contain control characters")
    return value
