"""Item 6: in a terminal `spite replay` steps through the game -- a real pseudo-terminal,
the real command, keys typed as a user would."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from .conftest import REPO


def _read_until(fd: int, wanted: str, seen: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while wanted not in seen:
        assert time.monotonic() < deadline, f"no {wanted!r} in {seen[-2000:]!r}"
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen += os.read(fd, 65536).decode("utf-8", "replace")
            except OSError:
                break
    return seen


def test_step_forward_by_step_and_turn_then_back_and_quit(league: Path) -> None:
    replay = next((league / "replays").glob("*.jsonl.gz"))
    main, child = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "LINES": "30", "TERM": "xterm"}
    process = subprocess.Popen([sys.executable, "-m", "spite_cli.main", "replay", str(replay)], cwd=REPO,
                               stdin=child, stdout=child, stderr=child, env=env, close_fds=True)
    os.close(child)
    try:
        seen = _read_until(main, "q quit", "")
        assert "step 0/" in seen
        os.write(main, b"n")
        seen = _read_until(main, "step 1/", seen)
        seen = _read_until(main, "q quit", seen.split("step 1/")[-1])
        turn = int(re.search(r"step 1 · turn (\d+) ·", seen).group(1))  # type: ignore[union-attr]
        os.write(main, b"]")  # the next turn's first step
        seen = _read_until(main, f"turn {turn + 1} ·", seen)
        os.write(main, b"p")
        seen = _read_until(main, f" · turn {turn} · ", seen.split(f"turn {turn + 1} ·")[-1])  # back a step
        os.write(main, b"q")
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)
