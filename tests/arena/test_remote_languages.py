"""The TypeScript, Rust and Java sample bots join the ladder as remote bots (SPITE_ARENA and
SPITE_BOT_KEY, unchanged bots) and play it: a real ``spite serve``, a real bot process built
by its manifest, games played to the end and recorded for its entrant, two at once, then a
stop by SIGINT and a refused key.

Toolchains as in tests/languages: missing here, the test is skipped with the reason; under
CI=true it fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from referee.processes.manifest import BotManifest, load_manifest
from spite_engine import Ending
from tests.languages.common import require
from tests.load import as_in_a_terminal

from .conftest import COMPETITION, REPO, Arena, running_arena

# It builds in sample_bots/: tests/conftest.py runs it with the other such files.
pytestmark = pytest.mark.slow

# Four slots: an entrant's versions hold at most half of them, so the remote bot (capacity 2)
# can be given two games at once.
PARALLEL = COMPETITION.replace("parallel = 1", "parallel = 4")


def built(sample: str) -> BotManifest:
    manifest = load_manifest(REPO / "sample_bots" / sample / "bot.toml")
    manifest.run_build()
    return manifest


def argv(manifest: BotManifest) -> list[str]:
    program = manifest.command[0]
    return [str(manifest.workdir / program) if os.sep in program else program, *manifest.command[1:]]


def start_bot(arena: Arena, manifest: BotManifest, **env: str) -> subprocess.Popen[str]:
    environment = {**os.environ, **env}
    environment.pop("SPITE_ADDRESS", None)
    bot = subprocess.Popen(argv(manifest), cwd=manifest.workdir, env=environment, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=as_in_a_terminal)
    arena.helpers.append(bot)
    return bot


def most_at_once(log: str) -> int:
    """The most matches the bot's INFO log shows in flight together (a Welcome opens one,
    MatchOver closes it)."""
    running = most = 0
    for line in log.splitlines():
        if "seat " in line and " of match " in line:
            running += 1
            most = max(most, running)
        elif "match over" in line.lower():
            running -= 1
    return most


def joins_the_ladder(tmp_path: Path, manifest: BotManifest, entrant: str, interrupted: int = 130) -> None:
    """``interrupted``: the bot's exit status after SIGINT (a Rust program without a handler
    dies of the signal)."""
    with running_arena(tmp_path, PARALLEL) as arena:
        key = arena.add_entrant(entrant)
        bot = start_bot(arena, manifest, SPITE_ARENA=arena.grpc, SPITE_BOT_KEY=key, SPITE_ARENA_CAPACITY="2",
                        SPITE_LOG_LEVEL="info")
        rows = arena.wait_for(f"{manifest.name}'s games", lambda: [
            r for r in arena.get("/api/leaderboard")[1] if r["entrant"] == entrant and r["games"] >= 4])
        assert (rows[0]["bot"], rows[0]["label"], rows[0]["kind"]) == (manifest.name, manifest.version, "remote")
        title = f"{entrant}/{manifest.name} v1"
        games = [g for g in arena.get("/api/games?limit=100")[1]["games"] if title in g["bots"]]
        assert len(games) >= 4 and all(g["status"] == "done" for g in games)
        assert all(Ending(g["ending"]).by_rules for g in games), games
        os.killpg(bot.pid, signal.SIGINT)
        assert bot.wait(60) == interrupted
        assert bot.stderr is not None
        log = bot.stderr.read()
        assert most_at_once(log) == 2, log[-3000:]

        refused = subprocess.run(argv(manifest), cwd=manifest.workdir, capture_output=True, text=True, timeout=120,
                                 env={**os.environ, "SPITE_ARENA": arena.grpc, "SPITE_BOT_KEY": "sk_wrong"})
        assert refused.returncode == 1, refused.stderr
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"{manifest.name}: the arena refused to let the bot join: "
                                                       "unknown key"), refused.stderr

    bad = subprocess.run(argv(manifest), cwd=manifest.workdir, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "SPITE_ARENA": "127.0.0.1:1", "SPITE_BOT_KEY": "k",
                              "SPITE_ARENA_CAPACITY": "65"})
    assert bad.returncode == 2
    assert f"{manifest.name}: SPITE_ARENA_CAPACITY must be a whole number in 1..64" in bad.stderr


def test_a_typescript_bot_joins_the_ladder(tmp_path: Path) -> None:
    require("node", "Node.js (Debian: nodejs; 20 or newer)")
    require("npm", "npm (Debian: npm)")
    joins_the_ladder(tmp_path, built("typescript-greedy"), "tess")


def test_a_rust_bot_joins_the_ladder(tmp_path: Path) -> None:
    require("cargo", "the Rust toolchain (rustup, or Debian: cargo)")
    joins_the_ladder(tmp_path, built("rust-greedy"), "rusty", interrupted=-signal.SIGINT)


def test_a_java_bot_joins_the_ladder(tmp_path: Path) -> None:
    require("java", "a JDK, 17 or newer (Debian: openjdk-17-jdk-headless)")
    require("mvn", "Maven (Debian: maven)")
    joins_the_ladder(tmp_path, built("java-greedy"), "jay")
