"""Perft golden files: legal-move counts to depth 1..3 from fixed positions of every preset.

Each ``tests/golden/perft/<preset>.json`` holds fresh deals and mid-game positions (with the
moves that reach them) and the leaf counts of the move tree at depths 1, 2 and 3. Chance
is fixed by the seed, so the counts pin the whole move generator, ``apply`` and every
chance event on the way: any change to what is legal or to what a move does shows up
here. Regenerate after an intended change: ``.venv/bin/python -m tests.rules.golden --regen``.
"""

from __future__ import annotations

import json

import pytest

from spite_engine import PRESETS, RULES_VERSION, Ending, GameState, parse_rules

from .golden import PERFT_DEPTH, PERFT_DIR, perft, replay_position


def test_every_preset_has_a_perft_file_and_nothing_else_does() -> None:
    """One perft file per preset, so a new preset cannot ship without its golden counts."""
    assert sorted(p.stem for p in PERFT_DIR.glob("*.json")) == sorted(PRESETS)


@pytest.mark.parametrize("spec", PRESETS)
def test_perft_counts_match_the_golden_file(spec: str) -> None:
    """Recompute the counts of every position in the preset's file and compare."""
    document = json.loads((PERFT_DIR / f"{spec}.json").read_text())
    assert document["rules"] == spec
    assert document["rules_version"] == RULES_VERSION, "rules changed version: regenerate the golden files"
    assert len(document["positions"]) >= 4
    for position in document["positions"]:
        state = replay_position(spec, position["seed"], position["moves"])
        assert state.outcome is None
        counts = [perft(state, depth) for depth in range(1, PERFT_DEPTH + 1)]
        where = f"{spec}, seed {position['seed']} after {len(position['moves'])} moves"
        assert counts == position["perft"], f"{where}: perft {counts}, golden {position['perft']}"


def test_perft_counts_leaves_and_a_finished_game_has_none() -> None:
    """perft(1) is the number of legal moves, perft(d) sums perft(d-1) over the children,
    and a finished game contributes no leaves."""
    state = GameState.new(parse_rules("short-13"), 4)
    assert perft(state, 1) == len(state.legal_moves())
    total = 0
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)
        total += len(child.legal_moves())
    assert perft(state, 2) == total
    state.forfeit(0, Ending.FORFEIT, "seat 0 resigned")
    assert perft(state, 1) == perft(state, 3) == 0


@pytest.mark.parametrize("seed", [1, 2, 3, 10])
def test_open_stock_changes_what_is_seen_not_what_is_legal(seed: int) -> None:
    """open-stock only turns more stock cards face up: from the same deal, its move tree is
    the standard one (only the top stock card is playable)."""
    standard = GameState.new(parse_rules("standard"), seed)
    open_stock = GameState.new(parse_rules("open-stock"), seed)
    assert [perft(standard, d) for d in (1, 2, 3)] == [perft(open_stock, d) for d in (1, 2, 3)]
