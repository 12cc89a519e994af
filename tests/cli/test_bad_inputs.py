"""Issue 12, item 12 and issue 31 ("Bad input", item 9): every bad input to the CLI gets one
line on stderr and a non-zero exit (2: bad usage or input), never a traceback, and no file
is changed. The real `spite` command in a subprocess, one row of the table per bad input
(README "Bad input" has the same table)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from .conftest import spite

RANDOM = os.urandom(4096)


def _snapshot(directory: Path) -> dict[str, str]:
    """Every file's hash and every directory: a bad input writes nothing, creates no folder."""
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(directory.rglob("*"))}


@pytest.fixture
def workdir(tmp_path: Path, league: Path) -> Path:
    from spite_arena.store import ArenaStore
    from tournaments.store import Store

    ArenaStore(tmp_path / "arena").close()  # a good arena store
    (tmp_path / "damaged-arena").mkdir()
    (tmp_path / "damaged-arena" / "arena.db").write_bytes(b"SQLite format 3\x00" + RANDOM)
    (tmp_path / "tournament-arena").mkdir()
    Store(tmp_path / "tournament-arena" / "arena.db").close()  # a tournament's results store where arena.db goes
    shutil.copy(next((league / "replays").glob("*.jsonl.gz")), tmp_path / "game.jsonl.gz")
    (tmp_path / "c.toml").write_text('name = "c"\nhouse_bots = ["greedy"]\n')
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.toml").write_text('name = "b"\nversion = "1"\ncommand = ["{python}", "b.py"]\n')
    (tmp_path / "random.db").write_bytes(RANDOM)
    (tmp_path / "damaged.db").write_bytes(b"SQLite format 3\x00" + RANDOM)
    (tmp_path / "adir").mkdir()
    (tmp_path / "root-bot").mkdir()
    (tmp_path / "root-bot" / "bot.toml").write_text('name = "rooted"\nversion = "1"\ncommand = ["{python}", "x.py"]\n'
                                                    'workdir = "/"\n')
    (tmp_path / "t.toml").write_text('name = "t"\nrules = "standard"\nbots = ["greedy", "random"]\nseed = 1\n')
    return tmp_path


