"""Source uploads, end to end (issue 26, items 1 and 5): for each language a new entrant
copies the kit's sample bot as its README says (the SDK and the dependencies inside the
folder: nothing is fetched on the server, whose builds have no network), uploads the source
with ``spite submit`` to a real ``spite serve``, and sees it built in the sandbox, checked
and rated. A hostile build beside them is refused with one line while the others go on.

One server for the module (its house bot and the entrants' bots play each other). A
toolchain missing on this machine skips its language with the reason; under ``CI=true`` it
fails (tests/languages/common.py). Cold builds on two busy cores take minutes: slow.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests.languages.common import require, unavailable

from .conftest import REPO, Arena, running_arena


pytestmark = pytest.mark.slow

COMPETITION = """
name = "source-uploads"
rules = "standard"
house_bots = ["greedy"]
parallel = 2
placement_games = 2

[time_control]
decision_ms = 1000
bank_ms = 8000
connect_ms = 20000

[limits]
upload_mb = 100
unpacked_mb = 400
files = 10000
builds_per_hour = 20
requests_per_minute = 10000
bots = 5

[build]
languages = ["python", "go", "c++", "rust"]
wall_seconds = 3000                 # cold builds on a loaded two-core machine
cpu_seconds = 3600
memory_mb = 2048
disk_mb = 1500
"""
SUBMIT_TIMEOUT_S = "3400"


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    from referee.sandbox import detect

    if not detect().isolated:
        unavailable(f"no sandbox here: {detect().reason}")
    with running_arena(tmp_path_factory.mktemp("arena"), COMPETITION) as arena:
        yield arena


def _copy(source: Path, dest: Path) -> None:
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("build", "target", "node_modules", "dist",
                                                                 "__pycache__"))


def python_entrant(dest: Path) -> None:
    """sdk/python/README.md: the bot's folder alone (the server has the SDK)."""
    _copy(REPO / "sample_bots" / "greedy", dest)


def cpp_entrant(dest: Path) -> None:
    """sdk/cpp/README.md: the SDK copied into ./spite, which the CMakeLists picks up."""
    require("cmake", "CMake")
    require("g++", "a C++ compiler")
    _copy(REPO / "sample_bots" / "cpp-greedy", dest)
    _copy(REPO / "sdk" / "cpp", dest / "spite")
    shutil.rmtree(dest / "spite" / "tests")


def go_entrant(dest: Path) -> None:
    """sdk/go/README.md: the SDK copied into ./spite-sdk, the replace directive pointed at it,
    and ``go mod vendor`` (from this machine's module cache: offline)."""
    go = require("go", "Go")
    _copy(REPO / "sample_bots" / "go-greedy", dest)
    _copy(REPO / "sdk" / "go", dest / "spite-sdk")
    mod = dest / "go.mod"
    mod.write_text(mod.read_text().replace("=> ../../sdk/go", "=> ./spite-sdk"))
    vendored = subprocess.run([go, "mod", "vendor"], cwd=dest, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off"})
    if vendored.returncode != 0:
        unavailable(f"go mod vendor needs the modules in this machine's cache: {vendored.stderr.strip()[-300:]}")


ENTRANTS: dict[str, Callable[[Path], None]] = {"python": python_entrant, "cpp": cpp_entrant, "go": go_entrant}


def _submit(arena: Arena, folder: Path, key: str) -> dict[str, object]:
    submitted = arena.spite("submit", str(folder), "--server", arena.url, "--json", "--timeout", SUBMIT_TIMEOUT_S,
                            env={"SPITE_BOT_KEY": key}, timeout=float(SUBMIT_TIMEOUT_S) + 60)
    assert submitted.stdout.strip(), submitted.stderr
    verdict: dict[str, object] = json.loads(submitted.stdout)
    verdict["exit"] = submitted.returncode
    return verdict


@pytest.mark.parametrize("language", sorted(ENTRANTS))
def test_a_kit_sample_uploaded_as_source_is_built_checked_and_rated(arena: Arena, tmp_path: Path,
                                                                     language: str) -> None:
    folder = tmp_path / f"my-{language}-bot"
    ENTRANTS[language](folder)
    key = arena.add_entrant(f"new-{language}")
    verdict = _submit(arena, folder, key)
    checks = [str(line) for line in verdict["checks"]]  # type: ignore[attr-defined]
    assert verdict["exit"] == 0 and verdict["status"] == "active", json.dumps(verdict, indent=1)
    manifest = (folder / "bot.toml").read_text()
    if "\nbuild = " in manifest:
        assert checks[0].startswith("PASS  build"), checks
        assert str(arena.data) not in "\n".join(checks), "no server path in what the entrant reads"
        status, logs = arena.get(f"/api/me/versions/{verdict['id']}/logs", key)
        assert status == 200 and "==> build.log <==" in logs
    assert any(line.startswith("PASS  handshake") for line in checks), checks

    def rated() -> bool:
        board = arena.get("/api/leaderboard")[1]
        return any(r["entrant"] == f"new-{language}" and r["games"] > 0 for r in board)

    arena.wait_for(f"the {language} bot's first rated games", rated, timeout=900)
    row = next(r for r in arena.get("/api/leaderboard")[1] if r["entrant"] == f"new-{language}")
    assert isinstance(row["rating"], float) and row["kind"] == "upload"


def test_a_hostile_build_is_refused_with_one_line_and_the_server_goes_on(arena: Arena, tmp_path: Path) -> None:
    """A build that forks without end and one that tries to read the server's data: each is
    refused with one line, its upload's files are gone, nothing of it runs, and the server
    still answers and checks another entrant's upload."""
    key = arena.add_entrant("mallory")
    bomb = tmp_path / "bomb"
    bomb.mkdir()
    (bomb / "bot.toml").write_text('name = "bomb"\nversion = "1"\nlanguage = "c++"\ncommand = ["bot"]\n'
                                   'transport = "stdio"\nbuild = "f() { f | f & }; f; sleep 3000"\n')
    verdict = _submit(arena, bomb, key)
    assert verdict["exit"] == 1 and verdict["status"] == "refused", verdict
    reason = str(verdict["reason"])
    assert "\n" not in reason and reason.startswith("failed the build check: the build hit the process limit"), reason
    assert not list((arena.data / "uploads" / "mallory").glob("v*/bot.toml")), "a failed build's files are deleted"
    assert not [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p).startswith(b"sleep\x003000")]

    spy = tmp_path / "spy"
    spy.mkdir()
    (spy / "bot.toml").write_text('name = "spy"\nversion = "1"\nlanguage = "go"\ncommand = ["bot"]\n'
                                  f'transport = "stdio"\nbuild = "cat {arena.data}/*.db {arena.data}/*token*"\n')
    verdict = _submit(arena, spy, key)
    assert verdict["status"] == "refused" and "No such file" in str(verdict["reason"]), verdict
    assert str(arena.data) not in json.dumps(verdict), "the server's paths are DATA to an entrant"

    java = tmp_path / "java"
    java.mkdir()
    (java / "bot.toml").write_text('name = "j"\nversion = "1"\nlanguage = "java"\ncommand = ["java"]\n'
                                   'build = "javac Bot.java"\n')
    verdict = _submit(arena, java, key)
    assert verdict["status"] == "refused" and re.search(r"builds python, go, c\+\+, rust, not java",
                                                        str(verdict["reason"])), verdict

    assert arena.get("/api/leaderboard")[0] == 200
    good = tmp_path / "good"
    python_entrant(good)
    assert _submit(arena, good, arena.add_entrant("after-mallory"))["status"] == "active"


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
