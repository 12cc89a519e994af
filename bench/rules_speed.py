#!/usr/bin/env python3
"""Rules engine speed: whole games in process, for every preset and two policies.

    .venv/bin/python bench/rules_speed.py [--games N] [--presets standard,skip-bo] [--policies greedy] [--json]

``make bench-rules`` runs it with the defaults. For each preset (``spite_engine.PRESETS``
unless ``--presets`` names others; any spec such as ``kings-only+short-15`` works) and
each policy (both unless ``--policies`` names one), it plays ``--games`` games with every seat on that policy:

* ``random``: ``spite_sdk.policies.random_move`` with one ``random.Random(seed)`` per game;
* ``greedy``: ``spite_sdk.policies.greedy_move``;
* ``tactician`` (only when named): the first move of ``spite_sdk.tactics.tactician_plan``, the
  plan searched afresh at every move (what a searcher's rollouts pay per decision).

Game *i* is dealt from seed *i*, so every run plays the same games. A decision is what a
simulation does per move: ``observe_lazy(state, seat)`` (``--observe eager``: ``observe``,
what the referee calls), the policy, ``state.apply(move)``; the
clock also covers dealing each game. The clock is the process's CPU time (on an idle
machine the same as wall time; on a shared one it is not inflated by waiting for a core),
so the rates are one core's. It reports, per preset and policy: games, games/s,
decisions/s and the share of games that ended each way (stock emptied, stalemate, turn
cap, draw pile exhausted) and the share of all games that stopped unfinished (stalemate or
turn cap) and were won on adjudication (docs/rules.md, decision 6), as a table and as one plain ``key=value`` line per
row (``--json``: one JSON document instead).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import spite_engine  # noqa: E402
from spite_engine import PRESETS, Ending, GameState, Observation, RulesError, observe, parse_rules  # noqa: E402

try:  # the simulation path (engine API 2); a baseline older than it has only observe
    from spite_engine import observe_lazy  # noqa: E402
except ImportError:  # pragma: no cover - only under --baseline with an older revision
    observe_lazy = observe
OBSERVERS = {"lazy": observe_lazy, "eager": observe}
from spite_sdk.policies import greedy_move, random_move  # noqa: E402

POLICIES = ("random", "greedy")
"""The default policies; ``--policies tactician`` is measured when named."""
CHOICES = (*POLICIES, "tactician")
ENDINGS = tuple(e for e in Ending if e.by_rules)
"""The endings by the rules, in the order of the report's columns."""
DEFAULT_GAMES = 400
"""About a minute for every preset and both policies on the machine in docs/performance.md."""


@dataclass
class Result:
    """The games of one (preset, policy) pair."""

    rules: str
    policy: str
    games: int = 0
    decisions: int = 0
    seconds: float = 0.0
    endings: Counter[str] = field(default_factory=Counter)
    adjudicated: int = 0
    """Games stopped by a stalemate or the turn cap that a seat won on the stocks."""

    @property
    def adjudicated_share(self) -> float:
        return self.adjudicated / self.games if self.games else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0

    def share(self, ending: Ending) -> float:
        return self.endings[ending.value] / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"rules": self.rules, "policy": self.policy, "games": self.games,
                "decisions": self.decisions, "seconds": round(self.seconds, 4),
                "games_per_second": round(self.games_per_second, 2),
                "decisions_per_second": round(self.decisions_per_second),
                "endings": {e.value: self.share(e) for e in ENDINGS}, "adjudicated": self.adjudicated_share}


def play(spec: str, policy: str, games: int, observer: str = "lazy") -> Result:
    """Play ``games`` games of ``spec`` with every seat on ``policy``, timed; ``observer``
    ``lazy`` (``observe_lazy``, the simulation path) or ``eager`` (``observe``, the referee's)."""
    rules = parse_rules(spec)
    look = OBSERVERS[observer]
    result = Result(rules.name, policy)
    started = time.process_time()
    for seed in range(games):
        state = GameState.new(rules, seed)
        if policy == "greedy":
            choose: Callable[[Observation], Any] = greedy_move
        elif policy == "tactician":
            from spite_sdk.tactics import tactician_plan

            choose = lambda view: tactician_plan(view)[0]  # noqa: E731
        else:
            rng = random.Random(seed)
            choose = lambda view: random_move(view, rng)  # noqa: E731
        decisions = 0
        while state.outcome is None:
            state.apply(choose(look(state, state.to_move)))
            decisions += 1
        result.decisions += decisions
        result.endings[state.outcome.ending.value] += 1
        if state.outcome.ending in (Ending.STALEMATE, Ending.TURN_CAP) and state.outcome.winners:
            result.adjudicated += 1
    result.seconds = time.process_time() - started
    result.games = games
    return result


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "nproc": os.cpu_count(), "python": platform.python_version(),
            "implementation": platform.python_implementation(), "platform": platform.platform(),
            # A baseline revision older than the compiled build has only its Python sources.
            "engine": "compiled" if getattr(spite_engine, "COMPILED", False) else "python",
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def plain_line(result: Result) -> str:
    """One ``key=value`` line, for logs and grep."""
    shares = " ".join(f"{e.value}={result.share(e):.3f}" for e in ENDINGS)
    return (f"rules_speed rules={result.rules} policy={result.policy} games={result.games} "
            f"seconds={result.seconds:.2f} games_per_s={result.games_per_second:.1f} "
            f"decisions_per_s={result.decisions_per_second:.0f} {shares} adjudicated={result.adjudicated_share:.3f}")


