"""The C++ SDK (sdk/cpp) and its sample bot (sample_bots/cpp-greedy), with CMake and g++.

The SDK speaks the stdio transport as JSON lines with a reader of its own, so it needs no
library beyond the C++17 standard one; its unit tests are GoogleTest (Debian's
``libgtest-dev``/``googletest``), built by CMake out of the source tree and run by ctest,
including the greedy parity check: ``policies::greedy`` against the Python ``greedy_move``
on positions from engine games, sent as the referee's own JSON lines. The bot is built by
its manifest's build command, plays matches through the real referee against the Python
``greedy`` bot (2, 3 and 4 seats, partners, Skip-Bo) and passes ``spite check-bot``.

Without cmake, a C++ compiler or GoogleTest these tests are skipped, except in CI
(CI=true), where that is a failure (tests/languages/common.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.local import play_local_match
from referee.processes.manifest import BotManifest, load_manifest
from spite.v1 import game_pb2 as gpb
from spite.v1 import referee_pb2 as rpb
from spite_engine import parse_rules
from spite_wire.canonical_json import referee_message_line
from tournaments.bot_specs import resolve_bot
from tournaments.checkbot import check_bot

from .common import greedy_positions, play_cleanly, require, unavailable

# Toolchains and builds. It builds in sample_bots/: tests/conftest.py runs it with the other such files.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdk" / "cpp"
MANIFEST = REPO / "sample_bots" / "cpp-greedy" / "bot.toml"
BUILD_TIMEOUT_S = 900  # a cold build of the SDK and its tests on two busy cores
CPP_MATCHES = [("standard", 2, 2), ("3p", 3, 1), ("skip-bo+4p", 4, 1), ("partners", 4, 1)]
"""(rules, seats, games) the C++ greedy bot plays through the referee against Python's greedy."""


@pytest.fixture(scope="module")
def toolchain() -> tuple[str, str]:
    return require("cmake", "CMake (Debian: cmake)"), require("c++", "a C++17 compiler (Debian: g++)")


@pytest.fixture(scope="module")
def cpp_greedy(toolchain: tuple[str, str]) -> BotManifest:
    """The sample bot, built by its manifest's build command."""
    manifest = load_manifest(MANIFEST)
    manifest.run_build()
    return manifest


@pytest.fixture(scope="module")
def greedy_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """common.greedy_positions, one JSON array a line: the Welcome and the DecisionRequest as
    the referee writes them on a stdio bot's stdin, and the Python greedy_move's choice."""
    path = tmp_path_factory.mktemp("cpp") / "greedy-cases.jsonl"
    with path.open("w") as out:
        for case in greedy_positions():
            welcome = rpb.RefereeMessage(welcome=rpb.Welcome(rules=gpb.RuleSet.FromString(case.rules)))
            decision = rpb.RefereeMessage(decision=rpb.DecisionRequest(
                decision_id=1, observation=gpb.Observation.FromString(case.observation)))
            lines = [referee_message_line(m).decode().strip() for m in (welcome, decision)]
            out.write(f"[{lines[0]},{lines[1]},{json.dumps(case.choice)}]\n")
    return path


def test_cpp_sdk_unit_tests(toolchain: tuple[str, str], greedy_cases: Path, tmp_path: Path) -> None:
    cmake, _ = toolchain
    build = tmp_path / "build"
    configure = subprocess.run([cmake, "-S", str(SDK), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                               capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert configure.returncode == 0, (configure.stdout + configure.stderr)[-4000:]
    if "GoogleTest not found" in configure.stderr:
        unavailable("GoogleTest (Debian: libgtest-dev) is not installed")
    compiled = subprocess.run([cmake, "--build", str(build)], capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S)
    assert compiled.returncode == 0, (compiled.stdout + compiled.stderr)[-6000:]
    env = {**os.environ, "SPITE_GREEDY_CASES": str(greedy_cases)}
    ctest = require("ctest", "CMake's ctest")
    result = subprocess.run([ctest, "--output-on-failure", "-V"], cwd=build, env=env, capture_output=True, text=True,
                            timeout=BUILD_TIMEOUT_S)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "100% tests passed" in output, output[-3000:]
    passed = set(re.findall(r"Test +#\d+: (\w+)\.\w+ \.+ +Passed", output))
    assert passed == {"Json", "Wire", "Moves", "Session", "Policies"}, output[-3000:]
    assert re.search(r"Policies\.GreedyMatchesPython \.+ +Passed", output), output[-3000:]  # not skipped
    assert "rule sets: same choices" in output, output[-3000:]


@pytest.mark.parametrize(("rules", "seats", "games"), CPP_MATCHES)
def test_cpp_greedy_plays_greedy_through_the_referee(cpp_greedy: BotManifest, rules: str, seats: int, games: int,
                                                     tmp_path: Path) -> None:
    """cpp-greedy in the even seats, the Python greedy bot in the odd ones, forfeit on any
    fault: every game ends by the rules, no seat faults, every process exits 0."""
    local = play_cleanly(cpp_greedy, rules, seats, games, tmp_path, opponent=resolve_bot("greedy"))
    assert (local.match.seats[0].report.name, local.match.seats[0].report.version) == ("cpp-greedy", "1.0.0")


def test_the_readme_bot_builds_and_plays(toolchain: tuple[str, str], tmp_path: Path) -> None:
    """sdk/cpp/README.md's bot as a newcomer copies it (its CMakeLists.txt pointed at this
    checkout, its main.cpp, its bot.toml), built by that bot.toml and played against greedy."""
    readme = (SDK / "README.md").read_text()
    blocks = dict(re.findall(r"```(cmake|cpp|toml)\n(.*?)```", readme, re.S))
    bot = tmp_path / "mybot"
    bot.mkdir()
    (bot / "CMakeLists.txt").write_text(blocks["cmake"].replace("/path/to/spite", str(REPO)))
    (bot / "main.cpp").write_text(blocks["cpp"])
    (bot / "bot.toml").write_text(blocks["toml"])
    manifest = load_manifest(bot / "bot.toml")
    manifest.run_build()
    config = MatchConfig(parse_rules("standard"), ["mybot", "greedy"], TimeControl(), 1, seed=3, policy=Policy.FORFEIT)
    local = asyncio.run(play_local_match([manifest, resolve_bot("greedy")], config, log_dir=tmp_path))
    assert local.match.state_name == "finished"
    assert local.match.results[0].outcome.ending.by_rules, local.match.results[0].outcome.reason
    report = local.match.seats[0].report
    assert (report.name, report.version, report.illegal_moves, report.malformed, report.crashes) == \
        ("mybot", "0.1.0", 0, 0, 0), report.faults
    assert [e.returncode for e in local.exits] == [0, 0]


def test_cpp_greedy_passes_check_bot(cpp_greedy: BotManifest, tmp_path: Path) -> None:
    checks = check_bot(cpp_greedy, games=2, log_dir=tmp_path)
    failed = [c.line() for c in checks if not c.passed]
    assert not failed, "\n".join(failed)
    assert {c.name for c in checks} >= {"build", "handshake", "legal moves", "time limits", "rejection",
                                        "several games", "presets", "clean exit", "stdout"}
