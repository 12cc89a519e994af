"""The leaderboard in four formats (table, json, csv, markdown) and the failing-bots call-out."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text

from tournaments.queries import Leaderboard
from tournaments.standings import BotHealth, StandingRow

FORMATS = ("table", "json", "csv", "markdown")


def failing_lines(failing: Sequence[tuple[str, BotHealth]], limit: int = 5) -> list[Text]:
    """The "failing bots" call-out: each bot with timeouts, bad moves or crashes, its last fault,
    and for a crash the exception its own log shows and where that log is kept."""
    if not failing:
        return []
    lines = [Text("failing bots:", style="bold red")]
    for name, health in failing[:limit]:
        if health.benched:
            lines.append(Text(f"  {name}: BENCHED, its remaining matches are not played: {health.benched[:160]}",
                              style="bold red"))
        else:
            lines.append(Text(f"  {name}: {health.timeouts} timeouts, {health.illegal_moves + health.malformed} "
                              f"illegal, {health.crashes} crashes in {health.matches} matches; "
                              f"last: {health.last_fault[:120]}", style="red"))
        if health.crash:
            lines.append(Text(f"    crashed: {health.crash[:300]}", style="red"))
        if health.log:
            lines.append(Text(f"    log: {health.log}", style="dim"))
    if len(failing) > limit:
        lines.append(Text(f"  ... and {len(failing) - limit} more", style="red"))
    return lines


def _show_points(show_points: bool, row: StandingRow) -> list[str]:
    return [str(row.points)] if show_points else []


def _win_rate(row: StandingRow) -> str:
    return f"{row.win_rate:.0%} ({row.win_rate_low:.0%}-{row.win_rate_high:.0%})"


def _cells(row: StandingRow, show_points: bool) -> list[str]:
    name = row.name + (" (benched)" if row.benched else "")
    return ([str(row.rank), name, f"{row.mu:.2f}", f"{row.sigma:.2f}", f"{row.conservative:.2f}",
             str(row.matches), str(row.wins), str(row.draws), str(row.losses)]
            + _show_points(show_points, row)
            + [_win_rate(row), str(row.timeouts), str(row.illegal_moves + row.malformed), str(row.crashes),
               f"{row.decision_ms_p50:.2f}", f"{row.decision_ms_p99:.2f}"])


def _headers(show_points: bool) -> list[str]:
    return (["#", "bot", "mu", "sigma", "mu-3σ", "matches", "W", "D", "L"] + (["points"] if show_points else [])
            + ["win rate (95% CI)", "timeouts", "illegal", "crashes", "p50 ms", "p99 ms"])


def _score(cell: dict[str, float] | None) -> str:
    if cell is None:
        return "-"
    score = cell["score"]
    return f"{score:g}/{int(cell['played'])}"


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[StandingRow], str]
    left: bool = False


COLUMNS: dict[str, Column] = {
    "rank": Column("#", lambda r: str(r.rank)),
    "bot": Column("bot", lambda r: r.name + (" (benched)" if r.benched else ""), left=True),
    "mu": Column("mu", lambda r: f"{r.mu:.2f}"),
    "sigma": Column("sigma", lambda r: f"{r.sigma:.2f}"),
    "mu±σ": Column("mu±σ", lambda r: f"{r.mu:.1f}±{r.sigma:.1f}"),
    "cons": Column("mu-3σ", lambda r: f"{r.conservative:.2f}"),
    "matches": Column("matches", lambda r: str(r.matches)),
    "W": Column("W", lambda r: str(r.wins)),
    "D": Column("D", lambda r: str(r.draws)),
    "L": Column("L", lambda r: str(r.losses)),
    "WDL": Column("W-D-L", lambda r: f"{r.wins}-{r.draws}-{r.losses}"),
    "points": Column("points", lambda r: str(r.points)),
    "winrate_ci": Column("win rate (95% CI)", _win_rate),
    "winrate": Column("win%", lambda r: f"{r.win_rate:.0%}"),
    "timeouts": Column("timeouts", lambda r: str(r.timeouts)),
    "illegal": Column("illegal", lambda r: str(r.illegal_moves + r.malformed)),
    "crashes": Column("crashes", lambda r: str(r.crashes)),
    "faults": Column("faults", lambda r: str(r.faults)),
    "p50": Column("p50 ms", lambda r: f"{r.decision_ms_p50:.2f}"),
    "p99": Column("p99 ms", lambda r: f"{r.decision_ms_p99:.2f}"),
    "ms": Column("ms p50/p99", lambda r: f"{r.decision_ms_p50:.1f}/{r.decision_ms_p99:.1f}"),
}

LAYOUTS: tuple[tuple[str, ...], ...] = (
    ("rank", "bot", "mu", "sigma", "cons", "matches", "W", "D", "L", "points", "winrate_ci", "timeouts", "illegal",
     "crashes", "p50", "p99"),
    ("rank", "bot", "mu", "sigma", "cons", "matches", "W", "D", "L", "points", "winrate_ci", "faults", "ms"),
    ("rank", "bot", "cons", "mu±σ", "matches", "WDL", "points", "winrate_ci", "faults", "ms"),
    ("rank", "bot", "cons", "mu±σ", "WDL", "points", "winrate", "faults", "ms"),
    ("rank", "bot", "cons", "WDL", "points", "winrate", "faults"),
    ("rank", "bot", "cons", "WDL", "faults"),
)
"""The leaderboard's columns from the widest layout to the narrowest (htop-style): the
less important ones merge (W D L into W-D-L, the fault kinds into one count, mu and sigma
into mu±σ) or go, so that no number is ever cut. The bot name is the one cell that may be
shortened, in the narrowest layout only."""


def layout_for(board: Sequence[StandingRow], show_points: bool, width: int) -> tuple[str, ...]:
    """The widest layout whose table fits in ``width`` cells (else the narrowest)."""
    for layout in LAYOUTS:
        keys = tuple(k for k in layout if show_points or k != "points")
        if table_width(board, keys) <= width:
            return keys
    return tuple(k for k in LAYOUTS[-1] if show_points or k != "points")


def table_width(board: Sequence[StandingRow], keys: Sequence[str]) -> int:
    """The width rich gives a table of these columns (one cell of padding each side, a border between)."""
    total = len(keys) + 1
    for key in keys:
        column = COLUMNS[key]
        total += 2 + max([cell_len(column.header)] + [cell_len(column.cell(row)) for row in board])
    return total


class FitTable:
    """The leaderboard as a rich renderable that picks its columns for the width it is given."""

    def __init__(self, board: Sequence[StandingRow], title: str, show_points: bool,
                 limit: int | None = None) -> None:
        self.board = list(board)
        self.title = title
        self.show_points = show_points
        self.limit = limit

    def table(self, width: int) -> Table:
        shown = self.board[:self.limit]
        keys = layout_for(shown, self.show_points, width)
        table = Table(title=self.title, title_justify="left")
        for key in keys:
            column = COLUMNS[key]
            if column.left:
                table.add_column(column.header, justify="left", no_wrap=True, overflow="ellipsis", min_width=6)
            else:  # as wide as its widest cell: the name gives way, a number never does
                need = max([cell_len(column.header)] + [cell_len(column.cell(row)) for row in shown])
                table.add_column(column.header, justify="right", no_wrap=True, overflow="fold", min_width=need)
        for row in shown:
            style = "red" if row.faults else None
            table.add_row(*(COLUMNS[k].cell(row) for k in keys), style=style)
        if self.limit is not None and len(self.board) > self.limit:
            table.caption = f"... and {len(self.board) - self.limit} more"
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table(options.max_width)


def rich_table(board: Sequence[StandingRow], title: str, show_points: bool, limit: int | None = None) -> FitTable:
    """The leaderboard table, its columns chosen by the width it is drawn at."""
    return FitTable(board, title, show_points, limit)


class FitHeadToHead:
    """Head to head; where the bots' names do not fit as column headers, the columns are
    numbered by rank and the rows say which number is which bot."""

    def __init__(self, board: Sequence[StandingRow], h2h: dict[str, dict[str, dict[str, float]]]) -> None:
        self.names = [row.name for row in board]
        self.h2h = h2h

    def table(self, width: int, numbered: bool) -> Table:
        names = self.names
        table = Table(title="head to head (win 1, draw 1/2)", title_justify="left",
                      caption="the row's score against the column", caption_justify="left")
        scores = [_score(self.h2h[a].get(b)) for a in names for b in names if a != b] or ["-"]
        cell = max(cell_len(s) for s in scores)
        headers = [str(i + 1) if numbered else name for i, name in enumerate(names)]
        others = sum(max(cell, cell_len(h)) + 3 for h in headers) + 1
        table.add_column("", no_wrap=True, overflow="ellipsis", min_width=4, max_width=max(4, width - others - 3))
        for i, name in enumerate(names):
            header = str(i + 1) if numbered else name
            table.add_column(header, justify="right", no_wrap=True, overflow="fold",
                             min_width=max(cell, cell_len(header)))
        for i, a in enumerate(names):
            label = f"{i + 1} {a}" if numbered else a
            table.add_row(label, *(("·" if a == b else _score(self.h2h[a].get(b))) for b in names))
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        names = self.names
        scores = [_score(self.h2h[a].get(b)) for a in names for b in names if a != b] or ["-"]
        cell = max(cell_len(s) for s in scores)
        label = max([cell_len(n) for n in names] or [0])
        full = label + 3 + sum(max(cell_len(n), cell) + 3 for n in names) + 1
        yield self.table(width, numbered=full > width)


def rich_head_to_head(board: Sequence[StandingRow], h2h: dict[str, dict[str, dict[str, float]]]) -> FitHeadToHead:
    return FitHeadToHead(board, h2h)


def render(fmt: str, leaderboard: Leaderboard) -> str | Group:
    """The leaderboard in ``fmt``: a rich renderable for ``table``, text for the others."""
    board, h2h, show_points = leaderboard.rows, leaderboard.head_to_head, leaderboard.show_points
    if fmt == "json":
        return json.dumps({**leaderboard.meta, "leaderboard": leaderboard.board(), "head_to_head": h2h}, indent=2)
    if fmt == "csv":
        buffer = io.StringIO()
        columns = ["rank", "name", "mu", "sigma", "conservative", "matches", "games", "wins", "draws", "losses",
                   "points", "win_rate", "win_rate_low", "win_rate_high", "timeouts", "illegal_moves", "malformed",
                   "crashes", "decisions", "decision_ms_p50", "decision_ms_p99", "cpu_ms_per_decision", "benched"]
        writer = csv.DictWriter(buffer, columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(leaderboard.board())
        return buffer.getvalue().rstrip("\n")
    if fmt == "markdown":
        lines = [f"### {leaderboard.title}", "", "| " + " | ".join(_headers(show_points)) + " |",
                 "|" + "---|" * len(_headers(show_points))]
        lines += ["| " + " | ".join(_cells(row, show_points)) + " |" for row in board]
        names = [row.name for row in board]
        lines += ["", "Head to head (row's score against column: win 1, draw 1/2):", "",
                  "| | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 1)]
        lines += ["| " + a + " | " + " | ".join("·" if a == b else _score(h2h[a].get(b)) for b in names) + " |"
                  for a in names]
        if leaderboard.note:
            lines += ["", leaderboard.note]
        return "\n".join(lines)
    parts: list[Any] = [rich_table(board, leaderboard.title, show_points), rich_head_to_head(board, h2h)]
    if leaderboard.note:
        parts.append(Text(leaderboard.note, style="dim"))
    return Group(*parts)
