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

import base64
import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.processes.manifest import BotManifest, load_manifest

from .common import (
    HOSTILE_FRAMES,
    MATCHES,
    assert_hostile_frames_stop_it,
    assert_json_lines_refused,
    assert_refusal_reported,
    greedy_positions,
    play_cleanly,
    require,
)

# Toolchains and builds. It builds in sample_bots/: tests/conftest.py runs it with the other such files.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdk" / "go"
MANIFEST = REPO / "sample_bots" / "go-greedy" / "bot.toml"



@pytest.fixture(scope="module")
def go() -> str:
    return require("go", "the Go toolchain (Debian: golang-go)")


@pytest.fixture(scope="module")
def go_greedy(go: str) -> BotManifest:
    """The sample bot, built by its manifest's build command."""
    manifest = load_manifest(MANIFEST)
    manifest.run_build()
    return manifest


@pytest.fixture(scope="module")
def greedy_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """common.greedy_positions as JSON lines: base64 wire rule set and observation, and the
    Python greedy_move's choice."""
    path = tmp_path_factory.mktemp("go") / "greedy-cases.jsonl"
    with path.open("w") as out:
        for case in greedy_positions():
            out.write(json.dumps({"rules": base64.b64encode(case.rules).decode(),
                                  "observation": base64.b64encode(case.observation).decode(),
                                  "greedy": case.choice}) + "\n")
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


@pytest.mark.parametrize(("rules", "seats", "games"), MATCHES)
def test_go_greedy_plays_through_the_referee(go_greedy: BotManifest, rules: str, seats: int, games: int,
                                               tmp_path: Path) -> None:
    play_cleanly(go_greedy, rules, seats, games, tmp_path)


# -- protobuf frames on the referee's pipes (stdio_format = "protobuf") -------------------------

def test_go_greedy_plays_on_protobuf_frames_as_its_manifest_says(go_greedy: BotManifest) -> None:
    assert (go_greedy.transport, go_greedy.stdio_format) == ("stdio", "protobuf")  # the matches above


@pytest.mark.parametrize(("rules", "seats", "games"), MATCHES)
def test_go_greedy_plays_on_grpc_too(go_greedy: BotManifest, rules: str, seats: int, games: int,
                                     tmp_path: Path) -> None:
    play_cleanly(dataclasses.replace(go_greedy, transport="grpc", stdio_format="json"), rules, seats, games, tmp_path)


def test_the_go_sdk_on_pipes_says_hello_without_a_token_and_reports_a_refusal_in_one_line(
        go_greedy: BotManifest) -> None:
    assert_refusal_reported(go_greedy, "go-greedy")


@pytest.mark.parametrize("data, words", HOSTILE_FRAMES)
def test_hostile_frames_stop_the_go_bot_with_one_line(go_greedy: BotManifest, data: bytes, words: str) -> None:
    assert_hostile_frames_stop_it(go_greedy, "go-greedy", data, words)


def test_the_go_sdk_says_in_one_line_that_it_does_not_speak_json_lines(go_greedy: BotManifest) -> None:
    assert_json_lines_refused(go_greedy)
