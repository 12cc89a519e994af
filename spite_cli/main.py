"""``spite``: the command line of Spite Arena. This module builds the parser and dispatches;
each subcommand group lives in a module of its own (play, replay, referee_server, seed,
tournament, games, check_bot, doctor_cmd, serve, arena), which adds its parser with ``register(sub)``.

Every command exits with the same codes (:mod:`spite_cli.common`): 0 ok, 1 a bot failed,
2 bad usage or input, 3 the platform failed, 130 interrupted. Bad input is one line on
stderr, never a traceback; machine output (``--json``) goes alone to stdout.
"""

from __future__ import annotations

import argparse
import logging
import sys
import textwrap
import traceback
from importlib import metadata
from typing import NoReturn, Sequence

from referee.processes.shutdown import stop_like_interrupt
from spite_web import cli as web_cli

from . import arena, check_bot, doctor_cmd, games, play, referee_server, replay, seed, serve, tournament
from .common import EXIT_CODES_HELP, INTERRUPTED, PLATFORM, USAGE, UsageError, quiet_stdout

FIRST_LINES = """Spite Arena: bots in any language play Spite and Malice through a referee.

Start here:
  spite play greedy random            watch two sample bots play one game
  spite check-bot path/to/bot.toml    check that your bot is ready for a tournament
  spite tournament leagues/demo.toml && spite leaderboard
                                      run a league of the sample bots, then read its table
"""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as written; option help wrapped at spaces only, so a name such as
    ``perl-greedy`` or ``--no-replays`` is never cut at its hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class Parser(argparse.ArgumentParser):
    """argparse, with bad usage as one line on stderr (exit 2) instead of the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def version() -> str:
    try:
        return metadata.version("spite-arena")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="spite", description=FIRST_LINES, epilog=EXIT_CODES_HELP,
                    formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"spite {version()}")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="log the referee's work to stderr, and show tracebacks of internal errors")
    try:
        import shtab

        shtab.add_argument_to(parser, ["--print-completion"], help="print a shell completion script "
                              "(bash, zsh, tcsh): eval \"$(spite --print-completion bash)\"")
    except ImportError:  # an install without the completion helper still runs
        pass
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (play, replay, referee_server, tournament, games, check_bot, doctor_cmd, seed, serve, arena):
        module.register(sub)
    web_cli.add_parser(sub)
    for action in sub.choices.values():
        if not action.epilog:
            action.epilog = EXIT_CODES_HELP
            action.formatter_class = HelpFormatter
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    stop_like_interrupt()  # SIGHUP (a closed terminal) and SIGTERM clean up like Ctrl-C
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # here, so a reader that left (`| head`) is caught below, not at exit
        return code
    except UsageError as error:
        print(f"spite {getattr(args, 'command_name', args.command)}: {error}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        print(f"\nspite {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # `spite ... | head`: the reader left, which is not an error
        quiet_stdout()
        return 0
    except Exception as error:  # the platform failed: one line, the traceback only with -v
        if args.verbose:
            traceback.print_exc()
        print(f"spite {args.command}: internal error: {type(error).__name__}: {error}"
              + ("" if args.verbose else " (spite -v shows the traceback)"), file=sys.stderr)
        return PLATFORM


if __name__ == "__main__":
    sys.exit(main())
