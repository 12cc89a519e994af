"""A Go SDK bot joins the ladder as a remote bot (SPITE_ARENA and SPITE_BOT_KEY) and plays."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from referee.processes.manifest import load_manifest
from tests.languages.common import require
from tests.load import as_in_a_terminal

from .conftest import REPO, running_arena

# It builds in sample_bots/: tests/conftest.py runs it with the other such files.
pytestmark = pytest.mark.slow


def test_a_go_bot_joins_the_ladder(tmp_path: Path) -> None:
    require("go", "the Go toolchain (Debian: golang-go)")
    manifest = load_manifest(REPO / "sample_bots" / "go-greedy" / "bot.toml")
    manifest.run_build()
    with running_arena(tmp_path) as arena:
        key = arena.add_entrant("gopher")
        env = {**os.environ, "SPITE_ARENA": arena.grpc, "SPITE_BOT_KEY": key}
        bot = subprocess.Popen([str(manifest.workdir / manifest.command[0])], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=as_in_a_terminal)
        arena.helpers.append(bot)
        rows = arena.wait_for("the Go bot's games", lambda: [
            r for r in arena.get("/api/leaderboard")[1] if r["entrant"] == "gopher" and r["games"] >= 3])
        assert rows[0]["bot"] == "go-greedy" and rows[0]["kind"] == "remote"
        os.killpg(bot.pid, signal.SIGINT)
        assert bot.wait(20) == 130

        refused = subprocess.run([str(manifest.workdir / manifest.command[0])], capture_output=True, text=True,
                                 env={**env, "SPITE_BOT_KEY": "sk_wrong"}, timeout=60)
        assert refused.returncode == 1 and "refused to let the bot join: unknown key" in refused.stderr
