"""Launching bot processes: own process group, clean environment, capped logs, no survivors.

Each bot runs in a new session (so its own process group), with an environment
holding only what it needs (PATH, HOME, LANG, the referee's address, its seat token,
its bot seed, and its manifest's ``env``). Its stdout and stderr go to one log file
(stderr alone for a stdio bot, whose stdin and stdout carry the protocol), cut at
``log_cap`` bytes (the rest is counted and dropped, and the pipe is still
drained so a chatty bot never blocks). ``stop()`` kills the whole group, children and
grandchildren included.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import resource
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

LOG_CAP = 256 * 1024
LIMITS = {
    resource.RLIMIT_CORE: 0,                   # no core dumps
    resource.RLIMIT_FSIZE: 64 * 1024 * 1024,   # no file over 64 MiB (SIGXFSZ)
    resource.RLIMIT_NOFILE: 1024,              # open files
}
"""Limits every bot process gets, whatever its language. Memory, CPU seconds and process
counts are not limited yet: an address-space limit breaks the JVM, Node and Go, so they
need per-language settings, and a process-count limit does not bind root."""
_PR_SET_PDEATHSIG = 1
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_PASS_THROUGH = ("PATH", "LANG", "LC_ALL", "TZ", "JAVA_HOME", "GOROOT", "GOPATH", "GOCACHE", "CARGO_HOME",
                 "RUSTUP_HOME", "NODE_PATH", "VIRTUAL_ENV", "PYENV_ROOT", "PYENV_VERSION",
                 "SPITE_LOG_LEVEL", "SPITE_CONNECT_TIMEOUT")


@dataclass
class ExitInfo:
    returncode: int | None
    cpu_seconds: float
    log_bytes: int
    log_dropped: int


class BotProcess:
    """One running bot."""

    def __init__(self, name: str, command: Sequence[str], workdir: Path, env: dict[str, str],
                 log_path: Path | None, log_cap: int = LOG_CAP, stdio: bool = False,
                 line_limit: int = 64 * 1024) -> None:
        self.stdio = stdio
        self.line_limit = line_limit
        self.name = name
        self.command = list(command)
        self.workdir = workdir
        self.env = env
        self.log_path = log_path
        self.log_cap = log_cap
        self.process: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[tuple[int, int]] | None = None
        self._cpu = 0.0

    @classmethod
    def clean_env(cls, extra: dict[str, str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k in _PASS_THROUGH}
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.setdefault("LANG", "C.UTF-8")
        env["HOME"] = extra.get("HOME", os.environ.get("HOME", "/tmp"))
        env["PYTHONUNBUFFERED"] = "1"
        env.update(extra)
        return env

    async def start(self) -> None:
        pipe = asyncio.subprocess.PIPE
        self.process = await asyncio.create_subprocess_exec(
            *self.command, cwd=self.workdir, env=self.env,
            stdin=pipe if self.stdio else asyncio.subprocess.DEVNULL, stdout=pipe,
            stderr=pipe if self.stdio else asyncio.subprocess.STDOUT, start_new_session=True,
            preexec_fn=die_with_parent, limit=self.line_limit + 1)
        self._drain = asyncio.get_running_loop().create_task(self._drain_output())

    async def _drain_output(self) -> tuple[int, int]:
        if self.process is None:
            return 0, 0
        source = self.process.stderr if self.stdio else self.process.stdout
        if source is None:
            return 0, 0
        written = dropped = 0
        sink = open(self.log_path, "wb") if self.log_path else None
        try:
            while chunk := await source.read(65536):
                room = max(0, self.log_cap - written)
                if sink and room:
                    sink.write(chunk[:room])
                written += min(room, len(chunk))
                dropped += max(0, len(chunk) - room)
            if sink and dropped:
                sink.write(f"\n[spite: log cut at {self.log_cap} bytes; {dropped} more bytes dropped]\n".encode())
        finally:
            if sink:
                sink.close()
        return written, dropped

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def cpu_seconds(self) -> float:
        """CPU time of the bot process and its reaped children, from /proc (Linux)."""
        if self.pid is None:
            return self._cpu
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            self._cpu = sum(int(x) for x in fields[11:15]) / _CLK_TCK
        except (OSError, IndexError, ValueError):
            pass
        return self._cpu

    async def stop(self, grace: float = 2.0) -> ExitInfo:
        """Wait up to ``grace`` seconds for a clean exit, then kill the whole process group."""
        if self.process is None:
            return ExitInfo(None, 0.0, 0, 0)
        cpu = self.cpu_seconds()
        try:
            await asyncio.wait_for(self.process.wait(), grace)
        except (asyncio.TimeoutError, TimeoutError):
            pass
        kill_group(self.process.pid)
        returncode = await self.process.wait()
        written, dropped = await self._drain if self._drain else (0, 0)
        return ExitInfo(returncode, cpu, written, dropped)


def die_with_parent() -> None:
    """In the child, before exec: get SIGKILL if the launching process dies (Linux
    PR_SET_PDEATHSIG), so a killed referee or tournament worker leaves no bots behind;
    and the resource limits every bot gets (see ``LIMITS``)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    for limit, value in LIMITS.items():
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
