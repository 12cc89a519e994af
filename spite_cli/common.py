"""What every subcommand shares: the exit codes, the ranges of numeric options, the match
options, the checks of paths given on the command line, a console for tables."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Callable, NoReturn

from rich.console import Console

from referee.core import limits
from referee.core.deadlines import TimeControl
from referee.core.match import Policy
from tournaments.config import MAX_PARALLEL as MAX_PARALLEL  # one range for --parallel and a file's parallel

# -- exit codes: the same in every command (README "Exit codes", `spite --help`) -----------

OK = 0
"""Everything asked was done, and no bot failed."""
BOT_FAILED = 1
"""A bot failed (crashed, timed out, made an illegal move, failed a check, was benched), or a
check said no (``seed verify``: the seed does not open the commitment; ``replay --verify``: the
replay does not re-simulate, or its rule set is not what its name says)."""
USAGE = 2
"""Bad usage or input: an unknown option, a value out of range, a missing or damaged file."""
PLATFORM = 3
"""Spite Arena itself failed (a referee or worker died, a match was void, an internal error)."""
INTERRUPTED = 130
"""Stopped with Ctrl-C."""

EXIT_CODES_HELP = f"""exit codes (the same for every command):
  {OK}    ok
  {BOT_FAILED}    a bot failed (crashed, timed out, moved illegally, failed a check, was benched),
       or a check said no (seed verify, replay --verify)
  {USAGE}    bad usage or input: unknown option, value out of range, missing or damaged file
  {PLATFORM}    the platform failed: a referee or worker died, a match was void, an internal error
  {INTERRUPTED}  interrupted (Ctrl-C)"""

# -- ranges of numeric options: the referee's (referee/core/limits.py), so the CLI refuses
# exactly what the referee would ---------------------------------------------------------

MAX_GAMES = limits.GAMES.high
MAX_SEED = limits.SEED.high


class UsageError(Exception):
    """Bad input on the command line: printed as one line, exit :data:`USAGE`."""


def ranged_int(low: int, high: int, what: str = "") -> Callable[[str], int]:
    """An argparse ``type`` for a whole number in ``low..high``: anything else is a one-line usage error."""
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number ({low}..{high:,})") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value:,} is out of range: {what or 'it'} must be {low}..{high:,}")
        return value
    parse.__name__ = "whole number"
    return parse


def ranged_float(low: float, high: float, *, open_low: bool = False, open_high: bool = False
                 ) -> Callable[[str], float]:
    """An argparse ``type`` for a finite number in the interval given."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        below = value <= low if open_low else value < low
        above = value >= high if open_high else value > high
        if value != value or below or above:
            interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
            raise argparse.ArgumentTypeError(f"{text} is out of range: it must be in {interval}")
        return value
    parse.__name__ = "number"
    return parse


def existing_file(text: str) -> Path:
    """An argparse ``type``: a path that must be an existing regular file."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory; a file is expected")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{text}: no such file")
    return path


def not_a_directory(text: str) -> Path:
    """An argparse ``type``: a file path that may not exist yet, but is not a directory."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory; a file is expected")
    return path


SQLITE_MAGIC = b"SQLite format 3\x00"


def check_store(path: Path, *, must_exist: bool) -> None:
    """Refuse (with :class:`UsageError`) a ``--db`` that is a directory, or a file that is not an
    SQLite database, before SQLite touches it; with ``must_exist``, a missing one too."""
    if path.is_dir():
        raise UsageError(f"--db {path} is a directory; the results store is a file (e.g. spite.db)")
    if not path.exists():
        if must_exist:
            raise UsageError(f"no results store at {path} (run `spite tournament FILE` first, or pass --db PATH)")
        return
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise UsageError(f"cannot read the results store {path}: {error.strerror}") from None
    if head and head != SQLITE_MAGIC:
        raise UsageError(f"{path} is not a Spite Arena results store (not an SQLite database); "
                         "it was left untouched. Pass another --db")
    if head:
        tables = store_tables(path)
        if tables and "tournaments" not in tables:  # not even a tournament runner would write there
            what = "an arena store (spite serve's arena.db)" if "versions" in tables else "another SQLite database"
            raise UsageError(f"--db {path} is {what}, not a tournament results store; it was left untouched")


