"""A game's files carried in its result: a remote worker writes the replays and the bots' logs
in a private folder, :func:`collect` puts their bytes in the result (under ``files``), and
the server's :func:`deliver` writes them where a local game would have (the job's replay and
log folders) and points the result's paths there. Nothing is written on the worker under a
server path, and nothing a worker sends is written outside the server's two folders.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from referee.processes.launcher import LOG_CAP

NAME = re.compile(r"[A-Za-z0-9+_-][A-Za-z0-9._+-]{0,199}")
"""A shipped file's name: one path component, as :func:`referee.core.replay.bot_log_path` and the
referee's replay names make them."""
MAX_REPLAY = 32 * 1024 * 1024
MAX_LOG = LOG_CAP + 64 * 1024
"""A log is capped by the launcher (plus the line saying it was cut); a replay by the turn cap."""
MAX_FILES = 64


class ShippingError(ValueError):
    """A result whose files cannot be delivered (too many, too big, a bad name)."""


def collect(result: dict[str, Any], replays: Path, logs: Path) -> dict[str, Any]:
    """``result`` (a job result's JSON form) with the files in ``replays`` and ``logs`` under
    ``files`` and its paths reduced to file names."""
    files: dict[str, dict[str, bytes]] = {"replays": _read(replays, MAX_REPLAY), "logs": _read(logs, MAX_LOG)}
    summary = result.get("summary")
    if isinstance(summary, dict):
        for game in summary.get("games") or ():
            if game.get("replay"):
                game["replay"] = os.path.basename(str(game["replay"]))
        for seat in summary.get("seats") or ():
            if seat.get("log"):
                seat["log"] = os.path.basename(str(seat["log"]))
    return {**result, "files": files}


def _read(folder: Path, cap: int) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.iterdir())[:MAX_FILES]:
        if path.is_file() and not path.is_symlink() and NAME.fullmatch(path.name):
            with open(path, "rb") as source:
                found[path.name] = source.read(cap + 1)[:cap]
    return found


def deliver(result: dict[str, Any], replay_dir: str | None, log_dir: str | None) -> dict[str, Any]:
    """Write a remote result's ``files`` into ``replay_dir`` and ``log_dir`` (None: not kept) and
    return the result with its paths there; a :class:`ShippingError` for what cannot be a
    game's files."""
    files = result.pop("files", None) or {}
    if not isinstance(files, dict):
        raise ShippingError("a result's files are not a table")
    written = {"replays": _write(files.get("replays"), replay_dir, MAX_REPLAY),
               "logs": _write(files.get("logs"), log_dir, MAX_LOG)}
    summary = result.get("summary")
    if isinstance(summary, dict):
        for game in summary.get("games") or ():
            game["replay"] = written["replays"].get(str(game.get("replay") or ""))
        for seat in summary.get("seats") or ():
            if seat.get("log"):
                seat["log"] = written["logs"].get(str(seat["log"]), "")
    return result


def _write(files: Any, folder: str | None, cap: int) -> dict[str, str]:
    if files is None:
        return {}
    if not isinstance(files, dict) or len(files) > MAX_FILES:
        raise ShippingError(f"a result's files: not a table of at most {MAX_FILES} files")
    if folder is None:
        return {}
    root = Path(folder)
    written: dict[str, str] = {}
    for name, data in files.items():
        if not isinstance(name, str) or not NAME.fullmatch(name) or not isinstance(data, bytes) or len(data) > cap:
            raise ShippingError(f"a result's file {str(name)[:80]!r}: not a plain file name with at most {cap} bytes")
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = root / name
        temporary = root / f".{name}.part"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
        os.replace(temporary, target)
        written[name] = str(target)
    return written
