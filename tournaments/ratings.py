"""TrueSkill ratings behind a small adapter, always through an explicit environment.

Never ``trueskill.setup()``: the parameters are a value (:class:`RatingParams`) stored with
the tournament, and :class:`Ratings` builds its own ``trueskill.TrueSkill`` from them, so
two tournaments (or a ``spite leaderboard --recompute`` with other parameters) in one
process cannot disturb each other.

A rated entity is an *entrant*: a bot, or a partners team (rated as one, since its two
seats always play together). A match ranks its entrants by match points; equal points
are a tie, and all equal is a draw.

The default ``draw_probability`` is the draw rate measured between the sample bots under
rules version 2 (stopped games adjudicated on the stocks, docs/rules.md decision 6):
``python bench/draw_rate.py`` plays greedy, random and naive against each other in process
(``tests/inprocess.py``, standard rules, 300 deals per ordered pairing: 1,800 games
between different bots) and found 4.1% draws (greedy v random 2-3%, naive v random 9-10%,
greedy v naive 0.3%; self-play greedy 0.3%, naive 0.7%). Under rules version 1 every
stalemate was a draw and the same bench found 55%, almost all stalemates that the random
bot forced; that figure made the random bot's draws count as skill. Now competent bots
draw less than 1% of their games and a league needs no hand-tuned value: 0.04 fits both a
league with a random-like bot and one without (TrueSkill is insensitive to the exact value
at this size).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Sequence

import trueskill

DEFAULT_DRAW_PROBABILITY = 0.04
"""Measured (rules version 2): see the module docstring and ``bench/draw_rate.py``."""


@dataclass(frozen=True)
class RatingParams:
    """TrueSkill's parameters (its own defaults, but for the draw probability)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = DEFAULT_DRAW_PROBABILITY

    def environment(self) -> trueskill.TrueSkill:
        return trueskill.TrueSkill(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau,
                                   draw_probability=self.draw_probability)

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, float]) -> "RatingParams":
        return cls(**{k: float(v) for k, v in data.items() if k in cls.__dataclass_fields__})


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the leaderboard's order (a bot must prove itself to rank high)."""
        return self.mu - 3 * self.sigma


def board_order(rating: Rating, tie: Any) -> tuple[float, float, Any]:
    """The one leaderboard order, of a league's entrants and a ladder's versions alike: best
    first by mu - 3 sigma, then mu, then ``tie`` (a name, a version id) ascending."""
    return (-rating.conservative, -rating.mu, tie)


def placings(entrants: Sequence[str], points: Sequence[int]) -> dict[str, int]:
    """Rank (0 best, ties share) of each entrant of a match from its seats' match points."""
    best: dict[str, int] = {}
    for name, score in zip(entrants, points):
        best[name] = max(score, best.get(name, score))
    return {name: sum(1 for other in best.values() if other > score) for name, score in best.items()}


class Ratings:
    """The ratings of a tournament's entrants, updated one match at a time."""

    def __init__(self, params: RatingParams, entrants: Iterable[str] = ()) -> None:
        self.params = params
        self.env = params.environment()
        self._ratings: dict[str, trueskill.Rating] = {}
        for name in entrants:
            self._ratings[name] = self.env.create_rating()

    def get(self, name: str) -> Rating:
        rating = self._ratings.get(name) or self.env.create_rating()
        return Rating(rating.mu, rating.sigma)

    def set(self, name: str, mu: float, sigma: float) -> None:
        self._ratings[name] = self.env.create_rating(mu, sigma)

    def names(self) -> list[str]:
        return list(self._ratings)

    def update(self, ranks: Mapping[str, int]) -> dict[str, Rating]:
        """Apply one match (entrant -> rank, 0 best); return the entrants' new ratings."""
        names = sorted(ranks)
        if len(names) < 2:
            return {}
        groups = [(self._ratings.get(n) or self.env.create_rating(),) for n in names]
        rated = self.env.rate(groups, ranks=[ranks[n] for n in names])
        for name, (rating,) in zip(names, rated):
            self._ratings[name] = rating
        return {name: self.get(name) for name in names}

    def leaderboard(self) -> list[tuple[str, Rating]]:
        """Entrants best first, by mu - 3 sigma (then mu, then name)."""
        return sorted(((n, self.get(n)) for n in self._ratings), key=lambda item: board_order(item[1], item[0]))

    def p_better(self, a: str, b: str) -> float:
        """P(mu_a > mu_b) from the two posteriors: Phi((mu_a - mu_b) / sqrt(sigma_a^2 + sigma_b^2))."""
        return p_better(self.get(a), self.get(b))


def p_better(a: Rating, b: Rating) -> float:
    spread = math.sqrt(a.sigma ** 2 + b.sigma ** 2)
    return 0.5 * (1 + math.erf((a.mu - b.mu) / (spread * math.sqrt(2))))


def separated(board: Sequence[tuple[str, Rating]], confidence: float) -> bool:
    """Whether every adjacent pair of a leaderboard (best first) is apart with ``confidence``."""
    return all(p_better(upper, lower) >= confidence for (_, upper), (_, lower) in zip(board, board[1:]))


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for the default z); (0, 1) with no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
