"""Issue 31, item 1: a manifest's ``[env]`` never reaches a process that runs as the organizer.

The reproduction: ``[env] LD_PRELOAD = "./evil.so"`` beside a prebuilt ``evil.so`` in a bot's
folder was loaded by the supervisor and by ``bwrap``, both uid 0 on the host, before the bot
dropped to its own uid, under ``spite play``, ``spite tournament`` and an upload. Here the
shared object is real (compiled with the machine's C compiler): its constructor writes one
line per process that loads it -- its effective uid, its PID namespace and its command line --
to the bot's log (stderr) and to a file outside any sandbox.

Two defences, each tested on its own: a manifest may not set the loader's, interpreters'
start-up or the referee's variables (one line, exit 2, nothing started), and, whatever
environment a bot is given, every process that starts it runs with the launcher's fixed
environment: the bot's own travels in a pipe to the last step, after the uid is dropped.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from referee.processes.launcher import BotProcess
from referee.processes.manifest import BotManifest, ManifestError, load_manifest
from referee.sandbox import Isolation, descendants, detect
from referee.sandbox.environment import LAUNCH_ENVIRONMENT, MAX_VARIABLES, check_manifest_env

from ..cli.conftest import spite
from .conftest import FAST, good, run_match
from .test_sandbox import require_bubblewrap, unavailable

REPO = Path(__file__).resolve().parents[2]

EVIL_C = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void) {
    char ns[64] = "", cmd[256] = "", line[512];
    ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    if (n > 0) ns[n] = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY);
    if (fd >= 0) {
        n = read(fd, cmd, sizeof cmd - 1);
        close(fd);
        for (ssize_t i = 0; i < n; i++) if (cmd[i] == 0) cmd[i] = ' ';
        if (n > 0) cmd[n] = 0;
    }
    int len = snprintf(line, sizeof line, "EVIL euid=%d pidns=%s cmd=%s\n", (int)geteuid(), ns, cmd);
    if (write(2, line, len) < 0) {}
    const char *out = getenv("EVIL_OUT");
    if (out) { FILE *f = fopen(out, "a"); if (f) { fputs(line, f); fclose(f); } }
}
"""

HOST_PIDNS = os.readlink("/proc/self/ns/pid")


@pytest.fixture(scope="module")
def preload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``evil.so``, compiled once for the module."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        unavailable("no C compiler to build the preloaded object")
    folder = tmp_path_factory.mktemp("evil-so")
    (folder / "evil.c").write_text(EVIL_C)
    subprocess.run([str(compiler), "-shared", "-fPIC", "-o", str(folder / "evil.so"), str(folder / "evil.c")],
                   check=True, capture_output=True)
    return folder / "evil.so"


def evil_folder(root: Path, preload: Path, env_table: str = 'LD_PRELOAD = "./evil.so"\n') -> Path:
    """A greedy bot's folder with ``evil.so`` and a manifest whose ``[env]`` is ``env_table``;
    ``EVIL_OUT`` (a file on the host, writable by every uid) is where loads outside a sandbox show."""
    folder = root / "evil-bot"
    folder.mkdir()
    root.chmod(0o755)
    folder.chmod(0o755)
    shutil.copy(preload, folder / "evil.so")
    shutil.copy(REPO / "sample_bots" / "greedy" / "bot.py", folder / "bot.py")
    out = root / "outside"
    out.mkdir(mode=0o777)
    out.chmod(0o777)
    (folder / "bot.toml").write_text(
        'name = "evil"\nlanguage = "python"\ncommand = ["{python}", "bot.py"]\ntransport = "stdio"\n'
        f'stdio_format = "protobuf"\n[env]\n{env_table}EVIL_OUT = "{out / "marker"}"\n')
    return folder


def loads(*texts: str) -> list[str]:
    return [line for text in texts for line in text.splitlines() if line.startswith("EVIL ")]


def outside(folder: Path) -> str:
    marker = folder.parent / "outside" / "marker"
    return marker.read_text() if marker.exists() else ""


# -- a manifest may not set them ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "GCONV_PATH", "GLIBC_TUNABLES",
                                  "MALLOC_CHECK_", "LOCPATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
                                  "PERL5OPT", "PERL5LIB", "NODE_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
                                  "BASH_ENV", "HOME", "SPITE_ADDRESS", "SPITE_TOKEN_FILE", "SPITE_STDIO"])
def test_a_manifest_may_not_set_the_loaders_interpreters_or_referees_variables(name: str) -> None:
    problem = check_manifest_env({name: "x"})
    assert name in problem and "docs/security.md" in problem and "\n" not in problem


@pytest.mark.parametrize("table", [{"1BAD": "x"}, {"A-B": "x"}, {"": "x"}, {"A": "x\0y"}, {"A": "x" * 5000},
                                   {f"V{i}": "x" for i in range(MAX_VARIABLES + 1)},
                                   {f"V{i}": "x" * 4000 for i in range(10)}, {"A": 1}])
def test_a_manifests_env_has_names_sizes_and_a_count_in_range(table: dict[str, object]) -> None:
    assert check_manifest_env(table)


def test_ordinary_variables_are_allowed() -> None:
    assert check_manifest_env({"GOMAXPROCS": "1", "SPITE_SAMPLER_MS": "100", "RUST_BACKTRACE": "1",
                               "MY_SETTING": "a=b c"}) == ""


