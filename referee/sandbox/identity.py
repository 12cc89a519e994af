"""A user id of its own for each bot, when the organizer runs as root.

A bot that shares the organizer's user can read the other bots' ``/proc`` (tokens, open
pipes), signal them, write their files and, as root, move itself out of its cgroup. So when
the launcher runs as root each bot runs as an unprivileged uid taken from a range
(``SPITE_BOT_UIDS=first-last``, default 61000-61999; ``off`` to disable), never held by
two live bots at once -- across every referee and tournament worker on the machine: a uid
is held by an exclusive ``flock`` on a file in :data:`LOCK_DIR` for as long as the bot runs
(the kernel drops it when the holder dies), and a uid some process still runs as, or that
``/etc/passwd`` names, is skipped. Cgroup files stay root-owned, so the bot cannot touch them.

This is what Halite did: a Unix user per bot.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

DEFAULT_RANGE = (61000, 61999)
LOCK_DIR = Path("/run/spite-bot-uids") if Path("/run").is_dir() else Path("/var/tmp/spite-bot-uids")


class NoFreeIdentity(RuntimeError):
    """Every uid of the range is held by a live bot (or used by the system)."""


@dataclass
class BotIdentity:
    """One bot's uid (its gid is the same number), held until :meth:`release`."""

    uid: int
    _lock: int | None = None

    @property
    def gid(self) -> int:
        return self.uid

    def release(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def uid_range() -> tuple[int, int] | None:
    """The configured range, or None when bots keep the organizer's user (not root, or ``off``)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    text = os.environ.get("SPITE_BOT_UIDS", "").strip().lower()
    if text == "off":
        return None
    if not text:
        return DEFAULT_RANGE
    first, _, last = text.partition("-")
    try:
        low, high = int(first), int(last or first)
    except ValueError:
        raise ValueError(f"SPITE_BOT_UIDS must be 'first-last' (e.g. 61000-61999) or 'off', got {text!r}") from None
    if not 0 < low <= high:
        raise ValueError(f"SPITE_BOT_UIDS: an empty or privileged range {text!r}")
    return low, high


def _uids_in_use() -> set[int]:
    """Real uids of the live processes (a bot of a killed run may still hold one)."""
    found: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            found.add(os.stat(entry.path).st_uid)
        except OSError:
            continue
    return found


def allocate(first_choice: int = 0) -> BotIdentity | None:
    """A free uid of the range, held until released (None when bots keep the organizer's user)."""
    bounds = uid_range()
    if bounds is None:
        return None
    low, high = bounds
    LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
    busy = _uids_in_use()
    span = high - low + 1
    start = (first_choice or os.getpid()) % span
    for step in range(span):
        uid = low + (start + step) % span
        if uid in busy or _named(uid):
            continue
        fd = os.open(LOCK_DIR / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return BotIdentity(uid, fd)
    raise NoFreeIdentity(f"all {span} bot uids {low}-{high} are in use (SPITE_BOT_UIDS widens the range)")


def _named(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def program_path(command: Sequence[str], workdir: Path) -> Path:
    """Where ``command``'s program is (PATH searched for a bare name)."""
    program = command[0]
    if os.sep not in program:
        found = shutil.which(program)
        return Path(found) if found else Path(program)
    return Path(program) if os.path.isabs(program) else workdir / program


def unreachable(uid: int, paths: Iterable[Path], ancestors: bool = True) -> str:
    """The first path that ``uid`` (group ``uid``, no other groups) cannot pass (a directory:
    execute) or read (a file) on the way to one of ``paths`` (symlinks followed), or "".
    ``ancestors=False`` checks the paths alone (bubblewrap recreates the directories above
    its mounts)."""
    for path in paths:
        target = Path(os.path.realpath(path))
        for step in [*(reversed(target.parents) if ancestors else []), target]:
            try:
                info = os.stat(step)
            except OSError:
                continue
            directory = stat.S_ISDIR(info.st_mode)
            owner, group, other = ((stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH) if directory
                                   else (stat.S_IRUSR, stat.S_IRGRP, stat.S_IROTH))
            bit = owner if info.st_uid == uid else group if info.st_gid == uid else other
            if not info.st_mode & bit:
                return str(step)
    return ""


SCRATCH_PLACES = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))
"""Where any user may write on a usual machine: swept of a bot uid's files after its match."""


def sweep(uid: int, places: Iterable[Path] = SCRATCH_PLACES, depth: int = 4) -> list[Path]:
    """Delete what ``uid`` owns in ``places`` (a directory of its with all below): whatever a
    bot with a uid of its own wrote outside its private space, gone with the match."""
    removed: list[Path] = []
    for place in places:
        removed += _sweep_dir(place, uid, depth)
    return removed


def _sweep_dir(directory: Path, uid: int, depth: int) -> list[Path]:
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        path = Path(entry.path)
        if info.st_uid == uid:
            try:
                if stat.S_ISDIR(info.st_mode):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink()
                removed.append(path)
            except OSError:
                pass
        elif stat.S_ISDIR(info.st_mode) and depth > 1 and info.st_mode & stat.S_IWOTH:
            removed += _sweep_dir(path, uid, depth - 1)  # only directories the bot could write into
    return removed
