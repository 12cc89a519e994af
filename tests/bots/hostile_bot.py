"""A bot that misbehaves on purpose, one way per mode, for the referee's hostile-bot tests.

    python hostile_bot.py MODE [--marker=TEXT]   (address from SPITE_ADDRESS, token from SPITE_TOKEN or
    SPITE_TOKEN_FILE)

It speaks the wire protocol with the raw generated stubs (no SDK), so it can send
what no SDK would. In "good" mode, and between its misdeeds, it plays the first
legal play (else the last legal move). It writes what the referee told it to stderr.
Extra arguments (a ``--marker``) are ignored: tests put one on the command line, which
every child inherits, to find any process of the bot left after the match in /proc.

Sandbox probes, reported on stderr for the test to read: ``network`` tries the TCP
addresses in SPITE_PROBE_TCP (``host:port,...``) before connecting; ``snoop`` (at its
third decision) reads the files in SPITE_PROBE_FILES (``,``-separated), the other
seats' homes next to its own, and every /proc/*/environ for another seat's token;
``plant`` writes its token to $HOME/secret.txt, then plays well; ``steal`` hunts the other
seats' tokens (environment, token file, inherited pipe) and takes their seats; ``kill``
SIGKILLs the other bots it can see; ``escape`` leaves its cgroups and double-forks a daemon;
``disk`` writes 4 MiB files in HOME, /tmp, /var/tmp, /dev/shm and its workdir; ``ponder`` starts a child
that spins all match long and reports at each game over its CPU time, in all and in the waits between
this bot's answer and its next decision; ``slow`` waits SPITE_SLOW_MS (default 10) ms, idle, before each answer.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time
from pathlib import Path

import grpc

from spite.v1 import referee_pb2 as rpb
from spite.v1 import referee_pb2_grpc

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"


def choose(decision: rpb.DecisionRequest) -> int:
    moves = decision.observation.legal_moves
    for index, move in enumerate(moves):
        if move.kind == 1:
            return index
    return len(moves) - 1


def action(decision_id: int, index: int, debug: str = "") -> rpb.BotMessage:
    return rpb.BotMessage(action=rpb.Action(decision_id=decision_id, move_index=index, debug=debug))


async def connect(address: str, token: str) -> grpc.aio.StreamStreamCall:
    channel = grpc.aio.insecure_channel(address, options=[("grpc.max_send_message_length", 1 << 22)])
    call = referee_pb2_grpc.RefereeStub(channel).Play()
    await call.write(rpb.BotMessage(hello=rpb.Hello(token=token, name=f"hostile-{MODE}", version="1",
                                                    protocol_version=1)))
    return call


def own_token() -> str:
    """This seat's token: ``SPITE_TOKEN`` (a bot started by hand), else the file or inherited
    pipe named by ``SPITE_TOKEN_FILE`` (read once, then the same value from a cache)."""
    global _TOKEN
    if _TOKEN is None:
        _TOKEN = os.environ.get("SPITE_TOKEN", "").strip()
        if not _TOKEN and os.environ.get("SPITE_TOKEN_FILE"):
            _TOKEN = Path(os.environ["SPITE_TOKEN_FILE"]).read_text().strip()
    return _TOKEN


_TOKEN: str | None = None


def cpu_of(pid: int) -> float:
    """CPU seconds ``pid`` has run: /proc/PID/schedstat (nanoseconds), else stat (clock ticks)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def probe_network() -> None:
    for target in filter(None, os.environ.get("SPITE_PROBE_TCP", "").split(",")):
        host, _, port = target.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=2):
                say(f"tcp {target}: connected")
        except OSError as error:
            say(f"tcp {target}: failed ({error})")


def probe_files() -> None:
    home = Path(os.environ.get("HOME", "/nonexistent"))
    targets = [Path(p) for p in os.environ.get("SPITE_PROBE_FILES", "").split(",") if p]
    try:
        say(f"list {home.parent}: {sorted(p.name for p in home.parent.iterdir())}")
    except OSError as error:
        say(f"list {home.parent}: failed ({error})")
    targets += [home.parent / f"seat{n}" / "secret.txt" for n in range(4) if home.parent / f"seat{n}" != home]
    for path in targets:
        try:
            say(f"read {path}: got {path.read_text()[:40]!r}")
        except OSError as error:
            say(f"read {path}: failed ({error.strerror})")
    own = own_token()
    readable = others = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        readable += 1
        for item in environ:
            value = item[len(b"SPITE_TOKEN="):].decode(errors="replace")
            if item.startswith(b"SPITE_TOKEN=") and value != own:
                others += 1
                say(f"environ {entry.name}: another seat's token {value[:12]}")
    say(f"environ: {readable} readable, {others} with another seat's token")


