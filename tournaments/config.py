"""Tournament files (``tournaments/*.toml``): who plays, under which rules, for how long.

A tournament file::

    name = "demo"                  # default: the file's name without .toml
    rules = "standard"             # a rule-set spec (docs/rules.md)
    bots = ["greedy", "random", "naive", "../mybot/bot.toml"]
    seed = 2024                    # master seed: every deal's seed derives from it
    # or, for a hosted competition (docs/security.md), instead of `seed`:
    # seed_file = "seed.secret"       from `spite seed commit --out seed.secret`
    # seed_commitment = "sha256:..."  the commitment it printed, published before the start
    rounds = 10                    # duplicate deal sets per pairing (the "games" stop rule)
    parallel = 2                   # matches at once (default: the usable cores)
    policy = "substitute"          # or "forfeit": what bad behaviour gets
    match_games = 1                # most games in one match (default 1; 30 for rules with match points)
    replay_dir = "replays/demo"    # optional, relative to the current directory
    log_dir = "runs/demo"          # optional: each bot's stdout/stderr per match
    thinking = "allowed"           # or "frozen": bots are paused between their decisions
    reuse = "warm"                 # or "never": one bot process per match (docs/tournaments.md)
    max_matches = 50               # warm: the most matches one bot process plays

    [time_control]                 # milliseconds
    decision_ms = 1000
    bank_ms = 10000
    connect_ms = 10000

    [rating]                       # TrueSkill's parameters
    mu = 25.0
    sigma = 8.333
    beta = 4.167
    tau = 0.0833
    draw_probability = 0.04

    [stop]
    rule = "games"                 # "games": play ``rounds`` rounds; "separated": see below
    confidence = 0.95              # separated: P(mu_a > mu_b) for every adjacent leaderboard pair
    max_rounds = 50                # separated: the cap

    [bench]                        # benching bots that fail chronically
    enabled = true
    min_games = 4                  # judge a bot only after this many of its games
    failure_share = 0.5            # benched when more than this share of its games ended by
                                   # its own crash, timeout or no-show

A bot is a sample bot's name or a path to a ``bot.toml`` (or its directory, or a ``.py``
file), relative to the tournament file. With a ``partners`` rule set an entry is a team:
a bot's name alone (it partners a copy of itself) or a list of two bots.

Every problem is a :class:`TournamentFileError` naming the file and the field.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from referee.core import limits
from referee.core.deadlines import Thinking, TimeControl
from referee.core.limits import FieldError
from referee.core.match import Policy
from referee.processes.manifest import BotManifest, ManifestError, read_toml
from spite_engine import RulesError, RuleSet, parse_rules

from .bot_specs import resolve_bot, sample_bot, sample_bot_names
from .jobs import Reuse
from .ratings import RatingParams
from .schedule import Entrant

STOP_RULES = ("games", "separated")
MATCH_POINTS_GAME_CAP = 30
"""Most games in a match played to N points, unless the file says otherwise (classic-20's
first-to-50 takes about 4-8 games between sample bots; the cap stops a match of draws)."""
_KNOWN = {"name", "rules", "bots", "seed", "rounds", "parallel", "policy", "match_games", "replay_dir", "log_dir",
          "time_control", "rating", "stop", "thinking", "bench", "seed_file", "seed_commitment",
          "entrants", "reuse", "max_matches"}
MAX_MATCHES = 50
"""Matches one warm bot process plays before a fresh one replaces it, unless the file says."""


class TournamentFileError(ValueError):
    """A tournament file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class StopRule:
    """When a tournament ends: after ``rounds`` rounds, or once the leaderboard is separated."""

    rule: str = "games"
    confidence: float = 0.95
    max_rounds: int = 50


@dataclass(frozen=True)
class BenchRule:
    """When a bot that keeps crashing or timing out is benched: its remaining matches are
    void (not played, not rated) and the leaderboard says why."""

    enabled: bool = True
    min_games: int = 4
    failure_share: float = 0.5

    def benches(self, games: int, failures: int) -> bool:
        return self.enabled and games >= self.min_games and failures > self.failure_share * games


