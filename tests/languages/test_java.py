"""The Java SDK (sdk/java) and its sample bot (sample_bots/java-greedy), with a JDK and Maven.

The bot is built by its manifest's own build command (one Maven run that installs the
SDK, its gRPC code generated from proto/ at build time, and packages the bot as one
jar), the SDK's JUnit tests run under Maven Surefire (including a comparison of the Java
greedy policy with the Python one on positions from real games), and the bot plays short
matches through the real referee, on gRPC and on protobuf frames; on the pipes, hostile
frames stop it with one line.

Without ``java`` (17 or newer) and ``mvn`` on PATH these tests are skipped, except in CI
(CI=true), where that is a failure. Maven's local repository stays in its default place
(~/.m2), so only the first run on a machine downloads from Maven Central.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from referee.processes.manifest import BotManifest, load_manifest

from .common import (
    HOSTILE_FRAMES,
    MATCHES,
    TRANSPORTS,
    assert_hostile_frames_stop_it,
    assert_json_lines_refused,
    assert_refusal_reported,
    greedy_positions,
    on_transport,
    play_cleanly,
    unavailable,
)

# Toolchains and builds. It builds in sample_bots/: tests/conftest.py runs it with the other such files.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdk" / "java"
MANIFEST = REPO / "sample_bots" / "java-greedy" / "bot.toml"
MIN_JAVA = 17
SAMPLE_TRANSPORT = "frames"
"""What the sample bot's manifest says (docs/performance.md, "The TypeScript, Java and Rust SDKs on frames")."""



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
        unavailable(reason)
    return shutil.which("mvn") or "mvn"


@pytest.fixture(scope="module")
def java_greedy(mvn: str) -> BotManifest:
    """The sample bot, built by its manifest's build command (which installs the SDK too)."""
    manifest = load_manifest(MANIFEST)
    manifest.run_build()
    return manifest


@pytest.fixture(scope="module")
def greedy_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """common.greedy_positions, one a line, tab-separated: the wire rule set and observation
    (base64) and the Python greedy_move's choice (notation)."""
    path = tmp_path_factory.mktemp("java") / "greedy-cases.tsv"
    with path.open("w") as out:
        for case in greedy_positions():
            out.write(f"{base64.b64encode(case.rules).decode()}\t{base64.b64encode(case.observation).decode()}"
                      f"\t{case.choice}\n")
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


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
@pytest.mark.parametrize(("rules", "seats", "games"), MATCHES)
def test_java_greedy_plays_through_the_referee(java_greedy: BotManifest, rules: str, seats: int, games: int,
                                               transport: str, tmp_path: Path) -> None:
    play_cleanly(on_transport(java_greedy, transport), rules, seats, games, tmp_path)


# -- protobuf frames on the referee's pipes (stdio_format = "protobuf") -------------------------

def test_java_greedy_plays_on_the_transport_measured_faster(java_greedy: BotManifest) -> None:
    # docs/performance.md, "The TypeScript, Java and Rust SDKs on frames"
    assert (java_greedy.transport, java_greedy.stdio_format) == TRANSPORTS[SAMPLE_TRANSPORT]


def test_the_java_sdk_on_pipes_says_hello_without_a_token_and_reports_a_refusal_in_one_line(
        java_greedy: BotManifest) -> None:
    assert_refusal_reported(java_greedy, "java-greedy")


@pytest.mark.parametrize(("data", "words"), HOSTILE_FRAMES)
def test_hostile_frames_stop_the_java_bot_with_one_line(java_greedy: BotManifest, data: bytes, words: str) -> None:
    assert_hostile_frames_stop_it(java_greedy, "java-greedy", data, words)


def test_the_java_sdk_says_in_one_line_that_it_does_not_speak_json_lines(java_greedy: BotManifest) -> None:
    assert_json_lines_refused(java_greedy)