def same_match_bots() -> list[int]:
    """Other bot processes of this match that this bot can see: their HOME sits next to its own
    (the launcher gives each seat a home in one scratch directory). Never strays further, so
    a test run never touches other processes on the machine."""
    home = os.environ.get("HOME", "")
    parent = os.path.dirname(home).encode() + b"/"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        homes = [e[len(b"HOME="):] for e in environ if e.startswith(b"HOME=")]
        if homes and homes[0].startswith(parent) and homes[0] != home.encode():
            found.append(int(entry.name))
    return found


def steal_tokens() -> set[str]:
    """The other seats' tokens, by every route a process of the same user or root has: their
    environment (SPITE_TOKEN), the file their SPITE_TOKEN_FILE names, the pipes they hold open."""
    own = own_token()
    found: set[str] = set()
    deadline = time.monotonic() + 2.0  # the other seat starts just after this one
    while time.monotonic() < deadline:
        for pid in same_match_bots():
            try:
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            for item in environ:
                if item.startswith(b"SPITE_TOKEN="):
                    found.add(item[len(b"SPITE_TOKEN="):].decode(errors="replace"))
                if item.startswith(b"SPITE_TOKEN_FILE="):
                    name = item[len(b"SPITE_TOKEN_FILE="):].decode(errors="replace")
                    number = name.rsplit("/", 1)[-1]
                    for path in (name, f"/proc/{pid}/fd/{number}"):
                        try:
                            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                            try:
                                found.add(os.read(fd, 200).decode(errors="replace").strip())
                            finally:
                                os.close(fd)
                        except OSError:
                            continue
        time.sleep(0.05)
    return {t for t in found if t and t != own}


def kill_others() -> None:
    """SIGKILL every other bot process of this match it can see."""
    import signal
    deadline = time.monotonic() + 2.0
    signalled = refused = 0
    while time.monotonic() < deadline:
        for pid in same_match_bots():
            try:
                os.kill(pid, signal.SIGKILL)
                signalled += 1
            except PermissionError:
                refused += 1
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    say(f"kill: {signalled} signalled, {refused} refused")


