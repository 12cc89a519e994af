"""The arena's store on the tournaments' SQLite layer (``tournaments/sqlite_file.py``): one
serving writer at a time, a damaged or foreign file refused without a byte written, and every
SQLite error one line -- the refusals a results store already had."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spite_arena.store import STORE_FILE, ArenaStore, ArenaStoreError
from tournaments.sqlite_file import StoreLocked

from .conftest import REPO, SPITE


def test_a_second_serving_writer_is_refused_and_the_organizers_commands_still_write(tmp_path: Path) -> None:
    serving = ArenaStore(tmp_path, writer=True)
    with pytest.raises(StoreLocked, match="in use by another writer"):
        ArenaStore(tmp_path, writer=True)
    with ArenaStore(tmp_path) as organizer:  # `spite arena pause` writes its one row beside the server
        organizer.set_meta("paused", "1")
    assert serving.paused
    serving.close()
    ArenaStore(tmp_path, writer=True).close()  # released with its owner


@pytest.mark.parametrize("content", [b"not a database at all, just text" * 100,
                                     b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_damaged_or_foreign_store_is_refused_with_one_line_and_left_as_it_was(tmp_path: Path,
                                                                                 content: bytes) -> None:
    (tmp_path / STORE_FILE).write_bytes(content)
    with pytest.raises(ArenaStoreError, match="left as it was") as refused:
        ArenaStore(tmp_path)
    assert "\n" not in str(refused.value)
    assert (tmp_path / STORE_FILE).read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == [STORE_FILE]  # no lock, no journal beside it
    done = subprocess.run([*SPITE, "arena", "pause", "--data", str(tmp_path)], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and STORE_FILE in done.stderr, done.stderr