def output_file(option: str, path: Path) -> Path:
    """The one rule for files a command writes (``--db``, ``--html``, ``seed commit --out``):
    the file may be new, its directory must exist -- a missing one is refused with
    :class:`UsageError` naming it, never created (it is more often a typo than a wish)."""
    if path.is_dir():
        raise UsageError(f"{option} {path} is a directory; a file is expected")
    if not path.parent.is_dir():
        raise UsageError(f"{option} {path}: no directory {path.parent}; create it first, or choose another path")
    return path


def output_dir(option: str, path: Path) -> Path:
    """The rule for directories a command writes into (``--replay-dir``, ``--log-dir``, ``--data``):
    created with their parents when missing; a file in their place, or one that cannot be
    created (under ``/proc``, read-only), is a :class:`UsageError`."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path} is a file; a directory is expected")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot create the directory ({error.strerror or error})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: the directory is not writable")
    return path


def store_tables(path: Path, what: str = "--db") -> set[str]:
    """The tables of the SQLite file ``path``, read without writing a byte
    (:func:`spite_web.cli.store_tables`); a damaged file is a :class:`UsageError`."""
    from spite_web.cli import store_tables as read_tables

    tables = read_tables(path)
    if tables is None:
        raise UsageError(f"{what} {path} is damaged (not a readable SQLite database); it was left untouched")
    return tables


SCHEDULER = re.compile(r"(?:(?:tcp|tls|inproc|ucx|ws|wss)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})")


def scheduler_address(text: str) -> str:
    """An argparse ``type`` for a Dask scheduler's address, ``tcp://HOST:PORT``."""
    found = SCHEDULER.fullmatch(text)
    if found is None or not 0 < int(found.group(1)) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a scheduler address; expected tcp://HOST:PORT "
                                         "(e.g. tcp://127.0.0.1:8786)")
    return text


def fail(command: str, message: str, code: int = USAGE) -> int:
    """Print ``spite COMMAND: message`` as one line on stderr; return ``code``."""
    print(f"spite {command}: {message}", file=sys.stderr, flush=True)
    return code


def die(message: str, code: int = USAGE) -> NoReturn:
    print(message, file=sys.stderr, flush=True)
    raise SystemExit(code)


def err_console() -> Console:
    """A console on stderr, for progress and notes that must not mix with machine output."""
    return Console(stderr=True, soft_wrap=True, highlight=False)


def ranged(limit: limits.Range, option: str) -> Callable[[str], int]:
    """An argparse type for an option whose range the referee defines."""
    return ranged_int(limit.low, limit.high, option)


def time_control(args: argparse.Namespace) -> TimeControl:
    return TimeControl(decision_ms=args.decision_ms, bank_ms=args.bank_ms, connect_ms=args.connect_ms)


def add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="standard", help="rule-set spec, e.g. standard, skip-bo+4p (docs/rules.md)")
    parser.add_argument("--seed", type=ranged_int(0, MAX_SEED, "--seed"), default=0,
                        help="master seed of the match, 0..2^64-1 (default 0)")
    parser.add_argument("--games", type=ranged_int(1, MAX_GAMES, "--games"), default=1,
                        help=f"games in the match, 1..{MAX_GAMES:,} (default 1)")
    parser.add_argument("--policy", choices=[p.value for p in Policy], default=Policy.SUBSTITUTE.value,
                        help="what bad behaviour gets (default substitute: fallback move + strike, 3 strikes forfeit)")
    parser.add_argument("--decision-ms", type=ranged(limits.DECISION_MS, "--decision-ms"),
                        default=TimeControl.decision_ms, help=f"per-decision limit, {limits.DECISION_MS} ms")
    parser.add_argument("--bank-ms", type=ranged(limits.BANK_MS, "--bank-ms"), default=TimeControl.bank_ms,
                        help=f"per-game time bank, {limits.BANK_MS} ms")
    parser.add_argument("--connect-ms", type=ranged(limits.CONNECT_MS, "--connect-ms"),
                        default=TimeControl.connect_ms,
                        help=f"allowance to connect and for the first decision, {limits.CONNECT_MS} ms")


class QuietConsole(Console):
    """rich's console, but a reader that leaves (``| head``) raises BrokenPipeError, which
    ``main`` turns into a quiet exit 0, instead of rich's own exit status 1 (a bot failed)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        quiet_stdout()
        raise BrokenPipeError


def wide_console() -> Console:
    """A console for tables: the terminal's width, or wide enough not to wrap in a pipe or a CI log."""
    console = QuietConsole()
    return console if console.is_terminal else QuietConsole(width=200)


def print_json(text: str) -> None:
    """Machine output: alone on stdout, and quiet when the reader goes away (``| head``)."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_stdout()


def quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush is silent."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
