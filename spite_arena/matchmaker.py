"""Who plays next on the ladder: a pure function of the versions' rows and an explicit rng.

After Halite's matchmaker and what its users' issues taught (#181, #221, #347):

1. **placement first**: a version with fewer than ``placement_games`` games (a new upload)
   is seeded before anyone else, so it is ranked within minutes;
2. then the version with the **fewest games** (counting those in flight), then the one
   **least recently played**;
3. its opponent is drawn among the ``nearest`` versions **closest in mu** (not the single
   closest: the same pair would play forever), preferring other entrants' bots (each house
   bot counts as an entrant of its own).

Seats are drawn by the rng; the ladder (:mod:`.ladder`) may add the same deal with the
seats swapped (``duplicate``).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from .store import HOUSE, Version, VersionKind

NEAREST = 3


def owner(version: Version) -> str:
    """Who a version plays for: its entrant; each house bot counts as its own (the organizer's
    bots are not a team, and preferring strangers would pair every house bot with the one
    outside entrant only)."""
    return f"{HOUSE}/{version.bot}" if version.entrant == HOUSE else version.entrant


@dataclass(frozen=True)
class Pairing:
    seats: tuple[int, int]
    """Version id per seat."""
    placement: bool


def seed_order(candidates: Sequence[Version], busy: Counter[int], placement_games: int) -> list[Version]:
    """The versions in the order they ask for a game (the first is seeded next)."""
    return sorted(candidates, key=lambda v: (v.games + busy[v.id] >= placement_games, v.games + busy[v.id],
                                             v.last_played_at or "", v.id))


def within_share(ready: Sequence[Version], busy: Counter[int], share: int | None,
                 everyone: Sequence[Version] = ()) -> list[Version]:
    """The versions that may take one more game without an entrant's remote versions holding
    more than ``share`` of the ladder's games at once, alone or together. Only remote bots are
    capped: a game waits on one until it joins (a no-show holds its slot for the connect
    allowance), while uploads and the house's bots run here and hold a slot only while they
    play, so placing a new upload stays as fast as the slots allow. ``everyone``: the versions
    whose games in flight count (default: ``ready``). None: no cap."""
    if share is None:
        return list(ready)
    held: Counter[str] = Counter()
    for version in {v.id: v for v in (*ready, *everyone)}.values():
        if version.kind is VersionKind.REMOTE:
            held[version.entrant] += busy[version.id]
    return [v for v in ready
            if v.kind is not VersionKind.REMOTE or v.entrant == HOUSE
            or (busy[v.id] < share and held[v.entrant] < share)]


def next_pairing(candidates: Sequence[Version], busy: Counter[int], rng: random.Random, *,
                 placement_games: int = 0, available: Sequence[Version] | None = None,
                 share: int | None = None) -> Pairing | None:
    """The next game, or None if fewer than two versions can play.

    ``candidates`` are the active versions; ``available`` (default: the same) those that can
    take one more game now (a remote bot at its declared capacity cannot); ``busy`` counts
    each version's games in flight; ``share`` caps the games at once of an entrant's versions
    (:func:`within_share`)."""
    ready = within_share(list(available if available is not None else candidates), busy, share, candidates)
    if len(ready) < 2:
        return None
    for seed in seed_order(ready, busy, placement_games):
        others = [v for v in ready if v.id != seed.id and (v.entrant, v.bot) != (seed.entrant, seed.bot)]
        if not others:
            continue
        strangers = [v for v in others if owner(v) != owner(seed)]
        pool = strangers or others
        pool.sort(key=lambda v: (abs(v.mu - seed.mu), v.id))
        opponent = rng.choice(pool[:NEAREST])
        seats = (seed.id, opponent.id) if rng.random() < 0.5 else (opponent.id, seed.id)
        return Pairing(seats, seed.games + busy[seed.id] < placement_games)
    return None
