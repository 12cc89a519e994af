"""The arena tests' parts: a real ``spite serve`` process on free ports over a temporary
data directory, and the ``spite`` commands an organizer and entrants run."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
SPITE = [sys.executable, "-m", "spite_cli.main"]

COMPETITION = """
name = "arena-test"
rules = "standard"
house_bots = ["greedy"]
parallel = 1
placement_games = 2

[time_control]
decision_ms = 1000
bank_ms = 5000
connect_ms = 8000

[limits]
requests_per_minute = 10000
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Arena:
    file: Path
    data: Path
    web_port: int = field(default_factory=free_port)
    grpc_port: int = field(default_factory=free_port)
    scheduler: str | None = None
    process: subprocess.Popen[str] | None = None
    helpers: list[subprocess.Popen[str]] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    """More ``spite serve`` options (e.g. ``--trusted-proxy``)."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def grpc(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def start(self) -> str:
        """Start ``spite serve`` and return the line it prints when ready."""
        self.process = subprocess.Popen(
            [*SPITE, "serve", str(self.file), "--data", str(self.data), "--web", f"127.0.0.1:{self.web_port}",
             "--grpc", self.grpc, *(["--scheduler", self.scheduler] if self.scheduler else []), *self.extra], cwd=REPO,
             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        assert self.process.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 1)
            if ready:
                line = self.process.stdout.readline()
                if line.startswith("spite serve:"):
                    return line
                if not line and self.process.poll() is not None:
                    break
        pytest.fail(f"spite serve did not start (exit {self.process.poll()})")

    def kill(self) -> None:
        """SIGKILL the server's whole process group (the server, its workers and their bots)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def spite(self, *args: str, env: dict[str, str] | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*SPITE, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {})})

    def add_entrant(self, name: str) -> str:
        done = self.spite("arena", "add-entrant", name, "--data", str(self.data), "--json")
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout)
        assert answer["entrant"] == name
        return str(answer["key"])

    def get(self, path: str, key: str | None = None) -> tuple[int, Any]:
        request = urllib.request.Request(self.url + path,
                                         headers={"Authorization": f"Bearer {key}"} if key else {})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                body = answer.read()
                status = answer.status
        except urllib.error.HTTPError as error:
            body, status = error.read(), error.code
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body.decode(errors="replace")

    def remote_bot(self, bot: str, key: str, **extra: str) -> subprocess.Popen[str]:
        env = {**os.environ, "SPITE_ARENA": self.grpc, "SPITE_BOT_KEY": key, **extra}
        env.pop("SPITE_ADDRESS", None)
        process = subprocess.Popen([sys.executable, str(REPO / "sample_bots" / bot / "bot.py")], cwd=REPO, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        self.helpers.append(process)
        return process

    def wait_for(self, what: str, check: Any, timeout: float = 180) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                pytest.fail(f"spite serve exited ({self.process.returncode}) while waiting for {what}")
            found = check()
            if found:
                return found
            time.sleep(0.5)
        pytest.fail(f"timed out waiting for {what}")

    def stop(self) -> None:
        for helper in self.helpers:
            if helper.poll() is None:
                os.killpg(helper.pid, signal.SIGKILL)
                helper.wait(10)
        self.kill()


@contextmanager
def running_arena(directory: Path, competition: str = COMPETITION, scheduler: str | None = None) -> Iterator[Arena]:
    file = directory / "competition.toml"
    file.write_text(competition)
    arena = Arena(file, directory / "data", scheduler=scheduler)
    try:
        arena.start()
        yield arena
    finally:
        arena.stop()
