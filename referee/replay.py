"""Replay files: one per game, gzip-compressed JSON Lines.

Line 1, the header: ``{"format": "spite-replay", "format_version": 1, "rules": {...},
"seats": [...], "seed": N, "first_seat": K, "match_id": ..., "game_number": G}``.
Then one line per event of the game's full log, in order (moves with the seat, the
decision's wall time in microseconds and the bot's debug string; chance events
with their hidden cards: a replay is omniscient). Last line, the footer:
``{"outcome": {...}}``.

``load(path)`` turns a file back into a :class:`spite_engine.GameRecord`, which
``spite_engine.replay`` re-simulates exactly (``spite replay --verify``).
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spite_engine import Event, EventKind, GameRecord, GameState, Outcome, RuleSet

FORMAT = "spite-replay"
FORMAT_VERSION = 1


class ReplayError(Exception):
    """A file that is not a readable replay."""


@dataclass
class Replay:
    header: dict[str, Any]
    record: GameRecord
    meta: list[dict[str, Any]]
    """Per event of ``record.events``: {"us": ..., "debug": ...} for moves, {} otherwise."""


def write(path: Path, header: dict[str, Any], state: GameState, move_meta: dict[int, dict[str, Any]]) -> Path:
    """Write ``state``'s whole game to ``path`` atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".tmp")
    head = {"format": FORMAT, "format_version": FORMAT_VERSION, **header,
            "rules": state.rules.to_dict(), "seed": state.seed, "first_seat": state.first_seat}
    with gzip.open(temporary, "wt", encoding="utf-8") as out:
        out.write(json.dumps(head) + "\n")
        for index, event in enumerate(state.log):
            line: dict[str, Any] = {"event": event.to_dict()}
            if event.kind == EventKind.MOVE:
                line.update(move_meta.get(index, {}))
            out.write(json.dumps(line) + "\n")
        out.write(json.dumps({"outcome": state.outcome.to_dict() if state.outcome else None}) + "\n")
    os.replace(temporary, path)
    return path


def load(path: Path | str) -> Replay:
    """Read a replay file; raises :class:`ReplayError` naming the line that is wrong."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as source:
            lines = [json.loads(line) for line in source if line.strip()]
    except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ReplayError(f"{path}: not a readable replay ({error})") from None
    if len(lines) < 2 or lines[0].get("format") != FORMAT:
        raise ReplayError(f"{path}: no spite-replay header")
    header = lines[0]
    if header.get("format_version") != FORMAT_VERSION:
        raise ReplayError(f"{path}: replay format {header.get('format_version')} (this reads {FORMAT_VERSION})")
    if "outcome" not in lines[-1]:
        raise ReplayError(f"{path}: the footer (outcome) is missing: the file is truncated")
    try:
        events = [Event.from_dict(line["event"]) for line in lines[1:-1]]
        meta = [{k: v for k, v in line.items() if k != "event"} for line in lines[1:-1]]
        moves = [(e.seat, e.move) for e in events if e.kind == EventKind.MOVE and e.move is not None]
        outcome = Outcome.from_dict(lines[-1]["outcome"]) if lines[-1]["outcome"] else None
        record = GameRecord(RuleSet.from_dict(header["rules"]), int(header["seed"]), int(header["first_seat"]),
                            moves, events, outcome)
    except (KeyError, TypeError, ValueError) as error:
        raise ReplayError(f"{path}: malformed replay line ({error})") from None
    return Replay(header, record, meta)
