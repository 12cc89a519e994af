"""Item 3: the leaderboard and the live tournament view are readable at 80 columns and 24
rows: columns chosen by width, no number ever cut, every panel kept."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from rich.console import Console

from spite_cli import leaderboard
from spite_cli.tournament_view import LiveView
from tournaments.standings import BotHealth, StandingRow


def _row(rank: int, name: str, **extra: Any) -> StandingRow:
    row = {"rank": rank, "name": name, "members": (name,), "mu": 31.234 - rank, "sigma": 1.2345,
           "conservative": 27.5 - rank, "matches": 1234, "games": 2468, "wins": 1000 + rank, "draws": 123,
           "losses": 111, "points": 2345, "win_rate": 0.8123, "win_rate_low": 0.7891, "win_rate_high": 0.8345,
           "timeouts": 12345, "illegal_moves": 3, "malformed": 0, "crashes": 7, "decisions": 99999,
           "decision_ms_p50": 123.45, "decision_ms_p99": 1234.56, "cpu_ms_per_decision": 1.5, "benched": ""}
    row.update(extra)
    return StandingRow(**row)


BOARD = [_row(i + 1, name) for i, name in enumerate(
    ["planner", "sampler", "greedy-with-a-long-name", "random", "naive", "typescript-greedy", "go-greedy"])]
NUMBERS = ["1234", "2345", "12355"]  # matches, points, faults (timeouts + illegal + crashes)


def _render(renderable: Any, width: int, height: int = 200) -> str:
    out = io.StringIO()
    Console(file=out, width=width, height=height, force_terminal=False, color_system=None).print(renderable)
    return out.getvalue()


@pytest.mark.parametrize("width", [80, 100, 120, 160, 200])
def test_the_leaderboard_fits_and_cuts_no_number(width: int) -> None:
    text = _render(leaderboard.rich_table(BOARD, "demo · standard", True), width)
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines)
    body = [line for line in lines if line.startswith("│")]
    assert len(body) == len(BOARD)  # one line per bot: nothing wrapped
    assert "…" not in "".join(cell for line in body for cell in line.split("│")[3:])  # only a name may be cut
    for line, row in zip(body, BOARD):
        cells = [c.strip() for c in line.strip("│").split("│")]
        assert f"{row.conservative:.2f}" in cells  # mu-3σ whole in every layout
        assert any(re.fullmatch(r"\d+(-\d+-\d+)?", c) and str(row.wins) in c for c in cells)


def test_at_80_columns_the_less_important_columns_merge_or_go() -> None:
    text = _render(leaderboard.rich_table(BOARD, "t", True), 80)
    assert "W-D-L" in text and "faults" in text and "12355" in text
    assert "timeouts" not in text
    wide = _render(leaderboard.rich_table(BOARD, "t", True), 220)
    assert "timeouts" in wide and "win rate (95% CI)" in wide and "sigma" in wide


def test_head_to_head_numbers_its_columns_when_names_do_not_fit() -> None:
    names = [row.name for row in BOARD]
    h2h = {a: {b: {"score": 1.5, "played": 3} for b in names if b != a} for a in names}
    text = _render(leaderboard.rich_head_to_head(BOARD, h2h), 80)
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "1.5/3" in text and "3 greedy-with" in text and "1.5/ " not in text


def test_the_live_view_keeps_every_panel_in_80_by_24() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, height=24, force_terminal=True, color_system=None)
    view = LiveView(console, "demo · standard", True)
    try:
        view.board = BOARD * 3
        view.failing = [("random", BotHealth(matches=4, crashes=2, crash="ValueError: boom (bot.py line 3)",
                                             log="/tmp/x.log", last_fault="game 0: the bot process exited " * 5))]
        for i in range(6):
            view.recent.append(f"round 0 deal {i}.0 · planner v sampler · planner won (1-0) · 1.2 s " * 2)
        frame = _render(view._render(), 80, 24)
    finally:
        view.close()
    lines = frame.rstrip("\n").splitlines()
    assert len(lines) <= 24, frame
    assert all(len(line) <= 80 for line in lines)
    assert "recent:" in frame and "failing bots:" in frame and "crashed: ValueError: boom" in frame
    assert "... and" in frame  # the board gives up rows, not the other panels


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_play_result_table_cuts_no_number(width: int) -> None:
    from spite_cli.play import _print_match

    seat = {"status": "done", "timeouts": 0, "illegal_moves": 0, "malformed": 0, "crashes": 0, "faults": [],
            "log_tail": [], "crash": ""}
    summary = {"match_id": "abc", "rules": "standard", "points": [2, 1], "log_dir": "/tmp/logs",
               "games": [{"outcome": {"winners": [0], "reason": "seat 0 emptied its stock", "offender": None}}] * 3,
               "seats": [{**seat, "seat": 0, "name": "sampler-long", "decisions": 12345, "decision_us_p50": 5260,
                          "decision_us_p99": 141530},
                         {**seat, "seat": 1, "name": "planner", "decisions": 166, "decision_us_p50": 560,
                          "decision_us_p99": 3530}]}
    out = io.StringIO()
    _print_match(Console(file=out, width=width, color_system=None), summary, None)
    text = out.getvalue()
    assert all(len(line) <= width for line in text.splitlines())
    assert "12345" in text and "…" not in text
    assert ("141.5" in text) == (width >= 80)  # the times go before any number is cut
