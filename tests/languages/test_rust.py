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

import os
import subprocess
from pathlib import Path

import pytest

from referee.manifest import BotManifest, load_manifest

from .common import MATCHES, greedy_positions, play_cleanly, require

# Toolchains and builds. It builds in sample_bots/: tests/conftest.py runs it with the other such files.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdk" / "rust"
MANIFEST = REPO / "sample_bots" / "rust-greedy" / "bot.toml"
# A cold build compiles tonic, prost and tokio: minutes on two busy cores.
BUILD_TIMEOUT_S = 1500



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


@pytest.mark.parametrize(("rules", "seats", "games"), MATCHES)
def test_rust_greedy_plays_through_the_referee(rust_greedy: BotManifest, rules: str, seats: int, games: int,
                                               tmp_path: Path) -> None:
    play_cleanly(rust_greedy, rules, seats, games, tmp_path)
