"""Terminal rendering with rich: the live table of a game, and replay steps."""

from __future__ import annotations

import re
from typing import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from spite_engine import Event, EventKind, Observation, card_name


def cards(values: Sequence[int]) -> str:
    return " ".join(card_name(c) for c in values) if values else "-"


def pile_top(pile: Sequence[int]) -> str:
    return f"{card_name(pile[-1])}({len(pile)})" if pile else "-"


_SEAT = re.compile(r"\b[Ss]eat (\d+)\b(?! \()")


def name_seats(text: str, names: Sequence[str], offender: int | None = None) -> str:
    """``text`` with each bot named as well as its seat ("planner (seat 2) emptied its stock"),
    and, when the text names no seat, the offending bot put first ("crashy (seat 0): ...")."""
    def named(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        if not 0 <= seat < len(names):
            return match.group(0)
        return f"{names[seat]} ({match.group(0)})"

    result = _SEAT.sub(named, text)
    if offender is not None and 0 <= offender < len(names) and result == text:
        result = f"{names[offender]} (seat {offender}): {text}"
    return result


def describe_event(event: Event, names: Sequence[str] | None = None) -> str:
    def who(seat: int) -> str:
        return f"seat {seat}" + (f" ({names[seat]})" if names and 0 <= seat < len(names) else "")

    kind = event.kind
    if kind == EventKind.MOVE:
        return f"{who(event.seat)} {event.move}"
    if kind == EventKind.DRAW:
        shown = f": {cards(event.cards)}" if event.cards else ""
        return f"{who(event.seat)} drew {event.count}{shown}"
    if kind == EventKind.REVEAL:
        return f"stock {event.pile} shows {cards(event.cards)} ({event.count} left)"
    if kind == EventKind.PILE_COMPLETED:
        return f"centre pile {event.pile} completed"
    if kind == EventKind.SHUFFLE:
        return f"draw pile shuffled ({event.count} cards)" + (f": {cards(event.cards)}" if event.cards else "")
    if kind == EventKind.TURN:
        return f"turn {event.count}: {who(event.seat)}"
    if kind == EventKind.DEAL:
        return f"deal; {who(event.seat)} starts"
    return "game over"


def table(view: Observation, names: Sequence[str], title: str, recent: Sequence[str] = ()) -> Group:
    """The table as one seat (or, with ``view.seat == -1``, a spectator) sees it."""
    rules = view.rules
    needs = view.centre_needs
    centre = "   ".join(
        f"C{i} {card_name(len(p)) if p else '-'}" + (f" (needs {card_name(needs[i])})" if p else "")
        for i, p in enumerate(view.centre_piles))
    head = Text.assemble((title, "bold"), f"   turn {view.turn}   to move: seat {view.to_move} "
                         f"({names[view.to_move] if view.to_move < len(names) else '?'})")
    grid = Table(show_header=True, header_style="bold", expand=False, box=None, padding=(0, 2))
    for column in ("seat", "bot", "stock", "top", "hand", "discard piles (top, size)"):
        grid.add_column(column)
    for seat in range(rules.players):
        stock = view.stocks[rules.stock_of(seat)]
        marker = "▶ " if seat == view.to_move and view.outcome is None else "  "
        hand = cards(view.hand) if seat == view.seat else f"{view.hand_sizes[seat]} cards"
        grid.add_row(f"{marker}{seat}", names[seat] if seat < len(names) else "?", str(stock.count),
                     cards(stock.visible), hand, "  ".join(pile_top(p) for p in view.discard_piles[seat]))
    lines: list[Text | Table] = [head, Text(f"centre: {centre}     draw pile: {view.draw_pile_count}"
                                            + (f"  set aside: {view.set_aside_count}" if view.set_aside_count else "")),
                                 grid]
    if recent:
        lines.append(Text("last: " + "; ".join(recent[-6:]), style="dim"))
    if view.outcome is not None:
        lines.append(Text(f"game over: {name_seats(view.outcome.reason, names, view.outcome.offender)}",
                          style="bold green"))
    return Group(*lines)
