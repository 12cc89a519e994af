"""A replay as the viewer draws it: one frame of the table per step, built from observations.

Every frame comes from :func:`spite_engine.observe` (as seat K) or
:func:`spite_engine.observe_public` (omniscient adds each seat's hand on top), so the
as-seat view can show nothing the engine's default-deny observation does not: the other
hands are only counts, and only seat K's debug strings are kept -- the rule of
``spite replay --as-seat``. ``tests/web/test_leaks.py`` re-deals what the seat cannot see
and checks the frames do not change.
"""

from __future__ import annotations

from typing import Any

from referee.core.replay import Replay, move_notes
from spite_engine import GameState, Observation, RuleSet, observe, observe_public


class ViewError(ValueError):
    """A view that the replay does not have (a seat out of range)."""


def frame(state: GameState, as_seat: int | None) -> dict[str, Any]:
    """The table at one moment, as the viewer draws it; ``as_seat`` None is omniscient."""
    view = observe_public(state) if as_seat is None else observe(state, as_seat)
    hands: list[list[int] | None]
    if as_seat is None:
        hands = [sorted(hand) for hand in state.hands]
    else:
        hands = [list(view.hand) if seat == as_seat else None for seat in range(state.rules.players)]
    return _public(view) | {"hands": hands}


def _public(view: Observation) -> dict[str, Any]:
    return {
        "turn": view.turn, "to_move": view.to_move,
        "hand_sizes": list(view.hand_sizes),
        "stocks": [{"count": s.count, "visible": list(s.visible)} for s in view.stocks],
        "discards": [[list(pile) for pile in piles] for piles in view.discard_piles],
        "centre": [list(pile) for pile in view.centre_piles],
        "draw_pile": view.draw_pile_count, "set_aside": view.set_aside_count,
    }


def viewer_rules(rules: RuleSet) -> dict[str, Any]:
    """What the viewer needs of a rule set to lay out the table and mark the wild cards."""
    return {"name": rules.name, "players": rules.players, "partners": rules.partners,
            "stock_of": [rules.stock_of(s) for s in range(rules.players)],
            "wild": sorted(rules.wild_ranks), "deck": rules.deck, "open_stock": rules.open_stock}


def viewer_data(replay: Replay, as_seat: int | None = None, *, source: str = "", debug: bool = True) -> dict[str, Any]:
    """Everything the viewer needs, JSON-ready: header, one frame per step (before each
    move, and the end), the moves with their time and (allowed) debug strings, the outcome.
    ``debug`` False leaves every debug string out (the public's view of a ladder game)."""
    record = replay.record
    rules = record.rules
    if as_seat is not None and not 0 <= as_seat < rules.players:
        raise ViewError(f"as_seat must be 0..{rules.players - 1}, got {as_seat}")
    names = [s.get("name", f"seat {s.get('seat', i)}") for i, s in enumerate(replay.header.get("seats", []))]
    names += [f"seat {i}" for i in range(len(names), rules.players)]
    move_meta = move_notes(replay, as_seat)  # debug strings blanked where as_seat may not see them
    state = GameState.new(rules, record.seed, record.first_seat)
    frames, moves = [], []
    for step, (seat, move) in enumerate(record.moves):
        frames.append(frame(state, as_seat))
        meta = move_meta[step] if step < len(move_meta) else {}
        entry: dict[str, Any] = {"seat": seat, "move": str(move), "turn": state.turn, "us": meta.get("us")}
        if debug and meta.get("debug"):
            entry["debug"] = str(meta["debug"])
        moves.append(entry)
        state.apply(move)
    frames.append(frame(state, as_seat))
    outcome = record.outcome
    return {
        "format": "spite-viewer", "version": 1, "source": source,
        "view": "omniscient" if as_seat is None else as_seat,
        "match_id": replay.header.get("match_id"), "game_number": replay.header.get("game_number"),
        "rules": viewer_rules(rules),
        "seats": names, "first_seat": record.first_seat,
        "frames": frames, "moves": moves,
        "outcome": None if outcome is None else {
            "ending": outcome.ending.value, "winners": list(outcome.winners), "scores": list(outcome.scores),
            "reason": outcome.reason, "offender": outcome.offender, "by_rules": outcome.ending.by_rules},
    }
