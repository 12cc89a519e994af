"""``spite check-bot MANIFEST``: is this bot ready to enter a tournament?

The conformance kit (in the spirit of PettingZoo's ``api_test`` and Gymnasium's
``check_env``): it builds the bot, plays it against the reference opponent (the greedy
sample bot) through a real referee, first a main match under the rules asked for
(``--rules``, default standard), then across the variants that stress a client (3 and 4
players, partners, skip-bo, open-stock), and reports one line per check -- PASS, FAIL with
what to fix, or SKIP when an earlier failure left nothing to judge. A bot that crashes
fails one check, ``crash``, which shows its exception, where it was raised and the last
lines of its log; the checks that need a finished match are then skipped.
"""

from __future__ import annotations

import asyncio
import enum
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from referee.core.deadlines import TimeControl
from referee.core.labels import terminal_safe
from referee.core.match import MatchConfig, Policy
from referee.core.reports import SeatReport
from referee.core.status import FaultKind, SeatStatus
from referee.local import LocalMatch, play_local_match
from referee.processes.manifest import BotManifest, ManifestError
from referee.transports.stdio import CODECS
from spite_engine import Ending, RulesError, RuleSet, parse_rules

from . import botlogs
from .bot_specs import resolve_bot

# The presets a client must handle, and which seats the bot takes in each.
PRESET_SEATS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("3p", (1,)), ("4p", (0, 3)), ("partners", (1, 3)), ("skip-bo", (1,)), ("open-stock", (0,)))
PROBE_DECISION = 3
REFUSED_ACTIONS = frozenset({FaultKind.ILLEGAL_MOVE, FaultKind.MALFORMED, FaultKind.WRONG_DECISION})
"""The faults the "legal moves" check judges (a timeout is the "time limits" check's)."""
"""The bot's decision that the referee closes at once, to see it survive the rejection."""

class Status(enum.StrEnum):
    """A check's verdict, as the report prints it."""

    PASS = "PASS"
    FAIL = "FAIL"
    SKIP = "SKIP"
    """The check could not run: an earlier failure left nothing to judge."""


@dataclass
class Check:
    name: str
    passed: bool
    detail: str
    fix: str = ""
    skipped: bool = False
    """The check could not run (an earlier failure left nothing to judge): neither pass nor fail."""
    notes: list[str] = field(default_factory=list)
    """More lines under the check (a crashed bot's last log lines)."""
    warning: bool = False
    """Passed, with something to look at (e.g. two versions)."""
    platform: bool = False
    """Failed because of the machine, not the bot (the reference bot missed its limits too)."""

    @property
    def status(self) -> Status:
        return Status.SKIP if self.skipped else Status.PASS if self.passed else Status.FAIL

    @property
    def failed(self) -> bool:
        return not self.passed and not self.skipped

    def line(self) -> str:
        """The check as text for people; what the bot wrote (its log, its version) cannot
        steer a terminal (:func:`referee.core.labels.terminal_safe`)."""
        text = f"{self.status}  {self.name:<14} {self.detail}"
        text += "".join(f"\n      | {note}" for note in self.notes)
        text += f"\n      fix: {self.fix}" if (self.failed or self.warning) and self.fix else ""
        return "\n".join(terminal_safe(line) for line in text.split("\n"))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail,
                "fix": self.fix if self.failed or self.warning else "", "notes": self.notes,
                **({"platform": True} if self.platform else {})}


def skipped(name: str, why: str) -> Check:
    return Check(name, False, f"not run: {why}", skipped=True)


@dataclass
class Run:
    rules: RuleSet
    seats: tuple[int, ...]
    result: LocalMatch
    reports: list[SeatReport] = field(default_factory=list)


def _play(bot: BotManifest, reference: BotManifest, rules: RuleSet, seats: tuple[int, ...], games: int, seed: int,
          time_control: TimeControl, probe: bool, log_dir: Path | None) -> Run:
    lineup = [bot if s in seats else reference for s in range(rules.players)]
    config = MatchConfig(rules, [b.name for b in lineup], time_control, games, seed, Policy.SUBSTITUTE,
                         probe_timeout=(seats[0], PROBE_DECISION) if probe else None)
    result = asyncio.run(play_local_match(lineup, config, log_dir=log_dir))
    run = Run(rules, seats, result)
    run.reports = [result.match.seats[s].report for s in seats]
    return run


