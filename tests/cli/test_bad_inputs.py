"""Issue 12, item 12: every bad input to the CLI gets one line on stderr and a non-zero exit
(2: bad usage or input), never a traceback, and no file is changed. The real `spite`
command in a subprocess, one row of the table per bad input."""

from __future__ import annotations

import hashlib
import os
import socket
from pathlib import Path

import pytest

from .conftest import spite

RANDOM = os.urandom(4096)


def _snapshot(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "random.db").write_bytes(RANDOM)
    (tmp_path / "damaged.db").write_bytes(b"SQLite format 3\x00" + RANDOM)
    (tmp_path / "adir").mkdir()
    (tmp_path / "root-bot").mkdir()
    (tmp_path / "root-bot" / "bot.toml").write_text('name = "rooted"\nversion = "1"\ncommand = ["{python}", "x.py"]\n'
                                                    'workdir = "/"\n')
    (tmp_path / "t.toml").write_text('name = "t"\nrules = "standard"\nbots = ["greedy", "random"]\nseed = 1\n')
    return tmp_path


BAD_INPUTS: list[tuple[str, list[str]]] = [
    ("negative seed", ["play", "greedy", "random", "--seed", "-5"]),
    ("seed in float notation", ["play", "greedy", "random", "--seed", "1e26"]),
    ("seed above 2^64", ["play", "greedy", "random", "--seed", str(2**64)]),
    ("games out of range", ["play", "greedy", "random", "--games", "5000000000"]),
    ("zero games", ["play", "greedy", "random", "--games", "0"]),
    ("decision-ms zero", ["play", "greedy", "random", "--decision-ms", "0"]),
    ("unknown rules", ["play", "greedy", "random", "--rules", "nosuch"]),
    ("too many bots", ["play", "greedy", "random", "naive"]),
    ("unknown bot", ["play", "greedy", "no-such-bot"]),
    ("replay dir is a file", ["play", "greedy", "random", "--replay-dir", "t.toml"]),
    ("draw probability 2", ["leaderboard", "--draw-probability", "2"]),
    ("sigma 0", ["leaderboard", "--sigma", "0"]),
    ("tau negative", ["leaderboard", "--tau", "-1"]),
    ("tournament file is a directory", ["tournament", "adir"]),
    ("tournament file missing", ["tournament", "nosuch.toml"]),
    ("parallel 0", ["tournament", "t.toml", "--parallel", "0"]),
    ("random --db for tournament", ["tournament", "t.toml", "--db", "random.db"]),
    ("damaged --db for tournament", ["tournament", "t.toml", "--db", "damaged.db"]),
    ("random --db for leaderboard", ["leaderboard", "--db", "random.db"]),
    ("damaged --db for leaderboard", ["leaderboard", "--db", "damaged.db"]),
    ("directory --db", ["leaderboard", "--db", "adir"]),
    ("missing --db", ["leaderboard", "--db", "nosuch.db"]),
    ("random --db for games", ["games", "--db", "random.db"]),
    ("random --db for seed reveal", ["seed", "reveal", "--db", "random.db"]),
    ("games --result without --bot", ["games", "--result", "lost"]),
    ("admin token file is a directory", ["referee", "--admin-token-file", "adir"]),
    ("listen on no port", ["referee", "--listen", "127.0.0.1:notaport"]),
    ("listen on a port out of range", ["referee", "--listen", "127.0.0.1:70000"]),
    ("check-bot on a manifest with workdir /", ["check-bot", "root-bot/bot.toml"]),
    ("check-bot on nothing", ["check-bot", "nosuch-bot"]),
    ("check-bot games 0", ["check-bot", "greedy", "--games", "0"]),
    ("replay of a directory", ["replay", "adir"]),
    ("replay of a random file", ["replay", "random.db"]),
    ("replay of a missing file", ["replay", "nosuch.jsonl.gz"]),
    ("unknown command", ["nosuch"]),
    ("unknown option", ["play", "greedy", "random", "--nosuch"]),
    ("no command", []),
]


@pytest.mark.parametrize("args", [row[1] for row in BAD_INPUTS], ids=[row[0] for row in BAD_INPUTS])
def test_a_bad_input_is_one_line_exit_2_no_traceback_no_file_changed(workdir: Path, args: list[str]) -> None:
    before = _snapshot(workdir)
    run = spite(*args, cwd=workdir, timeout=120)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert len(lines) == 1, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert lines[0].startswith("spite")
    assert _snapshot(workdir) == before  # nothing written, nothing changed (the random store untouched)


def test_a_port_in_use_is_one_line(workdir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = spite("referee", "--listen", f"127.0.0.1:{port}", cwd=workdir, timeout=60)
    assert run.returncode == 2 and run.stderr.strip().splitlines() == [
        f"spite referee: --listen 127.0.0.1:{port}: port {port} is in use (another referee?); choose another port"]


def test_a_tournament_missing_from_the_store_is_named_with_no(league: Path) -> None:
    run = spite("leaderboard", "--db", "league.db", "--tournament", "nosuch", cwd=league)
    assert run.returncode == 2
    assert run.stderr.strip() == "spite leaderboard: no tournament 'nosuch' in league.db"