def print_report(results: list[Result], info: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if console.width < 120:  # not a terminal, or a narrow one: keep the columns readable
        console = Console(width=120)
    table = Table(title="Rules engine speed: whole games in process, one core",
                  caption=f"{info['cpu']} ({info['nproc']} CPUs), Python {info['python']}, "
                          f"the {info['engine']} engine, {info['date']}")
    table.add_column("rules", no_wrap=True)
    table.add_column("policy", no_wrap=True)
    for name in ("games", "games/s", "decisions/s"):
        table.add_column(name, justify="right")
    for ending in ENDINGS:
        table.add_column(ending.value.replace("-", " "), justify="right")
    table.add_column("adjudicated", justify="right")
    for result in results:
        table.add_row(result.rules, result.policy, str(result.games), f"{result.games_per_second:,.1f}",
                      f"{result.decisions_per_second:,.0f}", *(f"{result.share(e):.1%}" for e in ENDINGS),
                      f"{result.adjudicated_share:.1%}")
    console.print(table)
    for result in results:
        print(plain_line(result))


PYTHON_BASELINE = "python"
"""``--baseline python``: the working tree's own sources run as Python (``SPITE_ENGINE=python``),
beside its compiled build (``spite_engine.compiled``)."""


def _child_run(path: str | None, specs: list[str], policies: list[str], games: int,
               observer: str, valgrind: bool = False) -> dict[str, Any]:
    """One run of this script in a fresh process; ``path`` first on PYTHONPATH (a baseline's tree),
    or :data:`PYTHON_BASELINE` for the working tree's Python sources. With ``valgrind`` it runs
    under cachegrind and the result gains ``instructions``, the process's whole count
    (interpreter start and imports included)."""
    env = dict(os.environ)
    env.pop("SPITE_ENGINE", None)
    if path == PYTHON_BASELINE:
        env["SPITE_ENGINE"] = "python"
    elif path is not None:
        env["PYTHONPATH"] = os.pathsep.join([f"{path}/engine", f"{path}/sdk/python", env.get("PYTHONPATH", "")])
    command = [sys.executable, str(Path(__file__).resolve()), "--json", "--games", str(games),
               "--presets", ",".join(specs), "--policies", ",".join(policies), "--observe", observer]
    if not valgrind:
        out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
        return json.loads(out)  # type: ignore[no-any-return]
    with tempfile.NamedTemporaryFile(prefix="rules-speed-", suffix=".cachegrind") as counts:
        done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                               f"--cachegrind-out-file={counts.name}", *command],
                              env=env, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(done.stdout)
    refs = [line for line in done.stderr.splitlines() if "I" in line and "refs:" in line]
    result["instructions"] = int(refs[-1].split(":")[1].replace(",", "").strip())
    return result


def instructions_per_decision(path: str | None, games: int, observer: str) -> float:
    """Instructions (cachegrind) per decision of standard greedy games: a run of ``games``
    games less a run of one game, divided by the decisions between them, so starting the
    interpreter and importing cancel out. Exact and the same on a loaded machine."""
    long = _child_run(path, ["standard"], ["greedy"], games, observer, valgrind=True)
    short = _child_run(path, ["standard"], ["greedy"], 1, observer, valgrind=True)
    decisions = long["results"][0]["decisions"] - short["results"][0]["decisions"]
    return (long["instructions"] - short["instructions"]) / decisions


