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
languages = ["python", "go", "c++", "rust", "typescript", "java"]
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


def rust_entrant(dest: Path) -> None:
    """sdk/rust/README.md: the SDK and the protocol in ./spite (its build script reads
    ../../proto), ``cargo vendor`` into ./vendor (on the entrant's machine, with crates.io at
    hand: every platform's crates, which a local build never fetches), and the build command
    that takes crates.io from there."""
    cargo = require("cargo", "Rust (cargo)")
    _copy(REPO / "sample_bots" / "rust-greedy", dest)
    _copy(REPO / "sdk" / "rust", dest / "spite" / "sdk" / "rust")
    _copy(REPO / "proto", dest / "spite" / "proto")
    cargo_toml = dest / "Cargo.toml"
    cargo_toml.write_text(cargo_toml.read_text().replace('path = "../../sdk/rust"', 'path = "spite/sdk/rust"'))
    vendored = subprocess.run([cargo, "vendor", "vendor"], cwd=dest, capture_output=True, text=True,
                              timeout=900)
    if vendored.returncode != 0:
        unavailable(f"cargo vendor needs crates.io or every crate in this machine's registry cache: "
                    f"{vendored.stderr.strip()[-300:]}")
    for crate in (dest / "vendor").iterdir():  # `spite submit` leaves dot-files out: a copy without the dot
        shutil.copy(crate / ".cargo-checksum.json", crate / "cargo-checksum.json")
    (dest / "build.sh").write_text(RUST_BUILD)
    manifest = dest / "bot.toml"
    manifest.write_text(manifest.read_text().replace('build = "cargo build --release --locked"',
                                                     'build = "sh build.sh"'))


RUST_BUILD = """#!/bin/sh
# The upload's build (sdk/rust/README.md): each vendored crate's .cargo-checksum.json back
# from its copy (its file list emptied: spite submit left the crates' dot-files out), then
# cargo from vendor/, offline.
set -e
for crate in vendor/*/; do
  sed 's/"files":{[^}]*}/"files":{}/' "$crate/cargo-checksum.json" > "$crate/.cargo-checksum.json"
done
exec cargo build --release --offline --config 'source.crates-io.replace-with="vendored"' \\
  --config 'source.vendored.directory="vendor"'
"""


