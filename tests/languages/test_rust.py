"""The Rust SDK (sdk/rust) and its sample bot (sample_bots/rust-greedy), with cargo.

The bot is built by its manifest's own build command (``cargo build --release
--locked``, which generates the gRPC code from proto/ with the protoc shipped in the
``protoc-bin-vendored`` crate), the SDK's tests run under ``cargo test`` (a real tonic
server stands in for the referee), the Rust greedy policy is compared with the Python
one on positions from engine games (sent as the referee's own wire messages), and the
bot plays short matches through the real referee.

Without ``cargo`` on PATH these tests are skipped, except in CI (CI=true), where that is
a failure. Cargo's registry cache stays in its default place and each crate keeps its
own target/ directory, so only the first run on a machine downloads and compiles the
dependencies (a few minutes on two cores).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.local import LocalMatch, play_local_match
from referee.match import MatchConfig, Policy, TimeControl
from referee.rules import GameState, observe, parse_rules
from referee.wire import observation_to_pb, rules_to_pb
from spite_sdk import policies
from tournaments.manifest import BotManifest, load_manifest

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdk" / "rust"
MANIFEST = REPO / "sample_bots" / "rust-greedy" / "bot.toml"
HOSTILE = REPO / "tests" / "bots" / "hostile_bot.py"
# A cold build compiles tonic, prost and tokio: minutes on two busy cores.
BUILD_TIMEOUT_S = 1500

# Rule sets the greedy comparison draws positions from, and how many games of each.
CASE_RULES = ("standard", "skip-bo+4p", "partners", "open-stock", "no-block", "kings-only", "classic-20", "3p")
CASE_GAMES = 3


@pytest.fixture(scope="module")
def cargo() -> str:
    path = shutil.which("cargo")
    if path is None:
        reason = "the Rust toolchain (cargo) is not on PATH (rustup, or Debian: cargo)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must have it")
        pytest.skip(reason)
    return path


@pytest.fixture(scope="module")
def rust_greedy(cargo: str) -> BotManifest:
    """The sample bot, built by its manifest's build command."""
    manifest = load_manifest(MANIFEST)
    manifest.run_build()
    return manifest


@pytest.fixture(scope="module")
def greedy_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Positions from engine games (greedy moves mixed with random ones, so that odd
    positions come up too), one line each: the wire RuleSet and Observation in hex, and
    the Python greedy_move's choice."""
    path = tmp_path_factory.mktemp("rust") / "greedy-cases.txt"
    with path.open("w") as out:
        for spec in CASE_RULES:
            rules = parse_rules(spec)
            wire_rules = rules_to_pb(rules).SerializeToString().hex()
            for seed in range(CASE_GAMES):
                rng = random.Random(f"{spec}:{seed}")
                state = GameState.new(rules, seed)
                for _ in range(400):
                    if state.outcome is not None:
                        break
                    view = observe(state, state.to_move)
                    choice = policies.greedy_move(view)
                    out.write(f"{wire_rules} {observation_to_pb(view).SerializeToString().hex()} {choice}\n")
                    state.apply(choice if rng.random() < 0.7 else rng.choice(view.legal_moves))
    return path


def test_rust_sdk_tests(cargo: str, greedy_cases: Path) -> None:
    env = {**os.environ, "SPITE_GREEDY_CASES": str(greedy_cases)}
    result = subprocess.run([cargo, "test", "--locked", "--", "--show-output"], cwd=SDK, env=env,
                            capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "test greedy_matches_python ... ok" in output, output[-3000:]
    assert "rule sets: same choices" in output, output[-3000:]
    assert "test whole_match_over_a_unix_socket ... ok" in output, output[-3000:]


def hostile_good() -> BotManifest:
    return BotManifest(name="hostile-good", command=(sys.executable, str(HOSTILE), "good"), workdir=HOSTILE.parent)


def play(bots: list[BotManifest], rules: str, games: int, log_dir: Path) -> LocalMatch:
    # Forfeit on any fault, so that a bad action cannot hide behind a substituted move.
    config = MatchConfig(parse_rules(rules), [b.name for b in bots], TimeControl(), games, seed=5,
                         policy=Policy.FORFEIT)
    return asyncio.run(play_local_match(bots, config, log_dir=log_dir))


@pytest.mark.parametrize(("rules", "seats", "games"), [("standard", 2, 2), ("skip-bo+4p", 4, 1)])
def test_rust_greedy_plays_through_the_referee(rust_greedy: BotManifest, rules: str, seats: int, games: int,
                                               tmp_path: Path) -> None:
    bots = [rust_greedy if seat % 2 == 0 else hostile_good() for seat in range(seats)]
    local = play(bots, rules, games, tmp_path)
    logs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}" for p in local.logs if p and p.exists())
    match = local.match
    assert match.state_name == "finished", logs
    assert len(match.results) == games
    for result in match.results:
        assert result.outcome.ending.by_rules, f"game {result.game_number}: {result.outcome.reason}\n{logs}"
    for seat in match.seats:
        report = seat.report
        assert (report.status, report.timeouts, report.illegal_moves, report.malformed, report.crashes) == \
            ("done", 0, 0, 0, 0), f"seat {seat.index}: {report.faults}\n{logs}"
        assert report.decisions > 0
    assert [e.returncode for e in local.exits] == [0] * seats, logs
    assert match.seats[0].report.version == "1.0.0" and match.seats[0].report.name == "rust-greedy"
