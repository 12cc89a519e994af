"""``spite check-bot MANIFEST``: is this bot ready to enter a tournament?

The conformance kit (in the spirit of PettingZoo's ``api_test`` and Gymnasium's
``check_env``): it builds the bot, plays it against the reference opponent (the greedy
sample bot) through a real referee across the presets that stress a client
(2, 3 and 4 players, partners, skip-bo, open-stock), and prints one line per check,
pass or fail, with what to fix. Exit status 1 if any check fails.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.local import LocalMatch, play_local_match
from referee.match import MatchConfig, Policy, TimeControl
from spite_engine import parse_rules

from referee.manifest import BotManifest, ManifestError, load_manifest, resolve_bot

# The presets a client must handle, and which seats the bot takes in each.
PRESET_SEATS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("3p", (1,)), ("4p", (0, 3)), ("partners", (1, 3)), ("skip-bo", (1,)), ("open-stock", (0,)))
PROBE_DECISION = 3
"""The bot's decision that the referee closes at once, to see it survive the rejection."""


@dataclass
class Check:
    name: str
    passed: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        text = f"{'PASS' if self.passed else 'FAIL'}  {self.name:<14} {self.detail}"
        return text + (f"\n      fix: {self.fix}" if not self.passed and self.fix else "")


@dataclass
class Run:
    rules: str
    seats: tuple[int, ...]
    result: LocalMatch
    reports: list[Any] = field(default_factory=list)


def _play(bot: BotManifest, reference: BotManifest, rules: str, seats: tuple[int, ...], games: int, seed: int,
          time_control: TimeControl, probe: bool, log_dir: Path | None) -> Run:
    spec = parse_rules(rules)
    lineup = [bot if s in seats else reference for s in range(spec.players)]
    config = MatchConfig(spec, [b.name for b in lineup], time_control, games, seed, Policy.SUBSTITUTE,
                         probe_timeout=(seats[0], PROBE_DECISION) if probe else None)
    result = asyncio.run(play_local_match(lineup, config, log_dir=log_dir))
    run = Run(rules, seats, result)
    run.reports = [result.match.seats[s].report for s in seats]
    return run


def check_bot(manifest: BotManifest, *, games: int = 3, seed: int = 7,
              time_control: TimeControl | None = None, log_dir: Path | None = None) -> list[Check]:
    """Run every check; the result is one :class:`Check` per line of the report."""
    time_control = time_control or TimeControl()
    checks: list[Check] = []
    started = time.monotonic()
    try:
        manifest.run_build()
    except ManifestError as error:
        return [Check("build", False, str(error).splitlines()[0],
                      "make the manifest's build command succeed in its directory")]
    checks.append(Check("build", True, f"{manifest.build or 'no build step'} ({time.monotonic() - started:.1f} s)"))
    reference = resolve_bot("greedy")
    main = _play(manifest, reference, "standard", (0,), games, seed, time_control, True, log_dir)
    others = [_play(manifest, reference, rules, seats, 1, seed + i, time_control, False, log_dir)
              for i, (rules, seats) in enumerate(PRESET_SEATS)]
    runs = [main, *others]
    reports = [r for run in runs for r in run.reports]
    games_played = [g for run in runs for g in run.result.match.results]

    connected = all(r.status != "pending" for r in reports) and \
        not any("before connecting" in f or "did not connect" in f for r in reports for f in r.faults)
    checks.append(Check("handshake", connected,
                        f"connected in {len(runs)} matches as {reports[0].name!r} version {reports[0].version!r}"
                        if connected else "; ".join(f for r in reports for f in r.faults)[:300],
                        "read SPITE_ADDRESS and SPITE_TOKEN from the environment; send Hello(token, name, "
                        "version, protocol_version=1) first (docs/protocol.md)"))

    bad = [f for r in reports for f in r.faults if "illegal move" in f or "malformed" in f.lower()
           or "move_index" in f or "plan" in f or "expected an Action" in f or "does not exist" in f]
    decisions = sum(r.decisions for r in reports)
    checks.append(Check("legal moves", not bad,
                        f"{decisions} decisions, no illegal or malformed action" if not bad else bad[0][:300],
                        "answer with one of observation.legal_moves (by index or value), echoing decision_id"))

    probe_faults = 1  # the kit's own forced timeout in the main match
    timeouts = sum(r.timeouts for r in reports) - probe_faults
    times = sorted(t for r in reports for t in r.decision_us)
    p50 = times[len(times) // 2] / 1000 if times else 0.0
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))] / 1000 if times else 0.0
    checks.append(Check("time limits", timeouts == 0,
                        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, limit {time_control.decision_ms} ms per decision"
                        + ("" if timeouts == 0 else f"; {timeouts} timeout(s)"),
                        "answer each DecisionRequest within deadline_ms; check the bot's own clock"))

    main_report = main.reports[0]
    survived = main_report.timeouts == probe_faults and main_report.decisions > PROBE_DECISION and \
        main_report.status == "done"
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

    other_faults = [f for run in others for r in run.reports for f in r.faults]
    checks.append(Check("presets", not other_faults,
                        ", ".join(f"{run.rules}" for run in others) + f": {len(games_played) - len(main_games)} "
                        "games, no faults" if not other_faults else other_faults[0][:300],
                        "use rules.players, rules.stock_of(seat) and the observation's piles, not fixed sizes"))

    exits = [run.result.exits[s] for run in runs for s in run.seats]
    clean = all(e.returncode == 0 for e in exits)
    checks.append(Check("clean exit", clean,
                        "exited with status 0 after every match" if clean else
                        f"exit statuses {sorted({e.returncode for e in exits}, key=str)}",
                        "after MatchOver the referee ends the stream: return from main with status 0"))

    if manifest.transport == "stdio":
        stray = [f for r in reports for f in r.faults if "unreadable line on stdout" in f]
        checks.append(Check("stdout", not stray, "no stray output on stdout" if not stray else stray[0][:300],
                            "stdout carries only protocol lines: write logs to stderr"))
    return checks
