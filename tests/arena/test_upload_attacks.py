"""Uploads built to hurt the server (issue 31, items 2-5 and 12; issue 24, item 11): tar headers
that declare a GiB, directories by the hundred thousand, concurrent uploads racing the hourly
cap, labels that are megabytes long or reverse the page, names that collide with another
entrant or the house. Each is refused with one line, before it costs the server anything."""

from __future__ import annotations

import gzip
import io
import json
import re
import tarfile
import tracemalloc
from pathlib import Path

import pytest

from spite_arena.config import Limits
from spite_arena.store import ArenaStore, ArenaStoreError
from spite_arena.uploads import HEADER_BYTES, UploadError, check_manifest, unpack

GIB = 1 << 30


def _header(name: str, kind: bytes, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    return info.tobuf(tarfile.USTAR_FORMAT)


@pytest.mark.parametrize("kind", [tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE,
                                  tarfile.XGLTYPE])
def test_a_tar_header_declaring_a_gib_is_refused_before_it_is_read(tmp_path: Path, kind: bytes) -> None:
    # the header says 1 GiB; 32 MiB of it follow (they compress to a few KB): reading the
    # header's body into memory, as tarfile does, would show in the peak
    blob = gzip.compress(_header("././@LongLink", kind, GIB) + b"\0" * (32 << 20), compresslevel=1)
    assert len(blob) < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(UploadError) as refused:
            unpack(blob, tmp_path / "bot", Limits())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"unpacking took {peak >> 20} MiB before refusing"
    message = str(refused.value)
    assert "\n" not in message and ("tar header" in message and str(HEADER_BYTES) in message), message


def test_a_chain_of_extended_headers_is_refused(tmp_path: Path) -> None:
    chain = b"".join(_header("././@LongLink", tarfile.GNUTYPE_LONGNAME, 512) + b"a" * 511 + b"\0"
                     for _ in range(50))
    with pytest.raises(UploadError, match="too many or too large"):
        unpack(gzip.compress(chain + _header("bot.py", tarfile.REGTYPE, 0) + b"\0" * 1024), tmp_path / "b", Limits())


def _tar(entries: list[tarfile.TarInfo]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info in entries:
            archive.addfile(info, io.BytesIO(b"x" * info.size) if info.isreg() else None)
    return buffer.getvalue()


def _dir(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    return info


def test_directories_count_against_the_files_cap(tmp_path: Path) -> None:
    blob = _tar([_dir(f"d{i}") for i in range(11)])
    with pytest.raises(UploadError, match="more than 10 files and directories"):
        unpack(blob, tmp_path / "bot", Limits(files=10))
    unpack(_tar([_dir(f"d{i}") for i in range(10)]), tmp_path / "ok", Limits(files=10))


def test_sparse_members_are_refused(tmp_path: Path) -> None:
    info = tarfile.TarInfo("s")
    info.type = tarfile.GNUTYPE_SPARSE
    raw = info.tobuf(tarfile.GNU_FORMAT)
    with pytest.raises(UploadError, match="sparse"):
        unpack(gzip.compress(raw + b"\0" * 1024), tmp_path / "bot", Limits())


def _manifest(folder: Path, version: str) -> Path:
    folder.mkdir()
    (folder / "bot.py").write_text("")
    (folder / "bot.toml").write_text(f"name = 'x'\nversion = {json.dumps(version)}\n"
                                     "command = ['{python}', 'bot.py']\n")
    return folder


@pytest.mark.parametrize("version, reason", [
    ("v" * 65, "at most 64"),
    ("1.0\u202e", "U+202E"),
    ("\u2066evil", "U+2066"),
    ("1.0\x1b[31m", "U+001B"),
    ("a\nb", "U+000A"),
])
def test_a_version_label_is_64_printable_characters(tmp_path: Path, version: str, reason: str) -> None:
    with pytest.raises(UploadError, match=re.escape(reason)) as refused:
        check_manifest(_manifest(tmp_path / "bot", version))
    assert "\n" not in str(refused.value)


def test_a_fine_version_label_passes(tmp_path: Path) -> None:
    assert check_manifest(_manifest(tmp_path / "bot", "v" * 64)).version == "v" * 64
    assert check_manifest(_manifest(tmp_path / "bot2",
                                    "2.0 \u00e9t\u00e9 \u2603")).version == "2.0 \u00e9t\u00e9 \u2603"


@pytest.mark.parametrize("name", [".", "..", "...", ".alice", "-x", "House", "HOUSE", "house.", "house..",
                                  "Alice", "alice.", "ALICE"])
def test_entrant_names_that_collide_or_escape_are_refused(tmp_path: Path, name: str) -> None:
    with ArenaStore(tmp_path) as store:
        store.add_entrant("alice")
        store.ensure_house_bot("greedy", "1", "greedy", __import__("tournaments.ratings").ratings.RatingParams())
        with pytest.raises(ArenaStoreError) as refused:
            store.add_entrant(name)
        assert "\n" not in str(refused.value)
        assert [e.name for e in store.entrants()] == ["alice", "house"]


def test_the_lobby_checks_labels_with_the_same_validator(tmp_path: Path) -> None:
    from spite_arena.lobby import Lobby
    from tournaments.ratings import RatingParams

    with ArenaStore(tmp_path) as store:
        key = store.add_entrant("bob")
        lobby = Lobby(store, RatingParams(), 4)
        for label, reason in [("x" * 65, "at most 64"), ("1\u202e", "U+202E"), ("\x1b]0;pwned\x07", "U+001B")]:
            with pytest.raises(ValueError, match=re.escape(reason)):
                lobby.join(key, "bot", label, 1)
        assert lobby.join(key, "bot", "1.0", 1).capacity == 1


STEERING = ("\x1b", "\x07", "\x9b", "\u202e")


def test_check_bot_prints_a_bots_escapes_harmless() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "spite_cli.main", "check-bot",
                           str(Path(__file__).parent / "bots" / "ansi" / "bot.toml"), "--games", "1"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "RuntimeError: boom \\x1b[1mbold" in done.stdout and "\\x1b]0;pwned\\x07" in done.stdout
    assert "red\\u202eevil" in done.stdout
    assert not any(char in done.stdout + done.stderr for char in STEERING)


def test_terminal_safe_keeps_text_and_shows_controls() -> None:
    from referee.core.labels import terminal_safe

    assert terminal_safe("caf\u00e9 \u2603 ok\n\tnext") == "caf\u00e9 \u2603 ok\n\tnext"
    assert terminal_safe("\x1b[31mred\rX\u202e\u2067\x7f") == "\\x1b[31mred\\x0dX\\u202e\\u2067\\x7f"


def test_upload_slots_count_only_checked_uploads_and_survive_a_restart(tmp_path: Path) -> None:
    from spite_arena.store import UploadLimit
    from tournaments.ratings import RatingParams

    params = RatingParams()
    with ArenaStore(tmp_path) as store:
        alice = store.add_entrant("alice") and store.entrant("alice")
        assert alice is not None

        def checked(passed: bool, platform_fault: bool = False) -> None:
            slot = store.reserve_upload(alice.id, 2, 1)
            vid = store.add_checking_version(alice.id, "b", "1", "upload", "spec", params, slot)
            store.finish_check(vid, passed, [], "", platform_fault=platform_fault)

        first = store.reserve_upload(alice.id, 2, 1)
        with pytest.raises(UploadLimit, match="still being checked"):
            store.reserve_upload(alice.id, 2, 1)
        store.release_upload(first)  # refused before its checks: free
        checked(False, platform_fault=True)  # not judged: free
        checked(False)
        checked(True)
        assert store.builds_since(alice.id, "") == 2
        with pytest.raises(UploadLimit, match=r"2 of your uploads were checked in the last hour, the limit is 2; "
                                              r"the next is allowed at \d\d:\d\d:\d\d UTC \(in 60 min\)") as limit:
            store.reserve_upload(alice.id, 2, 1)
        assert 3500 < limit.value.retry_after <= 3601
        carol = store.add_entrant("carol") and store.entrant("carol")
        assert carol is not None
        for _ in range(2):  # not judged is free, but not without end
            slot = store.reserve_upload(carol.id, 2, 1)
            vid = store.add_checking_version(carol.id, "b", "1", "upload", "spec", params, slot)
            store.finish_check(vid, False, [], "", platform_fault=True)
        assert store.builds_since(carol.id, "") == 0
        with pytest.raises(UploadLimit, match="the server could not judge 2 of your uploads in the last hour"):
            store.reserve_upload(carol.id, 2, 1)
        bob = store.add_entrant("bob") and store.entrant("bob")
        assert bob is not None
        store.reserve_upload(bob.id, 6, 1)  # the server is killed while unpacking it
    with ArenaStore(tmp_path) as store:
        assert store.recover_uploads() == 1
        store.reserve_upload(bob.id, 6, 1)


def test_add_entrant_refuses_a_twin_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    def add(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "spite_cli.main", "arena", "add-entrant", name, "--data",
                               str(tmp_path)], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                              text=True, timeout=120)

    assert add("alice").returncode == 0
    for name, reason in [("Alice", "an entrant named 'alice' exists already"), ("house.", "'house' is the organizer's"),
                         ("..", "starting with a letter or a digit")]:
        done = add(name)
        assert done.returncode == 2 and reason in done.stderr and done.stderr.count("\n") == 1, done.stderr
