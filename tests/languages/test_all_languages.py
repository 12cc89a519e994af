"""Bots in any language, shown rather than claimed: every language's sample bot passes
`spite check-bot`, then all of them (Python, TypeScript, Go, Rust, Java and the stdio
Perl bot) play a round robin through the real tournament runner and referee, and every
game ends by the rules: no timeout, no illegal move, no crash.

Toolchains follow tests/languages/common.py's rule: skipped where missing on a
developer's machine, a failure under CI=true.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from referee.processes.manifest import BotManifest, load_manifest
from tournaments.checkbot import check_bot
from tournaments.config import load_tournament
from tournaments.runner import RunOptions, run_tournament
from tournaments.store import Store

from .common import REPO, require

# Toolchains and builds. It builds in sample_bots/: tests/conftest.py runs it with the other such files.
pytestmark = pytest.mark.slow

# (sample bot, the programs its build and run need, what they are)
LANGUAGE_BOTS = {
    "greedy": (("python3",), "Python"),
    "typescript-greedy": (("node", "npm"), "Node.js and npm"),
    "go-greedy": (("go",), "the Go toolchain"),
    "rust-greedy": (("cargo",), "the Rust toolchain"),
    "java-greedy": (("java", "mvn"), "a JDK and Maven"),
    "perl-greedy": (("perl",), "Perl"),
}


@pytest.fixture(scope="module")
def bots() -> dict[str, BotManifest]:
    built = {}
    for name, (programs, what) in LANGUAGE_BOTS.items():
        for program in programs:
            require(program, what)
        manifest = load_manifest(REPO / "sample_bots" / name)
        manifest.run_build()
        built[name] = manifest
    return built


@pytest.mark.parametrize("name", [n for n in LANGUAGE_BOTS if n != "greedy"])  # greedy: tests/conformance
def test_each_language_bot_passes_check_bot(bots: dict[str, BotManifest], name: str) -> None:
    checks = check_bot(bots[name], games=2)
    failed = [c.line() for c in checks if not c.passed]
    assert not failed, "\n".join(failed)
    assert {c.name for c in checks} >= {"handshake", "legal moves", "time limits", "rejection", "several games",
                                        "presets", "clean exit"}


def test_all_language_bots_play_a_round_robin(bots: dict[str, BotManifest], tmp_path: Path) -> None:
    entries = ", ".join(json.dumps(str(REPO / "sample_bots" / name / "bot.toml")) for name in LANGUAGE_BOTS)
    league = tmp_path / "languages.toml"
    league.write_text(f'name = "languages"\nrules = "standard"\nbots = [{entries}]\nseed = 99\nrounds = 1\n'
                      f'parallel = 2\npolicy = "forfeit"\n')
    db = tmp_path / "league.db"
    outcome = run_tournament(load_tournament(league), RunOptions(db=db, parallel=2), out=io.StringIO())
    pairings = len(LANGUAGE_BOTS) * (len(LANGUAGE_BOTS) - 1) // 2
    assert (outcome.done, outcome.void) == (2 * pairings, 0)  # every pairing, both seat orders
    with Store(db, readonly=True) as store:
        finished = store.finished(outcome.tournament_id)
    assert len(finished) == 2 * pairings
    for match in finished:
        for game in match.games:
            assert game.ending in ("stock-emptied", "stalemate", "turn-cap"), (match.bots, game)
        for seat in match.seats:
            faults = (seat.timeouts, seat.illegal_moves, seat.malformed, seat.crashes)
            assert faults == (0, 0, 0, 0), (match.bots, seat)
    assert {row.name for row in outcome.board} == set(LANGUAGE_BOTS)
