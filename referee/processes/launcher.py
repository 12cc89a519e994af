"""Launching bot processes: sandboxed, limited, paused between decisions, and no survivors.

Each bot runs in a new session (so its own process group), with an environment
holding only what it needs (PATH, HOME, LANG, the referee's address or for a stdio bot
its message format, its seat token, its bot seed, and its manifest's ``env``), under the machine's sandbox
(:mod:`referee.sandbox`: bubblewrap where it works, else the clearly labelled insecure
mode) and its resource limits (cgroups where writable, else rlimits). Its stdout and
stderr go to one log file (stderr alone for a stdio bot, whose stdin and stdout carry
the protocol), cut at ``log_cap`` bytes (the rest is counted and dropped, and the pipe
is still drained so a chatty bot never blocks). ``pause()``/``resume()`` freeze and thaw
the whole bot, ``cpu_seconds()`` is the CPU time of everything it ran, and ``stop()``
kills all of it, children and grandchildren included.
"""

from __future__ import annotations

import array
import asyncio
import ctypes
import fcntl
import os
import resource
import signal
import sys
import termios
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Sequence

from referee.core.deadlines import GivenTime, connect_cap_ms, run_queue_seconds
from referee.processes.manifest import BotManifest
from referee.sandbox import (
    SUPERVISOR,
    BotCgroup,
    BotIdentity,
    Isolation,
    Limits,
    SandboxError,
    SandboxMode,
    allocate_identity,
    bwrap_command,
    bwrap_returncode,
    child_rlimits,
    default_limits,
    descendants,
    detect,
    process_cpu_seconds,
    program_path,
    runtime_hints,
    sweep,
    unreachable,
)
from referee.sandbox.environment import LAUNCH_ENVIRONMENT
from referee.sandbox.environment import encode as encode_environment
from referee.sandbox.space import mount_private, unmount

LOG_CAP = 256 * 1024
LIMITS = {
    resource.RLIMIT_CORE: 0,                   # no core dumps
    resource.RLIMIT_FSIZE: 64 * 1024 * 1024,   # no file over 64 MiB (SIGXFSZ)
    resource.RLIMIT_NOFILE: 1024,              # open files
}
"""The limits every bot process gets whatever its language and manifest; the rest (memory,
CPU seconds, processes, open files) come from its :class:`referee.sandbox.Limits`."""
_PR_SET_PDEATHSIG = 1
_SCAN_AGE = 1.0
"""Without cgroups, how old (seconds) the list of a bot's processes may be at a decision."""
STOP_WALL_FACTOR = 10
"""However starved a stopping bot is, :meth:`BotProcess.stop` waits at most this many times its
grace in wall time (a bot spinning beside busy processes is given its grace slowly)."""
_PASS_THROUGH = ("PATH", "LANG", "LC_ALL", "TZ", "JAVA_HOME", "GOROOT", "GOPATH", "GOCACHE", "CARGO_HOME",
                 "RUSTUP_HOME", "NODE_PATH", "VIRTUAL_ENV", "PYENV_ROOT", "PYENV_VERSION",
                 "SPITE_LOG_LEVEL", "SPITE_CONNECT_TIMEOUT")


@dataclass
class ExitInfo:
    returncode: int | None
    cpu_seconds: float
    log_bytes: int
    log_dropped: int
    limit: str = ""
    """Which limit ended the bot, where the launcher can tell (e.g. the memory limit)."""
    sandbox: str = ""
    """The sandbox mode it ran in: ``bubblewrap`` or ``insecure``."""


@dataclass(frozen=True)
class SeatLaunch:
    """What the referee starts one seat's bot with, beside the bot's own manifest: where it
    lives, what it is told and what it must not see."""

    home: Path
    """Its private home (made by the caller)."""
    token: str
    """Its seat token: handed over in a pipe, never in the environment."""
    address: str
    """The referee a gRPC bot dials (``SPITE_ADDRESS``); unused by a stdio bot."""
    socket_dir: Path
    """The directory holding that address's socket, bound into a gRPC bot's sandbox."""
    connect_ms: int
    """The match's connect time: a gRPC bot's SDK waits :func:`~referee.core.deadlines.connect_cap_ms` of it."""
    bot_seed: int = 0
    hidden: tuple[Path, ...] = ()
    """Paths its sandbox hides (the logs, the replays, the tournament's store)."""
    log_path: Path | None = None
    """Where its output goes (None: drained and dropped)."""


