"""Who plays whom, in which seat, with which deal: the tournament schedule.

A tournament is played in rounds. In each round every pairing (2 players), every group
(3 to 6 players) or every pair of teams (partners) plays one *duplicate deal set*: the
same deal once per seat rotation, so that luck of the deal and of the seat cancels out.
The set is one scheduling unit; its matches share one seed.

* 2 players: a round robin over all pairings; each deal is played twice, seats swapped.
* 3-6 players: every group of that size when there are few enough (then every pair of
  bots meets exactly equally often), else groups built greedily so that every bot plays
  equally often in each round and pairs meet as evenly as the greedy fill allows. A group
  is played once per cyclic rotation, so each member sits in each seat once per deal;
  the base order is reversed every other round, so who-follows-whom evens out too.
* partners: a round robin over teams; a team takes seats 0 and 2 in one rotation and
  1 and 3 in the other; a mixed team's members swap seats every other round.

Seeds: deal ``u`` of round ``r`` is dealt from ``HMAC-SHA256(master seed, "deal:r:u")``
(:func:`deal_seed`). Everything else random (the order of units in a round, group
membership ties) comes from the explicit ``random.Random`` given to the :class:`Scheduler`.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import dataclass
from math import comb, gcd
from typing import Iterable, Sequence

from spite_engine import RuleSet
from spite_engine.rng import derive

MAX_GROUPS_PER_ROUND = 60
"""Up to this many groups, a multi-player round holds every group (an exact balance)."""
GREEDY_ATTEMPTS = 16
"""Greedy fills tried per round when there are too many groups to play them all."""


@dataclass(frozen=True)
class Entrant:
    """One leaderboard entry: a bot, or a partners team of two bots (possibly the same bot twice)."""

    name: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of the schedule."""

    round: int
    unit: int
    """The deal's place in its round."""
    rotation: int
    """Which seat rotation of the deal this is (0..rotations-1)."""
    entrants: tuple[str, ...]
    """The entrant in each seat (team mates both name their team)."""
    bots: tuple[str, ...]
    """The bot in each seat."""
    seed: int
    """The deal: the match's master seed (every rotation of a unit has the same)."""
    bot_seed: int
    """Given to the bots as SPITE_BOT_SEED (the same for every rotation of a unit)."""


def deal_seed(master_seed: int, round_number: int, unit: int) -> int:
    """The seed of a deal from its place in the schedule: HMAC-SHA256(master seed, "deal:r:u")."""
    return derive(master_seed, f"deal:{round_number}:{unit}")


def bot_seed(master_seed: int, round_number: int, unit: int) -> int:
    """The bots' own seed for a deal (SPITE_BOT_SEED), kept apart from the deal's seed."""
    return derive(master_seed, f"bots:{round_number}:{unit}")