BAD_INPUTS: list[tuple[str, list[str]]] = [
    ("negative seed", ["play", "greedy", "random", "--seed", "-5"]),
    ("seed in float notation", ["play", "greedy", "random", "--seed", "1e26"]),
    ("seed above 2^64", ["play", "greedy", "random", "--seed", str(2**64)]),
    ("games out of range", ["play", "greedy", "random", "--games", "5000000000"]),
    ("zero games", ["play", "greedy", "random", "--games", "0"]),
    ("decision-ms zero", ["play", "greedy", "random", "--decision-ms", "0"]),
    ("unknown rules", ["play", "greedy", "random", "--rules", "nosuch"]),
    ("too many bots", ["play", "greedy", "random", "naive"]),
    ("unknown bot", ["play", "greedy", "no-such-bot"]),
    ("replay dir is a file", ["play", "greedy", "random", "--replay-dir", "t.toml"]),
    ("draw probability 2", ["leaderboard", "--draw-probability", "2"]),
    ("sigma 0", ["leaderboard", "--sigma", "0"]),
    ("tau negative", ["leaderboard", "--tau", "-1"]),
    ("tournament file is a directory", ["tournament", "adir"]),
    ("tournament file missing", ["tournament", "nosuch.toml"]),
    ("parallel 0", ["tournament", "t.toml", "--parallel", "0"]),
    ("random --db for tournament", ["tournament", "t.toml", "--db", "random.db"]),
    ("damaged --db for tournament", ["tournament", "t.toml", "--db", "damaged.db"]),
    ("random --db for leaderboard", ["leaderboard", "--db", "random.db"]),
    ("damaged --db for leaderboard", ["leaderboard", "--db", "damaged.db"]),
    ("directory --db", ["leaderboard", "--db", "adir"]),
    ("missing --db", ["leaderboard", "--db", "nosuch.db"]),
    ("random --db for games", ["games", "--db", "random.db"]),
    ("random --db for seed reveal", ["seed", "reveal", "--db", "random.db"]),
    ("games --result without --bot", ["games", "--result", "lost"]),
    ("admin token file is a directory", ["referee", "--admin-token-file", "adir"]),
    ("listen on no port", ["referee", "--listen", "127.0.0.1:notaport"]),
    ("listen on a port out of range", ["referee", "--listen", "127.0.0.1:70000"]),
    ("check-bot on a manifest with workdir /", ["check-bot", "root-bot/bot.toml"]),
    ("check-bot on nothing", ["check-bot", "nosuch-bot"]),
    ("check-bot games 0", ["check-bot", "greedy", "--games", "0"]),
    ("replay of a directory", ["replay", "adir"]),
    ("replay of a random file", ["replay", "random.db"]),
    ("replay of a missing file", ["replay", "nosuch.jsonl.gz"]),
    # issue 31, "Bad input": each was exit 3 (internal error), or accepted
    ("replay dir under /proc", ["play", "greedy", "random", "--replay-dir", "/proc/spite-replays"]),
    ("log dir under /proc", ["play", "greedy", "random", "--log-dir", "/proc/spite-logs"]),
    ("tournament --scheduler not a url", ["tournament", "t.toml", "--scheduler", "not-a-url"]),
    ("serve --scheduler not a url", ["serve", "c.toml", "--scheduler", "not-a-url"]),
    ("replay --html a directory", ["replay", "game.jsonl.gz", "--html", "adir"]),
    ("replay --html in a missing directory", ["replay", "game.jsonl.gz", "--html", "nodir/game.html"]),
    ("serve on a damaged arena.db", ["serve", "c.toml", "--data", "damaged-arena", "--web", "127.0.0.1:0",
                                     "--grpc", "127.0.0.1:0"]),
    ("serve on a tournament store as arena.db", ["serve", "c.toml", "--data", "tournament-arena",
                                                 "--web", "127.0.0.1:0", "--grpc", "127.0.0.1:0"]),
    ("serve --data a file", ["serve", "c.toml", "--data", "t.toml", "--web", "127.0.0.1:0", "--grpc", "127.0.0.1:0"]),
    ("add-entrant --data a file", ["arena", "add-entrant", "bob", "--data", "t.toml"]),
    ("add-entrant on a damaged store", ["arena", "add-entrant", "bob", "--data", "damaged-arena"]),
    ("add-entrant on a tournament store", ["arena", "add-entrant", "bob", "--data", "tournament-arena"]),
    ("disable 2**70", ["arena", "disable", str(2**70), "--reason", "x", "--data", "arena"]),
    ("disable 0", ["arena", "disable", "0", "--reason", "x", "--data", "arena"]),
    ("status on a damaged store", ["arena", "status", "--data", "damaged-arena"]),
    ("status on a tournament store", ["arena", "status", "--data", "tournament-arena"]),
    ("pause with a missing --data", ["arena", "pause", "--data", "nosuch-data"]),
    ("status with a missing --data", ["arena", "status", "--data", "nosuch-data"]),
    ("incidents with a missing --data", ["arena", "incidents", "--data", "nosuch-data"]),
    ("incidents --limit -1", ["arena", "incidents", "--limit", "-1", "--data", "arena"]),
    ("submit --timeout -1", ["submit", "bot", "--server", "http://127.0.0.1:9", "--key-file", "t.toml",
                             "--timeout", "-1"]),
    ("submit with no key", ["submit", "bot", "--server", "http://127.0.0.1:9"]),
    ("submit --key-file missing", ["submit", "bot", "--server", "http://127.0.0.1:9", "--key-file", "nosuch.key"]),
    ("referee --grace -1", ["referee", "--grace", "-1", "--listen", "127.0.0.1:0"]),
    ("web on a damaged store", ["web", "--db", "damaged.db", "--listen", "127.0.0.1:0"]),
    ("web on a random file", ["web", "--db", "random.db", "--listen", "127.0.0.1:0"]),
    ("web on an arena store", ["web", "--db", "arena/arena.db", "--listen", "127.0.0.1:0"]),
    ("leaderboard on an arena store", ["leaderboard", "--db", "arena/arena.db"]),
    ("tournament into an arena store", ["tournament", "t.toml", "--db", "arena/arena.db"]),
    ("web on a missing store", ["web", "--db", "nodir/spite.db", "--listen", "127.0.0.1:0"]),
    ("tournament --resume with nothing to resume", ["tournament", "t.toml", "--db", "fresh.db", "--resume"]),
    ("tournament --db in a missing directory", ["tournament", "t.toml", "--db", "nodir/spite.db"]),
    ("seed commit --out in a missing directory", ["seed", "commit", "--out", "nodir/seed.secret"]),
    ("seed commit --out a directory", ["seed", "commit", "--out", "adir"]),
    ("unknown command", ["nosuch"]),
    ("unknown option", ["play", "greedy", "random", "--nosuch"]),
    ("no command", []),
]


