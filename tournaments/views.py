"""What the runner reports while it runs: the :class:`View` it calls, and the plain one."""

from __future__ import annotations

from typing import Protocol, TextIO

from .standings import StandingRow, Standings
from .store import MatchRow


class View(Protocol):
    def started(self, total: int, done: int) -> None: ...

    def total(self, total: int) -> None: ...

    def finished(self, match: MatchRow, line: str, faults: list[str]) -> None: ...

    def update(self, board: list[StandingRow], standings: Standings) -> None: ...

    def note(self, line: str) -> None: ...

    def close(self) -> None: ...


class PlainView:
    """One line per match, for CI logs and pipes."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.done = 0
        self.all = 0

    def started(self, total: int, done: int) -> None:
        self.all, self.done = total, done

    def total(self, total: int) -> None:
        self.all = total

    def finished(self, match: MatchRow, line: str, faults: list[str]) -> None:
        self.done += 1
        width = len(str(self.all))
        extra = "".join(f"  ! {f}" for f in faults)
        print(f"[{self.done:>{width}}/{self.all}] {line}{extra}", file=self.out, flush=True)

    def update(self, board: list[StandingRow], standings: Standings) -> None:
        pass

    def note(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def close(self) -> None:
        pass
