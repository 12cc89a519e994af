"""Hostile builds (issue 26): an upload's ``build`` command runs in the sandbox
(:func:`referee.processes.build.build`, the real bubblewrap and cgroups of this machine), and one that
loops forever, forks without end, fills the disk, tries the network, reads or writes outside
its folder, or prints 100 MB is stopped at its cap with a one-line reason, and nothing it
started is left running. The server side of it (other entrants unaffected) is in
tests/arena/test_source_uploads.py."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

import pytest

from referee.processes.build import BuildCaps, BuildResult, build
from referee.sandbox import detect
from spite_arena.config import load_competition
from tests.languages.common import unavailable

CAPS = BuildCaps(wall_seconds=20, cpu_seconds=60, memory_mb=256, processes=32, disk_mb=50, output_kb=256)


@pytest.fixture(autouse=True)
def sandbox() -> None:
    if not detect().isolated:  # builds run only in the sandbox: CI must have it, a laptop may not
        unavailable(f"no sandbox here: {detect().reason}")


def _running(marker: str) -> list[int]:
    """Processes whose command line or environment holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _build(tmp_path: Path, command: str, caps: BuildCaps = CAPS) -> tuple[BuildResult, Path]:
    """``command`` built in a fresh folder; asserts the verdict is one line and nothing of the
    build is left running (the command carries a marker to find its processes by)."""
    marker = f"spite-test-{uuid.uuid4().hex}"
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "x"\n')
    result = asyncio.run(build(f": {marker}; {command}", folder, caps, tmp_path / "build.log"))
    assert "\n" not in result.reason
    assert _running(marker) == [], "the build left processes running"
    return result, folder


def test_a_good_build_writes_its_folder_and_gives_it_back(tmp_path: Path) -> None:
    result, folder = _build(tmp_path, "mkdir out && echo built > out/bot && chmod 4755 out/bot && echo done")
    assert result.ok and result.reason == "" and result.tail[-1] == "done", result
    made = folder / "out" / "bot"
    assert made.read_text() == "built\n"
    info = made.stat()
    assert (info.st_uid, info.st_gid) == (os.getuid(), os.getgid()), "the folder is the organizer's again"
    assert not info.st_mode & 0o6000, "no set-uid bit survives a build"


def test_a_build_that_loops_forever_stops_at_its_wall_time(tmp_path: Path) -> None:
    result, _ = _build(tmp_path, "while :; do :; done", BuildCaps(wall_seconds=3, cpu_seconds=60))
    assert not result.ok and result.limit == "wall time" and "wall-time limit of 3 s" in result.reason, result


def test_a_build_that_burns_cpu_in_many_processes_stops_at_its_cpu_time(tmp_path: Path) -> None:
    result, _ = _build(tmp_path, "for i in 1 2 3 4; do (while :; do :; done) & done; wait",
                       BuildCaps(wall_seconds=600, cpu_seconds=2))
    assert not result.ok and result.limit == "cpu" and "CPU time limit of 2 s" in result.reason, result


def test_a_build_that_forks_without_end_stops_at_its_process_cap(tmp_path: Path) -> None:
    result, _ = _build(tmp_path, "f() { f | f & }; f; sleep 600")
    assert not result.ok and result.limit == "processes", result
    assert "process limit (32 processes and threads)" in result.reason


def test_a_build_that_fills_the_disk_stops_at_its_disk_cap_and_takes_no_more(tmp_path: Path) -> None:
    result, folder = _build(tmp_path, "i=0; while :; do i=$((i+1)); head -c 4194304 /dev/zero > junk$i; done")
    assert not result.ok and result.limit == "disk" and "disk limit of 50 MiB" in result.reason, result
    # Nothing of it runs on (``_build``), so it takes no more. The cap is looked at every 0.25 s, so
    # what it wrote past the cap is what it wrote in the last look's time: on a busy machine that
    # may be hundreds of MiB (referee/processes/build.py; docs/security.md says so), no bound to assert here.
    assert sum(p.stat().st_size for p in folder.iterdir()) > 50 * 1024 * 1024


def test_a_build_that_fills_its_memory_is_stopped(tmp_path: Path) -> None:
    result, _ = _build(tmp_path, "python3 -c 'x = bytearray(512 << 20); print(len(x))'",
                       BuildCaps(memory_mb=64, wall_seconds=60))
    assert not result.ok, result


def test_a_build_has_no_network(tmp_path: Path) -> None:
    probe = ("python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 443), timeout=3)'"
             " || python3 -c 'import socket; socket.getaddrinfo(\"pypi.org\", 443)'")
    result, _ = _build(tmp_path, probe)
    assert not result.ok and "failed (exit" in result.reason, result
    assert any("unreachable" in line or "Name or service" in line or "resolution" in line or "Errno" in line
               for line in result.tail), result.tail


def test_a_build_cannot_read_outside_its_folder(tmp_path: Path) -> None:
    """Another entrant's upload and the server's store beside it stay out of sight."""
    other = tmp_path / "other-entrant"
    other.mkdir()
    (other / "secret.py").write_text("SECRET = 'the other bot'\n")
    (tmp_path / "arena.db").write_text("keys\n")
    result, _ = _build(tmp_path, f"cat {other}/secret.py; cat {tmp_path}/arena.db; cat /etc/shadow; "
                                 f"ls {tmp_path}; echo end")
    assert result.ok, result
    text = "\n".join(result.tail)
    assert "the other bot" not in text and "keys" not in text, text
    assert "No such file" in text and "arena.db" not in text.replace(f"{tmp_path}/arena.db", "")


def test_a_build_cannot_write_outside_its_folder(tmp_path: Path) -> None:
    targets = [tmp_path / "outside", Path("/usr/spite-build-test"), Path(os.path.expanduser("~")) / "spite-build-test"]
    result, _ = _build(tmp_path, "; ".join(f"echo x > {t}" for t in targets) + "; ln -s /etc/passwd link; true")
    for target in targets:
        assert not target.exists(), target
    assert not result.ok and "link leading out of its folder: link" in result.reason, result


def test_a_build_that_prints_100_mb_stops_at_its_output_cap(tmp_path: Path) -> None:
    result, _ = _build(tmp_path, "head -c 104857600 /dev/zero | tr '\\0' 'a' | fold -w 100; sleep 600")
    assert not result.ok and result.limit == "output" and "output limit of 256 KiB" in result.reason, result
    assert (tmp_path / "build.log").stat().st_size <= 256 * 1024 + 200


def test_a_competition_file_sets_the_build_caps_and_languages(tmp_path: Path) -> None:
    file = tmp_path / "c.toml"
    file.write_text('[build]\nlanguages = ["go", "cpp"]\nwall_seconds = 120\ndisk_mb = 300\n')
    caps = load_competition(file).build
    assert caps.languages == ("go", "c++") and caps.wall_seconds == 120 and caps.disk_mb == 300
    assert caps.accepts("cpp") and caps.accepts("Go") and not caps.accepts("java")
    for bad in ('wall_seconds = 0', 'disk_mb = "a lot"', 'languages = ["cobol"]', 'network = true'):
        file.write_text(f"[build]\n{bad}\n")
        with pytest.raises(ValueError) as refused:
            load_competition(file)
        assert "build" in str(refused.value) and "\n" not in str(refused.value)