@dataclass(frozen=True)
class TournamentConfig:
    name: str
    path: Path
    rules: RuleSet
    entrants: tuple[Entrant, ...]
    bots: dict[str, BotManifest]
    """Every distinct bot by name (a partners team names its two members)."""
    bot_specs: dict[str, str]
    """How the file named each bot (kept in the store)."""
    seed: int
    rounds: int
    parallel: int
    policy: Policy
    match_games: int
    time_control: TimeControl
    rating: RatingParams
    stop: StopRule
    replay_dir: Path | None = None
    log_dir: Path | None = None
    thinking: Thinking = Thinking.ALLOWED
    bench: BenchRule = BenchRule()
    seed_file: Path | None = None
    """A committed secret (``spite seed commit``); ``seed`` is derived from it."""
    seed_commitment: str | None = None
    untrusted: bool = False
    """``entrants = "untrusted"``: the runner refuses to start unless bots are isolated."""
    """The published ``sha256:...`` the runner checks ``seed_file`` against before any game."""
    reuse: Reuse = Reuse.WARM
    """``"warm"``: a worker keeps bot processes that say warm from one match to the next
    (never across the two halves of a duplicate deal); ``"never"``: one process per match."""
    max_matches: int = MAX_MATCHES
    """With ``reuse = "warm"``, the most matches one bot process plays."""

    def identity(self) -> dict[str, Any]:
        """What must not change between a run and its ``--resume`` (plain data, stored)."""
        return {"name": self.name, "rules": self.rules.name, "rules_version": self.rules.version,
                "entrants": [[e.name, list(e.members)] for e in self.entrants],
                "bots": dict(sorted(self.bot_specs.items())), "seed": self.seed,
                "seed_commitment": self.seed_commitment, "rounds": self.rounds,
                "policy": self.policy.value, "match_games": self.match_games,
                "time_control": self.time_control.to_dict(), "rating": self.rating.to_dict(),
                "stop": asdict(self.stop),
                "replay_dir": str(self.replay_dir) if self.replay_dir else None,
                "log_dir": str(self.log_dir) if self.log_dir else None,
                "thinking": self.thinking.value,
                "bench": asdict(self.bench)}


MAX_PARALLEL = 1024
"""The most matches at once, in a file's ``parallel`` and the ``--parallel`` flag alike."""


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def load_tournament(path: Path | str) -> TournamentConfig:
    """Read and check a tournament file; bots' manifests are loaded (not built) here."""
    path = Path(path)
    return tournament_from_dict(read_toml(path, "tournament file", TournamentFileError), path)


def tournament_from_dict(data: dict[str, Any], path: Path) -> TournamentConfig:
    try:
        return _tournament(data, path)
    except FieldError as error:
        raise TournamentFileError(f"{path}: {error}") from None


def _tournament(data: dict[str, Any], path: Path) -> TournamentConfig:

    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise TournamentFileError(f"{path}: unknown field(s) {unknown}; known: {sorted(_KNOWN)}")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise FieldError("name", "must be a non-empty string")
    spec = data.get("rules", "standard")
    if not isinstance(spec, str):
        raise FieldError("rules", f"must be a rule-set spec string such as 'standard', got {spec!r}")
    try:
        rules = parse_rules(spec)
    except RulesError as error:
        raise FieldError("rules", str(error)) from None

    seed_file, seed_commitment, committed_seed = _committed_seed(data, path)
    seed = committed_seed if seed_file is not None else limits.SEED.field(data, "seed", 0)
    rounds = limits.ROUNDS.field(data, "rounds", 1)
    parallel = limits.Range("parallel", 1, MAX_PARALLEL).field(data, "parallel", min(usable_cores(), MAX_PARALLEL))
    default_games = MATCH_POINTS_GAME_CAP if rules.match_points else 1
    match_games = limits.GAMES.field(data, "match_games", default_games)
    policy = policy_from_value(data.get("policy", Policy.SUBSTITUTE.value))

    thinking_name = data.get("thinking", Thinking.ALLOWED.value)
    try:
        thinking = Thinking(thinking_name)
    except ValueError:
        raise FieldError("thinking", f"must be one of {[t.value for t in Thinking]}, got {thinking_name!r}") from None
    bench = _bench(table(data, "bench"))
    try:
        reuse = Reuse(data.get("reuse", Reuse.WARM))
    except ValueError:
        raise FieldError("reuse", f"must be \"warm\" or \"never\", got {data.get('reuse')!r}") from None
    if "max_matches" in data and reuse is Reuse.NEVER:
        raise FieldError("max_matches", "applies only with reuse = \"warm\" (\"never\" plays one match per process)")
    max_matches = limits.Range("max_matches", 1, 10_000).field(data, "max_matches", MAX_MATCHES)
    time_control = TimeControl.from_table(table(data, "time_control"))
    rating = rating_from_table(table(data, "rating"))
    stop = _stop(table(data, "stop"))
    if stop.rule == "separated" and stop.max_rounds < rounds:
        raise FieldError("stop.max_rounds", f"must be at least 'rounds' ({rounds}), got {stop.max_rounds}")

    entrants, bots, specs = _entrants(data.get("bots"), rules, path)
    trust = data.get("entrants", "trusted")
    if trust not in ("trusted", "untrusted"):
        raise FieldError("entrants", f"must be \"trusted\" or \"untrusted\", got {trust!r}")
    return TournamentConfig(
        name=name.strip(), path=path.resolve(), rules=rules, entrants=entrants, bots=bots, bot_specs=specs,
        seed=seed, rounds=rounds, parallel=parallel, policy=policy, match_games=match_games,
        time_control=time_control, rating=rating, stop=stop,
        replay_dir=_optional_dir(data, "replay_dir"), log_dir=_optional_dir(data, "log_dir"),
        thinking=thinking, bench=bench, seed_file=seed_file, seed_commitment=seed_commitment,
        untrusted=trust == "untrusted", reuse=reuse, max_matches=max_matches)