def escape(marker: str) -> None:
    """Leave the bot's cgroups for their parents, then setsid and double fork a daemon."""
    moved = refused = 0
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, group = line.split(":", 2)
        for mount in (f"/sys/fs/cgroup/{controllers.split(',')[0]}", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"):
            parent = Path(mount) / group.lstrip("/")
            target = parent.parent / "cgroup.procs" if group != "/" else None
            if target is None or not target.exists():
                continue
            try:
                target.write_text(str(os.getpid()))
                moved += 1
            except OSError:
                refused += 1
            break
    say(f"escape: {moved} cgroup moves, {refused} refused")
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", marker])
        os._exit(0)


def fill_disk(marker: str) -> None:
    """Write files of 4 MiB wherever it can: its HOME, /tmp, /var/tmp, /dev/shm, its workdir."""
    written = []
    for place in (os.environ.get("HOME", ""), "/tmp", "/var/tmp", "/dev/shm", os.getcwd()):
        path = os.path.join(place, f"spite-disk-{marker}")
        try:
            with open(path, "wb") as out:
                out.write(b"x" * (4 << 20))
            written.append(path)
        except OSError:
            continue
    say(f"disk: wrote {written}")


def fork_bomb(limit: int = 2000) -> None:
    children = 0
    try:
        for _ in range(limit):
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
            children += 1
            if children % 8 == 0:
                say(f"fork bomb: {children} children")
        say(f"fork bomb: all {children} children started")
    except OSError as error:
        say(f"fork bomb: stopped after {children} children ({error.strerror})")


def hog_memory() -> None:
    hoard = []
    while True:
        hoard.append(b"\x01" * (16 << 20))  # written, so resident
        if len(hoard) % 8 == 0:
            say(f"memory hog: {16 * len(hoard)} MiB")


def flood_output() -> None:
    line = b"spam " * 200 + b"\n"
    for _ in range(5000):  # about 5 MiB to each stream
        sys.stdout.buffer.write(line)
        sys.stderr.buffer.write(line)
    sys.stdout.flush()
    say("flood: done")


async def main() -> int:
    if MODE == "exit-early":
        return 3
    if MODE == "network":
        probe_network()
    ponderer = None
    if MODE == "ponder":  # a child that computes all the time, on the opponent's turn too
        import subprocess
        ponderer = subprocess.Popen([sys.executable, "-c", "while True: pass", *sys.argv[2:]])
    if MODE == "plant":
        (Path(os.environ["HOME"]) / "secret.txt").write_text(own_token())
    if MODE == "limits":
        import resource
        for name in ("RLIMIT_CORE", "RLIMIT_FSIZE", "RLIMIT_NOFILE"):
            print(f"{name}={resource.getrlimit(getattr(resource, name))[0]}", file=sys.stderr, flush=True)
    address, token = os.environ["SPITE_ADDRESS"], own_token()
    marker = next((a[len("--marker="):] for a in sys.argv[2:] if a.startswith("--marker=")), "none")
    if MODE == "steal":
        stolen = steal_tokens()
        say(f"steal: {len(stolen)} foreign tokens")
        for other in stolen:  # take the other seat first, and forfeit it with empty actions
            try:
                seized = await connect(address, other)
                say(f"steal: seat taken: {(await seized.read()).WhichOneof('body')}")
            except grpc.aio.AioRpcError as error:
                say(f"steal: refused: {error.code().name}")
    if MODE == "kill":
        kill_others()
    if MODE == "escape":
        escape(f"--marker={marker}")
    if MODE == "disk":
        fill_disk(marker)
    if MODE == "wrong-token":
        token = "not-the-token"
    call = await connect(address, token)
    if MODE == "double-connect":
        second = await connect(address, token)
        try:
            await second.read()
            await second.read()
        except grpc.aio.AioRpcError as error:
            print(f"second connection refused: {error.code().name}: {error.details()}", file=sys.stderr, flush=True)
    decisions = 0
    answered: tuple[float, float] | None = None  # (wall, ponderer CPU) when the last answer went out
    waited_s = waited_cpu_s = 0.0  # between an answer and the next decision: the others' time
    try:
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                return 0
            body = message.WhichOneof("body")
            if body == "result" and message.result.error:
                print(f"referee says: {message.result.error}", file=sys.stderr, flush=True)
            if body == "game_over":
                print(f"game over: {message.game_over.outcome.reason}", file=sys.stderr, flush=True)
                if ponderer is not None:
                    say(f"ponder cpu: {cpu_of(ponderer.pid)} s; between decisions: {waited_cpu_s} s "
                        f"in {waited_s} s")
            if body != "decision":
                continue
            if ponderer is not None and answered is not None:
                waited_s += time.monotonic() - answered[0]
                waited_cpu_s += cpu_of(ponderer.pid) - answered[1]
            decision = message.decision
            decisions += 1
            did = decision.decision_id
            if MODE == "sleep-once" and decisions == 1:
                # 3 s past the deadline and the bank: a busy referee owes a bot the time its own
                # loop ran late (referee/core/deadlines.py), so a 0.3 s overrun could be forgiven at load 16
                time.sleep((decision.deadline_ms + decision.bank_ms) / 1000 + 3.0)
                await call.write(action(did, choose(decision)))  # late: must be dropped, never applied
                continue
            if MODE == "loop-forever" and decisions == 2:
                while True:
                    pass
            if MODE == "old-decision" and decisions > 1:
                await call.write(action(did - 1, 0))
            if MODE == "garbage" and decisions == 2:
                await call.write(rpb.BotMessage(action=rpb.Action(decision_id=did)))
                continue
            if MODE == "bad-move" and decisions == 2:
                bad = rpb.BotMessage(action=rpb.Action(decision_id=did))
                bad.action.move.kind = 1
                bad.action.move.source = 1
                bad.action.move.card = 12
                bad.action.move.target = 0
                await call.write(bad)
                continue
            if MODE == "future-decision" and decisions == 2:
                await call.write(action(did + 5, 0))
                continue
            if MODE == "hello-again" and decisions == 2:
                await call.write(rpb.BotMessage(hello=rpb.Hello(token=token, protocol_version=1)))
                continue
            if MODE == "oversized" and decisions == 2:
                await call.write(action(did, 0, debug="x" * 200_000))
                continue
            if MODE == "flood" and decisions == 2:
                for _ in range(500):
                    await call.write(action(did - 1, 0))
                continue
            if MODE == "big-file" and decisions == 2:
                with open(os.path.join(os.environ["HOME"], "big.bin"), "wb") as out:
                    for _ in range(100):
                        out.write(b"x" * (1 << 20))
            if MODE == "fork-bomb" and decisions == 2:
                fork_bomb()
            if MODE == "memory-hog" and decisions == 2:
                hog_memory()
            if MODE == "output-flood" and decisions == 2:
                flood_output()
            if MODE == "snoop" and decisions == 3:
                probe_files()
            if MODE == "slow":  # wall time, not CPU: the opponent's turn lasts a while
                await asyncio.sleep(float(os.environ.get("SPITE_SLOW_MS", "10")) / 1000)
            if MODE == "crash-mid" and decisions == 3:
                os._exit(7)
            if MODE == "disconnect-mid" and decisions == 3:
                await call.done_writing()
                await asyncio.sleep(5)
                return 0
            if ponderer is not None:
                answered = (time.monotonic(), cpu_of(ponderer.pid))
            await call.write(action(did, choose(decision), debug=f"mode {MODE}"))
    except grpc.aio.AioRpcError as error:
        print(f"referee refused: {error.code().name}: {error.details()}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
