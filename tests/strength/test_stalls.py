"""The strong bots play their games out: none of them passes, with a play open, in a position
that passing leaves exactly as it was.

Found in the demo league (``make demo``, leagues/demo.toml): the tactician against random
on round 0's deal 3 ran to the 2,000-turn cap in both seat orders, and the sampler (on the
tactician) against random on deal 10 did too, spending its whole 100 ms budget on each of
about 1,000 passes. Each time the draw pile was empty; random could not play (a hand of
Aces or none, no discard top that fits, no empty centre slot for its Aces) and the strong
bot, whose hand could not be discarded either (Aces, or empty), passed although its
discard tops had plays. Its search scores a turn against doing nothing: a bare pass is 0,
and each play it had cost something (a discard-pile card is kept as a reserve, -1.5 for the
tactician; a completed pile opens an empty slot nearer the opponent's stock card). With
nothing to draw, a pass leaves the table as it was, the next decision sees the same
position and makes the same choice, and only the turn cap ends the game (adjudicated on the
stocks). The stalemate rule cannot end it: a seat that could play never counts toward one
(docs/rules.md, decision 6). Of 200 in-process games against random on the benchmark's
deals, 51 of the tactician's and 11 of the planner's ended that way.

The positions below are crafted from those games (``tests.rules.support.position``; piles
bottom to top).
"""

from __future__ import annotations

import random
from typing import Callable, Sequence

import pytest

from spite_engine import Ending, GameState, observe, parse_rules
from spite_engine.rng import derive
from spite_sdk.planning import PASS, PLAY
from tournaments.config import load_tournament
from tournaments.runner import scheduler_for

from ..rules.support import position
from .support import SAMPLE_BOTS, agent, play_checked

STRONG = ("planner", "tactician", "sampler-t")
"""The bots that search (the sampler on the tactician, as its bot.toml sets it)."""

DEMO = SAMPLE_BOTS.parent / "leagues" / "demo.toml"


def frozen_behind_discard_tops(draw_pile: str = "") -> GameState:
    """Round 0, deal 3.1 of the demo at turn 90: the tactician (seat 1, one stock card left, a 3)
    holds a lone Ace; its discard tops J and 9 fit centre piles needing J and 9, and a J-Q run
    would complete one. Random (seat 0) holds three Aces, with no empty centre slot and no
    discard top that fits. Nothing left to draw."""
    return position(
        to_move=1,
        hands=["A A A", "A"],
        stocks=["9 9 9 3", "3"],
        centre=["A 2 3 4 5 6 7 8 9 10", "A 2 3 4 5 6 7 8", "A 2 3 4 5 6", "A 2 3 4 5 6"],
        discards=[["10 2 9 J 8 K 3 Q", "10 * 9 7 7 8 6 K Q 8", "6 J 9 6", "3 Q J 2 9 8 4 10 9 5"],
                  ["J 10 10 9 8 5", "Q J 10 9", "4 4 4", "Q J"]],
        draw_pile=draw_pile, set_aside="")


def frozen_with_an_empty_hand() -> GameState:
    """Round 0, deal 10.0 of the demo at turn 301: the sampler (seat 0, stock top 9) holds
    nothing; its discard tops 3 and then 4 fit the centre pile needing a 3. Random (seat 1)
    holds nothing and none of its discard tops fits. Nothing left to draw."""
    return position(
        to_move=0,
        hands=["", ""],
        stocks=["Q 8 9", "Q J 2"],
        centre=["A K 3 4 K 6 7 8 9", "* * K 4 5 6 K 8 9 10", "A K", ""],
        discards=[["6", "Q J J J 9 7 6 5 5 4 4 4 3", "Q J J 9 9 9", ""],
                  ["10 7 6 10 2 6 * 5 4 Q", "3 K 2 8 Q 5 8 5 6 10 K 7 Q", "3 10 2 2 5 10 7", "8 J 2 4 10 5 3 4"]],
        draw_pile="", set_aside="")


@pytest.mark.parametrize("name", STRONG)
@pytest.mark.parametrize("frozen", [frozen_behind_discard_tops, frozen_with_an_empty_hand])
def test_with_nothing_to_draw_a_strong_bot_plays_rather_than_pass(name: str, frozen: Callable[[], GameState]) -> None:
    state = frozen()
    seat = state.to_move
    view = observe(state, seat)
    assert view.draw_pile_count == 0 and any(m.kind == PLAY for m in view.legal_moves)
    plan = agent(name)(view, random.Random(0))
    assert plan[0].kind == PLAY, f"{name} passed: {[str(m) for m in plan]}"


def test_with_cards_left_to_draw_the_tactician_may_still_hold_back() -> None:
    """The rule is narrow: where passing changes the table (here the seat draws four cards next
    turn), holding back a card is the tactician's choice as before."""
    view = observe(frozen_behind_discard_tops(draw_pile="5 6 7 8 9 10"), 1)
    assert [m.kind for m in agent("tactician")(view, random.Random(0))] == [PASS]


def demo_matches_against_random() -> Sequence[object]:
    """Every match of the demo league's schedule between a strong bot and random, as
    (label, the game's seed, the bots by seat, the bots' seed), named by its label."""
    config = load_tournament(DEMO)
    matches = []
    for match in scheduler_for(config).rounds(config.rounds):
        strong = [b for b in match.bots if b != "random"]
        if "random" in match.bots and strong[0] in ("planner", "tactician", "sampler"):
            label = f"round {match.round} deal {match.unit}.{match.rotation} {' v '.join(match.bots)}"
            matches.append(pytest.param(label, derive(match.seed, "game:0"), match.bots, match.bot_seed, id=label))
    return matches


@pytest.mark.parametrize("label, seed, bots, bot_seed", demo_matches_against_random())
def test_the_demo_league_games_against_random_end_by_play(label: str, seed: int, bots: tuple[str, ...],
                                                           bot_seed: int) -> None:
    """The demo's own deals, seeded as the referee and the sample bots seed them (game 0 of the
    match, each bot's rng ``Random(f"{bot_seed}:0")``), plans played as the referee plays them.
    The sampler draws a fixed 2 samples per sampled decision: in process it cannot be timed."""
    names = ["sampler-t" if b == "sampler" else b for b in bots]
    rngs = [random.Random(f"{bot_seed}:0") for _ in bots]
    outcome, _, _ = play_checked(parse_rules("standard"), seed, [agent(n) for n in names], rngs)
    assert outcome.ending is not Ending.TURN_CAP, f"{label}: {outcome.reason}"


@pytest.mark.parametrize("name", ["planner", "tactician"])
def test_no_game_against_random_reaches_the_turn_cap(name: str) -> None:
    """The benchmark's first 24 deals (bench/bot_strength.py), both seat orders: before the fix
    the tactician ran 9 of these 48 games to the cap and the planner 2."""
    rules = parse_rules("standard")
    capped = []
    for deal in range(24):
        seed = derive(2026, f"bot-strength:{deal}")
        for seats in ((name, "random"), ("random", name)):
            rngs = [random.Random(f"{deal}:{seat}") for seat in range(2)]
            outcome, _, _ = play_checked(rules, seed, [agent(n) for n in seats], rngs)
            if outcome.ending is Ending.TURN_CAP:
                capped.append((deal, seats))
    assert capped == []
