"""The scheduler's fairness properties, one test each (after pelita's test_tournament.py)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spite_engine import parse_rules
from spite_engine.rng import derive
from tournaments.schedule import Entrant, ScheduledMatch, Scheduler, deal_seed, units


def bots(n: int) -> list[Entrant]:
    return [Entrant(f"bot{i}", (f"bot{i}",)) for i in range(n)]


def schedule(n: int, spec: str = "standard", rounds: int = 2, seed: int = 1, master: int = 99) -> list[ScheduledMatch]:
    return Scheduler(bots(n), parse_rules(spec), master, random.Random(seed)).rounds(rounds)


def meetings(matches: list[ScheduledMatch]) -> Counter[frozenset[str]]:
    """How many deals each pair of entrants shared (each unit counted once)."""
    counts: Counter[frozenset[str]] = Counter()
    for (_, _), rotations in units(matches).items():
        for a, b in itertools.combinations(set(rotations[0].entrants), 2):
            counts[frozenset((a, b))] += 1
    return counts


def seat_counts(matches: list[ScheduledMatch]) -> Counter[tuple[str, int]]:
    return Counter((bot, seat) for m in matches for seat, bot in enumerate(m.bots))


# -- two players: round robin ------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 7])
def test_round_robin_has_every_pairing_once_per_round(n: int) -> None:
    matches = schedule(n, rounds=3)
    counts = meetings(matches)
    assert set(counts) == {frozenset(p) for p in itertools.combinations([e.name for e in bots(n)], 2)}
    assert set(counts.values()) == {3}


@pytest.mark.parametrize("n", [2, 3, 5])
def test_first_seat_is_balanced(n: int) -> None:
    matches = schedule(n, rounds=2)
    counts = seat_counts(matches)
    for e in bots(n):
        assert counts[(e.name, 0)] == counts[(e.name, 1)] == 2 * (n - 1)


def test_no_bot_plays_itself() -> None:
    for n, spec in [(3, "standard"), (5, "3p"), (6, "4p"), (9, "4p")]:
        for match in schedule(n, spec, rounds=2):
            assert len(set(match.bots)) == len(match.bots)


def test_duplicate_rotations_share_the_deal_and_swap_seats() -> None:
    matches = schedule(4, rounds=2)
    for (round_number, unit), rotations in units(matches).items():
        assert [m.rotation for m in rotations] == [0, 1]
        assert rotations[0].seed == rotations[1].seed == deal_seed(99, round_number, unit)
        assert rotations[0].bot_seed == rotations[1].bot_seed
        assert rotations[1].bots == tuple(reversed(rotations[0].bots))


def test_every_deal_has_its_own_seed() -> None:
    matches = schedule(6, rounds=4)
    seeds = {m.seed for m in matches}
    assert len(seeds) == len(units(matches))


def test_deal_seeds_are_hmac_of_the_master_seed_and_the_place() -> None:
    assert deal_seed(5, 2, 3) == derive(5, "deal:2:3")
    assert deal_seed(5, 2, 3) != deal_seed(6, 2, 3) != deal_seed(5, 3, 2)


def test_reproducible_from_the_seed() -> None:
    assert schedule(5, rounds=3, seed=4) == schedule(5, rounds=3, seed=4)
    assert schedule(5, "3p", rounds=3, seed=4) == schedule(5, "3p", rounds=3, seed=4)
    orders = {tuple((m.bots, m.seed) for m in schedule(5, rounds=1, seed=s)) for s in range(5)}
    assert len(orders) > 1, "the rng decides the order of the deals in a round"


def test_a_scheduler_makes_the_same_rounds_one_at_a_time_or_all_at_once() -> None:
    scheduler = Scheduler(bots(9), parse_rules("4p"), 3, random.Random(8))
    one_by_one = scheduler.next_round() + scheduler.next_round()
    assert one_by_one == Scheduler(bots(9), parse_rules("4p"), 3, random.Random(8)).rounds(2)


# -- three to six players: groups ----------------------------------------------------------


@pytest.mark.parametrize("n,spec", [(3, "3p"), (4, "3p"), (5, "3p"), (7, "3p"), (6, "4p"), (7, "4p")])
def test_small_fields_play_every_group_so_pairs_meet_exactly_equally(n: int, spec: str) -> None:
    matches = schedule(n, spec, rounds=2)
    counts = meetings(matches)
    assert len(counts) == n * (n - 1) // 2
    assert len(set(counts.values())) == 1


@pytest.mark.parametrize("n,spec", [(4, "3p"), (9, "4p"), (10, "4p"), (11, "3p"), (20, "3p")])
def test_each_bot_sits_in_each_seat_equally(n: int, spec: str) -> None:
    players = parse_rules(spec).players
    matches = schedule(n, spec, rounds=2)
    counts = seat_counts(matches)
    for e in bots(n):
        assert len({counts[(e.name, seat)] for seat in range(players)}) == 1


@pytest.mark.parametrize("n,spec", [(9, "4p"), (10, "4p"), (11, "3p"), (13, "4p"), (20, "3p")])
def test_large_fields_play_equally_often_and_pairs_meet_about_equally(n: int, spec: str) -> None:
    matches = schedule(n, spec, rounds=12)
    players = parse_rules(spec).players
    for round_number in range(12):
        plays = Counter(m.bots[0] for m in matches if m.round == round_number)
        assert len(plays) == n and len(set(plays.values())) == 1, "every bot plays equally often in every round"
    counts = meetings(matches)
    all_pairs = [frozenset(p) for p in itertools.combinations([e.name for e in bots(n)], 2)]
    spread = max(counts[p] for p in all_pairs) - min(counts[p] for p in all_pairs)
    assert spread <= 2, f"pair meetings range over {spread + 1} values"
    assert all(len(rotations) == players for rotations in units(matches).values())


def test_group_rotations_are_cyclic_with_one_deal() -> None:
    for rotations in units(schedule(5, "3p", rounds=1)).values():
        base = rotations[0].bots
        assert [m.bots for m in rotations] == [base, base[1:] + base[:1], base[2:] + base[:2]]
        assert len({m.seed for m in rotations}) == 1


def test_who_follows_whom_evens_out_over_two_rounds() -> None:
    matches = schedule(3, "3p", rounds=2)
    follows = Counter((m.bots[i], m.bots[(i + 1) % 3]) for m in matches for i in range(3))
    assert len(set(follows.values())) == 1 and len(follows) == 6


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 14), players=st.sampled_from(["3p", "4p"]), seed=st.integers(0, 2**32),
       rounds=st.integers(1, 3))
def test_groups_property(n: int, players: str, seed: int, rounds: int) -> None:
    rules = parse_rules(players)
    if n < rules.players:
        with pytest.raises(ValueError):
            Scheduler(bots(n), rules, seed, random.Random(seed))
        return
    matches = Scheduler(bots(n), rules, seed, random.Random(seed)).rounds(rounds)
    counts = seat_counts(matches)
    for e in bots(n):
        assert len({counts[(e.name, s)] for s in range(rules.players)}) == 1
        assert counts[(e.name, 0)] > 0
    for m in matches:
        assert len(set(m.bots)) == rules.players
    for rotations in units(matches).values():
        assert len({m.seed for m in rotations}) == 1 and len(rotations) == rules.players


# -- partners ------------------------------------------------------------------------------


def teams() -> list[Entrant]:
    return [Entrant("greedy", ("greedy", "greedy")), Entrant("a+b", ("a", "b")), Entrant("naive", ("naive", "naive"))]


def test_partners_pair_every_team_with_every_other() -> None:
    matches = Scheduler(teams(), parse_rules("partners"), 1, random.Random(1)).rounds(2)
    counts = meetings(matches)
    assert set(counts) == {frozenset(p) for p in itertools.combinations(["greedy", "a+b", "naive"], 2)}
    assert set(counts.values()) == {2}


def test_partners_sit_opposite_and_swap_sides_within_a_deal() -> None:
    matches = Scheduler(teams(), parse_rules("partners"), 1, random.Random(1)).rounds(2)
    for rotations in units(matches).values():
        first, second = rotations
        assert first.seed == second.seed
        assert first.entrants[0] == first.entrants[2] and first.entrants[1] == first.entrants[3]
        assert first.entrants[0] != first.entrants[1]
        assert second.entrants[0] == first.entrants[1], "the other team takes seats 0 and 2"
    sides = Counter((m.entrants[s], s % 2) for m in matches for s in range(4))
    assert len({sides[(t.name, side)] for t in teams() for side in (0, 1)}) == 1


def test_a_mixed_team_swaps_its_seats_every_other_round() -> None:
    matches = Scheduler(teams(), parse_rules("partners"), 1, random.Random(1)).rounds(2)
    seats = Counter((bot, seat) for m in matches for seat, bot in enumerate(m.bots) if bot in ("a", "b"))
    assert seats[("a", 0)] + seats[("a", 1)] == seats[("a", 2)] + seats[("a", 3)]
    assert seats[("b", 0)] + seats[("b", 1)] == seats[("b", 2)] + seats[("b", 3)]


def test_partners_teams_never_share_a_bot() -> None:
    for m in Scheduler(teams(), parse_rules("partners"), 1, random.Random(1)).rounds(1):
        mine, theirs = {m.bots[0], m.bots[2]}, {m.bots[1], m.bots[3]}
        assert not mine & theirs


def test_too_few_entrants_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least 4"):
        Scheduler(bots(3), parse_rules("4p"), 1, random.Random(1))
