"""A bot's private writable space without bubblewrap: its HOME as a size-capped tmpfs.

Under bubblewrap the sandbox itself mounts HOME and ``/tmp`` as tmpfs (``--size``). Without
it, a launcher running as root mounts a tmpfs of :data:`PRIVATE_SPACE_BYTES` on the bot's
home (mode 0700, owned by the bot's uid), unmounted when the bot stops: what the bot wrote
there is gone, and it cannot fill the organizer's disk through it. The mount's source names
the launcher's pid (``spite-<pid>``), so a launcher that was killed leaves mounts the next one
removes (:func:`remove_stale`). Not root, or no ``mount(2)``: HOME stays a plain directory
deleted with the match.
"""

from __future__ import annotations

import ctypes
import functools
import os
from pathlib import Path

from referee.sandbox.bubblewrap import PRIVATE_SPACE_BYTES
from referee.sandbox.processes import alive

_MNT_DETACH = 2
_MS_NOSUID = 2
_MS_NODEV = 4


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def mount_private(home: Path, uid: int, size: int = PRIVATE_SPACE_BYTES) -> bool:
    """Mount a tmpfs of ``size`` bytes on ``home`` for ``uid``; False where this cannot."""
    libc = _libc()
    if libc is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    remove_stale()
    options = f"size={size},mode=0700,uid={uid},gid={uid}".encode()
    done = libc.mount(f"spite-{os.getpid()}".encode(), str(home).encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options)
    return int(done) == 0


def unmount(home: Path) -> None:
    libc = _libc()
    if libc is not None:
        libc.umount2(str(home).encode(), _MNT_DETACH)


def remove_stale() -> None:
    """Unmount the private spaces of launchers that are gone (killed before they could)."""
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return
    for line in lines:
        parts = line.split()
        if len(parts) < 3 or parts[2] != "tmpfs" or not parts[0].startswith("spite-"):
            continue
        owner = parts[0][len("spite-"):]
        if owner.isdigit() and not alive(int(owner)):
            unmount(Path(parts[1].replace("\\040", " ")))
