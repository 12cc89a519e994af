"""Clean exits (issue 12, items 5 and 13): SIGHUP (the terminal closed), SIGTERM and Ctrl-C
stop `spite play` within seconds and leave no scratch directory or bot process behind, and
a bot's 10 MB line leaves no "Exception ignored ... Event loop is closed" at exit."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ..load import as_in_a_terminal

REPO = Path(__file__).resolve().parents[2]


def start_play(tmp_path: Path, scratch: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(scratch)}
    return subprocess.Popen([sys.executable, "-m", "spite_cli.main", "play", *args, "--plain",
                             "--replay-dir", str(tmp_path / "replays")],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=as_in_a_terminal)


IGNORED_GAMES = 3
"""Games finished after the signal that tell a ``spite play`` ignoring it (one may be in flight)."""
STOP_CAP_S = 600.0
"""How long a stopping ``spite play`` may take on a machine busy past reason: a cap, not a speed check."""


def games_after_signal(play: subprocess.Popen[str]) -> int:
    """Game lines ``play`` prints on stderr until it exits, stopping at ``IGNORED_GAMES``: whether
    it stopped is told by what it does, not by a wall-clock wait a slow machine misses."""
    assert play.stderr is not None
    stderr, lines = play.stderr, queue.Queue[str]()

    def read() -> None:
        for line in stderr:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    games, deadline = 0, time.monotonic() + STOP_CAP_S
    while games < IGNORED_GAMES and play.poll() is None and time.monotonic() < deadline:
        try:
            games += lines.get(timeout=0.5).startswith("game ")
        except queue.Empty:
            continue
    return games


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
def test_a_stopping_signal_cleans_up_like_ctrl_c(tmp_path: Path, short_tmp: Path, signum: int) -> None:
    play = start_play(tmp_path, short_tmp, "greedy", "random", "--games", "10000")
    assert play.stderr is not None
    seen = []  # progress goes to stderr (stdout is for the result): wait for the first game's line
    while not (line := play.stderr.readline()).startswith("game 1/") and line and len(seen) < 20:
        seen.append(line)
    assert line.startswith("game 1/"), "".join(seen) + line  # the first game is over: bots run, scratch dirs exist
    assert any(short_tmp.iterdir())
    play.send_signal(signum)
    games = games_after_signal(play)
    try:
        play.wait(timeout=1 if games >= IGNORED_GAMES else STOP_CAP_S)
    except subprocess.TimeoutExpired:
        os.killpg(play.pid, signal.SIGKILL)
        pytest.fail(f"spite play ignored {signal.Signals(signum).name}: {games} more games in play after it")
    assert play.returncode != 0
    assert list(short_tmp.iterdir()) == []  # the per-match scratch directory is gone
    with pytest.raises(ProcessLookupError):
        os.killpg(play.pid, 0)  # no bot process of its group is left


def test_a_ten_megabyte_line_leaves_no_event_loop_noise(tmp_path: Path, short_tmp: Path) -> None:
    bot = tmp_path / "big"
    bot.mkdir()
    (bot / "bot.py").write_text(
        "import json, os, sys\n"
        # a stdio bot's pipes name its seat: no token
        "print(json.dumps({'hello': {'name': 'big', 'protocolVersion': 1}}),"
        " flush=True)\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if 'decision' in m:\n"
        "        sys.stdout.write(json.dumps({'action': {'decisionId': m['decision']['decisionId'],"
        " 'debug': 'x' * 10_000_000}}) + '\\n'); sys.stdout.flush()\n")
    (bot / "bot.toml").write_text(f'name = "big"\ncommand = ["{sys.executable}", "bot.py"]\ntransport = "stdio"\n')
    play = start_play(tmp_path, short_tmp, str(bot / "bot.toml"), "greedy")
    out, err = play.communicate(timeout=60)
    assert "a line over 64 KiB" in out + err  # the fault is reported (the result table, the game's line)
    assert "Exception ignored" not in err and "Event loop is closed" not in err, err
