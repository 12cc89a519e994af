"""The finals: the ladder's top versions, frozen, in a tournament of duplicate deals.

``spite arena finals COMPETITION --data DIR`` pauses the ladder, takes the ``[finals] top``
best active versions (by mu - 3 sigma) among those that run as fresh processes here (house
bots and uploads: a remote bot could remember the first half of a duplicate deal, so remote
versions are not eligible, and those ranked above the last finalist are named), copies each one's files (frozen: a
later upload changes nothing) under a unique name, and writes a tournament file (:mod:`tournaments.config`):
round robin of duplicate deals, ``stop = separated`` with the finals' confidence and
``rounds`` as the cap, ``tau = 0``, and a **committed seed** whose commitment is printed
before any game and revealed after (``spite seed reveal``); or published earlier still,
before the field is known (:func:`commit_finals`: ``spite arena finals --commit``, or
``spite serve`` when ``[finals] start`` is set), and the finals are then dealt from it. The tournament runner plays it
into ``DATA/finals.db``; ``spite web --db DATA/finals.db`` shows it.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tournaments import seeds
from tournaments.bot_specs import resolve_bot

from .config import Competition
from .store import ArenaStore, Version, VersionKind, VersionStatus


class FinalsError(RuntimeError):
    """The finals cannot start; the message says why."""


@dataclass(frozen=True)
class FinalsPlan:
    file: Path
    db: Path
    commitment: str
    finalists: tuple[Version, ...]
    left_out: tuple[Version, ...]
    """Remote versions ranked above the last finalist: they cannot play duplicate deals."""
    precommitted: bool = False
    """The seed is the one committed ahead (:func:`commit_finals`), not a new one."""


COMMITTED_SECRET = "committed.secret"
"""``DATA/finals/committed.secret``: the secret of a commitment published before the finals
(``spite arena finals --commit``), waiting for the finals that will be dealt from it."""


def commit_finals(data: Path) -> tuple[str, bool]:
    """The commitment of the next finals' seed, made now if there is none waiting: the
    commitment and whether it is new. The same one again until the finals use it."""
    path = data / "finals" / COMMITTED_SECRET
    if path.exists():
        try:
            return seeds.commitment(seeds.read_secret(path)), False
        except seeds.SeedError as error:
            raise FinalsError(f"{error}; it holds the published commitment's secret: restore it from a backup "
                              f"(or delete it and publish a new commitment)") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = seeds.new_secret()
    seeds.write_secret(path, secret)
    return seeds.commitment(secret), True


def finalist_name(version: Version) -> str:
    return f"{version.entrant}-{version.bot}-v{version.version}"


def rename(manifest: Path, name: str, title: str) -> None:
    """Give a frozen copy's ``bot.toml`` its finalist name: parsed, renamed, written again
    (a pattern on its text can be fooled, e.g. by a ``name =`` line inside a multi-line string)."""
    try:
        data = tomllib.loads(manifest.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise FinalsError(f"{title}: its bot.toml cannot be read: {error}") from None
    data["name"] = name
    data.pop("build", None)  # a copy of an upload the server built already, in the sandbox
    text = toml_document(data, f"{title}, frozen for the finals by `spite arena finals`")
    if tomllib.loads(text) != data:
        raise FinalsError(f"{title}: its bot.toml cannot be written back as it was; rename it by hand")
    manifest.write_text(text)


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_string(key)


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped, the rest as is."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("nan" if value != value else ("inf" if value > 0 else "-inf"))
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise FinalsError(f"a bot.toml value of type {type(value).__name__} cannot be frozen; use strings, numbers, "
                      f"booleans, arrays and tables")


def toml_document(data: dict[str, Any], comment: str) -> str:
    """``data`` as a TOML document: its plain keys, then a ``[table]`` per table (deeper tables
    inline). Enough for a bot manifest's fields (``referee.processes.manifest``)."""
    lines = [f"# {line}" for line in comment.splitlines()]
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in data.items() if k not in tables]
    for key, table in tables.items():
        lines += ["", f"[{_toml_key(key)}]"] + [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def prepare_finals(store: ArenaStore, competition: Competition, data: Path) -> FinalsPlan:
    """Freeze the finalists and write the finals' tournament file (nothing is played yet)."""
    ranked = sorted(store.versions(statuses=(VersionStatus.ACTIVE,)), key=lambda v: (-v.conservative, -v.mu, v.id))
    eligible = [v for v in ranked if v.kind is not VersionKind.REMOTE]
    finalists = tuple(eligible[:competition.finals.top])
    if len(finalists) < 2:
        raise FinalsError(f"the finals need two active versions that run here (house bots or uploads); found "
                          f"{len(finalists)}: upload bots or add house bots, then run the finals again")
    # Named: the remote versions ranked above the last finalist, who would have played.
    last = ranked.index(finalists[-1])
    left_out = tuple(v for v in ranked[:last] if v.kind is VersionKind.REMOTE)
    data = data.resolve()  # the tournament file resolves its paths against its own folder
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    directory = data / "finals" / stamp
    bots = directory / "bots"
    bots.mkdir(parents=True)
    entries = []
    for version in finalists:
        manifest = resolve_bot(version.spec)
        if manifest.path is None:
            raise FinalsError(f"{version.title} has no bot.toml to freeze")
        frozen = bots / finalist_name(version)
        shutil.copytree(manifest.path.parent, frozen, symlinks=False,
                        ignore=shutil.ignore_patterns("__pycache__", ".*"))
        rename(frozen / "bot.toml", finalist_name(version), version.title)
        entries.append(str(frozen / "bot.toml"))
    committed = data / "finals" / COMMITTED_SECRET
    precommitted = committed.exists()
    if precommitted:
        # The commitment published ahead: these finals are dealt from it, and the next
        # finals need a new one.
        try:
            secret = seeds.read_secret(committed)
        except seeds.SeedError as error:
            raise FinalsError(f"{error}; restore it from a backup, or delete it to deal the finals from a new "
                              f"seed (the published commitment will not open)") from None
        committed.replace(directory / "seed.secret")
    else:
        secret = seeds.new_secret()
        seeds.write_secret(directory / "seed.secret", secret)
    commitment = seeds.commitment(secret)
    finals = competition.finals
    file = directory / "finals.toml"
    file.write_text(toml_document({
        "name": competition.name + " finals", "rules": competition.rules.name, "bots": entries,
        "seed_file": "seed.secret", "seed_commitment": commitment, "rounds": 1, "parallel": competition.parallel,
        "policy": competition.policy.value,
        "entrants": "untrusted",  # the finals never run entrants' bots unisolated
        "replay_dir": str(directory / "replays"), "log_dir": str(directory / "logs"),
        "time_control": competition.time_control.to_dict(),
        "rating": {**competition.rating.to_dict(), "tau": 0.0},
        "stop": {"rule": "separated", "confidence": finals.confidence, "max_rounds": finals.rounds},
    }, f"The finals of {competition.name}, written by `spite arena finals` at {stamp}."))
    return FinalsPlan(file, data / "finals.db", commitment, finalists, left_out, precommitted)
