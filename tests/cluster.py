"""A real Dask cluster for the tests: a ``dask scheduler`` process and ``dask worker`` processes
that share nothing with the server but the scheduler's address.

Each worker has a working directory, HOME and TMPDIR of its own (so its bundle cache, too),
and runs in a mount namespace (bubblewrap) where the server's folder is an empty tmpfs: a
worker that opened a server path (a bot's files, the replay or log folder, the store) would
find nothing there, and what it wrote there would never reach the server.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

DASK = Path(sys.executable).with_name("dask")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(what: str, check: Callable[[], Any], timeout: float = 240, every: float = 0.25) -> Any:
    """``check()`` once it is truthy; fails the test after ``timeout`` s (generous: a loaded machine)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(every)
    pytest.fail(f"timed out waiting for {what}")


@dataclass
class Cluster:
    address: str
    hidden: Path
    """The server's folder, an empty tmpfs in every worker's view."""
    root: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    workers: dict[str, Path] = field(default_factory=dict)
    """Each worker's name and its own folder (HOME, TMPDIR and working directory below it)."""
    client: Any = None

    def start_worker(self, name: str) -> None:
        folder = self.root / name
        for part in ("home", "tmp", "cwd"):
            (folder / part).mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPITE_", "XDG_"))}
        env.update(HOME=str(folder / "home"), TMPDIR=str(folder / "tmp"))
        bwrap = shutil.which("bwrap")
        assert bwrap, "the cluster tests need bubblewrap (make setup; docs/security.md)"
        command = [bwrap, "--dev-bind", "/", "/", "--tmpfs", str(self.hidden), "--chdir", str(folder / "cwd"),
                   "--", str(DASK), "worker", self.address, "--name", name, "--nthreads", "1", "--no-nanny",
                   "--no-dashboard", "--local-directory", str(folder / "tmp"), "--death-timeout", "60"]
        log = open(folder / "worker.log", "wb")
        self.processes.append(subprocess.Popen(command, cwd=folder / "cwd", env=env, stdout=log,
                                               stderr=subprocess.STDOUT))
        log.close()
        self.workers[name] = folder

    def info(self) -> dict[str, dict[str, Any]]:
        """The scheduler's workers by name: address, pid and the tasks each is running."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        processing = self.client.processing()
        return {w["name"]: {"address": address, "processing": processing.get(address, ())}
                for address, w in workers.items()}

    def pid(self, name: str) -> int:
        address = self.info()[name]["address"]
        return int(self.client.run(os.getpid, workers=[address])[address])

    def mid_game(self) -> tuple[str, str]:
        """A worker and the match task it has been running for two looks 0.3 s apart (a game
        under way, not a task that only answers which bundles it lacks)."""
        def running() -> dict[str, set[str]]:
            return {name: {str(t) for t in info["processing"] if str(t).startswith("spite-match-")}
                    for name, info in self.info().items()}

        def twice() -> tuple[str, str] | None:
            first = running()
            time.sleep(0.3)
            for name, tasks in running().items():
                for task in tasks & first.get(name, set()):
                    return name, task
            return None

        found: tuple[str, str] = wait_until("a game under way on a worker", twice, every=0.05)
        return found

    def kill(self, name: str) -> None:
        """SIGKILL the ``dask worker`` process ``name`` (not bubblewrap around it: the worker itself)."""
        os.kill(self.pid(name), signal.SIGKILL)
        wait_until(f"the scheduler to drop worker {name}", lambda: name not in self.info())

    def cache(self, name: str) -> list[str]:
        """The bundle digests in worker ``name``'s cache (``HOME/.cache/spite-arena/bundles``)."""
        root = self.workers[name] / "home" / ".cache" / "spite-arena" / "bundles"
        return sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) if root.is_dir() else []


@contextmanager
def dask_cluster(root: Path, hidden: Path, workers: int = 2) -> Iterator[Cluster]:
    from distributed import Client

    port = _free_port()
    root.mkdir(parents=True, exist_ok=True)
    cluster = Cluster(f"tcp://127.0.0.1:{port}", hidden, root)
    log = open(root / "scheduler.log", "wb")
    cluster.processes.append(subprocess.Popen(
        [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], cwd=root,
        stdout=log, stderr=subprocess.STDOUT))
    log.close()
    try:
        for index in range(workers):
            cluster.start_worker(f"w{index}")
        cluster.client = Client(cluster.address, timeout=120)  # type: ignore[no-untyped-call]
        wait_until(f"{workers} workers to join", lambda: len(cluster.info()) == workers)
        yield cluster
    finally:
        if cluster.client is not None:
            cluster.client.close()
        for process in reversed(cluster.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
            process.wait(30)
