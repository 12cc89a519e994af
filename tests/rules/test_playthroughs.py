"""Playthrough golden files (OpenSpiel's integration_tests/playthroughs): one whole game per
preset, every step printed -- the chance events in full, the public view, each seat's hand,
the mover's redacted events, its legal moves and the move chosen.

The test plays the game again in memory and diffs it against
``tests/golden/playthroughs/<preset>.txt``; a difference is a change in the rules, the
observations, the redaction, the random stream or the reference policy. Regenerate after an
intended change: ``.venv/bin/python -m tests.rules.golden --regen``, and review the diff.
"""

from __future__ import annotations

import difflib
import json

import pytest

from spite_engine import PRESETS, GameRecord, GameState, Move, parse_rules, replay

from .golden import PLAYTHROUGH_DIR, PLAYTHROUGH_SEEDS, REGEN_COMMAND, playthrough_text


def first_differences(expected: str, actual: str, context: int = 3, limit: int = 40) -> str:
    """The first lines of a unified diff between the golden file and the regenerated text."""
    diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "golden", "regenerated",
                                n=context, lineterm="")
    lines = []
    for line in diff:
        lines.append(line)
        if len(lines) >= limit:
            lines.append("...")
            break
    return "\n".join(lines)


def test_every_preset_has_a_playthrough_and_nothing_else_does() -> None:
    """One playthrough per preset, each with a pinned seed."""
    assert sorted(p.stem for p in PLAYTHROUGH_DIR.glob("*.txt")) == sorted(PRESETS)
    assert sorted(PLAYTHROUGH_SEEDS) == sorted(PRESETS)


@pytest.mark.parametrize("spec", PRESETS)
def test_playthrough_matches_the_golden_file(spec: str) -> None:
    """Regenerate the preset's playthrough and compare it line by line with the golden file."""
    path = PLAYTHROUGH_DIR / f"{spec}.txt"
    expected = path.read_text()
    actual = playthrough_text(spec)
    if actual != expected:
        pytest.fail(f"{path.name} differs from the engine's game (regenerate with {REGEN_COMMAND} "
                    f"if the change is intended):\n{first_differences(expected, actual)}", pytrace=False)
    assert len(expected.encode()) < 300_000


@pytest.mark.parametrize("spec", PRESETS)
def test_playthrough_moves_replay_to_the_same_outcome(spec: str) -> None:
    """The moves of the golden file, replayed through the checked path from its seed, reach
    the outcome the file states, and their GameRecord replays exactly."""
    text = (PLAYTHROUGH_DIR / f"{spec}.txt").read_text()
    rules = parse_rules(spec)
    assert json.loads(text.split("\nrules: ", 1)[1].split("\n", 1)[0]) == rules.to_dict()
    state = GameState.new(rules, PLAYTHROUGH_SEEDS[spec])
    for line in text.splitlines():
        if line.startswith("move: "):
            state.apply_checked(Move.parse(line[len("move: "):]), state.to_move)
    assert state.outcome is not None and state.outcome.ending.by_rules
    assert f"outcome: {state.outcome.ending.value} winners={list(state.outcome.winners)}" in text
    assert replay(GameRecord.from_state(state)).log == state.log
