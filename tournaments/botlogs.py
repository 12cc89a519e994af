"""A bot's own log (its stderr, and its stdout for a gRPC bot), read back for people: the last
lines, capped, and where a traceback says the bot failed.

The launcher keeps each bot's output, capped, in a log file when it is given one
(:mod:`referee.local`); ``spite play``, ``spite check-bot`` and the tournament runner always
give one, so a crashing bot's traceback is shown and its whole log is kept where the result
names it.
"""

from __future__ import annotations

import re
from pathlib import Path

TAIL_LINES = 12
"""Lines of a bot's log shown in a result."""
TAIL_CHARS = 2000
"""At most this many characters of them (a bot may write one enormous line)."""

_PY_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')
_EXCEPTION = re.compile(r"^(?:Uncaught )?(?:[\w.]+\.)?(?:[A-Z]\w*)?(?:Error|Exception|Exit|Interrupt)\b(?::.*)?$")
_NODE_FRAME = re.compile(r"^\s*at .*?\(?(?P<file>[^():\s]+):(?P<line>\d+):\d+\)?$")


def tail(path: Path | str | None, lines: int = TAIL_LINES, chars: int = TAIL_CHARS) -> list[str]:
    """The last ``lines`` non-empty lines of the log at ``path`` (at most ``chars`` characters
    in all, the longest lines cut); ``[]`` when there is no log or it cannot be read."""
    if not path:
        return []
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - 64 * 1024))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return []
    kept = [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]
    out: list[str] = []
    room = chars
    for line in reversed(kept):
        if room <= 0:
            break
        cut = line if len(line) <= room else line[:max(0, room - 1)] + "…"
        out.append(cut)
        room -= len(cut)
    return list(reversed(out))


def crash_summary(lines: list[str]) -> str:
    """One line from a log's tail: the exception and where it was raised
    (``ValueError: boom (bot.py line 20, in decide)``), or ``""`` if the tail shows none.
    Python's frames come before the exception, Node's (``at f (bot.js:3:9)``) after it."""
    found = next((i for i in range(len(lines) - 1, -1, -1) if _EXCEPTION.match(lines[i].strip())), None)
    if found is None:
        return ""
    exception = lines[found].strip()
    where = ""
    for line in reversed(lines[:found]):
        frame = _PY_FRAME.match(line)
        if frame:
            where = f"{Path(frame['file']).name} line {frame['line']}, in {frame['func']}"
            break
    if not where:  # a SyntaxError names the file on its own line: `  File "bot.py", line 3`
        for line in lines[:found]:
            bare = re.match(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)', line)
            if bare:
                where = f"{Path(bare['file']).name} line {bare['line']}"
    if not where:
        for line in lines[found + 1:]:
            frame = _NODE_FRAME.match(line)
            if frame:
                where = f"{Path(frame['file']).name} line {frame['line']}"
                break
    return exception + (f" ({where})" if where else "")
