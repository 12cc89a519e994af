"""The Rust SDK (sdk/rust) and its sample bot (sample_bots/rust-greedy), with cargo.

The bot is built by its manifest's own build command (``cargo build --release
--locked``, which generates the gRPC code from proto/ with the protoc shipped in the
``protoc-bin-vendored`` crate), the SDK's tests run under ``cargo test`` (a real tonic
server stands in for the referee), the Rust greedy policy is compared with the Python
one on positions from engine games (sent as the referee's own wire messages), and the
bot plays short matches through the real referee, on gRPC and on protobuf frames; on the
pipes, hostile frames stop it with one line.

Without ``cargo`` on PATH these tests are skipped, except in CI (CI=true), where that is
a failure. Cargo's registry cache stays in its default place and each crate keeps its
own target/ directory, so only the first run on a machine downloads and compiles the
dependencies (a few minutes on two cores).
"""

from __future__ import annotations

import os
import subprocess
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
    require,
)

# Toolchains and builds. It builds in sample_bots/: tests/conftest.py runs it with the other such files.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdk" / "rust"
MANIFEST = REPO / "sample_bots" / "rust-greedy" / "bot.toml"
# A cold build compiles tonic, prost and tokio: minutes on two busy cores.
BUILD_TIMEOUT_S = 1500
SAMPLE_TRANSPORT = "frames"
"""What the sample bot's manifest says (docs/performance.md, "The TypeScript, Java and Rust SDKs on frames")."""



@pytest.fixture(scope="module")
def cargo() -> str:
    return require("cargo", "the Rust toolchain (rustup, or Debian: cargo)")


@pytest.fixture(scope="module")
def rust_greedy(cargo: str) -> BotManifest:
    """The sample bot, built by its manifest's build command."""
    manifest = load_manifest(MANIFEST)
    manifest.run_build()
    return manifest


@pytest.fixture(scope="module")
def greedy_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """common.greedy_positions, one line each: the wire RuleSet and Observation in hex, and
    the Python greedy_move's choice."""
    path = tmp_path_factory.mktemp("rust") / "greedy-cases.txt"
    with path.open("w") as out:
        for case in greedy_positions():
            out.write(f"{case.rules.hex()} {case.observation.hex()} {case.choice}\n")
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
    assert "test plays_a_match_on_frames_whatever_the_reads_split ... ok" in output, output[-3000:]


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
@pytest.mark.parametrize(("rules", "seats", "games"), MATCHES)
def test_rust_greedy_plays_through_the_referee(rust_greedy: BotManifest, rules: str, seats: int, games: int,
                                               transport: str, tmp_path: Path) -> None:
    play_cleanly(on_transport(rust_greedy, transport), rules, seats, games, tmp_path)


# -- protobuf frames on the referee's pipes (stdio_format = "protobuf") -------------------------

def test_rust_greedy_plays_on_the_transport_measured_faster(rust_greedy: BotManifest) -> None:
    # docs/performance.md, "The TypeScript, Java and Rust SDKs on frames"
    assert (rust_greedy.transport, rust_greedy.stdio_format) == TRANSPORTS[SAMPLE_TRANSPORT]


def test_the_rust_sdk_on_pipes_says_hello_without_a_token_and_reports_a_refusal_in_one_line(
        rust_greedy: BotManifest) -> None:
    assert_refusal_reported(rust_greedy, "rust-greedy")


@pytest.mark.parametrize(("data", "words"), HOSTILE_FRAMES)
def test_hostile_frames_stop_the_rust_bot_with_one_line(rust_greedy: BotManifest, data: bytes, words: str) -> None:
    assert_hostile_frames_stop_it(rust_greedy, "rust-greedy", data, words)


def test_the_rust_sdk_says_in_one_line_that_it_does_not_speak_json_lines(rust_greedy: BotManifest) -> None:
    assert_json_lines_refused(rust_greedy)