class BotProcess:
    """One running bot.

    ``isolation`` (its private home, the referee's socket directory, paths to hide) turns on
    the machine's sandbox; without it the bot runs as before, in its own process group with
    rlimits only. ``limits`` default to those of ``language``."""

    def __init__(self, name: str, command: Sequence[str], workdir: Path, env: dict[str, str],
                 log_path: Path | None, log_cap: int = LOG_CAP, stdio: bool = False,
                 line_limit: int = 64 * 1024, *, limits: Limits | None = None, language: str = "",
                 isolation: Isolation | None = None, mode: SandboxMode | None = None,
                 token: str | None = None, stdio_format: str = "json") -> None:
        self.stdio = stdio
        self.stdio_format = stdio_format
        """A stdio bot's message format, ``json`` or ``protobuf`` (its ``SPITE_STDIO``)."""
        self.line_limit = line_limit
        self.name = name
        self.command = list(command)
        self.workdir = workdir
        self.env = env
        self.log_path = log_path
        self.log_cap = log_cap
        self.language = language
        self.limits = limits or default_limits(language)
        self.isolation = isolation
        self.mode = mode or detect() if isolation is not None else None
        self.token = token
        self.identity: BotIdentity | None = None
        self.identity_note = ""
        self._private_home = False
        self.process: asyncio.subprocess.Process | None = None
        self.cgroup: BotCgroup | None = None
        self._drain: asyncio.Task[tuple[int, int]] | None = None
        self._cpu = 0.0
        self._next_log: list[tuple[int, Path | None]] = []
        """The log files still to switch to, each from the byte of output where it starts."""
        self.output_bytes = 0
        """What the process has printed so far (kept and dropped), as the log reader counted it."""
        self._scanned: list[int] = []
        self._scanned_at = 0.0

    @classmethod
    def from_manifest(cls, bot: BotManifest, launch: SeatLaunch) -> BotProcess:
        """The process for ``bot`` in a seat started as ``launch`` says, under the machine's
        sandbox, with the bot's limits (or its language's) and its manifest's ``env`` (not yet
        started: :meth:`start`)."""
        stdio = bot.transport == "stdio"
        settings = {"SPITE_BOT_SEED": str(launch.bot_seed), "HOME": str(launch.home)}
        if not stdio:
            settings["SPITE_ADDRESS"] = launch.address
            settings["SPITE_CONNECT_TIMEOUT"] = f"{connect_cap_ms(launch.connect_ms) / 1000:g}"
        hints = runtime_hints(bot.language, bot.limits or default_limits(bot.language))
        env = cls.clean_env({**hints, **bot.env, **settings})  # the token goes in a pipe
        isolation = Isolation(home=launch.home, socket_dir=None if stdio else launch.socket_dir, hidden=launch.hidden)
        return cls(bot.name, bot.command, bot.workdir, env, launch.log_path, stdio=stdio, limits=bot.limits,
                   language=bot.language, isolation=isolation, token=launch.token, stdio_format=bot.stdio_format)

    @classmethod
    def clean_env(cls, extra: dict[str, str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k in _PASS_THROUGH}
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.setdefault("LANG", "C.UTF-8")
        env["HOME"] = extra.get("HOME", os.environ.get("HOME", "/tmp"))
        env["PYTHONUNBUFFERED"] = "1"
        env.update(extra)
        return env

    @property
    def sandboxed(self) -> bool:
        """Whether the bot runs under bubblewrap."""
        return self.mode is not None and self.mode.isolated

    async def start(self) -> None:
        self.cgroup = BotCgroup(self.name, self.limits) if self.isolation is not None else None
        uid = self._take_identity()
        if self.isolation is not None and not self.sandboxed:
            self._private_home = mount_private(self.isolation.home, uid if uid is not None else os.getuid())
        parent = os.getpid()
        rlimits = child_rlimits(self.limits, self.language, self.cgroup, own_user=uid is not None) \
            if self.isolation is not None else list(LIMITS.items())
        joins = self.cgroup.join_paths() if self.cgroup else []
        pipe = asyncio.subprocess.PIPE
        handover: tuple[int, ...] = ()
        try:
            env, handover = self._token_handover()
            env_fd = _environment_pipe(env)
            handover = (*handover, env_fd)
            if self.sandboxed and self.mode is not None and self.isolation is not None:
                command = supervised(bwrap_command(self.mode, self.command, self.workdir, self.isolation,
                                                   env_fd=env_fd, uid=uid), parent)
            else:
                command = supervised(self.command, parent, uid=uid, env_fd=env_fd)
            self.process = await asyncio.create_subprocess_exec(
                *command, cwd=self.workdir, env=dict(LAUNCH_ENVIRONMENT), pass_fds=handover,
                stdin=pipe if self.stdio else asyncio.subprocess.DEVNULL, stdout=pipe,
                stderr=pipe if self.stdio else asyncio.subprocess.STDOUT, start_new_session=True,
                preexec_fn=lambda: _in_child(rlimits, joins, parent), limit=self.line_limit + 1)
        except BaseException:
            if self.cgroup is not None:
                self.cgroup.remove()
            self._clear_space()
            self._release_identity()
            raise
        finally:
            for fd in handover:
                os.close(fd)
        self._drain = asyncio.get_running_loop().create_task(self._drain_output(self.log_path))

    def _take_identity(self) -> int | None:
        """A uid of the bot's own when the launcher is root (:mod:`referee.sandbox.identity`):
        its home becomes that uid's. Without bubblewrap the uid must reach the program and
        its directory through the real file system (under bubblewrap, its directory and program
        alone); where it cannot (a toolchain under a private /root, a bot folder of mode 0700),
        the bot keeps the organizer's user and its log says why."""
        if self.isolation is None:
            return None
        self.identity = allocate_identity()
        if self.identity is None:
            return None
        uid = self.identity.uid
        blocked = unreachable(uid, [program_path(self.command, self.workdir), self.workdir],
                              ancestors=not self.sandboxed)
        if blocked:
            self.identity_note = (f"[spite: this bot runs as the organizer's user, not as uid {uid}: that uid cannot "
                                  f"reach {blocked}" + ("" if self.sandboxed else "; bubblewrap would let it") + "]\n")
            self._release_identity()
            return None
        home = self.isolation.home
        os.chown(home, uid, uid)
        os.chmod(home, 0o700)
        return uid

    def _clear_space(self) -> None:
        """Without bubblewrap: unmount the bot's private home, and delete what its uid wrote in
        /tmp, /var/tmp and /dev/shm (nothing a bot writes outlives its match)."""
        if self._private_home and self.isolation is not None:
            unmount(self.isolation.home)
            self._private_home = False
        if self.identity is not None and not self.sandboxed:
            sweep(self.identity.uid)

    def _release_identity(self) -> None:
        if self.identity is not None:
            self.identity.release()
            self.identity = None

    @property
    def uid(self) -> int | None:
        """The bot's own uid while it runs (None: it runs as the organizer's user)."""
        return self.identity.uid if self.identity is not None else None

    def _token_handover(self) -> tuple[dict[str, str], tuple[int, ...]]:
        """The bot's environment (a stdio bot's also says its format: ``SPITE_STDIO=json|protobuf``)
        and the descriptors it inherits: its seat token travels in a
        pipe (``SPITE_TOKEN_FILE=/dev/fd/N``, which every SDK reads), never in the environment,
        where another process of the same user could read it from ``/proc/<pid>/environ``.
        The pipe holds the token once: whoever reads it empties it."""
        env = {**self.env, "SPITE_STDIO": self.stdio_format} if self.stdio else self.env
        if not self.token:
            return env, ()
        env = {k: v for k, v in env.items() if k != "SPITE_TOKEN"}
        read_end, write_end = os.pipe()
        try:
            os.write(write_end, self.token.encode() + b"\n")
            if self.uid is not None:  # reopening /dev/fd/N checks the pipe's owner: the bot's uid
                os.fchown(read_end, self.uid, self.uid)
        finally:
            os.close(write_end)
        env["SPITE_TOKEN_FILE"] = f"/dev/fd/{read_end}"
        return env, (read_end,)

    async def _drain_output(self, log_path: Path | None) -> tuple[int, int]:
        """Copy the bot's output to ``log_path`` (the file it had when it started; a warm
        process's later files come by :meth:`switch_log`), capped; returns (written, dropped)."""
        if self.process is None:
            return 0, 0
        source = self.process.stderr if self.stdio else self.process.stdout
        if source is None:
            return 0, 0
        written = dropped = 0  # in this log file
        total_written = total_dropped = 0
        sink = open(log_path, "wb", opener=_private) if log_path else None
        try:
            if sink and self.identity_note:
                sink.write(self.identity_note.encode())
            while chunk := await source.read(65536):
                start = self.output_bytes
                self.output_bytes += len(chunk)
                while chunk:
                    if self._next_log and self._next_log[0][0] <= start:  # a warm process's next match:
                        _, path = self._next_log.pop(0)                   # a log file of its own, its own cap
                        self._end_log(sink, dropped)
                        sink = open(path, "ab", opener=_private) if path else None
                        written = dropped = 0
                        continue
                    part = chunk if not self._next_log else chunk[:self._next_log[0][0] - start]
                    chunk, start = chunk[len(part):], start + len(part)
                    room = max(0, self.log_cap - written)
                    if sink and room:
                        sink.write(part[:room])
                        sink.flush()  # on disk now: a warm process's finished match is read while it idles
                    written += min(room, len(part))
                    dropped += max(0, len(part) - room)
                    total_written += min(room, len(part))
                    total_dropped += max(0, len(part) - room)
        finally:
            self._end_log(sink, dropped)
        return total_written, total_dropped

    def _end_log(self, sink: BinaryIO | None, dropped: int) -> None:
        if sink is None:
            return
        if dropped:
            sink.write(f"\n[spite: log cut at {self.log_cap} bytes; {dropped} more bytes dropped]\n".encode())
        sink.close()

    def switch_log(self, path: Path | None) -> None:
        """From now on write the bot's output to ``path`` (a warm process's next match), capped
        at ``log_cap`` bytes again. What the bot printed before this call stays in the previous
        file, read or not: the switch happens at the byte the output has reached now (what the
        log reader has read, plus what waits in its buffer and in the pipe), so a busy machine
        whose reader runs late puts no line of one match into the next one's log."""
        if path is not None:  # there now, even if the bot writes nothing in this match
            os.close(_private(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
        self.log_path = path
        self._next_log.append((self.output_bytes + self._unread_bytes(), path))

    def _unread_bytes(self) -> int:
        """What the bot printed that the log reader has not read yet: its buffer and the pipe."""
        source = None if self.process is None else self.process.stderr if self.stdio else self.process.stdout
        if source is None:
            return 0
        buffered = len(getattr(source, "_buffer", b""))  # asyncio.StreamReader's own buffer
        transport = getattr(source, "_transport", None)
        pipe = transport.get_extra_info("pipe") if transport is not None else None
        waiting = array.array("i", [0])
        try:
            if pipe is not None:
                fcntl.ioctl(pipe.fileno(), termios.FIONREAD, waiting, True)
        except (OSError, ValueError):
            waiting[0] = 0
        return buffered + waiting[0]

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def wait(self) -> int | None:
        """Wait for the bot to exit; its exit status as Popen gives it (-N: killed by signal N)."""
        if self.process is None:
            return None
        returncode = await self.process.wait()
        return bwrap_returncode(returncode) if self.sandboxed else returncode

    def _members(self, max_age: float = 0.0) -> list[int]:
        """The bot's live processes: the cgroup's, else a scan of /proc for the processes below
        it (a few ms on a busy machine, so callers at every decision accept one ``max_age``
        seconds old)."""
        if self.cgroup is not None and self.cgroup.dirs:
            return self.cgroup.pids()
        now = time.monotonic()
        if self.pid is not None and (not self._scanned or now - self._scanned_at > max_age):
            self._scanned = descendants(self.pid) or [self.pid]
            self._scanned_at = now
        return self._scanned

    def cpu_seconds(self) -> float:
        """CPU time of the whole bot so far: every process and thread it ran (the cgroup's
        cpuacct.usage where there is one; else the live processes under it and their reaped
        children, from /proc). Cheap enough to read at every decision."""
        if self.pid is None:
            return self._cpu
        if self.process is not None and self.process.returncode is not None:
            return self._cpu
        measured = self.cgroup.cpu_seconds() if self.cgroup is not None else None
        if measured is None:
            measured = process_cpu_seconds(self._members(max_age=_SCAN_AGE))
        self._cpu = max(self._cpu, measured)
        return self._cpu

    def run_queue_seconds(self) -> float | None:
        """Time the bot's threads have spent runnable but waiting for a CPU so far (read-only,
        from /proc; None where the kernel does not say, or the bot has exited): what
        :class:`referee.core.deadlines.GivenTime` weighs a time limit with."""
        if self.pid is None or (self.process is not None and self.process.returncode is not None):
            return None
        return run_queue_seconds(self._members(max_age=_SCAN_AGE))

    def pause(self) -> None:
        """Freeze the whole bot (cgroup freezer, else SIGSTOP to each of its processes)."""
        self._signal_all(signal.SIGSTOP, freeze=True)

    def resume(self) -> None:
        """Thaw what :meth:`pause` froze."""
        self._signal_all(signal.SIGCONT, freeze=False)

    def _signal_all(self, signum: int, freeze: bool) -> None:
        if self.process is None or self.process.returncode is not None:
            return
        if self.cgroup is not None and (self.cgroup.freeze() if freeze else self.cgroup.thaw()):
            return
        if not self.sandboxed:
            try:
                os.killpg(self.process.pid, signum)
            except (ProcessLookupError, PermissionError):
                pass
            return
        for pid in self._members(max_age=_SCAN_AGE):  # bwrap starts the bot in a session of its own
            try:
                os.kill(pid, signum)
            except (ProcessLookupError, PermissionError):
                pass

    def limit_hit(self) -> str:
        """Which cgroup limit the bot ran into so far ("" if none, or no cgroup): the memory
        limit (a process was OOM-killed) before the process limit (a fork or thread refused)."""
        if self.cgroup is None:
            return ""
        if self.cgroup.oom_kills():
            return f"the memory limit ({self.limits.memory_mb} MiB)"
        if self.cgroup.process_limit_hits():
            return f"the process limit ({self.limits.processes} processes and threads)"
        return ""

    async def stop(self, grace: float = 2.0) -> ExitInfo:
        """Give the bot ``grace`` seconds to exit cleanly (its last log lines, a game-over
        handler's work), then kill everything it ran. Like a decision's time, the grace counts
        the time the machine gave the bot: time it waited for a CPU behind other work is added
        (:class:`referee.core.deadlines.GivenTime`), up to ``STOP_WALL_FACTOR`` times the grace."""
        if self.process is None:
            return ExitInfo(None, 0.0, 0, 0)
        self.resume()  # a frozen bot can neither exit nor die
        cpu = self.cpu_seconds()
        await self._wait_given(grace)
        await self._end_supervisor()
        kill_group(self.process.pid)
        limit = self.limit_hit()
        if self.cgroup is not None:
            cpu = max(cpu, self.cgroup.cpu_seconds() or 0.0)
            await asyncio.get_running_loop().run_in_executor(None, self.cgroup.remove)
        returncode = await self.wait()
        if not limit and returncode == -signal.SIGXCPU:
            limit = f"the CPU time limit ({self.limits.cpu_seconds} s)"
        written, dropped = await self._drain if self._drain else (0, 0)
        await asyncio.get_running_loop().run_in_executor(None, self._clear_space)
        self._release_identity()  # only now: every process that ran as it is gone
        self._cpu = cpu
        return ExitInfo(returncode, cpu, written, dropped, limit, self.mode.name if self.mode else "")

    async def _wait_given(self, grace: float) -> None:
        """Wait until the bot exits or has been given ``grace`` seconds since now."""
        assert self.process is not None
        given, started = GivenTime(self), time.monotonic()
        cap = started + grace * STOP_WALL_FACTOR
        left = grace
        while left > 0:
            try:
                await asyncio.wait_for(self.process.wait(), left)
                return
            except (asyncio.TimeoutError, TimeoutError):
                pass
            now = time.monotonic()
            left = min(grace - (now - started - given.not_given_s(now)), cap - now)

    async def _end_supervisor(self, grace: float = 2.0) -> None:
        """Ask the supervisor (the process this launcher started) to kill everything below it,
        and wait for it, so what the bot started outside its process group goes too."""
        if self.process is None or self.process.returncode is not None:
            return
        try:
            self.process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(self.process.wait(), grace)
        except (ProcessLookupError, asyncio.TimeoutError, TimeoutError):
            pass



def supervised(command: Sequence[str], parent: int, uid: int | None = None, env_fd: int | None = None) -> list[str]:
    """``command`` started through :mod:`referee.sandbox.supervisor` (a child subreaper that dies with
    ``parent``, then kills everything the bot started; the bot runs as ``uid`` if given, with the
    environment read from the pipe ``env_fd`` if given), run by this interpreter alone (``-I -S``:
    no site packages, a few milliseconds)."""
    return [sys.executable, "-I", "-S", str(SUPERVISOR), str(parent), *(["--uid", str(uid)] if uid is not None else []),
            *(["--env-fd", str(env_fd)] if env_fd is not None else []), "--", *command]


def _environment_pipe(env: dict[str, str]) -> int:
    """The read end of a pipe holding ``env`` for the supervisor's ``--env-fd``: the bot's
    environment reaches the bot alone, never the processes that start it as the organizer
    (:mod:`referee.sandbox.environment`)."""
    data = encode_environment(env)
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return read_end


def _private(path: str, flags: int) -> int:
    """Open a bot's log readable by the organizer alone (another bot's uid cannot read it)."""
    return os.open(path, flags, 0o600)


def _in_child(rlimits: list[tuple[int, int]], cgroup_procs: list[str], parent: int) -> None:
    """In the child, before exec: :func:`die_with_parent` first (so the window in which a
    killed launcher leaves this child behind is closed before anything slow), then join the
    bot's cgroups and set ``rlimits``. Only async-signal-tolerant work here (the parent has
    threads)."""
    die_with_parent([], parent=parent)
    pid = str(os.getpid()).encode()
    for path in cgroup_procs:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, pid)
        finally:
            os.close(fd)
    _set_rlimits(rlimits)


_forking_parent = 0
"""The pid of the process that last forked with a ``preexec_fn`` (set just before the fork, by
the hook below): what :func:`die_with_parent` compares ``getppid()`` with in the child."""


def _remember_parent() -> None:
    global _forking_parent
    _forking_parent = os.getpid()


os.register_at_fork(before=_remember_parent)


def die_with_parent(rlimits: Sequence[tuple[int, int]] | None = None, *, parent: int | None = None) -> None:
    """In the child, before exec: get SIGKILL if the launching process dies (Linux
    PR_SET_PDEATHSIG), so a killed referee or tournament worker leaves no bots behind;
    and the resource limits (``LIMITS`` unless ``rlimits`` are given).

    The parent-death signal only covers a parent that dies *after* it is set: one killed
    between the fork and the prctl has already handed this child to init. So once the
    signal is armed the child checks that its parent is still ``parent`` (by default the
    process that forked it, remembered by an at-fork hook) and exits at once if not -- the
    classic fix of that race."""
    expected = parent if parent is not None else _forking_parent
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if expected and os.getppid() != expected:
        os._exit(1)
    _set_rlimits(rlimits if rlimits is not None else list(LIMITS.items()))


def _set_rlimits(rlimits: Sequence[tuple[int, int]]) -> None:
    for limit, value in rlimits:
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):  # a hard limit already lower: keep it
            pass


def kill_group(pgid: int) -> None:
    """SIGKILL every process in the group (the bot is its leader, so pgid == its pid)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


__all__ = ["BotProcess", "ExitInfo", "SeatLaunch", "LIMITS", "LOG_CAP", "SandboxError", "die_with_parent", "kill_group"]
