"""The declared shapes that travel between the runner, its workers and the store: a match
to play (:class:`MatchJob`) and what came of it (:class:`JobResult`).

They cross a process boundary as JSON (a worker's stdin and stdout, a Dask task), so each
has ``to_dict`` and a checking ``from_dict``; everything on this side of the boundary reads
attributes, never string keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.match import LAG_LIMIT_MS, Policy, Thinking, TimeControl
from referee.status import MatchState, SeatStatus
from spite_engine import Ending, Outcome


@dataclass(frozen=True)
class SeatJob:
    spec: str
    """The bot as the tournament file named it: a sample bot's name or a manifest path."""
    fingerprint: str = ""
    """The runner's fingerprint of the bot's files; a worker refuses a bot that differs ("" skips the check)."""


@dataclass(frozen=True)
class MatchJob:
    """One match for a worker to play."""

    match_id: int
    rules: str
    """The rule set's spec (``docs/rules.md``)."""
    bots: tuple[SeatJob, ...]
    """One per seat, in seat order."""
    time_control: TimeControl
    games: int
    seed: int
    bot_seed: int
    policy: Policy
    ordinal: int = 0
    replay_dir: str | None = None
    log_dir: str | None = None
    thinking: Thinking = Thinking.ALLOWED
    hide: tuple[str, ...] = ()
    """Paths no bot may read even inside a directory it can (the store and its journal files)."""
    lag_limit_ms: int = LAG_LIMIT_MS

    def to_dict(self) -> dict[str, Any]:
        return {"match_id": self.match_id, "ordinal": self.ordinal, "rules": self.rules,
                "bots": [{"spec": b.spec, "fingerprint": b.fingerprint} for b in self.bots],
                "time_control": {"decision_ms": self.time_control.decision_ms, "bank_ms": self.time_control.bank_ms,
                                 "connect_ms": self.time_control.connect_ms},
                "games": self.games, "seed": self.seed, "bot_seed": self.bot_seed, "policy": self.policy.value,
                "replay_dir": self.replay_dir, "log_dir": self.log_dir, "thinking": self.thinking.value,
                "hide": list(self.hide), "lag_limit_ms": self.lag_limit_ms}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchJob:
        """The job a JSON line describes; ``KeyError``, ``TypeError`` or ``ValueError`` if it is not one."""
        return cls(
            match_id=int(data["match_id"]), ordinal=int(data.get("ordinal", 0)), rules=str(data["rules"]),
            bots=tuple(SeatJob(str(b["spec"]), str(b.get("fingerprint", ""))) for b in data["bots"]),
            time_control=TimeControl(**{k: int(v) for k, v in dict(data["time_control"]).items()}),
            games=int(data["games"]), seed=int(data["seed"]), bot_seed=int(data["bot_seed"]),
            policy=Policy(data["policy"]), replay_dir=data.get("replay_dir"), log_dir=data.get("log_dir"),
            thinking=Thinking(data.get("thinking", Thinking.ALLOWED.value)),
            hide=tuple(str(p) for p in data.get("hide", ())),
            lag_limit_ms=int(data.get("lag_limit_ms", LAG_LIMIT_MS)))


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
    faults: tuple[str, ...]
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
                   tuple(str(f) for f in data["faults"]), int(data.get("cpu_us_p50", 0)),
                   int(data.get("cpu_us_p99", 0)), int(data.get("cpu_us_total", 0)), str(data.get("crash", "")),
                   str(data.get("log", "")))

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "version": self.version, "status": self.status.value,
                "timeouts": self.timeouts, "illegal_moves": self.illegal_moves, "malformed": self.malformed,
                "crashes": self.crashes, "decisions": self.decisions, "decision_us_p50": self.decision_us_p50,
                "decision_us_p99": self.decision_us_p99, "faults": list(self.faults), "cpu_us_p50": self.cpu_us_p50,
                "cpu_us_p99": self.cpu_us_p99, "cpu_us_total": self.cpu_us_total, "crash": self.crash, "log": self.log}


@dataclass(frozen=True)
class GameSummary:
    game_number: int
    seed: int
    first_seat: int
    outcome: Outcome
    moves: int
    turns: int
    replay: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSummary:
        outcome = Outcome.from_dict(data["outcome"])
        if outcome.ending is Ending.UNKNOWN:
            raise ValueError("a game result without a known ending")
        return cls(int(data["game_number"]), int(data["seed"]), int(data["first_seat"]), outcome,
                   int(data["moves"]), int(data["turns"]), data.get("replay"))

    def to_dict(self) -> dict[str, Any]:
        return {"game_number": self.game_number, "seed": self.seed, "first_seat": self.first_seat,
                "outcome": self.outcome.to_dict(), "moves": self.moves, "turns": self.turns, "replay": self.replay}


@dataclass(frozen=True)
class MatchSummary:
    """A played match as the referee reported it."""

    state: MatchState
    points: tuple[int, ...]
    seats: tuple[SeatSummary, ...]
    games: tuple[GameSummary, ...]
    winners: tuple[int, ...] = ()
    void_reason: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchSummary:
        return cls(MatchState(data.get("state", MatchState.FINISHED.value)), tuple(int(p) for p in data["points"]),
                   tuple(SeatSummary.from_dict(s) for s in data["seats"]),
                   tuple(GameSummary.from_dict(g) for g in data["games"]),
                   tuple(int(w) for w in data.get("winners", ())), str(data.get("void_reason") or ""))

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state.value, "points": list(self.points), "seats": [s.to_dict() for s in self.seats],
                "games": [g.to_dict() for g in self.games], "winners": list(self.winners),
                "void_reason": self.void_reason}


@dataclass(frozen=True)
class JobResult:
    """What a worker answers for one job: a played match (``ok``) or why there is none."""

    match_id: int | None
    worker: str
    ok: bool
    summary: MatchSummary | None = None
    error: str = ""
    platform_fault: bool = False
    """The platform failed (the match is void), not a bot: the runner plays it again, unrated."""
    histograms: tuple[dict[str, int], ...] = ()
    """Per seat, the decision times as a sparse log histogram (:mod:`tournaments.timing`)."""
    elapsed_s: float = 0.0

    @classmethod
    def failure(cls, match_id: int | None, worker: str, error: str) -> JobResult:
        return cls(match_id, worker, False, error=error)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobResult:
        summary = data.get("summary")
        return cls(data.get("match_id"), str(data.get("worker", "")), bool(data.get("ok")),
                   MatchSummary.from_dict(summary) if summary else None, str(data.get("error", "")),
                   bool(data.get("platform_fault", False)),
                   tuple({str(k): int(v) for k, v in h.items()} for h in data.get("histograms") or ()),
                   float(data.get("elapsed_s") or 0.0))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"match_id": self.match_id, "worker": self.worker, "ok": self.ok,
                                "elapsed_s": self.elapsed_s}
        if self.summary is not None:
            data["summary"] = self.summary.to_dict()
        if self.error:
            data["error"] = self.error
        if self.platform_fault:
            data["platform_fault"] = True
        if self.histograms:
            data["histograms"] = [dict(h) for h in self.histograms]
        return data