class Scheduler:
    """Makes rounds one after another; give it the same arguments and it makes the same rounds."""

    def __init__(self, entrants: Sequence[Entrant], rules: RuleSet, master_seed: int, rng: random.Random,
                 *, max_groups: int = MAX_GROUPS_PER_ROUND) -> None:
        names = [e.name for e in entrants]
        if len(set(names)) != len(names):
            raise ValueError(f"entrant names must be unique: {names}")
        self.entrants = list(entrants)
        self.members = {e.name: e.members for e in entrants}
        self.rules = rules
        self.master_seed = master_seed
        self.rng = rng
        self.max_groups = max_groups
        self.group_size = 2 if rules.partners else rules.players
        if len(self.entrants) < self.group_size:
            raise ValueError(f"{rules.name} needs at least {self.group_size} entrants, got {len(self.entrants)}")
        for entrant in self.entrants:
            expected = 2 if rules.partners else 1
            if len(entrant.members) != expected:
                raise ValueError(f"entrant {entrant.name!r} needs {expected} member(s), got {entrant.members}")
        self.pair_counts: Counter[frozenset[str]] = Counter()
        self.next_round_number = 0

    @property
    def rotations(self) -> int:
        """Matches per deal: one per seat rotation."""
        return self.group_size

    def rounds(self, count: int) -> list[ScheduledMatch]:
        return [m for _ in range(count) for m in self.next_round()]

    def next_round(self) -> list[ScheduledMatch]:
        """The next round's matches, unit by unit, rotations in order."""
        number = self.next_round_number
        self.next_round_number += 1
        groups = self._groups(number)
        for group in groups:
            for a, b in itertools.combinations(group, 2):
                self.pair_counts[frozenset((a, b))] += 1
        matches: list[ScheduledMatch] = []
        for unit, group in enumerate(groups):
            seed = deal_seed(self.master_seed, number, unit)
            bots_seed = bot_seed(self.master_seed, number, unit)
            for rotation in range(self.rotations):
                entrants, bots = self._seat(group, rotation, number)
                matches.append(ScheduledMatch(number, unit, rotation, entrants, bots, seed, bots_seed))
        return matches

    # -- groups ---------------------------------------------------------------------------

    def _groups(self, number: int) -> list[tuple[str, ...]]:
        names = [e.name for e in self.entrants]
        k = self.group_size
        if k == 2 or comb(len(names), k) <= self.max_groups:
            groups = [tuple(g) for g in itertools.combinations(names, k)]
            if number % 2 == 1:
                groups = [tuple(reversed(g)) for g in groups]
        else:
            groups = self._greedy_groups(names, k)
        self.rng.shuffle(groups)
        return groups

    def _greedy_groups(self, names: list[str], k: int) -> list[tuple[str, ...]]:
        """Groups in which every entrant plays the same number of times (lcm(n, k) / n),
        filled greedily to even out how often pairs have met; the best of a few fills
        (least sum of squared pair counts) is kept."""
        best: list[tuple[str, ...]] = []
        best_score = -1
        for _ in range(GREEDY_ATTEMPTS):
            groups = self._greedy_fill(names, k)
            after = Counter(self.pair_counts)
            for group in groups:
                for a, b in itertools.combinations(group, 2):
                    after[frozenset((a, b))] += 1
            score = sum(c * c for c in after.values())
            if best_score < 0 or score < best_score:
                best, best_score = groups, score
        return best

    def _greedy_fill(self, names: list[str], k: int) -> list[tuple[str, ...]]:
        n = len(names)
        slots = _lcm(n, k)
        quota = {name: slots // n for name in names}
        counts = Counter(self.pair_counts)
        groups: list[tuple[str, ...]] = []
        for left in range(slots // k, 0, -1):
            # Whoever has as many games left as there are groups must be in this one
            # (never more than k of them, so the fill always completes).
            group = [name for name in names if quota[name] == left]
            while len(group) < k:
                candidates = [name for name in names if quota[name] > 0 and name not in group]
                weights = {c: (sum(counts[frozenset((c, g))] for g in group), -quota[c], self.rng.random())
                           for c in candidates}
                group.append(min(candidates, key=weights.__getitem__))
            for name in group:
                quota[name] -= 1
            self.rng.shuffle(group)
            groups.append(tuple(group))
            for a, b in itertools.combinations(group, 2):
                counts[frozenset((a, b))] += 1
        return groups

    # -- seats ----------------------------------------------------------------------------

    def _seat(self, group: tuple[str, ...], rotation: int, number: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if not self.rules.partners:
            k = len(group)
            order = tuple(group[(i + rotation) % k] for i in range(k))
            return order, order
        first, second = group if rotation == 0 else (group[1], group[0])
        flip = number % 2
        a, b = self.members[first], self.members[second]
        entrants = (first, second, first, second)
        bots = (a[flip], b[flip], a[1 - flip], b[1 - flip])
        return entrants, bots


def _lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)


def units(matches: Iterable[ScheduledMatch]) -> dict[tuple[int, int], list[ScheduledMatch]]:
    """The matches grouped by duplicate deal set: (round, unit) -> its rotations."""
    grouped: dict[tuple[int, int], list[ScheduledMatch]] = {}
    for match in matches:
        grouped.setdefault((match.round, match.unit), []).append(match)
    return grouped