def preset_specs(rules: RuleSet) -> list[tuple[RuleSet, tuple[int, ...]]]:
    """The variants to try after the main match under ``rules``: each preset of
    :data:`PRESET_SEATS` joined to ``rules`` where that makes a playable game different from it."""
    found: list[tuple[RuleSet, tuple[int, ...]]] = []
    for preset, seats in PRESET_SEATS:
        try:
            parsed = parse_rules(f"{rules.name}+{preset}")
        except RulesError:
            continue
        if parsed == rules or max(seats) >= parsed.players or parsed in (r for r, _ in found):
            continue
        found.append((parsed, seats))
    return found


def _crash(runs: list[Run]) -> tuple[Run, int, list[str], Path | None] | None:
    """The first run where the bot crashed: the run, the seat, its log's tail and the log."""
    for run in runs:
        for seat, report in zip(run.seats, run.reports):
            if report.crashes or report.status is SeatStatus.ERROR:
                log = run.result.logs[seat]
                return run, seat, botlogs.tail(log), log
    return None


REFERENCE = "greedy"
"""The reference opponent: a sample bot, so its faults are the machine's, not the bot's."""


def check_bot(manifest: BotManifest, *, games: int = 3, seed: int = 7,
              time_control: TimeControl | None = None, log_dir: Path | None = None,
              rules: RuleSet | None = None, variants: bool = True,
              log_name: Callable[[Path], str] = str) -> list[Check]:
    """Run every check; the result is one :class:`Check` per line of the report.

    The bot's logs go to ``log_dir`` (by default a new temporary directory, removed at the
    end unless a line names a log in it). ``rules`` is the main match's rule set (a
    Skip-Bo-only bot gives ``skip-bo``); with ``variants`` the variant checks build on it
    (a ladder that plays one rule set checks only that one). ``log_name`` is how a line
    names a log (a hosted ladder shows where its entrant reads it, not a server path).
    When a check failed and the reference bot itself missed a limit, a last check,
    ``machine``, fails with ``platform`` set: the machine was too slow to judge the bot.
    ``rules`` defaults to the standard game."""
    time_control = time_control or TimeControl()
    rules = rules or parse_rules("standard")
    own_dir = log_dir is None
    log_dir = log_dir or Path(tempfile.mkdtemp(prefix="spite-check-bot-"))
    runs: list[Run] = []
    try:
        checks = _checks(manifest, games, seed, time_control, log_dir, rules, variants, log_name, runs)
        slow = _reference_faults(runs)
        if slow and any(check.failed for check in checks):  # a bot that passed anyway passed
            checks.append(Check("machine", False, f"the reference bot ({REFERENCE}) missed its limits too: "
                                f"{slow[0][:200]}; the machine was too slow or too busy to judge this bot",
                                "run the checks again when the machine is less busy (the bot is not at fault "
                                "for what failed above)", platform=True))
    except BaseException:
        if own_dir:
            shutil.rmtree(log_dir, ignore_errors=True)
        raise
    if own_dir and not any(str(log_dir) in check.line() for check in checks):
        shutil.rmtree(log_dir, ignore_errors=True)
    return checks


def _reference_faults(runs: list[Run]) -> list[str]:
    """What went wrong for the reference bot's seats: a connect or decision timeout there
    is the machine's doing (a sample bot connects and answers in milliseconds)."""
    found = []
    for run in runs:
        for seat in run.result.match.seats:
            if seat.index in run.seats:
                continue
            report = seat.report
            if report.connect_fault is not None and seat.gone is not None:
                found.append(seat.gone.detail)
            if report.timeouts:
                found.append(f"{report.timeouts} timeout(s) of seat {seat.index} in the {run.rules.name} match")
    return found


