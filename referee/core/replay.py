"""Replay files: one per game, gzip-compressed JSON Lines.

Line 1, the header: ``{"format": "spite-replay", "format_version": 1, "rules": {...},
"seats": [...], "seed": N, "first_seat": K, "match_id": ..., "game_number": G}``.
Then one line per event of the game's full log, in order (moves with the seat, the
decision's wall time in microseconds and the bot's debug string; chance events
with their hidden cards: a replay is omniscient). Last line, the footer:
``{"outcome": {...}}``.

``load(path)`` turns a file back into a :class:`spite_engine.GameRecord`, which
``spite_engine.replay`` re-simulates exactly (``spite replay --verify``). ``docs/replays.md``
documents the format field by field.

A replay is omniscient, but a bot's debug strings are private to its seat:
:func:`debug_visible` is the one statement of who may see which (``move_notes`` applies
it); every viewer (``spite replay --as-seat``, the web viewer) goes through it.

Beside each replay a match writes each bot's log; :func:`bot_log_path` names its file.
"""

from __future__ import annotations

import gzip
import json
import os
import re
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


def debug_visible(mover: int, viewer: int | None) -> bool:
    """Whether the debug string of a move by seat ``mover`` may be shown to ``viewer``.

    A bot's debug text is private to its seat (it may describe its hand): while the game
    runs nobody else receives it, and a replay viewed as a seat shows only that seat's
    own -- not even a partner's. The omniscient view (``viewer`` None), which exists only
    after the game, shows every seat's. docs/protocol.md ("Deciding") says the same.
    """
    return viewer is None or viewer == mover


def move_notes(replay: "Replay", viewer: int | None = None) -> list[dict[str, Any]]:
    """Per move of ``replay.record.moves``, in order: ``{"us": wall time in µs, "debug": text}``,
    with the debug text blanked where :func:`debug_visible` says ``viewer`` may not see it."""
    notes = []
    for event, meta in zip(replay.record.events, replay.meta):
        if event.kind != EventKind.MOVE:
            continue
        debug = str(meta.get("debug", "")) if debug_visible(event.seat, viewer) else ""
        notes.append({"us": int(meta.get("us", 0) or 0), "debug": debug})
    return notes


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


def bot_log_path(log_dir: Path | str, match_id: str, seat: int, bot_name: str) -> Path:
    """Where a bot's output in one match goes: a file directly in ``log_dir`` whatever the bot
    calls itself (its name reduced to letters, digits and ``._+-``: a name holding ``/`` or
    ``..`` would have the launcher, as the organizer, write the bot's output anywhere)."""
    safe = re.sub(r"[^A-Za-z0-9._+-]", "_", bot_name).lstrip(".")[:64] or "bot"
    return Path(log_dir) / f"{match_id}-seat{seat}-{safe}.log"