@pytest.mark.parametrize("args", [row[1] for row in BAD_INPUTS], ids=[row[0] for row in BAD_INPUTS])
def test_a_bad_input_is_one_line_exit_2_no_traceback_no_file_changed(workdir: Path, args: list[str]) -> None:
    before = _snapshot(workdir)
    run = spite(*args, cwd=workdir, timeout=120, env={"SPITE_BOT_KEY": ""})
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert len(lines) == 1, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert lines[0].startswith("spite")
    assert _snapshot(workdir) == before  # nothing written, nothing changed (the random store untouched)


def test_a_port_in_use_is_one_line(workdir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = spite("referee", "--listen", f"127.0.0.1:{port}", cwd=workdir, timeout=60)
    assert run.returncode == 2 and run.stderr.strip().splitlines() == [
        f"spite referee: --listen 127.0.0.1:{port}: port {port} is in use (another referee?); choose another port"]


def test_a_tournament_missing_from_the_store_is_named_with_no(league: Path) -> None:
    run = spite("leaderboard", "--db", "league.db", "--tournament", "nosuch", cwd=league)
    assert run.returncode == 2
    assert run.stderr.strip() == "spite leaderboard: no tournament 'nosuch' in league.db"


def _held_port() -> socket.socket:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    return taken


BUSY: list[tuple[str, list[str], str]] = [
    ("serve --grpc", ["serve", "c.toml", "--data", "fresh-data", "--web", "127.0.0.1:0", "--grpc", "127.0.0.1:{port}"],
     "spite serve: --grpc 127.0.0.1:{port}: port {port} is in use (another spite serve?); choose another port"),
    ("serve --web", ["serve", "c.toml", "--data", "fresh-data", "--web", "127.0.0.1:{port}", "--grpc", "127.0.0.1:0"],
     "spite serve: --web 127.0.0.1:{port}: port {port} is in use (another spite serve?); choose another port"),
    ("web --listen", ["web", "--db", "ok.db", "--listen", "127.0.0.1:{port}"],
     "spite web: --listen 127.0.0.1:{port}: port {port} is in use (another spite web?); choose another port"),
    ("referee --listen", ["referee", "--listen", "127.0.0.1:{port}"],
     "spite referee: --listen 127.0.0.1:{port}: port {port} is in use (another referee?); choose another port"),
]


@pytest.mark.parametrize("args,expected", [row[1:] for row in BUSY], ids=[row[0] for row in BUSY])
def test_a_busy_port_is_one_line_and_nothing_is_written(workdir: Path, league: Path, args: list[str],
                                                         expected: str) -> None:
    shutil.copy(league / "league.db", workdir / "ok.db")
    before = _snapshot(workdir)
    with _held_port() as taken:
        port = taken.getsockname()[1]
        run = spite(*[a.format(port=port) for a in args], cwd=workdir, timeout=60)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert run.stderr.strip().splitlines() == [expected.format(port=port)]
    assert _snapshot(workdir) == before  # no data directory made, no store opened


def test_a_second_spite_serve_cannot_share_the_grpc_port_of_a_running_one(workdir: Path) -> None:
    """Issue 31.9: gRPC listens with SO_REUSEPORT by default, so a second `spite serve` on the
    same port started silently and took half the joins. A server that shares its port (as
    every spite serve did) holds it here; the next one is refused, and says why."""
    import grpc

    async def refused() -> subprocess.CompletedProcess[str]:
        server = grpc.aio.server(options=[("grpc.so_reuseport", 1)])
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            return await asyncio.to_thread(spite, "serve", "c.toml", "--data", "second", "--web", "127.0.0.1:0",
                                           "--grpc", f"127.0.0.1:{port}", cwd=workdir, timeout=60)
        finally:
            await server.stop(None)

    run = asyncio.run(refused())
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert len(run.stderr.strip().splitlines()) == 1 and "is in use (another spite serve?)" in run.stderr
    assert not (workdir / "second").exists()


def test_the_referees_grpc_servers_never_share_a_port() -> None:
    """The same at the gRPC level, past the CLI's probe (a port taken between the probe and the
    bind): a second referee on a referee's port fails to bind instead of sharing it."""
    from referee.transports.server import start_referee

    async def second_bind() -> str:
        first = await start_referee("127.0.0.1:0")
        try:
            second = await start_referee(first.address)
        except RuntimeError as error:
            return f"refused: {error}"
        else:
            await second.stop(0)
            return "shared"
        finally:
            await first.stop(0)

    assert asyncio.run(second_bind()).startswith("refused")


def test_submit_takes_the_key_from_the_environment_or_a_file_and_warns_on_key(tmp_path: Path) -> None:
    """Issue 31.14: a key on the command line is in `ps` for every user of the machine."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.toml").write_text('name = "b"\nversion = "1"\ncommand = ["{python}", "b.py"]\n')
    (tmp_path / "key").write_text("sk_from_a_file\n")
    unreachable = ["submit", "bot", "--server", "http://127.0.0.1:9"]  # nothing listens on port 9 (discard)
    warned = spite(*unreachable, "--key", "sk_on_the_command_line", cwd=tmp_path, timeout=60, env={"SPITE_BOT_KEY": ""})
    lines = warned.stderr.strip().splitlines()
    assert warned.returncode == 2 and len(lines) == 2, warned.stderr
    assert lines[0] == ("spite submit: warning: --key shows your key to every user of this machine (ps); "
                        "set SPITE_BOT_KEY or use --key-file FILE instead")
    assert lines[1].startswith("spite submit: cannot reach http://127.0.0.1:9")
    for quiet in (spite(*unreachable, cwd=tmp_path, timeout=60, env={"SPITE_BOT_KEY": "sk_in_the_environment"}),
                  spite(*unreachable, "--key-file", "key", cwd=tmp_path, timeout=60, env={"SPITE_BOT_KEY": ""})):
        assert quiet.returncode == 2 and len(quiet.stderr.strip().splitlines()) == 1, quiet.stderr
        assert "cannot reach" in quiet.stderr and "sk_" not in quiet.stderr + quiet.stdout
    twice = spite(*unreachable, "--key", "sk_x", cwd=tmp_path, timeout=60, env={"SPITE_BOT_KEY": "sk_y"})
    assert twice.returncode == 2
    assert twice.stderr.strip() == "spite submit: give the key once: SPITE_BOT_KEY is set, drop --key"


def test_submit_refuses_a_timeout_out_of_range_before_it_uploads(tmp_path: Path) -> None:
    """`--timeout -1` uploaded anyway and then gave up at once (exit 1): now nothing is sent."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.toml").write_text('name = "b"\nversion = "1"\ncommand = ["{python}", "b.py"]\n')
    run = spite("submit", "bot", "--server", "http://127.0.0.1:9", "--timeout", "-1", cwd=tmp_path, timeout=60,
                env={"SPITE_BOT_KEY": "sk_x"})
    assert run.returncode == 2
    assert run.stderr.strip() == ("spite submit: argument --timeout: -1 is out of range: --timeout must be 1..86,400 "
                                  "(see spite submit --help)")