def _presets_fix(time_control: TimeControl, reports: list[SeatReport]) -> str:
    if any(r.connect_fault is Ending.NO_SHOW for r in reports):
        return _connect_fix(time_control)
    if any(r.timeouts for r in reports):
        return "answer each DecisionRequest within deadline_ms"
    return "use rules.players, rules.stock_of(seat) and the observation's piles, not fixed sizes"


def _connect_fix(time_control: TimeControl) -> str:
    return (f"start faster: the bot must send Hello within {time_control.connect_ms / 1000:g} s of being started "
            "(import less at start, or build ahead)")


HELLO_FIX = ("read SPITE_ADDRESS and the seat token (the file named by SPITE_TOKEN_FILE; SPITE_TOKEN for a bot "
             "started by hand) and send Hello(token, name, version, protocol_version=1) first, or let an SDK "
             "do it (docs/protocol.md)")


def _checks(manifest: BotManifest, games: int, seed: int, time_control: TimeControl, log_dir: Path, rules: RuleSet,
            variants: bool, log_name: Callable[[Path], str], runs: list[Run]) -> list[Check]:
    checks: list[Check] = []
    started = time.monotonic()
    try:
        manifest.run_build()
    except ManifestError as error:
        return [Check("build", False, str(error).splitlines()[0],
                      "make the manifest's build command succeed in its directory")]
    checks.append(Check("build", True, f"{manifest.build or 'no build step'} ({time.monotonic() - started:.1f} s)"))
    reference = resolve_bot(REFERENCE)
    main = _play(manifest, reference, rules, (0,), games, seed, time_control, True, log_dir)
    runs.append(main)
    crash = _crash([main])
    others = []
    for i, (spec, seats) in enumerate(preset_specs(rules) if variants and not crash else []):
        others.append(_play(manifest, reference, spec, seats, 1, seed + i, time_control, False, log_dir))
        runs.append(others[-1])
    crash = crash or _crash(others)
    reports = [r for run in runs for r in run.reports]
    games_played = [g for run in runs for g in run.result.match.results]

    connected = all(r.status is not SeatStatus.PENDING and r.connect_fault is None for r in reports)
    if connected:
        version = reports[0].version
        mismatch = bool(version) and bool(manifest.version) and version != manifest.version
        checks.append(Check("handshake", True,
                            f"connected in {len(runs)} match(es) as {reports[0].name!r} version {version!r}"
                            + (f"; WARNING: its bot.toml says version {manifest.version!r}" if mismatch else ""),
                            f"make the version in Hello and in bot.toml the same ({manifest.version!r} or "
                            f"{version!r}): the store records the manifest's, results show Hello's"
                            if mismatch else "", warning=mismatch))
    elif crash and not botlogs.crash_summary(crash[2]) and \
            crash[0].result.match.seats[crash[1]].report.connect_fault is Ending.CRASH and \
            crash[0].result.exits[crash[1]].returncode == 0:
        # Not a crash: it ended cleanly without ever connecting (e.g. it never called run()).
        run, seat, tail, log = crash
        checks.append(Check("handshake", False, "the bot exited with status 0 before connecting: it never sent Hello"
                            + (f"; its log: {log_name(log)}" if log else ""),
                            "start the SDK's loop (e.g. MyBot().run()), or " + HELLO_FIX, notes=tail))
        for name in ("legal moves", "time limits", "rejection", "several games", "presets", "clean exit"):
            checks.append(skipped(name, "the bot never connected"))
        return checks
    elif crash:
        checks.append(skipped("handshake", "the bot crashed before its Hello (see crash)"))
    else:
        faults = [f.reason for r in reports for f in r.faults]
        late = any(r.connect_fault is Ending.NO_SHOW for r in reports)
        checks.append(Check("handshake", False, "; ".join(faults)[:300],
                            _connect_fix(time_control) if late else HELLO_FIX))

    if crash:
        run, seat, tail, log = crash
        report = run.result.match.seats[seat].report
        fault = next((f.reason for f in report.faults), "it stopped")
        exception = botlogs.crash_summary(tail)
        where = f"in the {run.rules.name} match after {report.decisions} decisions"
        checks.append(Check("crash", False,
                            f"{exception or fault} -- {where}" + (f"; whole log: {log_name(log)}" if log else ""),
                            "the bot stopped with an error: its log (the lines under this check) shows where; "
                            "fix it there (`spite play bot.toml greedy` shows it fail with a live table)",
                            notes=tail if not exception or len(tail) > 1 else []))
        why = f"the bot crashed {where}"
        for name in ("legal moves", "time limits", "rejection", "several games", "presets", "clean exit"):
            checks.append(skipped(name, why))
        return checks

    # Judged by the referee's counts; the first refused action's reason says which.
    bad = [f.reason for r in reports if r.illegal_moves or r.malformed for f in r.faults if f.kind in REFUSED_ACTIONS] \
        if any(r.illegal_moves or r.malformed for r in reports) else []
    decisions = sum(r.decisions for r in reports)
    # the kit's own forced timeout in the main match, if the bot got that far
    probe_faults = 1 if main.reports[0].decisions >= PROBE_DECISION else 0
    if decisions == 0 and not bad:
        why = "the bot made no decision (see the checks above and below)"
        checks += [skipped("legal moves", why), skipped("time limits", why)]
    else:
        checks.append(Check("legal moves", not bad,
                            f"{decisions} decisions, no illegal or malformed action" if not bad else bad[0][:300],
                            "answer with one of observation.legal_moves (by index or value), echoing decision_id"))

        timeouts = max(0, sum(r.timeouts for r in reports) - probe_faults)
        times = sorted(t for r in reports for t in r.decision_us)
        p50 = times[len(times) // 2] / 1000 if times else 0.0
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))] / 1000 if times else 0.0
        checks.append(Check("time limits", timeouts == 0,
                            f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, limit {time_control.decision_ms} ms per decision"
                            + ("" if timeouts == 0 else f"; {timeouts} timeout(s)"),
                            "answer each DecisionRequest within deadline_ms; check the bot's own clock"))

    main_report = main.reports[0]
    survived = main_report.timeouts == probe_faults and main_report.decisions > PROBE_DECISION and \
        main_report.status is SeatStatus.DONE
    checks.append(Check("rejection", survived,
                        "after the referee closed decision 3 early, the bot's late answer was dropped "
                        "and it played on" if survived else
                        f"after a forced timeout: status {main_report.status}, {main_report.decisions} decisions",
                        "an ActionResult with a fault is information, not an error: log it and keep reading"))

    main_games = main.result.match.results
    several = len(main_games) == games and all(g.outcome.ending.by_rules for g in main_games)
    checks.append(Check("several games", several,
                        f"{len(main_games)} games in one match, all ended by the rules" if several else
                        "; ".join(g.outcome.reason for g in main_games)[:300],
                        "after GameOver keep the stream open: the next GameStart follows"))

    other_reports = [r for run in others for r in run.reports]
    other_faults = [f.reason for r in other_reports for f in r.faults]
    if not variants:
        checks.append(skipped("presets", f"only {rules.name} is played here"))
    else:
        first = other_faults[0] if other_faults else ""
        checks.append(Check("presets", not other_faults,
                            (", ".join(run.rules.name for run in others) + f": {len(games_played) - len(main_games)} "
                             "games, no faults" if others else f"no variant of {rules.name} to try")
                            if not other_faults else first[:300],
                            _presets_fix(time_control, other_reports)))

    exits = [run.result.exits[s] for run in runs for s in run.seats]
    clean = all(e.returncode == 0 for e in exits)
    checks.append(Check("clean exit", clean,
                        "exited with status 0 after every match" if clean else
                        f"exit statuses {sorted({e.returncode for e in exits}, key=str)}",
                        "after MatchOver the referee ends the stream: return from main with status 0"))

    if manifest.transport == "stdio":
        stray = sum(r.unreadable for r in reports)
        unit = CODECS[manifest.stdio_format].unit
        checks.append(Check("stdout", not stray, "no stray output on stdout" if not stray else
                            f"{stray} unreadable {unit}(s) on stdout, each a malformed action",
                            "stdout carries only protocol messages (lines or frames): write logs to stderr"))
    return checks
