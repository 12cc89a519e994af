"""The Go SDK (sdk/go) and its sample bot (sample_bots/go-greedy), with the Go toolchain.

The bot is built by its manifest's own build command, the SDK's unit tests run under
``go test`` (including the check that the committed generated code matches proto/,
and a comparison of the Go greedy policy with the Python one on positions from real
games), and the bot plays short matches through the real referee.

Without ``go`` on PATH these tests are skipped, except in CI (CI=true), where that is
a failure. The Go build and module caches stay in their default places, so only the
first run on a machine downloads and compiles the dependencies.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
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
SDK = REPO / "sdk" / "go"
MANIFEST = REPO / "sample_bots" / "go-greedy" / "bot.toml"
HOSTILE = REPO / "tests" / "bots" / "hostile_bot.py"

# Rule sets the greedy comparison draws positions from, and how many games of each.
CASE_RULES = ("standard", "skip-bo+4p", "partners", "open-stock", "no-block", "kings-only", "classic-20", "3p")
CASE_GAMES = 3


@pytest.fixture(scope="module")
def go() -> str:
    path = shutil.which("go")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the Go toolchain (go) is not on PATH; CI must have it (Debian: golang-go)")
        pytest.skip("the Go toolchain (go) is not on PATH")
    return path


@pytest.fixture(scope="module")
def go_greedy(go: str) -> BotManifest:
    """The sample bot, built by its manifest's build command."""
    manifest = load_manifest(MANIFEST)
    manifest.run_build()
    return manifest


@pytest.fixture(scope="module")
def greedy_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Positions from engine games (greedy moves mixed with random ones, so that odd
    positions come up too), each with the wire rule set and observation and the Python
    greedy_move's choice, as JSON lines."""
    path = tmp_path_factory.mktemp("go") / "greedy-cases.jsonl"
    with path.open("w") as out:
        for spec in CASE_RULES:
            rules = parse_rules(spec)
            wire_rules = base64.b64encode(rules_to_pb(rules).SerializeToString()).decode()
            for seed in range(CASE_GAMES):
                rng = random.Random(f"{spec}:{seed}")
                state = GameState.new(rules, seed)
                for _ in range(400):
                    if state.outcome is not None:
                        break
                    view = observe(state, state.to_move)
                    choice = policies.greedy_move(view)
                    out.write(json.dumps({
                        "rules": wire_rules,
                        "observation": base64.b64encode(observation_to_pb(view).SerializeToString()).decode(),
                        "greedy": str(choice)}) + "\n")
                    state.apply(choice if rng.random() < 0.7 else rng.choice(view.legal_moves))
    return path


def test_go_unit_tests(go: str, greedy_cases: Path) -> None:
    env = {**os.environ, "SPITE_GREEDY_CASES": str(greedy_cases)}
    regenerate = importlib.util.find_spec("grpc_tools") is not None
    if regenerate:
        # The freshness test regenerates with this environment's protoc, like the Python SDK's.
        env["PROTOC"] = f"{sys.executable} -m grpc_tools.protoc"
    result = subprocess.run([go, "test", "-count=1", "-v", "./..."], cwd=SDK, env=env, capture_output=True,
                            text=True, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "--- PASS: TestGreedyMatchesPython" in output, output[-3000:]
    if regenerate:
        assert "--- PASS: TestGeneratedCodeIsFresh" in output, output[-3000:]


def hostile_good() -> BotManifest:
    return BotManifest(name="hostile-good", command=(sys.executable, str(HOSTILE), "good"), workdir=HOSTILE.parent)


def play(bots: list[BotManifest], rules: str, games: int, log_dir: Path) -> LocalMatch:
    # Forfeit on any fault, so that a bad action cannot hide behind a substituted move.
    config = MatchConfig(parse_rules(rules), [b.name for b in bots], TimeControl(), games, seed=5,
                         policy=Policy.FORFEIT)
    return asyncio.run(play_local_match(bots, config, log_dir=log_dir))


@pytest.mark.parametrize(("rules", "seats", "games"), [("standard", 2, 2), ("skip-bo+4p", 4, 1)])
def test_go_greedy_plays_through_the_referee(go_greedy: BotManifest, rules: str, seats: int, games: int,
                                             tmp_path: Path) -> None:
    bots = [go_greedy if seat % 2 == 0 else hostile_good() for seat in range(seats)]
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
    assert match.seats[0].report.version == "1.0.0" and match.seats[0].report.name == "go-greedy"
