"""The live terminal view of a running tournament (rich): progress with ETA, the
leaderboard as it stands, recent results, failing bots."""

from __future__ import annotations

import sys
from collections import deque
from typing import Any, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from tournaments.config import TournamentConfig
from tournaments.standings import BotHealth, StandingRow, Standings
from tournaments.store import MatchRow
from tournaments.views import PlainView, View

from . import leaderboard


def _one_line(text: Text) -> Text:
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


class LiveView:
    """A progress bar with ETA, the leaderboard as it stands, recent results, failing bots."""

    def __init__(self, console: Console, title: str, show_points: bool) -> None:
        self.console = console
        self.title = title
        self.show_points = show_points
        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console)
        self.task = self.progress.add_task("matches", total=None)
        self.recent: deque[str] = deque(maxlen=6)
        self.board: list[StandingRow] = []
        self.failing: list[tuple[str, BotHealth]] = []
        # Transient: when the run ends the view goes, and the final leaderboard is printed in its place.
        self.live = Live(self._render(), console=console, refresh_per_second=4, transient=True)
        self.live.start()

    def _render(self) -> Group:
        """Everything, fitted to the window: one line per item (long ones end in an ellipsis,
        never a wrapped line), the failing bots and at least two recent results kept, and the
        leaderboard given the rows that are left (its columns fit the width by themselves)."""
        height = max(10, self.console.height - 1)
        failing = [_one_line(line) for line in leaderboard.failing_lines(self.failing, limit=3)]
        recent = [_one_line(Text("  " + line, style="dim")) for line in self.recent]
        table_overhead = 6  # title, header (3 lines), bottom border, "... and N more"
        room = height - 1 - len(failing) - (1 + min(2, len(recent)) if recent else 0) - table_overhead
        rows = max(1, min(15, room))
        spare = max(0, room - len(self.board)) if self.board else height - 1 - len(failing) - 1
        recent = recent[-min(6, min(2, len(recent)) + spare):] if recent else []
        parts: list[Any] = [self.progress]
        if self.board:
            parts.append(leaderboard.rich_table(self.board, self.title, self.show_points, limit=rows))
        parts.extend(failing)
        if recent:
            parts.append(Text("recent:", style="bold"))
            parts.extend(recent)
        return Group(*parts)

    def started(self, total: int, done: int) -> None:
        self.progress.update(self.task, total=total, completed=done)
        self.progress.reset(self.task, total=total, completed=done)

    def total(self, total: int) -> None:
        self.progress.update(self.task, total=total)

    def finished(self, match: MatchRow, line: str, faults: list[str]) -> None:
        self.progress.advance(self.task)
        self.recent.append(line + "".join(f"  ! {f}" for f in faults))
        self.live.update(self._render())

    def update(self, board: list[StandingRow], standings: Standings) -> None:
        self.board = board
        self.failing = standings.failing()
        self.live.update(self._render())

    def note(self, line: str) -> None:
        self.live.console.print(line)

    def close(self) -> None:
        self.live.stop()


def make_view(config: TournamentConfig, plain: bool | None, out: TextIO | None = None) -> View:
    """The live view on a terminal, else plain lines; ``plain=False`` forces the live view
    (rendered as if to a terminal, whatever ``out`` is)."""
    stream = out or sys.stdout
    console = Console(file=stream, force_terminal=True if plain is False else None)
    if plain or (plain is None and not console.is_terminal):
        return PlainView(stream)
    return LiveView(console, f"{config.name} · {config.rules.name}", config.rules.scores_points)