def policy_from_value(value: object) -> Policy:
    """The ``policy`` field of a tournament or a competition file."""
    try:
        return Policy(value)
    except ValueError:
        raise FieldError("policy", f"must be one of {[p.value for p in Policy]}, got {value!r}") from None


def rating_from_table(table: Mapping[str, object]) -> RatingParams:
    """The ``[rating]`` table of a tournament or a competition file: TrueSkill's parameters,
    finite numbers, sigma and beta positive, tau not negative, a draw probability in [0, 1);
    a bad one is a :class:`~referee.core.limits.FieldError` naming the key."""
    default = RatingParams()
    _check_keys(table, "rating", set(RatingParams.__dataclass_fields__))
    values = {key: _number(table, "rating", key, getattr(default, key))
              for key in RatingParams.__dataclass_fields__}
    for key in ("sigma", "beta"):
        if values[key] <= 0:
            raise FieldError(f"rating.{key}", f"must be positive, got {values[key]}")
    if values["tau"] < 0:
        raise FieldError("rating.tau", f"must not be negative, got {values['tau']}")
    if not 0 <= values["draw_probability"] < 1:
        raise FieldError("rating.draw_probability", f"must be in [0, 1), got {values['draw_probability']}")
    return RatingParams(**values)


def _committed_seed(data: dict[str, Any], path: Path) -> tuple[Path | None, str | None, int]:
    """``seed_file`` (relative to the tournament file) and ``seed_commitment``, and the master
    seed the file's secret gives. Whether the file opens the commitment is the runner's check,
    made before any game (tournaments/seeds.py)."""
    from . import seeds

    if "seed_file" not in data and "seed_commitment" not in data:
        return None, None, 0
    if "seed" in data:
        raise FieldError("seed", "give either 'seed' or 'seed_file' with 'seed_commitment', not both")
    if "seed_file" not in data or "seed_commitment" not in data:
        missing = "seed_commitment" if "seed_file" in data else "seed_file"
        raise FieldError(missing, "'seed_file' and 'seed_commitment' go together (see `spite seed commit`)")
    raw_file, raw_commitment = data["seed_file"], data["seed_commitment"]
    if not isinstance(raw_file, str) or not raw_file:
        raise FieldError("seed_file", f"must be a file path (a string), got {raw_file!r}")
    if not isinstance(raw_commitment, str):
        raise FieldError("seed_commitment", f"must be a string 'sha256:...', got {raw_commitment!r}")
    seed_file = Path(raw_file) if Path(raw_file).is_absolute() else path.resolve().parent / raw_file
    try:
        commitment = seeds.check_commitment(raw_commitment)
        return seed_file, commitment, seeds.master_seed(seeds.read_secret(seed_file))
    except seeds.SeedError as error:
        raise FieldError("seed_file" if "seed file" in str(error) else "seed_commitment", str(error)) from None


