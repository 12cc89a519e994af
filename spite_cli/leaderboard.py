"""The leaderboard in four formats (table, json, csv, markdown) and the failing-bots call-out."""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from tournaments.standings import BotHealth

FORMATS = ("table", "json", "csv", "markdown")


def failing_lines(failing: Sequence[tuple[str, BotHealth]], limit: int = 5) -> list[Text]:
    """The "failing bots" call-out: each bot with timeouts, bad moves or crashes, and its last fault."""
    if not failing:
        return []
    lines = [Text("failing bots:", style="bold red")]
    for name, health in failing[:limit]:
        if health.benched:
            lines.append(Text(f"  {name}: BENCHED, its remaining matches are not played: {health.benched[:160]}",
                              style="bold red"))
            continue
        lines.append(Text(f"  {name}: {health.timeouts} timeouts, {health.illegal_moves + health.malformed} illegal, "
                          f"{health.crashes} crashes in {health.matches} matches; last: {health.last_fault[:120]}",
                          style="red"))
    if len(failing) > limit:
        lines.append(Text(f"  ... and {len(failing) - limit} more", style="red"))
    return lines


def _show_points(show_points: bool, row: dict[str, Any]) -> list[str]:
    return [str(row["points"])] if show_points else []


def _win_rate(row: dict[str, Any]) -> str:
    return f"{row['win_rate']:.0%} ({row['win_rate_low']:.0%}-{row['win_rate_high']:.0%})"


def _cells(row: dict[str, Any], show_points: bool) -> list[str]:
    name = row["name"] + (" (benched)" if row.get("benched") else "")
    return ([str(row["rank"]), name, f"{row['mu']:.2f}", f"{row['sigma']:.2f}", f"{row['conservative']:.2f}",
             str(row["matches"]), str(row["wins"]), str(row["draws"]), str(row["losses"])]
            + _show_points(show_points, row)
            + [_win_rate(row), str(row["timeouts"]), str(row["illegal_moves"] + row["malformed"]), str(row["crashes"]),
               f"{row['decision_ms_p50']:.2f}", f"{row['decision_ms_p99']:.2f}"])


def _headers(show_points: bool) -> list[str]:
    return (["#", "bot", "mu", "sigma", "mu-3σ", "matches", "W", "D", "L"] + (["points"] if show_points else [])
            + ["win rate (95% CI)", "timeouts", "illegal", "crashes", "p50 ms", "p99 ms"])


def _score(cell: dict[str, float] | None) -> str:
    if cell is None:
        return "-"
    score = cell["score"]
    return f"{score:g}/{int(cell['played'])}"


def rich_table(board: Sequence[dict[str, Any]], title: str, show_points: bool, limit: int | None = None) -> Table:
    table = Table(title=title, title_justify="left")
    for i, header in enumerate(_headers(show_points)):
        table.add_column(header, justify="left" if i == 1 else "right", no_wrap=i == 1)
    for row in board[:limit]:
        style = "red" if row["timeouts"] + row["crashes"] + row["illegal_moves"] + row["malformed"] else None
        table.add_row(*_cells(row, show_points), style=style)
    if limit is not None and len(board) > limit:
        table.caption = f"... and {len(board) - limit} more"
    return table


def rich_head_to_head(board: Sequence[dict[str, Any]], h2h: dict[str, dict[str, dict[str, float]]]) -> Table:
    names = [row["name"] for row in board]
    table = Table(title="head to head (win 1, draw 1/2)", title_justify="left",
                  caption="the row's score against the column", caption_justify="left")
    table.add_column("", no_wrap=True)
    for name in names:
        table.add_column(name, justify="right")
    for a in names:
        table.add_row(a, *(("·" if a == b else _score(h2h[a].get(b))) for b in names))
    return table


def render(fmt: str, board: Sequence[dict[str, Any]], h2h: dict[str, dict[str, dict[str, float]]],
           meta: dict[str, Any], show_points: bool) -> str | Group:
    """The leaderboard in ``fmt``: a rich renderable for ``table``, text for the others."""
    if fmt == "json":
        return json.dumps({**meta, "leaderboard": list(board), "head_to_head": h2h}, indent=2)
    if fmt == "csv":
        buffer = io.StringIO()
        columns = ["rank", "name", "mu", "sigma", "conservative", "matches", "games", "wins", "draws", "losses",
                   "points", "win_rate", "win_rate_low", "win_rate_high", "timeouts", "illegal_moves", "malformed",
                   "crashes", "decisions", "decision_ms_p50", "decision_ms_p99", "cpu_ms_per_decision", "benched"]
        writer = csv.DictWriter(buffer, columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(board)
        return buffer.getvalue().rstrip("\n")
    if fmt == "markdown":
        lines = [f"### {meta['title']}", "", "| " + " | ".join(_headers(show_points)) + " |",
                 "|" + "---|" * len(_headers(show_points))]
        lines += ["| " + " | ".join(_cells(row, show_points)) + " |" for row in board]
        names = [row["name"] for row in board]
        lines += ["", "Head to head (row's score against column: win 1, draw 1/2):", "",
                  "| | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 1)]
        lines += ["| " + a + " | " + " | ".join("·" if a == b else _score(h2h[a].get(b)) for b in names) + " |"
                  for a in names]
        if meta.get("note"):
            lines += ["", meta["note"]]
        return "\n".join(lines)
    parts: list[Any] = [rich_table(board, meta["title"], show_points), rich_head_to_head(board, h2h)]
    if meta.get("note"):
        parts.append(Text(meta["note"], style="dim"))
    return Group(*parts)
