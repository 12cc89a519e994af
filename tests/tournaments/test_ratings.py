"""The TrueSkill adapter: an explicit environment, ranks from match points, separation, Wilson."""

from __future__ import annotations

import math

import trueskill

from tournaments.ratings import (
    DEFAULT_DRAW_PROBABILITY,
    Rating,
    RatingParams,
    Ratings,
    p_better,
    placings,
    separated,
    wilson,
)
from tournaments.runner import RatingFrontier


def test_the_environment_is_explicit_and_leaves_the_global_one_alone() -> None:
    before = trueskill.global_env()
    before_params = (before.mu, before.sigma, before.beta, before.tau, before.draw_probability)
    ratings = Ratings(RatingParams(mu=100, sigma=10, beta=5, tau=0.5, draw_probability=0.3), ["a", "b"])
    assert ratings.env is not before
    assert (ratings.env.mu, ratings.env.sigma, ratings.env.beta, ratings.env.tau, ratings.env.draw_probability) == \
        (100, 10, 5, 0.5, 0.3)
    assert ratings.get("a") == Rating(100, 10)
    after = trueskill.global_env()
    assert (after.mu, after.sigma, after.beta, after.tau, after.draw_probability) == before_params


def test_the_default_draw_probability_is_the_measured_rate() -> None:
    """Re-measured under rules version 2 (bench/draw_rate.py: 4.1% of the sample bots' games
    between different bots are drawn; it was 55% when every stalemate was a draw)."""
    assert RatingParams().draw_probability == DEFAULT_DRAW_PROBABILITY
    assert 0.02 <= DEFAULT_DRAW_PROBABILITY <= 0.06


def test_a_bot_that_never_wins_ranks_last_with_the_default_parameters() -> None:
    """Issue 12, items 1 and 4: in a league of greedy, naive and random (duplicate deals, both
    seat orders, played in process), random's results no longer count as skill: it ranks
    last, below naive, with TrueSkill's default parameters."""
    from referee.core.match import MatchConfig
    from spite_engine import parse_rules
    from spite_engine.rng import derive
    from tests.inprocess import play_match

    rules = parse_rules("standard")
    ratings = Ratings(RatingParams(), ["greedy", "naive", "random"])
    wins = {"greedy": 0, "naive": 0, "random": 0}
    for deal in range(12):
        for pair in (("greedy", "naive"), ("greedy", "random"), ("naive", "random")):
            for seats in (pair, pair[::-1]):
                seed = derive(2024, f"league:{deal}")
                (outcome,) = play_match(MatchConfig(rules, list(seats), seed=seed), list(seats), bot_seed=deal)
                for seat in outcome.winners:
                    wins[seats[seat]] += 1
                ratings.update(placings(seats, outcome.scores))
    order = [name for name, _ in ratings.leaderboard()]
    assert order[-1] == "random", (order, wins)
    assert order.index("naive") < order.index("random")


def test_placings_from_points() -> None:
    assert placings(("a", "b"), (1, 0)) == {"a": 0, "b": 1}
    assert placings(("a", "b"), (0, 0)) == {"a": 0, "b": 0}
    assert placings(("a", "b", "c"), (3, 5, 3)) == {"b": 0, "a": 1, "c": 1}
    assert placings(("t1", "t2", "t1", "t2"), (0, 1, 0, 1)) == {"t2": 0, "t1": 1}, "a team is one entrant"


def test_a_win_moves_ratings_apart_and_a_draw_between_equals_keeps_mu() -> None:
    ratings = Ratings(RatingParams(), ["a", "b"])
    ratings.update({"a": 0, "b": 0})
    assert math.isclose(ratings.get("a").mu, 25.0) and math.isclose(ratings.get("b").mu, 25.0)
    assert ratings.get("a").sigma < 25 / 3
    ratings.update({"a": 0, "b": 1})
    assert ratings.get("a").mu > 25 > ratings.get("b").mu


def test_three_player_and_team_matches() -> None:
    ratings = Ratings(RatingParams(), ["a", "b", "c"])
    ratings.update({"a": 0, "b": 1, "c": 2})
    board = [name for name, _ in ratings.leaderboard()]
    assert board == ["a", "b", "c"]
    teams = Ratings(RatingParams(), ["t1", "t2"])
    teams.update(placings(("t1", "t2", "t1", "t2"), (1, 0, 1, 0)))
    assert teams.get("t1").mu > teams.get("t2").mu


def test_the_leaderboard_is_ordered_by_mu_minus_three_sigma() -> None:
    ratings = Ratings(RatingParams(), [])
    ratings.set("sure", 24.0, 1.0)        # conservative 21
    ratings.set("lucky", 30.0, 4.0)       # conservative 18, higher mu
    assert [name for name, _ in ratings.leaderboard()] == ["sure", "lucky"]
    assert ratings.get("sure").conservative == 21.0


def test_separation_probability() -> None:
    assert p_better(Rating(25, 1), Rating(25, 1)) == 0.5
    assert math.isclose(p_better(Rating(27, 1), Rating(25, 1)), 0.5 * (1 + math.erf(2 / math.sqrt(2) / math.sqrt(2))))
    assert p_better(Rating(30, 1), Rating(20, 1)) > 0.99
    board = [("a", Rating(30, 1)), ("b", Rating(25, 1)), ("c", Rating(24.9, 1))]
    assert not separated(board, 0.95)
    assert separated(board[:2], 0.95)


def test_wilson_interval() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(5, 10)
    assert math.isclose(low, 0.2366, abs_tol=1e-3) and math.isclose(high, 0.7634, abs_tol=1e-3)
    low, high = wilson(0, 4)
    assert low == 0.0 and 0.45 < high < 0.5
    low, high = wilson(10, 10)
    assert math.isclose(high, 1.0) and 0.69 < low < 0.73


def test_the_frontier_rates_in_schedule_order_whatever_the_finishing_order() -> None:
    results = {0: (("a", "b"), (1, 0)), 1: (("b", "a"), (1, 0)), 2: (("a", "c"), (0, 0)), 3: (("c", "b"), (0, 1))}
    in_order = RatingFrontier(Ratings(RatingParams(), "abc"))
    rows_in_order = [row for i in range(4) for row in in_order.finish(i, *results[i])]
    shuffled = RatingFrontier(Ratings(RatingParams(), "abc"))
    assert shuffled.finish(2, *results[2]) == []
    assert shuffled.finish(3, *results[3]) == []
    rows = shuffled.finish(0, *results[0]) + shuffled.finish(1, *results[1])
    assert sorted(rows) == sorted(rows_in_order)
    assert shuffled.ratings.leaderboard() == in_order.ratings.leaderboard()


def test_the_frontier_steps_over_void_matches() -> None:
    frontier = RatingFrontier(Ratings(RatingParams(), "ab"))
    assert frontier.finish(1, ("a", "b"), (1, 0)) == []
    rows = frontier.finish(0, None, None)
    assert [row[0] for row in rows] == [1, 1]
    assert frontier.next_ordinal == 2
