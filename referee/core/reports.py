"""What a match reports: per seat (faults, decision times, CPU), per game, and the whole
match as a wire ``MatchStatus`` or as plain data for the store and ``--json``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from referee.core.deadlines import Thinking
from referee.core.status import FaultKind, MatchState, SeatStatus
from spite.v1 import referee_pb2 as rpb
from spite_engine import Ending, Outcome, RuleSet
from spite_wire import outcome_to_proto, rules_to_proto


@dataclass(frozen=True)
class SeatFault:
    """One fault of a seat: its kind, and why in words (with its game and decision), e.g.
    ``game 0 decision 12: no answer to decision 12 within 1000 ms plus the time bank``."""

    kind: FaultKind
    reason: str

    @classmethod
    def from_json(cls, item: Any) -> SeatFault:
        """From its JSON form (``{"kind": ..., "reason": ...}``); a plain string, what stores
        and job results held before kinds were recorded, is a fault of unknown kind."""
        if isinstance(item, str):
            return cls(FaultKind.UNKNOWN, item)
        if not isinstance(item, dict):
            raise ValueError(f"a fault is an object with a kind and a reason, got {type(item).__name__}")
        kind = str(item.get("kind", ""))
        return cls(FaultKind(kind) if kind in FaultKind._value2member_map_ else FaultKind.UNKNOWN,
                   str(item.get("reason", "")))

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind.value, "reason": self.reason}


MAX_FAULTS = 100
"""Faults a seat's report keeps (the first ones); the counts go on."""


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
    faults: list[SeatFault] = field(default_factory=list)
    """Each fault, in order (the first :data:`MAX_FAULTS`)."""
    unreadable: int = 0
    """Of the ``malformed`` faults, those that were input that is no message at all (a stdio
    bot's line or frame that does not parse: stray output on its stdout)."""
    connect_fault: Ending | None = None
    """Why the seat's bot never said Hello, if it did not: ``NO_SHOW`` (not within its connect
    time) or ``CRASH`` (its process exited first); None once it connected."""

    def percentile_us(self, q: float) -> int:
        return _percentile(self.decision_us, q)

    def add_fault(self, kind: FaultKind, reason: str) -> None:
        if len(self.faults) < MAX_FAULTS:
            self.faults.append(SeatFault(kind, reason))

    def summary(self) -> SeatSummary:
        """The frozen record of this seat, as the store and ``--json`` keep it."""
        return SeatSummary(self.seat, self.name, self.version, self.status, self.timeouts, self.illegal_moves,
                           self.malformed, self.crashes, self.decisions, self.percentile_us(0.5),
                           self.percentile_us(0.99), tuple(self.faults), _percentile(self.decision_cpu_us, 0.5),
                           _percentile(self.decision_cpu_us, 0.99), sum(self.decision_cpu_us))

    def to_dict(self) -> dict[str, Any]:
        return self.summary().to_dict()


def _percentile(values: list[int], q: float) -> int:
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(frozen=True)
class GameResult:
    """One played game of a match."""

    game_number: int
    seed: int
    first_seat: int
    outcome: Outcome
    moves: int
    turns: int
    replay: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        outcome = Outcome.from_dict(data["outcome"])
        if outcome.ending is Ending.UNKNOWN:
            raise ValueError("a game result without a known ending")
        return cls(int(data["game_number"]), int(data["seed"]), int(data["first_seat"]), outcome,
                   int(data["moves"]), int(data["turns"]), data.get("replay"))

    def to_dict(self) -> dict[str, Any]:
        return {"game_number": self.game_number, "seed": self.seed, "first_seat": self.first_seat,
                "outcome": self.outcome.to_dict(), "moves": self.moves, "turns": self.turns, "replay": self.replay}


