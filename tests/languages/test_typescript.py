"""The TypeScript SDK (sdk/typescript) and its sample bot (sample_bots/typescript-greedy), with Node and npm.

The bot is built by its manifest's own build command (which installs the locked npm
dependencies and builds the SDK too), the SDK's unit tests run under Node's test
runner (``npm test``), the TypeScript greedy policy is compared with the Python one on
positions from engine games (sent as the referee's own wire messages), and the bot
plays short matches through the real referee, on gRPC and on protobuf frames; on the
pipes, hostile frames stop it with one line.

Without ``node`` and ``npm`` (Node 20 or newer) these tests are skipped, except in CI
(CI=true), where that is a failure. npm's cache stays in its default place, so only the
first run on a machine downloads the packages.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.processes.manifest import BotManifest, load_manifest
from spite.v1 import referee_pb2 as rpb

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
SDK = REPO / "sdk" / "typescript"
MANIFEST = REPO / "sample_bots" / "typescript-greedy" / "bot.toml"
MIN_NODE = 20
SAMPLE_TRANSPORT = "frames"
"""What the sample bot's manifest says (docs/performance.md, "The TypeScript, Java and Rust SDKs on frames")."""



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
        unavailable(reason)
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
    """common.greedy_positions as base64 RefereeMessages (a Welcome per rule set, then a
    DecisionRequest per position), and the Python greedy_move's index for each."""
    lines: list[str] = []
    expected: list[int] = []
    spec = None
    for number, case in enumerate(greedy_positions(), start=1):
        if case.spec != spec:
            spec = case.spec
            welcome = rpb.Welcome(protocol_version=1)
            welcome.rules.ParseFromString(case.rules)
            lines.append(base64.b64encode(rpb.RefereeMessage(welcome=welcome).SerializeToString()).decode())
        decision = rpb.DecisionRequest(decision_id=number, deadline_ms=1000)
        decision.observation.ParseFromString(case.observation)
        lines.append(base64.b64encode(rpb.RefereeMessage(decision=decision).SerializeToString()).decode())
        expected.append(case.move_index)
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


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
@pytest.mark.parametrize(("rules", "seats", "games"), MATCHES)
def test_typescript_greedy_plays_through_the_referee(typescript_greedy: BotManifest, rules: str, seats: int, games: int,
                                                     transport: str, tmp_path: Path) -> None:
    play_cleanly(on_transport(typescript_greedy, transport), rules, seats, games, tmp_path)


# -- protobuf frames on the referee's pipes (stdio_format = "protobuf") -------------------------

def test_typescript_greedy_plays_on_the_transport_measured_faster(typescript_greedy: BotManifest) -> None:
    # docs/performance.md, "The TypeScript, Java and Rust SDKs on frames"
    assert (typescript_greedy.transport, typescript_greedy.stdio_format) == TRANSPORTS[SAMPLE_TRANSPORT]


def test_the_typescript_sdk_on_pipes_says_hello_without_a_token_and_reports_a_refusal_in_one_line(
        typescript_greedy: BotManifest) -> None:
    assert_refusal_reported(typescript_greedy, "typescript-greedy")


@pytest.mark.parametrize(("data", "words"), HOSTILE_FRAMES)
def test_hostile_frames_stop_the_typescript_bot_with_one_line(typescript_greedy: BotManifest, data: bytes,
                                                              words: str) -> None:
    assert_hostile_frames_stop_it(typescript_greedy, "typescript-greedy", data, words)


def test_the_typescript_sdk_says_in_one_line_that_it_does_not_speak_json_lines(typescript_greedy: BotManifest) -> None:
    assert_json_lines_refused(typescript_greedy)
