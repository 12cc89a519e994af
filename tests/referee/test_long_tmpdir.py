"""A long ``TMPDIR`` no longer breaks a match: a Unix socket's path has 107 bytes, and the
referee's socket lived under the temporary directory (noted open in two session notes; it
failed a league under pytest-xdist, whose temporary paths are long)."""

from __future__ import annotations

from pathlib import Path

from ..cli.conftest import spite


def test_a_match_plays_with_a_temporary_directory_too_long_for_a_socket(tmp_path: Path) -> None:
    long = tmp_path / ("t" * 90)
    long.mkdir()
    done = spite("play", "greedy", "random", "--no-replays", cwd=tmp_path, env={"TMPDIR": str(long)})
    assert done.returncode == 0, done.stderr
