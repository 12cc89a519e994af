"""Standings from finished matches.

:class:`Standings` is fed finished matches (from the store, or live as the runner records
them) and counts per entrant: matches, wins / draws / losses (by match points: sole top is a
win, shared top a draw), points, games, faults and decision times; and per pair of
entrants the head-to-head score (1 for finishing ahead, 1/2 for level). Ratings come from
:mod:`tournaments.ratings`; :func:`rows` puts the two together, best first by mu - 3 sigma.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from spite_engine import Ending

from .ratings import Ratings, placings, wilson
from .schedule import Entrant
from .store import FinishedMatch
from .timing import percentile


@dataclass
class EntrantStats:
    name: str
    members: tuple[str, ...]
    matches: int = 0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0
    timeouts: int = 0
    illegal_moves: int = 0
    malformed: int = 0
    crashes: int = 0
    decisions: int = 0
    histogram: Counter[int] = field(default_factory=Counter)
    cpu_us: int = 0
    """CPU time its processes used over all its decisions (launched bots)."""


@dataclass
class BotHealth:
    """What a bot did wrong, for the runner's "failing bots" call-out."""

    matches: int = 0
    timeouts: int = 0
    illegal_moves: int = 0
    malformed: int = 0
    crashes: int = 0
    games: int = 0
    failed_games: int = 0
    """Games that ended by this bot's own crash, disconnect, timeout or no-show."""
    last_fault: str = ""
    benched: str = ""
    """Why the runner benched it (empty: not benched)."""
    crash: str = ""
    """Its last crash as its own log tells it: the exception and where (this run only)."""
    log: str = ""
    """Its log from the match of that crash (the whole capped log)."""

    @property
    def faults(self) -> int:
        return self.timeouts + self.illegal_moves + self.malformed + self.crashes


FAILED_ENDINGS = frozenset({Ending.CRASH, Ending.DISCONNECT, Ending.TIMEOUT, Ending.NO_SHOW})
"""Game endings that count against the bot at fault when judging chronic failure."""


class Standings:
    """Counts per entrant and per pair, built one finished match at a time."""

    def __init__(self, entrants: Sequence[Entrant]) -> None:
        self.entrants = {e.name: EntrantStats(e.name, e.members) for e in entrants}
        self.head_to_head: dict[str, dict[str, list[float]]] = {}
        self.health: dict[str, BotHealth] = {}
        self.matches = 0
        self.games = 0
        self.draws = 0

    def add(self, match: FinishedMatch) -> None:
        self.matches += 1
        self.games += len(match.games)
        ranks = placings(match.entrants, match.points)
        points = {name: p for name, p in zip(match.entrants, match.points)}
        top = [n for n, r in ranks.items() if r == 0]
        if len(top) == len(ranks):
            self.draws += 1
        for name, rank in ranks.items():
            stats = self.entrants.setdefault(name, EntrantStats(name, (name,)))
            stats.matches += 1
            stats.games += len(match.games)
            stats.points += points[name]
            if rank > 0:
                stats.losses += 1
            elif len(top) == 1:
                stats.wins += 1
            else:
                stats.draws += 1
        for a in ranks:
            for b in ranks:
                if a != b:
                    cell = self.head_to_head.setdefault(a, {}).setdefault(b, [0.0, 0])
                    cell[0] += 1.0 if points[a] > points[b] else 0.5 if points[a] == points[b] else 0.0
                    cell[1] += 1
        seen: set[str] = set()
        for seat in match.seats:
            stats = self.entrants[match.entrants[seat.seat]]
            for key in ("timeouts", "illegal_moves", "malformed", "crashes", "decisions"):
                setattr(stats, key, getattr(stats, key) + getattr(seat, key))
            stats.histogram.update(seat.decision_histogram)
            health = self.health.setdefault(seat.bot, BotHealth())
            if seat.bot not in seen:
                health.matches += 1
                seen.add(seat.bot)
            for key in ("timeouts", "illegal_moves", "malformed", "crashes"):
                setattr(health, key, getattr(health, key) + getattr(seat, key))
            if seat.faults:
                health.last_fault = seat.faults[-1].reason
            stats.cpu_us += seat.cpu_us_total
        for bot in set(match.bots):
            seats = {i for i, b in enumerate(match.bots) if b == bot}
            health = self.health.setdefault(bot, BotHealth())
            health.games += len(match.games)
            health.failed_games += sum(1 for g in match.games
                                       if g.offender in seats and g.ending in FAILED_ENDINGS)

    def bench(self, bot: str, reason: str) -> None:
        self.health.setdefault(bot, BotHealth()).benched = reason

    def failing(self) -> list[tuple[str, BotHealth]]:
        """Bots with any timeout, bad move or crash (or benched), worst first."""
        return sorted(((name, h) for name, h in self.health.items() if h.faults or h.benched),
                      key=lambda item: (-item[1].faults / max(1, item[1].matches), item[0]))


@dataclass(frozen=True)
class StandingRow:
    """One entrant's line of the leaderboard (the keys of ``spite leaderboard --format json``)."""

    rank: int
    name: str
    members: tuple[str, ...]
    mu: float
    sigma: float
    conservative: float
    matches: int
    games: int
    wins: int
    draws: int
    losses: int
    points: int
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    timeouts: int
    illegal_moves: int
    malformed: int
    crashes: int
    decisions: int
    decision_ms_p50: float
    decision_ms_p99: float
    cpu_ms_per_decision: float
    benched: str

    @property
    def faults(self) -> int:
        return self.timeouts + self.illegal_moves + self.malformed + self.crashes

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "members": list(self.members)}


def rows(standings: Standings, ratings: Ratings) -> list[StandingRow]:
    """One row per entrant, best first (mu - 3 sigma)."""
    order = {name: i for i, (name, _) in enumerate(ratings.leaderboard())}
    names = sorted(standings.entrants, key=lambda n: (order.get(n, len(order)), n))
    out = []
    for rank, name in enumerate(names, 1):
        stats = standings.entrants[name]
        rating = ratings.get(name)
        low, high = wilson(stats.wins, stats.matches)
        out.append(StandingRow(
            rank=rank, name=name, members=tuple(stats.members),
            mu=round(rating.mu, 3), sigma=round(rating.sigma, 3), conservative=round(rating.conservative, 3),
            matches=stats.matches, games=stats.games, wins=stats.wins, draws=stats.draws,
            losses=stats.losses, points=stats.points,
            win_rate=round(stats.wins / stats.matches, 4) if stats.matches else 0.0,
            win_rate_low=round(low, 4), win_rate_high=round(high, 4),
            timeouts=stats.timeouts, illegal_moves=stats.illegal_moves, malformed=stats.malformed,
            crashes=stats.crashes, decisions=stats.decisions,
            decision_ms_p50=round(percentile(dict(stats.histogram), 0.5) / 1000, 3),
            decision_ms_p99=round(percentile(dict(stats.histogram), 0.99) / 1000, 3),
            cpu_ms_per_decision=round(stats.cpu_us / stats.decisions / 1000, 3) if stats.decisions else 0.0,
            benched="; ".join(standings.health[m].benched for m in dict.fromkeys(stats.members)
                              if m in standings.health and standings.health[m].benched),
        ))
    return out


def head_to_head(standings: Standings, names: Sequence[str]) -> dict[str, dict[str, dict[str, float]]]:
    return {a: {b: {"score": cell[0], "played": cell[1]} for b in names
                if (cell := standings.head_to_head.get(a, {}).get(b)) is not None} for a in names}
