"""Full-information game records, and exact re-simulation.

A record holds everything: the rule set, the seed, who moved first, every move and
every chance event (with hidden cards), and the outcome. ``replay(record)`` plays the
moves again through the checked path and raises :class:`ReplayMismatch` at the first
event that differs. Replays on disk (``referee/core/replay.py``) store these records.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .moves import Move, MoveError
from .outcome import Event, EventKind, Outcome
from .ruleset import RULES_VERSION, RulesError, RuleSet, parse_rules
from .state import GameState


class ReplayMismatch(Exception):
    """A record that the engine does not reproduce."""


@dataclass
class GameRecord:
    rules: RuleSet
    seed: int
    first_seat: int
    moves: list[tuple[int, Move]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    outcome: Outcome | None = None

    @classmethod
    def from_state(cls, state: GameState) -> "GameRecord":
        moves = [(e.seat, e.move) for e in state.log if e.kind == EventKind.MOVE and e.move is not None]
        return cls(state.rules, state.seed, state.first_seat, moves, list(state.log), state.outcome)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(), "seed": self.seed, "first_seat": self.first_seat,
            "moves": [[seat, str(move)] for seat, move in self.moves],
            "events": [e.to_dict() for e in self.events],
            "outcome": self.outcome.to_dict() if self.outcome else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GameRecord":
        outcome = data.get("outcome")
        return cls(RuleSet.from_dict(data["rules"]), int(data["seed"]), int(data["first_seat"]),
                   [(int(seat), Move.parse(text)) for seat, text in data["moves"]],
                   [Event.from_dict(e) for e in data["events"]],
                   Outcome.from_dict(outcome) if outcome else None)


def check_rule_set_name(rules: RuleSet) -> None:
    """A rule set is what its name says: the options :func:`parse_rules` gives that name, every
    one of them, else :class:`ReplayMismatch` names the first that differs. What a replay file
    claims (``spite replay --verify``: a file must not say ``kings-only`` and carry the options
    of ``standard``); :func:`replay` itself also re-simulates rule sets made in code
    (``dataclasses.replace(rules, turn_cap=...)``), which name no preset."""
    try:
        named = parse_rules(rules.name)
    except RulesError as error:
        raise ReplayMismatch(f"the record's rule set is named {rules.name[:60]!r}, which names no rule set: "
                             f"{error}") from None
    for option in dataclasses.fields(RuleSet):
        recorded, expected = getattr(rules, option.name), getattr(named, option.name)
        if recorded != expected:
            raise ReplayMismatch(f"the record names rule set {rules.name!r} but was played with "
                                 f"{option.name} = {recorded!r}, where {rules.name!r} has {expected!r}")


def replay(record: GameRecord) -> GameState:
    """Re-simulate ``record`` exactly; raise :class:`ReplayMismatch` on any difference."""
    if record.rules.version != RULES_VERSION:
        raise ReplayMismatch(f"the record was played under rules version {record.rules.version}; "
                             f"this engine plays version {RULES_VERSION}")
    state = GameState.new(record.rules, record.seed, record.first_seat)
    for number, (seat, move) in enumerate(record.moves):
        try:
            state.apply_checked(move, seat)
        except MoveError as error:
            raise ReplayMismatch(f"move {number} ({move} by seat {seat}) does not replay: {error}") from None
    if record.outcome is not None and state.outcome is None and not record.outcome.ending.by_rules:
        if record.outcome.offender is None:
            raise ReplayMismatch("a referee ending without an offending seat")
        state.forfeit(record.outcome.offender, record.outcome.ending, record.outcome.reason)
    if record.events:
        for index, (want, got) in enumerate(zip(record.events, state.log)):
            if want != got:
                raise ReplayMismatch(f"event {index} differs: recorded {want.to_dict()}, engine {got.to_dict()}")
        if len(record.events) != len(state.log):
            raise ReplayMismatch(f"recorded {len(record.events)} events, the engine produced {len(state.log)}")
    if record.outcome != state.outcome:
        raise ReplayMismatch(f"recorded outcome {record.outcome}, the engine reached {state.outcome}")
    return state
