"""The organizer's `spite arena` commands, as processes over a real store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from spite_arena.store import ArenaStore
from tournaments.ratings import RatingParams

REPO = Path(__file__).resolve().parents[2]


def spite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spite_cli.main", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120)


def test_the_organizer_commands(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    added = spite("arena", "add-entrant", "alice", "--data", data, "--json")
    key = json.loads(added.stdout)["key"]
    assert added.returncode == 0 and key.startswith("sk_")
    refused = spite("arena", "add-entrant", "../x", "--data", data)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr and refused.stderr.count("\n") == 1
    rotated = json.loads(spite("arena", "rotate-key", "alice", "--data", data, "--json").stdout)["key"]
    with ArenaStore(data) as store:
        assert store.entrant_for_key(key) is None and store.entrant_for_key(rotated) is not None
        vid = store.ensure_house_bot("greedy", "1", "greedy", RatingParams())
    assert spite("arena", "pause", "--data", data).returncode == 0
    assert json.loads(spite("arena", "status", "--data", data, "--json").stdout)["paused"] is True
    assert spite("arena", "resume", "--data", data).returncode == 0
    disabled = spite("arena", "disable", str(vid), "--reason", "too slow", "--data", data)
    assert disabled.returncode == 0
    assert spite("arena", "disable", "999", "--reason", "x", "--data", data).returncode == 2
    status = json.loads(spite("arena", "status", "--data", data, "--json").stdout)
    assert status["paused"] is False and status["leaderboard"] == []
    assert spite("arena", "incidents", "--data", data, "--json").stdout.strip() == "[]"
    bad = spite("serve", str(tmp_path / "missing.toml"), "--data", data)
    assert bad.returncode == 2 and "no such competition file" in bad.stderr and "Traceback" not in bad.stderr