@dataclass(frozen=True)
class SeatSummary:
    """One seat's report of a played match."""

    seat: int
    name: str
    version: str
    status: SeatStatus
    timeouts: int
    illegal_moves: int
    malformed: int
    crashes: int
    decisions: int
    decision_us_p50: int
    decision_us_p99: int
    faults: tuple[SeatFault, ...]
    cpu_us_p50: int = 0
    cpu_us_p99: int = 0
    cpu_us_total: int = 0
    crash: str = ""
    """When the bot crashed: the exception and where it was raised, from its log's last lines."""
    log: str = ""
    """When the bot crashed: the path of its whole (capped) log."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeatSummary:
        return cls(int(data["seat"]), str(data["name"]), str(data["version"]), SeatStatus(data["status"]),
                   int(data["timeouts"]), int(data["illegal_moves"]), int(data["malformed"]), int(data["crashes"]),
                   int(data["decisions"]), int(data["decision_us_p50"]), int(data["decision_us_p99"]),
                   tuple(SeatFault.from_json(f) for f in data["faults"]), int(data.get("cpu_us_p50", 0)),
                   int(data.get("cpu_us_p99", 0)), int(data.get("cpu_us_total", 0)), str(data.get("crash", "")),
                   str(data.get("log", "")))

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "version": self.version, "status": self.status.value,
                "timeouts": self.timeouts, "illegal_moves": self.illegal_moves, "malformed": self.malformed,
                "crashes": self.crashes, "decisions": self.decisions, "decision_us_p50": self.decision_us_p50,
                "decision_us_p99": self.decision_us_p99, "faults": [f.to_json() for f in self.faults],
                "cpu_us_p50": self.cpu_us_p50,
                "cpu_us_p99": self.cpu_us_p99, "cpu_us_total": self.cpu_us_total, "crash": self.crash, "log": self.log}


@dataclass(frozen=True)
class MatchSummary:
    """A played match as the referee reported it."""

    state: MatchState
    points: tuple[int, ...]
    """Per seat over the match; empty unless it finished."""
    seats: tuple[SeatSummary, ...]
    games: tuple[GameResult, ...]
    winners: tuple[int, ...] = ()
    void_reason: str = ""
    match_id: str = ""
    rules: str = ""
    seed: int = 0
    thinking: Thinking = Thinking.ALLOWED

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchSummary:
        return cls(MatchState(data.get("state", MatchState.FINISHED.value)), tuple(int(p) for p in data["points"]),
                   tuple(SeatSummary.from_dict(s) for s in data["seats"]),
                   tuple(GameResult.from_dict(g) for g in data["games"]),
                   tuple(int(w) for w in data.get("winners", ())), str(data.get("void_reason") or ""),
                   str(data.get("match_id", "")), str(data.get("rules", "")), int(data.get("seed", 0)),
                   Thinking(data.get("thinking", Thinking.ALLOWED.value)))

    def to_dict(self) -> dict[str, Any]:
        return {"match_id": self.match_id, "state": self.state.value, "rules": self.rules, "seed": self.seed,
                "thinking": self.thinking.value, "void_reason": self.void_reason,
                "seats": [s.to_dict() for s in self.seats], "games": [g.to_dict() for g in self.games],
                "points": list(self.points), "winners": list(self.winners)}


class _Seat(Protocol):
    @property
    def report(self) -> "SeatReport": ...


class _Config(Protocol):
    @property
    def seed(self) -> int: ...

    @property
    def thinking(self) -> Thinking: ...


class MatchView(Protocol):
    """What the reports read of a match (:class:`referee.core.match.Match` is one)."""

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


FAULT_KINDS = {kind: getattr(rpb, f"FAULT_KIND_{kind.name}", rpb.FAULT_KIND_UNSPECIFIED) for kind in FaultKind}
"""Each fault kind as the wire names it (``UNKNOWN`` is the wire's unspecified)."""


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
            decision_us_p50=r.percentile_us(0.5), decision_us_p99=r.percentile_us(0.99), crashes=r.crashes,
            faults=[rpb.SeatFault(kind=FAULT_KINDS[f.kind], reason=f.reason) for f in r.faults]))
    for result in self.results:
        message.games.append(rpb.GameReport(game_number=result.game_number, seed=result.seed,
                                            outcome=outcome_to_proto(result.outcome), moves=result.moves,
                                            replay=result.replay or ""))
    if self.match_over is not None:
        message.result.CopyFrom(self.match_over)
    return message


def report(self: MatchView) -> MatchSummary:
    """The whole result, typed: what a worker returns and the stores record."""
    return MatchSummary(self.state_name, tuple(self.match_over.points) if self.match_over else (),
                        tuple(s.report.summary() for s in self.seats), tuple(self.results),
                        tuple(self.match_over.winners) if self.match_over else (), self.void_reason,
                        self.match_id, self.rules.name, self.config.seed, self.config.thinking)


def summary(self: MatchView) -> dict[str, Any]:
    """The whole result as plain data (``--json`` output): :func:`report` as JSON-ready data."""
    return report(self).to_dict()
