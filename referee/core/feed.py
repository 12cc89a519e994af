"""A match's public feed in a file, for spectators in another process (a hosted ladder's games).

A match whose config names a ``live_feed`` path gets a :class:`LiveFeed` among its
spectators: it receives exactly what the Spectate stream sends (``observe_public`` at each
game's start, then ``visible_events(state, None)``, the outcomes, the match's end) and
appends each message to the file as one line, base64 of the protobuf. The first line is a
JSON header (the rule set, the seat count; no name: a ladder's games in play are anonymous),
the last line is :data:`END`; then the file is removed. A reader (``spite_web.live``) follows
the file from its first line, so a spectator who comes in late still gets the game's start,
which a Spectate stream subscribed after the start does not send.

The file is written by the referee's own process (a worker's, or ``spite serve``'s for remote
bots' games), mode 0600, in a directory no bot can read (the job's ``hide``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
from pathlib import Path
from typing import IO, Protocol

from spite.v1 import referee_pb2 as rpb
from spite_engine import RuleSet
from spite_wire import rules_to_proto

log = logging.getLogger("spite.referee")
FORMAT, VERSION = "spite-live", 1
FLUSH_S = 0.05
"""The most a line waits in the writer's buffer: one write a few moves, not one a move."""
END = "."
"""The last line of a feed: the match ended (finished, void or aborted)."""
SUFFIX = ".feed"


class Spectator(Protocol):
    """What a match hands its spectators' messages to: a Spectate stream's queue, or a feed."""

    def put_nowait(self, item: rpb.SpectatorMessage | None) -> None: ...


def feed_path(directory: Path, game: int) -> Path:
    """Where game ``game``'s feed is written while it is in play."""
    return directory / f"{game}{SUFFIX}"


def header(rules: RuleSet) -> str:
    """A feed's first line."""
    encoded = base64.b64encode(rules_to_proto(rules).SerializeToString()).decode()
    return json.dumps({"format": FORMAT, "version": VERSION, "rules": encoded, "players": rules.players})


class LiveFeed:
    """Appends a match's spectator messages to ``path``; removes the file when the match ends."""

    def __init__(self, path: Path, rules: RuleSet) -> None:
        self.path = path
        self._out: IO[str] | None = None
        self._flushing: asyncio.TimerHandle | None = None
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.unlink(missing_ok=True)  # a feed left by a killed worker: its readers see it replaced and stop
            self._out = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w")
        except OSError as error:  # no feed (spectators see the game is not in play); the match goes on
            log.warning("no live feed at %s: %s", path, error)
            return
        self._write(header(rules))
        self._flush()  # the header at once: a reader opening the file finds it

    def put_nowait(self, item: rpb.SpectatorMessage | None) -> None:
        """One message (a line); None: the match ended, so the file ends and goes."""
        if item is not None:
            self._write(base64.b64encode(item.SerializeToString()).decode())
            return
        self._write(END)
        self.close()

    def close(self) -> None:
        if self._flushing is not None:
            self._flushing.cancel()
            self._flushing = None
        out, self._out = self._out, None
        if out is None:
            return
        try:
            out.close()
        except OSError:
            pass
        self.path.unlink(missing_ok=True)

    def _write(self, line: str) -> None:
        if self._out is None:
            return
        try:
            self._out.write(line + "\n")
        except OSError:  # a full disk: spectators lose the feed (readers see it go), the match goes on
            self.close()
            return
        if self._flushing is None:
            try:
                self._flushing = asyncio.get_running_loop().call_later(FLUSH_S, self._flush)
            except RuntimeError:  # no event loop (a test writing a feed by hand): at once
                self._flush()

    def _flush(self) -> None:
        self._flushing = None
        if self._out is None:
            return
        try:
            self._out.flush()
        except OSError:
            self.close()
