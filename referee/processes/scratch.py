"""Private temporary folders that say who owns them, and the sweep of those whose owner died.

A match's folder (``spite-PID-XXXX``: the referee's socket, the seats' homes) and the
workers' folder (``spite-workers-PID-XXXX``) are removed when their owner finishes, but a
SIGKILL of the runner or of ``spite serve`` (or a power cut) skips every ``finally``. So
each folder holds ``.owner``, a file its owning process keeps locked (``flock``) for as long
as it lives; the kernel drops the lock when the process dies, however it dies. The first
folder a process makes sweeps the temporary directory: a folder of ours whose lock can be
taken belongs to a dead process and is removed (first unmounting the bots' private spaces a
killed launcher left, :func:`referee.sandbox.space.remove_stale`). A folder without the
file yet (its owner is between ``mkdtemp`` and the lock) is judged by the pid in its name.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import tempfile
from pathlib import Path

OWNER_FILE = ".owner"
SOCKET_PATH_BYTES = 107
"""The longest path a Unix socket may have (``sun_path`` is 108 bytes with its NUL)."""
SOCKET_ROOM = 64
"""What a match's folder adds below the temporary directory to reach its deepest socket
(``/spite-PID-XXXXXXXX/referee/relay.sock``, with room to spare)."""
OURS = re.compile(r"spite-(?:workers-)?(\d+)-[A-Za-z0-9_]+")
_swept: set[str] = set()


class OwnedScratch:
    """A new private folder ``TMPDIR/PREFIX<pid>-XXXX``, locked by this process until
    :meth:`cleanup` (what ``tempfile.TemporaryDirectory`` gives, plus an owner that outlives
    nothing: after a kill, the next :class:`OwnedScratch` anywhere on the machine removes it)."""

    def __init__(self, prefix: str = "spite-", directory: Path | None = None) -> None:
        sweep_stale(directory)
        self.name = tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=directory)
        locking = os.path.join(self.name, OWNER_FILE + ".new")
        self._lock: int | None = os.open(locking, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        os.write(self._lock, f"{os.getpid()}\n".encode())
        os.rename(locking, os.path.join(self.name, OWNER_FILE))  # seen only once locked: no unlocked moment

    def cleanup(self) -> None:
        shutil.rmtree(self.name, ignore_errors=True)
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def __enter__(self) -> str:
        return self.name

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


def socket_directory() -> Path | None:
    """Where a folder holding Unix sockets goes: the temporary directory (None) while its path
    leaves room for the socket's, else the first of ``/tmp``, ``/var/tmp``, ``/dev/shm`` that
    does and is writable (a long ``TMPDIR``, e.g. a test's, made the referee fail to bind)."""
    def fits(base: str) -> bool:
        return len(os.fsencode(base)) + SOCKET_ROOM <= SOCKET_PATH_BYTES

    if fits(tempfile.gettempdir()):
        return None
    for base in ("/tmp", "/var/tmp", "/dev/shm"):
        if fits(base) and os.path.isdir(base) and os.access(base, os.W_OK | os.X_OK):
            return Path(base)
    return None


def owner_is_gone(folder: Path) -> bool:
    """Whether the process that made ``folder`` is dead: its ``.owner`` lock is free, or (no
    lock file yet) the pid in its name does not run."""
    try:
        descriptor = os.open(folder / OWNER_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        from referee.sandbox.processes import alive

        found = OURS.fullmatch(folder.name)
        return found is not None and int(found.group(1)) != os.getpid() and not alive(int(found.group(1)))
    except OSError:
        return False  # not ours to judge (another user's)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held: its owner runs
    finally:
        os.close(descriptor)  # the lock, if it was taken, goes with the descriptor
    return True


def sweep_stale(directory: Path | None = None) -> list[Path]:
    """Remove the folders of dead owners in ``directory`` (default: the temporary directory),
    once per process and directory: owners that die later are the next process's to sweep.
    Returns what it removed."""
    root = Path(directory or tempfile.gettempdir())
    if str(root) in _swept:
        return []
    _swept.add(str(root))
    try:
        candidates = [p for p in root.iterdir() if OURS.fullmatch(p.name) and p.is_dir() and not p.is_symlink()]
    except OSError:
        return []
    stale = [p for p in candidates if owner_is_gone(p)]
    if stale:
        from referee.sandbox.space import remove_stale

        remove_stale()  # a killed launcher's tmpfs homes: unmounted first, or they could not be removed
    for folder in stale:
        with contextlib.suppress(OSError):
            shutil.rmtree(folder)
    return [p for p in stale if not p.exists()]