def test_loading_a_manifest_that_preloads_is_refused_with_one_line(tmp_path: Path, preload: Path) -> None:
    folder = evil_folder(tmp_path, preload)
    with pytest.raises(ManifestError) as refused:
        load_manifest(folder / "bot.toml")
    assert "LD_PRELOAD" in str(refused.value) and "\n" not in str(refused.value)


def test_spite_play_refuses_it_and_starts_nothing(tmp_path: Path, preload: Path) -> None:
    folder = evil_folder(tmp_path, preload)
    done = spite("play", str(folder / "bot.toml"), "greedy", "--no-replays", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "LD_PRELOAD" in done.stderr and "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert outside(folder) == ""


def test_spite_tournament_refuses_it_and_starts_nothing(tmp_path: Path, preload: Path) -> None:
    folder = evil_folder(tmp_path, preload, 'PYTHONSTARTUP = "evil.py"\nLD_PRELOAD = "./evil.so"\n')
    league = tmp_path / "league.toml"
    league.write_text(f'name = "evil"\nrules = "standard"\nbots = ["{folder / "bot.toml"}", "greedy"]\nseed = 1\n')
    done = spite("tournament", str(league), "--db", str(tmp_path / "t.db"), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "PYTHONSTARTUP" in done.stderr and "Traceback" not in done.stderr
    assert outside(folder) == ""


def test_an_upload_that_preloads_is_refused_before_any_check(tmp_path: Path, preload: Path) -> None:
    from starlette.testclient import TestClient

    from spite_arena.config import load_competition
    from spite_arena.service import Service
    from spite_arena.web import create_app

    require_bubblewrap()  # uploads are refused (503) on a machine that cannot sandbox them
    folder = evil_folder(tmp_path, preload)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name in ("bot.toml", "bot.py", "evil.so"):
            archive.add(folder / name, arcname=name)
    competition = tmp_path / "c.toml"
    competition.write_text('name = "c"\nhouse_bots = ["greedy"]\n')
    service = Service(load_competition(competition), tmp_path / "data")
    key = service.store.add_entrant("mallory")
    with TestClient(create_app(service), raise_server_exceptions=False) as client:
        answer = client.post("/api/submit", content=buffer.getvalue(), headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 422 and "LD_PRELOAD" in answer.json()["error"], answer.text
    assert outside(folder) == ""


# -- whatever a bot is given, the processes that start it never see it ---------------------------------

def _preloading(folder: Path) -> BotManifest:
    """The evil bot as a manifest object, past the manifest's own refusal: what the launcher
    does with an environment that reached it anyway."""
    out = folder.parent / "outside" / "marker"
    return BotManifest(name="evil", command=(sys.executable, "bot.py"), workdir=folder, language="python",
                       transport="stdio", stdio_format="protobuf",
                       env={"LD_PRELOAD": str(folder / "evil.so"), "EVIL_OUT": str(out)})


@pytest.mark.parametrize("mode", ["bubblewrap", "insecure"])
def test_a_preload_runs_in_the_bot_alone_never_in_its_supervisor_or_sandbox(
        tmp_path: Path, preload: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if mode == "bubblewrap":
        require_bubblewrap()
    else:
        monkeypatch.setenv("SPITE_SANDBOX", "insecure")
        detect.cache_clear()
    try:
        folder = evil_folder(tmp_path, preload)
        result = run_match([_preloading(folder), good()], log_dir=tmp_path / "logs", time_control=FAST)
    finally:
        detect.cache_clear()
    assert result.exits[0].sandbox == mode
    log = Path(result.logs[0] or "").read_text(errors="replace")
    lines = loads(log, outside(folder))
    assert any("bot.py" in line for line in lines), log  # the bot itself got its environment
    launchers = [line for line in lines if "supervisor.py" in line or "bwrap" in line]
    assert launchers == [], launchers
    if mode == "bubblewrap":  # nothing outside the sandbox loaded it: not one line from the host's PID namespace
        assert outside(folder) == "" and all(HOST_PIDNS not in line for line in lines), lines
    if "runs as the organizer's user" not in log:  # the bot had a uid of its own: nothing loaded it as root
        assert all("euid=0 " not in line for line in lines), lines


def test_the_supervisor_and_bubblewrap_run_with_the_fixed_environment(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    env = BotProcess.clean_env({"BOT_MARK": "only-the-bot", "HOME": str(home)})

    async def run() -> tuple[dict[str, str], list[dict[str, str]]]:
        process = BotProcess("env", sleeper, tmp_path, env, None, isolation=Isolation(home=home))
        await process.start()
        try:
            assert process.pid is not None
            found: list[dict[str, str]] = []
            for _ in range(400):  # until the bot itself (the deepest process) has started
                found = [_environ(pid) for pid in descendants(process.pid)]
                if any(e.get("BOT_MARK") for e in found):
                    break
                await asyncio.sleep(0.05)
            return _environ(process.pid), found
        finally:
            await process.stop(grace=0)

    supervisor, below = asyncio.run(run())
    assert supervisor == dict(LAUNCH_ENVIRONMENT)
    bots = [e for e in below if e.get("BOT_MARK") == "only-the-bot"]
    assert bots and bots[0]["HOME"] == str(home)
    assert all(e == dict(LAUNCH_ENVIRONMENT) for e in below if "BOT_MARK" not in e), below


def _environ(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    return dict(entry.decode(errors="replace").partition("=")[::2] for entry in raw.split(b"\0") if b"=" in entry)
