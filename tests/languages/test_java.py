"""The Java SDK (sdk/java) and its sample bot (sample_bots/java-greedy), with a JDK and Maven.

The bot is built by its manifest's own build command (one Maven run that installs the
SDK, its gRPC code generated from proto/ at build time, and packages the bot as one
jar), the SDK's JUnit tests run under Maven Surefire (including a comparison of the Java
greedy policy with the Python one on positions from real games), and the bot plays short
matches through the real referee.

Without ``java`` (17 or newer) and ``mvn`` on PATH these tests are skipped, except in CI
(CI=true), where that is a failure. Maven's local repository stays in its default place
(~/.m2), so only the first run on a machine downloads from Maven Central.
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from referee.local import LocalMatch, play_local_match
from referee.match import MatchConfig, Policy, TimeControl
from referee.rules import GameState, observe, parse_rules
from referee.wire import observation_to_pb, rules_to_pb
from spite_sdk import policies
from tournaments.manifest import BotManifest, load_manifest

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdk" / "java"
MANIFEST = REPO / "sample_bots" / "java-greedy" / "bot.toml"
HOSTILE = REPO / "tests" / "bots" / "hostile_bot.py"
MIN_JAVA = 17

# Rule sets the greedy comparison draws positions from, and how many games of each.
CASE_RULES = ("standard", "skip-bo+4p", "partners", "open-stock", "no-block", "kings-only", "classic-20", "3p")
CASE_GAMES = 3


def _missing_toolchain() -> str | None:
    """Why Java cannot be built here, or None."""
    java, mvn = shutil.which("java"), shutil.which("mvn")
    if java is None or mvn is None:
        return "a JDK (java) and Maven (mvn) are not on PATH (Debian: openjdk-17-jdk-headless maven)"
    banner = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    found = re.search(r'version "(\d+)', banner)
    if found is None:
        return f"cannot read the Java version from {banner.strip()[:200]!r}"
    if int(found.group(1)) < MIN_JAVA:
        return f"Java {found.group(1)} is too old; the SDK needs {MIN_JAVA} or newer"
    return None


@pytest.fixture(scope="module")
def mvn() -> str:
    reason = _missing_toolchain()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must have them")
        pytest.skip(reason)
    return shutil.which("mvn") or "mvn"


@pytest.fixture(scope="module")
def java_greedy(mvn: str) -> BotManifest:
    """The sample bot, built by its manifest's build command (which installs the SDK too)."""
    manifest = load_manifest(MANIFEST)
    manifest.run_build()
    return manifest


@pytest.fixture(scope="module")
def greedy_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Positions from engine games (greedy moves mixed with random ones, so that odd
    positions come up too), one a line, tab-separated: the wire rule set and observation
    (base64) and the Python greedy_move's choice (notation)."""
    path = tmp_path_factory.mktemp("java") / "greedy-cases.tsv"
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
                    wire_view = base64.b64encode(observation_to_pb(view).SerializeToString()).decode()
                    out.write(f"{wire_rules}\t{wire_view}\t{choice}\n")
                    state.apply(choice if rng.random() < 0.7 else rng.choice(view.legal_moves))
    return path


def test_java_unit_tests(mvn: str, java_greedy: BotManifest, greedy_cases: Path) -> None:
    # After the build (java_greedy), which compiled the SDK: this run compiles only the tests.
    env = {**os.environ, "SPITE_GREEDY_CASES": str(greedy_cases)}
    result = subprocess.run([mvn, "-B", "-q", "test"], cwd=SDK, env=env, capture_output=True, text=True,
                            timeout=900)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    # Surefire's report says whether the comparison ran (it skips without the cases file).
    report = SDK / "target" / "surefire-reports" / "TEST-org.spitearena.sdk.policies.PoliciesTest.xml"
    case = ElementTree.parse(report).getroot().find("testcase[@name='greedyMatchesPython']")
    assert case is not None, report.read_text()[-3000:]
    assert [child.tag for child in case if child.tag != "system-out"] == [], ElementTree.tostring(case).decode()
    assert "same choices" in (case.findtext("system-out") or ""), ElementTree.tostring(case).decode()


def hostile_good() -> BotManifest:
    return BotManifest(name="hostile-good", command=(sys.executable, str(HOSTILE), "good"), workdir=HOSTILE.parent)


def play(bots: list[BotManifest], rules: str, games: int, log_dir: Path) -> LocalMatch:
    # Forfeit on any fault, so that a bad action cannot hide behind a substituted move.
    config = MatchConfig(parse_rules(rules), [b.name for b in bots], TimeControl(), games, seed=5,
                         policy=Policy.FORFEIT)
    return asyncio.run(play_local_match(bots, config, log_dir=log_dir))


@pytest.mark.parametrize(("rules", "seats", "games"), [("standard", 2, 2), ("skip-bo+4p", 4, 1)])
def test_java_greedy_plays_through_the_referee(java_greedy: BotManifest, rules: str, seats: int, games: int,
                                               tmp_path: Path) -> None:
    bots = [java_greedy if seat % 2 == 0 else hostile_good() for seat in range(seats)]
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
    assert match.seats[0].report.version == "1.0.0" and match.seats[0].report.name == "java-greedy"
    for index in range(0, seats, 2):  # the Java bots print nothing when all is well
        log = local.logs[index]
        assert log is not None and log.read_text(errors="replace") == "", logs
