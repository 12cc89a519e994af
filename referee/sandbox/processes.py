"""A bot's processes and CPU time without cgroups."""

from __future__ import annotations

import os
from typing import Iterable

def descendants(leader: int) -> list[int]:
    """The leader and every live process below it (one pass over /proc)."""
    parent_of: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields_ = handle.read().rsplit(b")", 1)[1].split()
            parent_of[int(entry.name)] = int(fields_[1])
        except (OSError, IndexError, ValueError):
            continue
    found = {leader} if leader in parent_of else set()
    changed = True
    while changed:
        changed = False
        for pid, parent in parent_of.items():
            if parent in found and pid not in found:
                found.add(pid)
                changed = True
    return sorted(found)


_CLK_TCK = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pids: Iterable[int]) -> float:
    """User + system time of ``pids`` and of their reaped children, from /proc."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields_ = handle.read().rsplit(b")", 1)[1].split()
            total += sum(int(x) for x in fields_[11:15])
        except (OSError, IndexError, ValueError):
            continue
    return total / _CLK_TCK
