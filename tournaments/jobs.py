"""The declared shapes that travel between the runner, its workers and the store: a match
to play (:class:`MatchJob`) and what came of it (:class:`JobResult`, holding the referee's
own typed :class:`referee.core.reports.MatchSummary`).

They cross a process boundary as JSON (a worker's stdin and stdout, a Dask task), so each
has ``to_dict`` and a checking ``from_dict``; everything on this side of the boundary reads
attributes, never string keys.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from referee.core.deadlines import LAG_LIMIT_MS, Thinking, TimeControl
from referee.core.match import Policy
from referee.core.reports import MatchSummary
from referee.core.status import MatchState
from spite_engine import RuleSet, parse_rules


class Reuse(enum.StrEnum):
    """Whether a worker may play a match on warm bot processes (:mod:`referee.pool`)."""

    WARM = "warm"
    """Bot processes that say warm are kept from one match to the next (never across the
    two halves of a duplicate deal)."""
    NEVER = "never"
    """Fresh processes for each match."""


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
    rules: RuleSet
    """The rule set, parsed once per process: its canonical ``name`` crosses the boundary."""
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
    reuse: Reuse = Reuse.NEVER
    """``"warm"``: the worker may play this match on warm bot processes (:mod:`referee.pool`);
    ``"never"``: fresh processes for this match alone (the tournament file's default is warm;
    a job that does not say is played as before)."""
    max_matches: int = 50
    """With ``reuse = "warm"``, the most matches one bot process plays."""
    hide_names: bool = False
    """Bots are not told who their opponents are (``MatchConfig.hide_names``; a hosted ladder)."""
    live_dir: str | None = None
    """Write the match's public feed here while it runs (:mod:`referee.core.feed`; a hosted ladder's live view)."""

    def to_dict(self) -> dict[str, Any]:
        return {"match_id": self.match_id, "ordinal": self.ordinal, "rules": self.rules.name,
                "bots": [{"spec": b.spec, "fingerprint": b.fingerprint} for b in self.bots],
                "time_control": self.time_control.to_dict(),
                "games": self.games, "seed": self.seed, "bot_seed": self.bot_seed, "policy": self.policy.value,
                "replay_dir": self.replay_dir, "log_dir": self.log_dir, "thinking": self.thinking.value,
                "hide": list(self.hide), "lag_limit_ms": self.lag_limit_ms, "reuse": self.reuse,
                "max_matches": self.max_matches, "hide_names": self.hide_names,
                "live_dir": self.live_dir}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchJob:
        """The job a JSON line describes; ``KeyError``, ``TypeError`` or ``ValueError`` (a
        ``RulesError``, a ``FieldError``) if it is not one."""
        return cls(
            match_id=int(data["match_id"]), ordinal=int(data.get("ordinal", 0)), rules=parse_rules(str(data["rules"])),
            bots=tuple(SeatJob(str(b["spec"]), str(b.get("fingerprint", ""))) for b in data["bots"]),
            time_control=TimeControl.from_table(dict(data["time_control"])),
            games=int(data["games"]), seed=int(data["seed"]), bot_seed=int(data["bot_seed"]),
            policy=Policy(data["policy"]), replay_dir=data.get("replay_dir"), log_dir=data.get("log_dir"),
            thinking=Thinking(data.get("thinking", Thinking.ALLOWED.value)),
            hide=tuple(str(p) for p in data.get("hide", ())),
            lag_limit_ms=int(data.get("lag_limit_ms", LAG_LIMIT_MS)),
            reuse=Reuse(data.get("reuse", Reuse.NEVER)), max_matches=int(data.get("max_matches", 50)),
            hide_names=bool(data.get("hide_names", False)), live_dir=data.get("live_dir"))


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
    incident: str = ""
    """A fault the organizer must see (a bot bundle a worker refused): the ladder lists it."""

    @classmethod
    def failure(cls, match_id: int | None, worker: str, error: str) -> JobResult:
        return cls(match_id, worker, False, error=error)

    @classmethod
    def from_summary(cls, match_id: int | None, worker: str, summary: MatchSummary, *,
                     histograms: tuple[dict[str, int], ...] = (), elapsed_s: float = 0.0) -> JobResult:
        """What a played match's summary makes of a job, wherever it was refereed (a worker, a
        ladder's own referee): void is the platform's fault (played again, unrated), any other
        end but a finished match with a result is a failure, and a finished one is ``ok``."""
        if summary.state is MatchState.VOID:
            return cls(match_id, worker, False, summary, f"void: {summary.void_reason}", platform_fault=True)
        if summary.state is not MatchState.FINISHED or not summary.points or not summary.games:
            return cls(match_id, worker, False, summary, f"the referee ended the match {summary.state.value}")
        return cls(match_id, worker, True, summary, histograms=histograms, elapsed_s=elapsed_s)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobResult:
        summary = data.get("summary")
        return cls(data.get("match_id"), str(data.get("worker", "")), bool(data.get("ok")),
                   MatchSummary.from_dict(summary) if summary else None, str(data.get("error", "")),
                   bool(data.get("platform_fault", False)),
                   tuple({str(k): int(v) for k, v in h.items()} for h in data.get("histograms") or ()),
                   float(data.get("elapsed_s") or 0.0), str(data.get("incident") or ""))

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
        if self.incident:
            data["incident"] = self.incident
        return data
