"""What a match reports: per seat (faults, decision times, CPU), per game, and the whole
match as a wire ``MatchStatus`` or as plain data for the store and ``--json``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from spite.v1 import referee_pb2 as rpb

from spite_engine import Outcome, RuleSet
from spite_wire import outcome_to_proto, rules_to_proto

from .deadlines import Thinking
from .status import MatchState, SeatStatus


@dataclass
class SeatReport:
    seat: int
    name: str
    version: str = ""
    status: SeatStatus = SeatStatus.PENDING
    timeouts: int = 0
    illegal_moves: int = 0
    malformed: int = 0
    crashes: int = 0
    decisions: int = 0
    decision_us: list[int] = field(default_factory=list)
    decision_cpu_us: list[int] = field(default_factory=list)
    """CPU time the bot's processes used per decision (launched bots only): next to the wall
    time, it tells a slow machine (wall high, CPU low) from a slow bot (both high)."""
    faults: list[str] = field(default_factory=list)
    """Each fault's reason, in order (kept to the first 100)."""

    def percentile_us(self, q: float) -> int:
        return _percentile(self.decision_us, q)

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "version": self.version, "status": self.status,
                "timeouts": self.timeouts, "illegal_moves": self.illegal_moves, "malformed": self.malformed,
                "crashes": self.crashes, "decisions": self.decisions,
                "decision_us_p50": self.percentile_us(0.5), "decision_us_p99": self.percentile_us(0.99),
                "cpu_us_p50": _percentile(self.decision_cpu_us, 0.5),
                "cpu_us_p99": _percentile(self.decision_cpu_us, 0.99),
                "cpu_us_total": sum(self.decision_cpu_us), "faults": self.faults}


def _percentile(values: list[int], q: float) -> int:
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class GameResult:
    game_number: int
    seed: int
    first_seat: int
    outcome: Outcome
    moves: int
    turns: int
    replay: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"game_number": self.game_number, "seed": self.seed, "first_seat": self.first_seat,
                "outcome": self.outcome.to_dict(), "moves": self.moves, "turns": self.turns, "replay": self.replay}


class _Seat(Protocol):
    @property
    def report(self) -> "SeatReport": ...


class _Config(Protocol):
    @property
    def seed(self) -> int: ...

    @property
    def thinking(self) -> Thinking: ...


class MatchView(Protocol):
    """What the reports read of a match (:class:`referee.match.Match` is one)."""

    @property
    def match_id(self) -> str: ...

    @property
    def state_name(self) -> MatchState: ...

    @property
    def rules(self) -> RuleSet: ...

    @property
    def config(self) -> _Config: ...

    @property
    def seats(self) -> Sequence[_Seat]: ...

    @property
    def results(self) -> Sequence[GameResult]: ...

    @property
    def match_over(self) -> rpb.MatchOver | None: ...

    @property
    def void_reason(self) -> str: ...


def status_pb(self: MatchView) -> rpb.MatchStatus:
    """The match as the wire's ``MatchStatus`` (GetMatch)."""
    states = {state: getattr(rpb, f"MATCH_STATE_{state.name}") for state in MatchState}  # void stays void
    statuses = {status: getattr(rpb, f"SEAT_STATUS_{status.name}") for status in SeatStatus}
    message = rpb.MatchStatus(match_id=self.match_id, state=states[self.state_name], rules=rules_to_proto(self.rules))
    for seat in self.seats:
        r = seat.report
        message.seats.append(rpb.SeatReport(
            seat=r.seat, name=r.name, version=r.version, status=statuses[r.status], timeouts=r.timeouts,
            illegal_moves=r.illegal_moves, malformed=r.malformed, decisions=r.decisions,
            decision_us_p50=r.percentile_us(0.5), decision_us_p99=r.percentile_us(0.99)))
    for result in self.results:
        message.games.append(rpb.GameReport(game_number=result.game_number, seed=result.seed,
                                            outcome=outcome_to_proto(result.outcome), moves=result.moves,
                                            replay=result.replay or ""))
    if self.match_over is not None:
        message.result.CopyFrom(self.match_over)
    return message


def summary(self: MatchView) -> dict[str, Any]:
    """The whole result as plain data (for the tournament store and --json output)."""
    return {"match_id": self.match_id, "state": self.state_name, "rules": self.rules.name,
            "seed": self.config.seed, "thinking": self.config.thinking.value, "void_reason": self.void_reason,
            "seats": [s.report.to_dict() for s in self.seats],
            "games": [g.to_dict() for g in self.results],
            "points": list(self.match_over.points) if self.match_over else [],
            "winners": list(self.match_over.winners) if self.match_over else []}