def _number(data: Mapping[str, object], table: str, field: str, default: float) -> float:
    value = data.get(field, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise FieldError(f"{table}.{field}", f"must be a number, got {value!r}")
    return float(value)


def table(data: Mapping[str, object], field: str, known: set[str] | None = None) -> dict[str, Any]:
    """The table ``data[field]`` (empty if absent) of a tournament or a competition file, holding
    only ``known`` keys (None: its reader checks them); else a :class:`~referee.core.limits.FieldError`."""
    value = data.get(field, {})
    if not isinstance(value, dict):
        raise FieldError(field, "must be a table, e.g. [" + field + "]")
    if known is not None:
        _check_keys(value, field, known)
    return value


def _check_keys(table: Mapping[str, object], name: str, known: set[str]) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise FieldError(name, f"unknown key(s) {unknown}; known: {sorted(known)}")


def _stop(table: dict[str, Any]) -> StopRule:
    _check_keys(table, "stop", {"rule", "confidence", "max_rounds"})
    rule = table.get("rule", "games")
    if rule not in STOP_RULES:
        raise FieldError("stop.rule", f"must be one of {list(STOP_RULES)}, got {rule!r}")
    confidence = _number(table, "stop", "confidence", StopRule.confidence)
    if not 0.5 < confidence < 1:
        raise FieldError("stop.confidence", f"must be between 0.5 and 1 (exclusive), got {confidence}")
    max_rounds = limits.ROUNDS.field(table, "max_rounds", StopRule.max_rounds, "stop.")
    return StopRule(rule, confidence, max_rounds)


def _bench(table: dict[str, Any]) -> BenchRule:
    _check_keys(table, "bench", {"enabled", "min_games", "failure_share"})
    enabled = table.get("enabled", BenchRule.enabled)
    if not isinstance(enabled, bool):
        raise FieldError("bench.enabled", f"must be true or false, got {enabled!r}")
    min_games = limits.Range("min_games", 1, limits.GAMES.high).field(table, "min_games", BenchRule.min_games,
                                                                      "bench.")
    share = _number(table, "bench", "failure_share", BenchRule.failure_share)
    if not 0 <= share < 1:
        raise FieldError("bench.failure_share", f"must be in [0, 1), got {share}")
    return BenchRule(enabled, min_games, share)


def _optional_dir(data: dict[str, Any], field: str) -> Path | None:
    value = data.get(field)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise FieldError(field, f"must be a directory path (a string), got {value!r}")
    return Path(value)


def _resolve(spec: Any, where: str, base: Path) -> tuple[BotManifest, str]:
    if not isinstance(spec, str) or not spec.strip():
        raise FieldError(where, f"a bot is a sample bot's name or a path to its bot.toml, got {spec!r}")
    if sample_bot(spec) is not None:
        stored = spec
    else:
        candidate = Path(spec) if Path(spec).is_absolute() else base / spec
        if not candidate.exists():
            known = ", ".join(sample_bot_names())
            raise FieldError(where, f"{spec!r} is neither a sample bot ({known}) nor a path that exists "
                              f"(looked for {candidate})")
        stored = str(candidate.resolve())
    try:
        return resolve_bot(stored), stored
    except ManifestError as error:
        raise FieldError(where, str(error)) from None


def _entrants(value: Any, rules: RuleSet,
              path: Path) -> tuple[tuple[Entrant, ...], dict[str, BotManifest], dict[str, str]]:
    if not isinstance(value, list) or not value:
        raise FieldError("bots", "must be a non-empty list of bots (sample bot names or bot.toml paths)")
    base = path.parent.resolve()
    bots: dict[str, BotManifest] = {}
    specs: dict[str, str] = {}
    sources: dict[str, str] = {}
    entrants: list[Entrant] = []

    def add(spec: Any, where: str) -> str:
        manifest, stored = _resolve(spec, where, base)
        if manifest.name in bots and specs[manifest.name] != stored:
            raise FieldError(where, f"two different bots are named {manifest.name!r} "
                              f"({sources[manifest.name]} and {where}); names must be unique")
        if manifest.name in bots:
            raise FieldError(where, f"bot {manifest.name!r} is listed twice (also as {sources[manifest.name]})")
        bots[manifest.name] = manifest
        specs[manifest.name] = stored
        sources[manifest.name] = where
        return manifest.name

    for i, item in enumerate(value):
        where = f"bots[{i}]"
        if rules.partners:
            if isinstance(item, list):
                if len(item) != 2:
                    raise FieldError(where, f"a partners team is a list of two bots, got {len(item)}")
                members = (add(item[0], f"{where}[0]"), add(item[1], f"{where}[1]"))
                entrants.append(Entrant(f"{members[0]}+{members[1]}", members))
            else:
                name = add(item, where)
                entrants.append(Entrant(name, (name, name)))
        else:
            if isinstance(item, list):
                raise FieldError(where, f"teams (lists of bots) need a partners rule set; {rules.name!r} is not one")
            name = add(item, where)
            entrants.append(Entrant(name, (name,)))
    needed = 2 if rules.partners else rules.players
    if len(entrants) < needed:
        what = "teams" if rules.partners else "bots"
        raise FieldError("bots", f"{rules.name!r} needs at least {needed} {what} (no bot plays itself), "
                           f"got {len(entrants)}")
    return tuple(entrants), bots, specs
