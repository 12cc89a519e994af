"""The TypeScript SDK (sdk/typescript) and its sample bot (sample_bots/typescript-greedy), with Node and npm.

The bot is built by its manifest's own build command (which installs the locked npm
dependencies and builds the SDK too), the SDK's unit tests run under Node's test
runner (``npm test``), the TypeScript greedy policy is compared with the Python one on
positions from engine games (sent as the referee's own wire messages), and the bot
plays short matches through the real referee.

Without ``node`` and ``npm`` (Node 20 or newer) these tests are skipped, except in CI
(CI=true), where that is a failure. npm's cache stays in its default place, so only the
first run on a machine downloads the packages.
"""

from __future__ import annotations

import asyncio
import base64
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
from spite.v1 import referee_pb2 as rpb
from spite_sdk import policies
from tournaments.manifest import BotManifest, load_manifest

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdk" / "typescript"
MANIFEST = REPO / "sample_bots" / "typescript-greedy" / "bot.toml"
HOSTILE = REPO / "tests" / "bots" / "hostile_bot.py"
MIN_NODE = 20

# Rule sets the greedy comparison draws positions from, and how many games of each.
CASE_RULES = ("standard", "skip-bo+4p", "partners", "open-stock", "no-block", "kings-only", "classic-20", "3p")
CASE_GAMES = 3


def _missing_toolchain() -> str | None:
    """Why Node cannot be used here, or None."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return "Node.js and npm are not on PATH (Debian: nodejs npm; Node 20 or newer)"
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    try:
        major = int(version.lstrip("v").split(".")[0])
    except ValueError:
        return f"cannot read the Node.js version ({version!r})"
    if major < MIN_NODE:
        return f"Node.js {version} is too old; the SDK needs {MIN_NODE} or newer"
    return None


@pytest.fixture(scope="module")
def node() -> str:
    reason = _missing_toolchain()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must have it")
        pytest.skip(reason)
    return shutil.which("node") or "node"


@pytest.fixture(scope="module")
def typescript_greedy(node: str) -> BotManifest:
    """The sample bot, built by its manifest's build command (which builds the SDK too)."""
    manifest = load_manifest(MANIFEST)
    manifest.run_build()
    return manifest


@pytest.fixture(scope="module")
def unit_tests(typescript_greedy: BotManifest) -> subprocess.CompletedProcess[str]:
    """``npm test`` in the SDK (after the build installed its dependencies)."""
    return subprocess.run(["npm", "test"], cwd=SDK, capture_output=True, text=True, timeout=600)


def test_typescript_unit_tests(unit_tests: subprocess.CompletedProcess[str]) -> None:
    output = unit_tests.stdout + unit_tests.stderr
    assert unit_tests.returncode == 0, output[-6000:]
    assert "# fail 0" in output and "# pass 0" not in output, output[-3000:]


def _greedy_cases() -> tuple[list[str], list[int]]:
    """Positions from engine games (greedy moves mixed with random ones, so that odd
    positions come up too), as base64 RefereeMessages (a Welcome per rule set, then a
    DecisionRequest per position), and the Python greedy_move's index for each."""
    lines: list[str] = []
    expected: list[int] = []

    def put(message: rpb.RefereeMessage) -> None:
        lines.append(base64.b64encode(message.SerializeToString()).decode())

    decision_id = 0
    for spec in CASE_RULES:
        rules = parse_rules(spec)
        put(rpb.RefereeMessage(welcome=rpb.Welcome(rules=rules_to_pb(rules), protocol_version=1)))
        for seed in range(CASE_GAMES):
            rng = random.Random(f"{spec}:{seed}")
            state = GameState.new(rules, seed)
            for _ in range(400):
                if state.outcome is not None:
                    break
                view = observe(state, state.to_move)
                choice = policies.greedy_move(view)
                decision_id += 1
                put(rpb.RefereeMessage(decision=rpb.DecisionRequest(
                    decision_id=decision_id, observation=observation_to_pb(view), deadline_ms=1000)))
                expected.append(list(view.legal_moves).index(choice))
                state.apply(choice if rng.random() < 0.7 else rng.choice(view.legal_moves))
    return lines, expected


def test_typescript_greedy_chooses_what_python_greedy_chooses(
        node: str, unit_tests: subprocess.CompletedProcess[str]) -> None:
    assert unit_tests.returncode == 0, "the unit tests (which compile the comparison tool) failed"
    lines, expected = _greedy_cases()
    result = subprocess.run([node, "dist-test/test/greedy-parity.js"], cwd=SDK, input="\n".join(lines) + "\n",
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    chosen = [int(x) for x in result.stdout.split()]
    assert len(chosen) == len(expected) > 1000
    differences = [i for i, (a, b) in enumerate(zip(chosen, expected)) if a != b]
    assert not differences, f"{len(differences)} of {len(expected)} positions differ, first at {differences[:5]}"


def hostile_good() -> BotManifest:
    return BotManifest(name="hostile-good", command=(sys.executable, str(HOSTILE), "good"), workdir=HOSTILE.parent)


def play(bots: list[BotManifest], rules: str, games: int, log_dir: Path) -> LocalMatch:
    # Forfeit on any fault, so that a bad action cannot hide behind a substituted move.
    config = MatchConfig(parse_rules(rules), [b.name for b in bots], TimeControl(), games, seed=7,
                         policy=Policy.FORFEIT)
    return asyncio.run(play_local_match(bots, config, log_dir=log_dir))


@pytest.mark.parametrize(("rules", "seats", "games"), [("standard", 2, 2), ("skip-bo+4p", 4, 1)])
def test_typescript_greedy_plays_through_the_referee(typescript_greedy: BotManifest, rules: str, seats: int,
                                                     games: int, tmp_path: Path) -> None:
    bots = [typescript_greedy if seat % 2 == 0 else hostile_good() for seat in range(seats)]
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
    assert match.seats[0].report.version == "1.0.0" and match.seats[0].report.name == "typescript-greedy"
