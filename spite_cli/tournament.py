"""``spite tournament`` and ``spite leaderboard``: run a league into the store, and read it back.

``spite tournament`` exits 0 when every match was played, 1 when a bot failed (benched, or
crashing, timing out, moving illegally), 3 when the platform failed (a match void after its
retries), 130 when interrupted (finished matches are kept: ``--resume`` goes on).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import Any

from referee.processes.manifest import ManifestError

from .common import (
    BOT_FAILED,
    MAX_PARALLEL,
    OK,
    PLATFORM,
    UsageError,
    check_store,
    existing_file,
    fail,
    output_file,
    print_json,
    ranged_float,
    ranged_int,
    scheduler_address,
    wide_console,
)


def cmd_tournament(args: argparse.Namespace) -> int:
    from spite_cli import leaderboard
    from tournaments.backends import TournamentError
    from tournaments.config import TournamentFileError, load_tournament
    from tournaments.runner import RunOptions, run_tournament
    from tournaments.store import StoreError

    from .tournament_view import make_view

    check_store(Path(args.db), must_exist=False)
    output_file("--db", Path(args.db))
    resume: bool | int = args.resume_id if args.resume_id is not None else args.resume
    options = RunOptions(db=Path(args.db), parallel=args.parallel, resume=resume, scheduler=args.scheduler)
    try:
        config = load_tournament(args.file)
        if resume is True:
            nothing_to_resume(config.name, Path(args.db))
        outcome = run_tournament(config, options, view=make_view(config, True if args.plain else None))
    except (TournamentFileError, ManifestError, TournamentError, StoreError) as error:
        return fail("tournament", str(error))
    except sqlite3.DatabaseError as error:
        return fail("tournament", f"{args.db} is not a readable results store ({error}); pass another --db")
    except KeyboardInterrupt:
        print(f"\nstopped; finished matches are saved. Resume with: spite tournament {args.file} --resume"
              + (f" --db {args.db}" if args.db != "spite.db" else ""), file=sys.stderr)
        return 130
    console = wide_console()
    console.print(leaderboard.rich_table(outcome.board, f"{config.name} · {config.rules.name}",
                                         config.rules.scores_points))
    for line in leaderboard.failing_lines(outcome.failing):
        console.print(line)
    rate = outcome.played / outcome.elapsed_s if outcome.elapsed_s else 0.0
    earlier = outcome.done - outcome.played
    console.print(f"{config.name} (#{outcome.tournament_id}): {outcome.played} matches played in "
                  f"{outcome.elapsed_s:.1f} s "
                  f"({rate:.2f} matches/s)" + (f", {earlier} more from an earlier run" if earlier > 0 else "")
                  + f"; {outcome.done} done in {outcome.rounds} round(s)"
                  + (f", {outcome.void} void" if outcome.void else "")
                  + f". Results in {args.db}: spite leaderboard"
                  + (f" --db {args.db}" if args.db != "spite.db" else ""), markup=False, highlight=False)
    if outcome.platform_void:
        return PLATFORM
    return BOT_FAILED if outcome.failing else OK


def nothing_to_resume(name: str, db: Path) -> None:
    """``--resume`` with no tournament of this name in ``db`` is a :class:`UsageError`: it would
    start a new one, silently (a mistyped --db or file is the usual cause)."""
    from tournaments.store import Store

    if db.exists():
        with Store(db, readonly=True) as store:
            if store.tournament(name) is not None:
                return
    raise UsageError(f"nothing to resume: no tournament {name!r} in {db} (drop --resume to start it, "
                     "or pass the --db it was played into)")


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from tournaments.queries import Queries, QueryError

    from . import leaderboard

    overrides = {k: getattr(args, k) for k in ("mu", "sigma", "beta", "tau", "draw_probability")
                 if getattr(args, k) is not None}
    check_store(Path(args.db), must_exist=True)
    try:
        with Queries.open(args.db) as queries:
            board = queries.leaderboard(args.tournament, overrides=overrides, recompute=args.recompute)
    except QueryError as error:
        return fail("leaderboard", str(error))
    output = leaderboard.render(args.format, board)
    if isinstance(output, str):
        print_json(output)  # also csv and markdown: alone on stdout, quiet on `| head`
    else:
        wide_console().print(output)
    return 0


def register(sub: Any) -> None:
    tour = sub.add_parser("tournament", help="run (or resume) a tournament file; results go to the store")
    tour.add_argument("file", type=existing_file, help="a tournament file, e.g. leagues/demo.toml")
    tour.add_argument("--parallel", type=ranged_int(1, MAX_PARALLEL, "--parallel"),
                      help="matches at once (default: the file's, else the usable cores)")
    tour.add_argument("--resume", action="store_true",
                      help="go on with the latest tournament of this name in the store: play exactly the missing "
                           "matches, with the same seeds")
    tour.add_argument("--resume-id", type=ranged_int(1, 2**62, "--resume-id"), metavar="ID",
                      help="like --resume, with tournament ID of the store")
    tour.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    tour.add_argument("--plain", action="store_true",
                      help="one line per match, no live view (also when stdout is not a terminal)")
    tour.add_argument("--scheduler", type=scheduler_address, metavar="tcp://HOST:8786",
                      help="run matches on a Dask cluster (pip install 'spite-arena[dask]'; docs/scaling.md)")
    tour.set_defaults(func=cmd_tournament)

    board = sub.add_parser("leaderboard", help="show a tournament's leaderboard from the store")
    board.add_argument("--format", choices=["table", "json", "csv", "markdown"], default="table")
    board.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    board.add_argument("--tournament", help="a tournament's name or id (default: the latest)")
    board.add_argument("--recompute", action="store_true",
                       help="rate again from the stored results (any of the options below implies it)")
    ranges = {"mu": (ranged_float(-1e6, 1e6), "any number"),
              "sigma": (ranged_float(0, 1e6, open_low=True), "> 0"),
              "beta": (ranged_float(0, 1e6, open_low=True), "> 0"),
              "tau": (ranged_float(0, 1e6), ">= 0"),
              "draw-probability": (ranged_float(0, 1, open_high=True), "0 <= p < 1")}
    for option, (kind, allowed) in ranges.items():
        board.add_argument(f"--{option}", type=kind, metavar="X",
                           help=f"TrueSkill {option.replace('-', '_')} ({allowed}) for --recompute")
    board.set_defaults(func=cmd_leaderboard)
