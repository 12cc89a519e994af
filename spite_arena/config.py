"""Competition files (``competitions/*.toml``): what a hosted ladder plays and its limits.

A competition file::

    name = "example"
    rules = "standard"                 # a two-seat rule set (docs/rules.md)
    house_bots = ["greedy", "random"]  # entered under the entrant "house"; names or bot.toml paths
    parallel = 2                       # games at once (local workers or Dask slots)
    placement_games = 6                # a new version's first games, scheduled before anyone else's
    duplicate = true                   # each deal twice, seats swapped, where no remote bot plays
    policy = "substitute"

    [time_control]                     # milliseconds
    decision_ms = 1000
    bank_ms = 10000
    connect_ms = 10000

    [rating]                           # TrueSkill; tau > 0 keeps a ladder's ratings moving
    tau = 0.0833
    draw_probability = 0.55

    [limits]                           # safety limits, per entrant or key
    upload_mb = 20                     # an upload's compressed size
    unpacked_mb = 100                  # and its unpacked size
    files = 2000                       # files in one upload
    builds_per_hour = 6                # uploads checked per entrant per hour
    remote_matches = 4                 # concurrent matches of one remote key
    requests_per_minute = 120          # API requests per key
    bots = 3                           # an entrant's bots on the board at once
    versions = 100                     # versions an entrant makes in all

    [build]                            # uploads' build commands, run in the sandbox (docs/hosting.md)
    languages = ["python", "go", "rust", "typescript", "java", "c++"]  # builds in other languages are refused
    wall_seconds = 300                 # and the caps of one build: wall time, CPU time of all its processes,
    cpu_seconds = 600
    memory_mb = 2048
    processes = 256
    disk_mb = 1024                     # the folder's size once built
    output_kb = 1024                   # what it prints

    [registration]                     # optional: strangers may register with this code
    invite_code = "a-long-random-code" # at least 12 characters; POST /api/register

    [tls]                              # optional: remote bots connect over TLS
    cert = "server.pem"                # relative to this file
    key = "server.key"

    [finals]
    top = 4                            # the top N versions play a round robin of duplicate deals
    rounds = 10                        # at most; stops earlier once separated
    confidence = 0.95
    start = 2026-12-24T18:00:00Z       # optional: spite serve starts the finals itself then

Every problem is a :class:`CompetitionError` naming the file and the field.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.deadlines import TimeControl
from referee.core.limits import FieldError
from referee.core.match import Policy
from referee.processes.build import BuildCaps
from referee.processes.manifest import read_toml
from spite_engine import RulesError, RuleSet, parse_rules
from tournaments.config import policy_from_value, rating_from_table, table
from tournaments.ratings import RatingParams


class CompetitionError(ValueError):
    """A competition file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Limits:
    upload_mb: int = 20
    unpacked_mb: int = 100
    files: int = 2000
    builds_per_hour: int = 6
    remote_matches: int = 4
    requests_per_minute: int = 120
    bots: int = 3
    """An entrant's bots on the board at once (each shows its active version)."""
    versions: int = 100
    """Versions an entrant makes in all (uploads and remote version strings)."""

    # (low, high) for every limit: a file cannot switch a limit off or make it absurd.
    RANGES = {"upload_mb": (1, 1024), "unpacked_mb": (1, 4096), "files": (1, 100_000),
              "builds_per_hour": (1, 1000), "remote_matches": (1, 64), "requests_per_minute": (1, 100_000),
              "bots": (1, 100), "versions": (1, 10_000)}


@dataclass(frozen=True)
class Finals:
    top: int = 4
    rounds: int = 10
    confidence: float = 0.95
    start: dt.datetime | None = None
    """When ``spite serve`` starts the finals by itself (None: only ``spite arena finals``)."""


@dataclass(frozen=True)
class Competition:
    name: str
    file: Path
    rules: RuleSet = field(default_factory=lambda: parse_rules("standard"))
    """Parsed once, when the file is loaded; its canonical ``name`` travels in jobs."""
    house_bots: tuple[str, ...] = ()
    """Specs as the file wrote them, resolved against the file's directory for paths."""
    parallel: int = 2
    placement_games: int = 6
    duplicate: bool = True
    """Each deal played twice with the seats swapped (only between bots launched here)."""
    policy: Policy = Policy.SUBSTITUTE
    time_control: TimeControl = field(default_factory=TimeControl)
    rating: RatingParams = field(default_factory=RatingParams)
    limits: Limits = field(default_factory=Limits)
    finals: Finals = field(default_factory=Finals)
    build: BuildCaps = field(default_factory=BuildCaps)
    """What an upload's build may use, and the languages it may be in."""
    invite_code: str | None = None
    """Open registration with this code (None: only the organizer adds entrants)."""
    tls: tuple[Path, Path] | None = None
    """The gRPC endpoint's certificate and key (PEM), or None for plaintext."""
    replays: str = "after_deal"
    """``[web] replays``: when the public may watch a game (docs/hosting.md): ``after_deal``, once
    it and the other half of its duplicate deal are both over; ``never``, owners and organizer only."""


