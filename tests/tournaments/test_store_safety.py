"""One writer per store, and damaged files and full disks (issue 12, items 10 and 11):
each is one line (a StoreError) and the file is left as it was."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.store import Store, StoreError, StoreLocked

from .test_store import new_store

REPO = Path(__file__).resolve().parents[2]


def one_line(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text and "Traceback" not in text, text
    return text


def test_a_second_writer_is_refused_naming_the_first(tmp_path: Path) -> None:
    store, tid = new_store(tmp_path)
    with pytest.raises(StoreLocked) as caught:
        Store(tmp_path / "spite.db")
    text = one_line(caught.value)
    assert f"process {os.getpid()}" in text and "in use by another writer" in text
    assert store.counts(tid)["pending"] == 6  # the first writer is untouched
    reader = Store(tmp_path / "spite.db", readonly=True)  # readers take no lock
    assert reader.counts(tid)["pending"] == 6
    reader.close()
    store.close()
    Store(tmp_path / "spite.db").close()  # free again once the first closed


def test_a_writer_in_another_process_is_refused(tmp_path: Path) -> None:
    """The lock holds across processes (what a second `spite tournament --resume` runs into)."""
    store, tid = new_store(tmp_path)
    match = store.matches(tid)[0]
    store.mark_running(match.id, "live")
    code = ("import sys; from tournaments.store import Store, StoreError\n"
            "try:\n    Store(sys.argv[1])\nexcept StoreError as e:\n    print(e); sys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "spite.db")], capture_output=True,
                          text=True, cwd=REPO, timeout=60)
    assert done.returncode == 3, done.stderr
    assert f"process {os.getpid()}" in done.stdout and done.stderr == ""
    assert store.matches(tid)[0].status == "running"  # the live match was not touched
    store.close()


def test_the_lock_dies_with_its_process(tmp_path: Path) -> None:
    """kill -9 of a runner leaves no stale lock: the kernel drops the flock."""
    code = ("import os, sys; from tournaments.store import Store\n"
            "s = Store(sys.argv[1]); print('open', flush=True); os.kill(os.getpid(), 9)\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "spite.db")], capture_output=True, text=True,
                          cwd=REPO, timeout=60)
    assert "open" in done.stdout
    Store(tmp_path / "spite.db").close()


@pytest.mark.parametrize("damage", ["random", "truncated", "text", "zeros"])
@pytest.mark.parametrize("readonly", [False, True])
def test_a_damaged_store_is_one_line_and_left_as_it_was(tmp_path: Path, damage: str, readonly: bool) -> None:
    path = tmp_path / "spite.db"
    if damage == "truncated":
        store, tid = new_store(tmp_path)
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        data = path.read_bytes()
        path.write_bytes(data[:len(data) // 2])
    elif damage == "random":
        path.write_bytes(random.Random(5).randbytes(50_000))
    elif damage == "text":
        path.write_text("this is not a database\n" * 100)
    else:
        path.write_bytes(b"SQLite format 3\x00" + bytes(8000))
    before = path.read_bytes()
    with pytest.raises(StoreError) as caught:
        with Store(path, readonly=readonly) as store:
            store.tournaments()
    text = one_line(caught.value)
    assert str(path) in text
    assert path.read_bytes() == before
    assert not Path(str(path) + "-wal").exists() or Path(str(path) + "-wal").stat().st_size == 0


def test_a_full_disk_is_one_line_and_loses_nothing_committed(tmp_path: Path) -> None:
    """SQLite's max_page_count stands in for a full disk (the same SQLITE_FULL error)."""
    store, tid = new_store(tmp_path)
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")
    big = {"rating": {}, "padding": "x" * 200_000}
    with pytest.raises(StoreError) as caught:
        store.create_tournament("t2", "t2.toml", big, 1, [], [])
    text = one_line(caught.value)
    assert "disk is full" in text
    assert [t.name for t in store.tournaments()] == ["t"] and store.counts(tid)["pending"] == 6
    store.close()
    with Store(tmp_path / "spite.db", readonly=True) as reader:
        assert [t.name for t in reader.tournaments()] == ["t"]