def compare_with_baseline(revision: str, rounds: int, specs: list[str], policies: list[str], games: int,
                          as_json: bool, observer: str = "lazy", instruction_games: int = 0) -> int:
    """The figures of ``revision`` and of the working tree, measured interleaved in this run."""
    with tempfile.TemporaryDirectory(prefix="rules-speed-baseline-") as directory:
        tree = directory
        if revision == PYTHON_BASELINE:
            tree = PYTHON_BASELINE
        else:  # the revision's sources, never a build of them: its Python engine
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "engine", "sdk/python"],
                                     check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "current": []}
        for round_number in range(rounds):
            for name, path in (("baseline", tree), ("current", None)):
                runs[name].append(_child_run(path, specs, policies, games, observer))
                print(f"  round {round_number + 1}/{rounds}: {name} done", file=sys.stderr)
        counted: dict[str, float] = {}
        if instruction_games:
            for name, path in (("baseline", tree), ("current", None)):
                counted[name] = instructions_per_decision(path, instruction_games, observer)
                print(f"  instructions: {name} done", file=sys.stderr)
    rows = []
    for index, first in enumerate(runs["current"][0]["results"]):
        per = {name: [run["results"][index]["decisions_per_second"] for run in runs[name]] for name in runs}
        rows.append({"rules": first["rules"], "policy": first["policy"], "games": first["games"],
                     "baseline": per["baseline"], "current": per["current"],
                     "ratio": statistics.median(per["current"]) / statistics.median(per["baseline"])})
    info = machine()
    if as_json:
        json.dump({"machine": info, "baseline": revision, "rounds": rounds, "rows": rows,
                   "instructions_per_decision": counted, "instruction_games": instruction_games},
                  sys.stdout, indent=2)
        print()
        return 0
    print(f"decisions/s per CPU second, {revision} (baseline) against the working tree ({info['engine']} engine), "
          f"{rounds} interleaved "
          f"rounds, {info['cpu']}, {info['date']}")
    for row in rows:
        print(f"rules_speed rules={row['rules']} policy={row['policy']} games={row['games']} "
              f"baseline={','.join(map(str, row['baseline']))} current={','.join(map(str, row['current']))} "
              f"ratio_of_medians={row['ratio']:.3f}")
    if counted:
        print(f"rules_speed instructions_per_decision standard greedy games={instruction_games} "
              f"baseline={counted['baseline']:,.0f} current={counted['current']:,.0f} "
              f"ratio={counted['current'] / counted['baseline']:.3f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                        help=f"games per preset and policy (default {DEFAULT_GAMES}: about a minute in all)")
    parser.add_argument("--presets", default=",".join(PRESETS),
                        help="comma-separated rule-set specs (default: every preset)")
    parser.add_argument("--policies", default=",".join(POLICIES),
                        help="comma-separated policies (default: %(default)s; also: tactician); the engine's "
                             "target figure is --presets standard --policies greedy")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    parser.add_argument("--observe", choices=tuple(OBSERVERS), default="lazy",
                        help="lazy: observe_lazy, the simulation path (default); eager: observe, the referee's")
    parser.add_argument("--baseline", metavar="REV",
                        help="also measure git revision REV's engine and SDK (its Python sources), interleaved, "
                             "in the same run; 'python': this tree's own sources run as Python beside its "
                             "compiled build")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each version with --baseline (default 3)")
    parser.add_argument("--instructions", type=int, default=0, metavar="GAMES",
                        help="with --baseline, also count each version's instructions per decision under "
                             "valgrind (cachegrind) over GAMES standard greedy games (less a one-game run)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    specs = [s.strip() for s in args.presets.split(",") if s.strip()]
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    for policy in policies:
        if policy not in CHOICES:
            parser.error(f"unknown policy {policy!r} (choose from {', '.join(CHOICES)})")
    for spec in specs:
        try:
            parse_rules(spec)  # a bad spec fails here, before any game
        except RulesError as error:
            parser.error(str(error))
    if args.baseline:
        return compare_with_baseline(args.baseline, args.rounds, specs, policies, args.games, args.json,
                                     args.observe, args.instructions)
    if args.instructions:
        parser.error("--instructions compares two versions: give --baseline REV too")
    results = []
    for spec in specs:
        for policy in policies:
            results.append(play(spec, policy, args.games, args.observe))
            if not args.json:
                print(f"  {spec} / {policy}: done", file=sys.stderr)
    info = machine()
    if args.json:
        json.dump({"machine": info, "games_per_preset": args.games, "results": [r.to_dict() for r in results]},
                  sys.stdout, indent=2)
        print()
    else:
        print_report(results, info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