_KNOWN = {"name", "rules", "house_bots", "parallel", "placement_games", "duplicate", "policy", "time_control",
          "rating", "limits", "finals", "tls", "registration", "build", "web"}


def _int(file: Path, where: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CompetitionError(f"{file}: field {where!r} must be a whole number in {low}..{high}, got {value!r}")
    return value


def load_competition(path: Path | str) -> Competition:
    """Read and check a competition file. ``[time_control]``, ``[rating]`` and ``policy``
    are read by the same schema as a tournament file's (:mod:`tournaments.config`), with
    the referee's ranges (:mod:`referee.core.limits`)."""
    file = Path(path)
    data = read_toml(file, "competition file", CompetitionError)
    try:
        return _competition(data, file)
    except FieldError as error:
        raise CompetitionError(f"{file}: {error}") from None


def _competition(data: dict[str, Any], file: Path) -> Competition:
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise CompetitionError(f"{file}: unknown field(s) {unknown}; known: {sorted(_KNOWN)}")
    name = data.get("name", file.stem)
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise CompetitionError(f"{file}: field 'name' must be a non-empty string of at most 80 characters")
    rules = data.get("rules", "standard")
    try:
        spec = parse_rules(str(rules))
    except RulesError as error:
        raise CompetitionError(f"{file}: field 'rules': {error}") from None
    if spec.players != 2 or spec.partners:
        raise CompetitionError(f"{file}: field 'rules': the ladder plays two-seat games; {rules!r} seats "
                               f"{spec.players}")
    house = data.get("house_bots", [])
    if not isinstance(house, list) or not all(isinstance(b, str) and b for b in house) or len(house) > 64:
        raise CompetitionError(f"{file}: field 'house_bots' must be a list of at most 64 bot names or paths")
    resolved = tuple(b if "/" not in b and not b.endswith(".toml") else str((file.parent / b).resolve())
                     for b in house)
    policy = policy_from_value(data.get("policy", Policy.SUBSTITUTE.value))
    time_control = TimeControl.from_table(table(data, "time_control"))
    rating = rating_from_table(table(data, "rating"))
    limit_table = table(data, "limits", set(Limits.RANGES))
    limits = Limits(**{k: _int(file, f"limits.{k}", v, *Limits.RANGES[k]) for k, v in limit_table.items()})
    finals_table = table(data, "finals", {"top", "rounds", "confidence", "start"})
    start = finals_table.get("start")
    if start is not None and (not isinstance(start, dt.datetime) or start.tzinfo is None):
        raise CompetitionError(f"{file}: field 'finals.start' must be a TOML date-time with its offset, "
                               f"e.g. 2026-12-24T18:00:00Z")
    confidence = finals_table.get("confidence", 0.95)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.5 <= confidence < 1:
        raise CompetitionError(f"{file}: field 'finals.confidence' must be a number in [0.5, 1)")
    finals = Finals(_int(file, "finals.top", finals_table.get("top", 4), 2, 32),
                    _int(file, "finals.rounds", finals_table.get("rounds", 10), 1, 1000), float(confidence),
                    start)
    try:
        build = BuildCaps.from_table(table(data, "build", set(BuildCaps.__dataclass_fields__)))
    except ValueError as error:
        raise CompetitionError(f"{file}: {error}") from None
    registration = table(data, "registration", {"invite_code"})
    invite = registration.get("invite_code")
    if invite is not None and (not isinstance(invite, str) or not 12 <= len(invite) <= 200):
        raise CompetitionError(f"{file}: field 'registration.invite_code' must be a string of 12-200 characters")
    tls_table = table(data, "tls", {"cert", "key"})
    tls = None
    if tls_table:
        if not all(isinstance(tls_table.get(k), str) for k in ("cert", "key")):
            raise CompetitionError(f"{file}: [tls] needs both 'cert' and 'key' (paths to PEM files)")
        tls = ((file.parent / tls_table["cert"]).resolve(), (file.parent / tls_table["key"]).resolve())
    replays = table(data, "web", {"replays"}).get("replays", "after_deal")
    if replays not in ("after_deal", "never"):
        raise CompetitionError(f"{file}: field 'web.replays' must be \"after_deal\" or \"never\"")
    duplicate = data.get("duplicate", True)
    if not isinstance(duplicate, bool):
        raise CompetitionError(f"{file}: field 'duplicate' must be true or false")
    return Competition(
        name=name.strip(), duplicate=duplicate, file=file.resolve(), rules=spec,
        house_bots=resolved, parallel=_int(file, "parallel", data.get("parallel", 2), 1, 256),
        placement_games=_int(file, "placement_games", data.get("placement_games", 6), 0, 1000),
        policy=policy, time_control=time_control, rating=rating, limits=limits, finals=finals,
        build=build, invite_code=invite, tls=tls, replays=replays)