def typescript_entrant(dest: Path) -> None:
    """sdk/typescript/README.md: the SDK, built, in ./spite-sdk (its ``dist/`` and lock file),
    the protocol in ./proto (the SDK loads the nearest one), the npm cache in ./npm-cache
    (``npm ci --cache ./npm-cache`` in both where there is a network; here, a copy of this
    machine's cache), and ``npm ci`` from that cache as the build."""
    npm = require("npm", "Node.js (npm)")
    sdk = dest.parent / "sdk-build"
    _copy(REPO / "sdk" / "typescript", sdk / "sdk" / "typescript")
    _copy(REPO / "proto", sdk / "proto")
    for step in (["ci", "--offline", "--no-audit", "--no-fund"], ["run", "build"]):
        done = subprocess.run([npm, *step], cwd=sdk / "sdk" / "typescript", capture_output=True, text=True,
                              timeout=900)
        if done.returncode != 0:
            unavailable(f"npm {step[0]} of the SDK needs its packages in this machine's npm cache: "
                        f"{done.stderr.strip()[-300:]}")
    _copy(REPO / "sample_bots" / "typescript-greedy", dest)
    _copy(REPO / "proto", dest / "proto")
    (dest / "spite-sdk").mkdir()
    for name in ("package.json", "package-lock.json", "dist"):
        source = sdk / "sdk" / "typescript" / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, dest / "spite-sdk" / name)
    for name in ("package.json", "package-lock.json"):
        path = dest / name
        path.write_text(path.read_text().replace("../../sdk/typescript", "spite-sdk"))
    package = json.loads((dest / "package.json").read_text())
    package["scripts"] = {"build": "tsc -p tsconfig.json"}
    (dest / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    # the SDK's locked dependencies, installed under it (npm's lock names them spite-sdk/node_modules/...)
    lock = json.loads((dest / "package-lock.json").read_text())
    sdk_lock = json.loads((dest / "spite-sdk" / "package-lock.json").read_text())
    for key, entry in sdk_lock["packages"].items():
        if key.startswith("node_modules/") and not entry.get("dev"):
            lock["packages"][f"spite-sdk/{key}"] = entry
    (dest / "package-lock.json").write_text(json.dumps(lock, indent=2) + "\n")
    cache = Path(os.environ.get("npm_config_cache") or Path.home() / ".npm")
    shutil.copytree(cache / "_cacache", dest / "npm-cache" / "_cacache")
    manifest = dest / "bot.toml"
    manifest.write_text(manifest.read_text().replace('build = "npm ci && npm run build"',
                                                     'build = "npm ci --cache ./npm-cache && npm run build"'))


def java_entrant(dest: Path) -> None:
    """sdk/java/README.md: the SDK and the protocol in ./spite, the reactor pointed at it, and
    an offline Maven repository in ./m2, filled by one local build of the copy (on the
    entrant's machine, with Maven Central at hand; started from this machine's ~/.m2 where
    there is one, so that little is fetched). The repository is the test's own: the kit's
    builds on the other worker write ~/.m2 meanwhile."""
    mvn = require("mvn", "Maven")
    require("javac", "a JDK")
    _copy(REPO / "sample_bots" / "java-greedy", dest)
    _copy(REPO / "sdk" / "java", dest / "spite" / "sdk" / "java")
    _copy(REPO / "proto", dest / "spite" / "proto")
    reactor = dest / "reactor.xml"
    reactor.write_text(reactor.read_text().replace("<module>../../sdk/java</module>",
                                                   "<module>spite/sdk/java</module>"))
    repository = Path.home() / ".m2" / "repository"
    if repository.is_dir():
        try:
            shutil.copytree(repository, dest / "m2", ignore=shutil.ignore_patterns("spite*", "org.spitearena*"))
        except shutil.Error:  # a file the kit's build moved meanwhile: the local build below fetches it
            pass
    local = dest.parent / f"{dest.name}-local-build"
    shutil.copytree(dest, local, ignore=shutil.ignore_patterns("m2"))
    built = subprocess.run([mvn, "-B", "-q", f"-Dmaven.repo.local={dest / 'm2'}", "-f", "reactor.xml", "package",
                            "-Dmaven.test.skip=true"], cwd=local, capture_output=True, text=True, timeout=1800)
    if built.returncode != 0:
        unavailable(f"the local build of the Java copy needs Maven Central or a full ~/.m2: "
                    f"{(built.stdout + built.stderr).strip()[-300:]}")
    shutil.rmtree(local)
    shutil.rmtree(dest / "m2" / "org" / "spitearena", ignore_errors=True)  # the SDK is built from source
    manifest = dest / "bot.toml"
    manifest.write_text(manifest.read_text().replace(
        'build = "mvn -B -q -f reactor.xml package -Dmaven.test.skip=true"',
        'build = "mvn -o -B -q -Dmaven.repo.local=m2 -f reactor.xml package -Dmaven.test.skip=true"'))


ENTRANTS: dict[str, Callable[[Path], None]] = {"python": python_entrant, "cpp": cpp_entrant, "go": go_entrant,
                                               "rust": rust_entrant, "typescript": typescript_entrant,
                                               "java": java_entrant}


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

    plain_c = tmp_path / "plain-c"
    plain_c.mkdir()
    (plain_c / "bot.toml").write_text('name = "c"\nversion = "1"\nlanguage = "c"\ncommand = ["bot"]\n'
                                      'build = "cc -o bot bot.c"\n')
    verdict = _submit(arena, plain_c, key)
    assert verdict["status"] == "refused" and re.search(
        r"builds python, go, c\+\+, rust, typescript, java, not c;", str(verdict["reason"])), verdict

    assert arena.get("/api/leaderboard")[0] == 200
    good = tmp_path / "good"
    python_entrant(good)
    assert _submit(arena, good, arena.add_entrant("after-mallory"))["status"] == "active"


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
