"""``spite``: the command line of Spite Arena.

    spite play BOT BOT... [--rules PRESET] [--seed N] [--games N] [--replay-dir DIR]
    spite replay FILE [--as-seat K] [--verify] [--html OUT.html]
    spite web [--db PATH] [--listen HOST:PORT]
    spite referee --listen ADDR
    spite tournament FILE [--parallel N] [--resume | --resume-id ID] [--db PATH] [--plain] [--scheduler ADDR]
    spite leaderboard [--format table|json|csv|markdown] [--db PATH] [--tournament NAME|ID]
                      [--recompute [--mu X] [--sigma X] [--beta X] [--tau X] [--draw-probability X]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any, Sequence

from rich.console import Console
from rich.live import Live

from referee.match import Match, MatchConfig, Policy, TimeControl
from spite_engine import GameState, ReplayMismatch, RulesError, observe, observe_public, parse_rules, replay
from spite_engine.outcome import EventKind
from referee.manifest import ManifestError, resolve_bot

from . import render


def _time_control(args: argparse.Namespace) -> TimeControl:
    return TimeControl(decision_ms=args.decision_ms, bank_ms=args.bank_ms, connect_ms=args.connect_ms)


def _add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="standard", help="rule-set spec, e.g. standard, skip-bo+4p (docs/rules.md)")
    parser.add_argument("--seed", type=int, default=0, help="master seed of the match (default 0)")
    parser.add_argument("--games", type=int, default=1, help="games in the match (default 1)")
    parser.add_argument("--policy", choices=[p.value for p in Policy], default=Policy.SUBSTITUTE.value,
                        help="what bad behaviour gets (default substitute: fallback move + strike, 3 strikes forfeit)")
    parser.add_argument("--decision-ms", type=int, default=TimeControl.decision_ms, help="per-decision limit (ms)")
    parser.add_argument("--bank-ms", type=int, default=TimeControl.bank_ms, help="per-game time bank (ms)")
    parser.add_argument("--connect-ms", type=int, default=TimeControl.connect_ms,
                        help="allowance to connect and for the first decision (ms)")


# -- spite play -------------------------------------------------------------------------


def cmd_play(args: argparse.Namespace) -> int:
    from referee.local import play_local_match

    try:
        rules = parse_rules(args.rules)
        bots = [resolve_bot(spec) for spec in args.bots]
        for bot in {bot.path or bot.name: bot for bot in bots}.values():  # each manifest builds once
            bot.run_build()
        if len(bots) != rules.players:
            raise ManifestError(f"{rules.name} seats {rules.players} bots; {len(bots)} given")
        config = MatchConfig(rules, [b.name for b in bots], _time_control(args), args.games, args.seed,
                             Policy(args.policy), Path(args.replay_dir) if args.replay_dir else None)
    except (RulesError, ManifestError, ValueError) as error:
        print(f"spite play: {error}", file=sys.stderr)
        return 2
    console = Console()
    live_view = console.is_terminal and not args.plain
    names = [b.name for b in bots]

    async def main() -> Any:
        live = Live(console=console, refresh_per_second=12, transient=False) if live_view else None
        queue: asyncio.Queue[Any] = asyncio.Queue()

        def on_start(match: Match) -> None:
            match.spectators.append(queue)
            asyncio.get_running_loop().create_task(_watch(match))

        async def _watch(match: Match) -> None:
            while (message := await queue.get()) is not None:
                if message.WhichOneof("body") == "game_over":
                    game = message.game_over.game_number
                    line = f"game {game + 1}/{args.games}: {message.game_over.outcome.reason}"
                    if live is None:
                        print(line, flush=True)
                    else:
                        live.console.print(line)
                state = match.state
                if live is not None and state is not None:
                    recent = [render.describe_event(e, names) for e in state.log[-40:] if e.kind == EventKind.MOVE]
                    live.update(render.table(observe_public(state), names,
                                             f"game {match.game_number + 1}/{args.games} · {rules.name}", recent))

        if live is not None:
            live.start()
        try:
            return await play_local_match(bots, config, on_start=on_start,
                                          log_dir=Path(args.log_dir) if args.log_dir else None)
        finally:
            if live is not None:
                live.stop()

    result = asyncio.run(main())
    summary = result.match.summary()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_match(console, summary)
    return 0


def _print_match(console: Console, summary: dict[str, Any]) -> None:
    from rich.table import Table

    seats = summary["seats"]
    table = Table(title=f"match {summary['match_id']} · {summary['rules']} · {len(summary['games'])} games")
    for column in ("seat", "bot", "points", "wins", "status", "faults", "decisions", "p50 ms", "p99 ms"):
        table.add_column(column)
    wins = [0] * len(seats)
    for game in summary["games"]:
        for s in game["outcome"]["winners"]:
            wins[s] += 1
    for s in seats:
        faults = s["timeouts"] + s["illegal_moves"] + s["malformed"] + s["crashes"]
        table.add_row(str(s["seat"]), s["name"], str(summary["points"][s["seat"]] if summary["points"] else 0),
                      str(wins[s["seat"]]), s["status"], str(faults), str(s["decisions"]),
                      f"{s['decision_us_p50'] / 1000:.2f}", f"{s['decision_us_p99'] / 1000:.2f}")
    console.print(table)
    draws = sum(1 for g in summary["games"] if not g["outcome"]["winners"])
    if draws:
        console.print(f"{draws} draw(s)")
    for s in seats:
        for fault in s["faults"][:5]:
            console.print(f"[yellow]seat {s['seat']} ({s['name']}): {fault}[/yellow]")
    replays = [g["replay"] for g in summary["games"] if g.get("replay")]
    if replays:
        console.print(f"replays: {Path(replays[0]).parent}/ ({len(replays)} files)")


# -- spite replay -----------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace) -> int:
    from referee import replay as replay_file

    try:
        loaded = replay_file.load(args.file)
    except replay_file.ReplayError as error:
        print(f"spite replay: {error}", file=sys.stderr)
        return 2
    if args.verify:
        try:
            replay(loaded.record)
        except ReplayMismatch as error:
            print(f"spite replay: MISMATCH in {args.file}: {error}", file=sys.stderr)
            return 1
        print(f"{args.file}: verified ({len(loaded.record.moves)} moves, {len(loaded.record.events)} events, "
              f"outcome: {loaded.record.outcome.reason if loaded.record.outcome else 'none'})")
        return 0
    record = loaded.record
    if args.as_seat is not None and not 0 <= args.as_seat < record.rules.players:
        print(f"spite replay: --as-seat must be 0..{record.rules.players - 1}", file=sys.stderr)
        return 2
    if args.html:
        from spite_web.standalone import write_html

        print(f"{args.file}: viewer written to {write_html(loaded, Path(args.html), Path(args.file).name, args.as_seat)}")
        return 0
    names = [s.get("name", "?") for s in loaded.header.get("seats", [])] or [f"seat {i}" for i in range(record.rules.players)]
    console = Console()
    state = GameState.new(record.rules, record.seed, record.first_seat)
    meta_by_move = [m for m, e in zip(loaded.meta, record.events) if e.kind == EventKind.MOVE]
    for step, (seat, move) in enumerate(record.moves):
        if args.as_seat is None:
            view = observe(state, seat)
            title = f"step {step} · omniscient"
            hands = "   ".join(f"seat {s}: {render.cards(sorted(h))}" for s, h in enumerate(state.hands))
        else:
            view = observe(state, args.as_seat)
            title = f"step {step} · as seat {args.as_seat}"
            hands = ""
        console.print(render.table(view, names, title))
        if hands:
            console.print(f"hands: {hands}   draw pile (top last): {render.cards(state.draw_pile[-10:])}")
        meta = meta_by_move[step] if step < len(meta_by_move) else {}
        shown = meta.get("debug") and (args.as_seat is None or seat == args.as_seat)  # another seat's is hidden
        debug = f'   debug: "{meta["debug"]}"' if shown else ""
        spent = f"   {meta['us'] / 1000:.1f} ms" if meta.get("us") else ""
        console.print(f"[bold]seat {seat} plays {move}[/bold]{spent}{debug}\n")
        state.apply(move)
    if record.outcome is not None:
        console.print(f"[bold green]{record.outcome.reason}[/bold green]")
    return 0


# -- spite referee ----------------------------------------------------------------------


def cmd_referee(args: argparse.Namespace) -> int:
    from referee.server import TlsConfig, TlsError, is_loopback, start_referee

    tls: TlsConfig | None = None
    if bool(args.tls_cert) != bool(args.tls_key):
        print("spite referee: --tls-cert and --tls-key go together (give both, or neither)", file=sys.stderr)
        return 2
    if args.tls_client_ca and not args.tls_cert:
        print("spite referee: --tls-client-ca (mutual TLS) needs --tls-cert and --tls-key", file=sys.stderr)
        return 2
    if args.tls_cert:
        tls = TlsConfig(Path(args.tls_cert), Path(args.tls_key),
                        Path(args.tls_client_ca) if args.tls_client_ca else None)
        try:
            tls.credentials()  # read every file now: a bad one is a clear error, not a traceback
        except TlsError as error:
            print(f"spite referee: {error}", file=sys.stderr)
            return 2
    elif not is_loopback(args.listen) and not args.insecure:
        print(f"spite referee: refusing to listen on {args.listen} without TLS: seat and admin tokens would cross "
              "the network in the clear. Give --tls-cert and --tls-key (docs/security.md), listen on "
              "127.0.0.1 or unix:/path, or pass --insecure on a network you trust", file=sys.stderr)
        return 2

    admin_token = os.environ.get("SPITE_ADMIN_TOKEN")
    if args.admin_token_file and Path(args.admin_token_file).exists():
        admin_token = Path(args.admin_token_file).read_text().strip()

    async def main() -> None:
        running = await start_referee(args.listen, admin_token, tls=tls)
        if args.admin_token_file and not Path(args.admin_token_file).exists():
            path = Path(args.admin_token_file)
            path.write_text(running.admin_token + "\n")
            path.chmod(0o600)
        elif not admin_token:
            print("no admin token given (SPITE_ADMIN_TOKEN or --admin-token-file): admin calls are disabled "
                  "for this run; pass --admin-token-file FILE to have one written", file=sys.stderr)
        print(f"spite referee listening on {running.address} ({running.mode})", flush=True)
        if tls is None and not is_loopback(args.listen):
            print("WARNING: plaintext on a network address (--insecure): anyone on the path can read seat and "
                  "admin tokens", file=sys.stderr, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
        print("shutting down: aborting running matches", file=sys.stderr)
        await running.stop(grace=args.grace)

    asyncio.run(main())
    return 0


# -- spite seed ---------------------------------------------------------------------------


def cmd_seed_commit(args: argparse.Namespace) -> int:
    from tournaments import seeds

    secret = seeds.new_secret()
    path = Path(args.out)
    try:
        seeds.write_secret(path, secret)
    except FileExistsError:
        print(f"spite seed commit: {path} exists; a new secret would break the commitment made from it. "
              "Choose another --out, or remove the file first", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"spite seed commit: cannot write {path}: {error.strerror}", file=sys.stderr)
        return 2
    commitment = seeds.commitment(secret)
    print(commitment, flush=True)
    print(f"wrote the secret to {path} (mode 0600; keep it private until the tournament is over).\n"
          f"Publish the line above now, and in the tournament file, instead of `seed`:\n"
          f'  seed_file = "{path}"\n  seed_commitment = "{commitment}"', file=sys.stderr)
    return 0


def cmd_seed_verify(args: argparse.Namespace) -> int:
    from tournaments import seeds

    try:
        secret = seeds.read_secret(Path(args.seed_file)) if args.seed_file else seeds.check_secret(args.seed)
        ok = seeds.matches(secret, args.commitment)
    except seeds.SeedError as error:
        print(f"spite seed verify: {error}", file=sys.stderr)
        return 2
    if not ok:
        print(f"MISMATCH: this seed opens {seeds.commitment(secret)}, not {seeds.check_commitment(args.commitment)}")
        return 1
    print(f"OK: the seed opens {seeds.check_commitment(args.commitment)}; master seed {seeds.master_seed(secret)}")
    return 0


def cmd_seed_reveal(args: argparse.Namespace) -> int:
    import tomllib

    from tournaments import seeds
    from tournaments.store import Store, StoreError

    try:
        with Store(args.db, readonly=True) as store:
            found = store.tournament(args.tournament)
    except StoreError as error:
        print(f"spite seed reveal: {error}", file=sys.stderr)
        return 2
    if found is None:
        print(f"spite seed reveal: no tournament {args.tournament or ''} in {args.db}".replace("  ", " "),
              file=sys.stderr)
        return 2
    commitment = found.config.get("seed_commitment")
    if not commitment:
        print(f"spite seed reveal: tournament {found.name!r} (#{found.id}) has no committed seed "
              f"(its master seed {found.master_seed} was never secret)", file=sys.stderr)
        return 2
    if found.status != "finished":
        print(f"spite seed reveal: tournament {found.name!r} (#{found.id}) is {found.status}, not finished: "
              "the seed stays secret until every match is played", file=sys.stderr)
        return 2
    seed_file = Path(args.seed_file) if args.seed_file else None
    if seed_file is None:
        try:
            named = tomllib.loads(Path(found.file).read_text()).get("seed_file")
        except (OSError, tomllib.TOMLDecodeError) as error:
            print(f"spite seed reveal: cannot read the tournament file {found.file} ({error}); "
                  "give --seed-file", file=sys.stderr)
            return 2
        if not isinstance(named, str):
            print(f"spite seed reveal: {found.file} names no seed_file; give --seed-file", file=sys.stderr)
            return 2
        seed_file = Path(named) if Path(named).is_absolute() else Path(found.file).parent / named
    try:
        secret = seeds.verify_file(seed_file, commitment)
    except seeds.SeedError as error:
        print(f"spite seed reveal: {error}", file=sys.stderr)
        return 1
    if seeds.master_seed(secret) != found.master_seed:
        print(f"spite seed reveal: {seed_file} opens the commitment but does not give the stored master seed "
              f"{found.master_seed}", file=sys.stderr)
        return 1
    print(f"tournament {found.name!r} (#{found.id}), finished\ncommitment  {commitment}\nseed        {secret}\n"
          f"master seed {found.master_seed}\ncheck: spite seed verify --commitment {commitment} --seed {secret}")
    return 0


# -- spite tournament / spite leaderboard -----------------------------------------------


def cmd_tournament(args: argparse.Namespace) -> int:
    from spite_cli import leaderboard
    from tournaments.config import TournamentFileError, load_tournament
    from tournaments.backends import TournamentError
    from tournaments.runner import RunOptions, run_tournament
    from tournaments.store import StoreError

    from .tournament_view import make_view

    if args.parallel is not None and args.parallel < 1:
        print("spite tournament: --parallel must be at least 1", file=sys.stderr)
        return 2
    resume: bool | int = args.resume_id if args.resume_id is not None else args.resume
    options = RunOptions(db=Path(args.db), parallel=args.parallel, resume=resume, scheduler=args.scheduler)
    try:
        config = load_tournament(args.file)
        outcome = run_tournament(config, options, view=make_view(config, True if args.plain else None))
    except (TournamentFileError, ManifestError, TournamentError, StoreError) as error:
        print(f"spite tournament: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nstopped; finished matches are saved. Resume with: spite tournament {args.file} --resume"
              + (f" --db {args.db}" if args.db != "spite.db" else ""), file=sys.stderr)
        return 130
    console = _wide_console()
    show_points = config.rules.scoring != "win" or bool(config.rules.match_points)
    console.print(leaderboard.rich_table(outcome.board, f"{config.name} · {config.rules.name}", show_points))
    for line in leaderboard.failing_lines(outcome.failing):
        console.print(line)
    rate = outcome.done / outcome.elapsed_s if outcome.elapsed_s else 0.0
    console.print(f"{config.name} (#{outcome.tournament_id}): {outcome.done} matches in {outcome.rounds} round(s), "
                  f"{outcome.elapsed_s:.1f} s ({rate:.2f} matches/s)"
                  + (f", {outcome.void} void" if outcome.void else "")
                  + f". Results in {args.db}: spite leaderboard"
                  + (f" --db {args.db}" if args.db != "spite.db" else ""))
    return 1 if outcome.void else 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from tournaments.queries import Queries, QueryError

    from . import leaderboard

    overrides = {k: getattr(args, k) for k in ("mu", "sigma", "beta", "tau", "draw_probability")
                 if getattr(args, k) is not None}
    try:
        with Queries.open(args.db) as queries:
            board = queries.leaderboard(args.tournament, overrides=overrides, recompute=args.recompute)
    except QueryError as error:
        print(f"spite leaderboard: {error}", file=sys.stderr)
        return 2
    output = leaderboard.render(args.format, board.board(), board.head_to_head, board.meta, board.show_points)
    if isinstance(output, str):
        try:
            print(output, flush=True)
        except BrokenPipeError:  # `spite leaderboard --format csv | head`
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    else:
        _wide_console().print(output)
    return 0


def _wide_console() -> Console:
    """A console for tables: the terminal's width, or wide enough not to wrap in a pipe or a CI log."""
    console = Console()
    return console if console.is_terminal else Console(width=200)


# -- main -------------------------------------------------------------------------------


def cmd_doctor(args: argparse.Namespace) -> int:
    from . import doctor

    return doctor.main(as_json=args.json)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="spite", description="Spite Arena: bots play Spite and Malice.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log the referee's work to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a match between bots, with a live table")
    play.add_argument("bots", nargs="+", metavar="BOT",
                      help="a sample bot name (greedy, random, naive), a bot.toml, a .py file, or a command line")
    _add_match_options(play)
    play.add_argument("--replay-dir", default="replays",
                      help="write one replay file per game here (default: ./replays; '' for none)")
    play.add_argument("--log-dir", help="write each bot's stdout/stderr here (capped)")
    play.add_argument("--plain", action="store_true", help="no live table (also when stdout is not a terminal)")
    play.add_argument("--json", action="store_true", help="print the match summary as JSON")
    play.set_defaults(func=cmd_play)

    rep = sub.add_parser("replay", help="show or verify a replay file")
    rep.add_argument("file")
    rep.add_argument("--as-seat", type=int, help="show only what this seat knew at each step")
    rep.add_argument("--verify", action="store_true", help="re-simulate through the engine; exit 1 on any mismatch")
    rep.add_argument("--html", metavar="OUT.html",
                     help="write the replay viewer as one self-contained file (with --as-seat: only that seat's view)")
    rep.set_defaults(func=cmd_replay)

    ref = sub.add_parser("referee", help="run a standalone referee server")
    ref.add_argument("--listen", default="127.0.0.1:50051", help="host:port or unix:/path (default 127.0.0.1:50051)")
    ref.add_argument("--admin-token-file", help="read the admin token from FILE, or write a new one there")
    ref.add_argument("--grace", type=float, default=5.0, help="seconds to let streams close on shutdown")
    ref.add_argument("--tls-cert", metavar="FILE", help="serve TLS with this certificate chain (PEM)")
    ref.add_argument("--tls-key", metavar="FILE", help="the certificate's private key (PEM)")
    ref.add_argument("--tls-client-ca", metavar="FILE",
                     help="mutual TLS: admit only clients whose certificate this CA (PEM) signed")
    ref.add_argument("--insecure", action="store_true",
                     help="allow plaintext on a non-loopback address (refused without it)")
    ref.set_defaults(func=cmd_referee)

    tour = sub.add_parser("tournament", help="run (or resume) a tournament file; results go to the store")
    tour.add_argument("file", help="a tournament file, e.g. tournaments/demo.toml")
    tour.add_argument("--parallel", type=int, help="matches at once (default: the file's, else the usable cores)")
    tour.add_argument("--resume", action="store_true",
                      help="go on with the latest tournament of this name in the store: play exactly the missing "
                           "matches, with the same seeds")
    tour.add_argument("--resume-id", type=int, metavar="ID", help="like --resume, with tournament ID of the store")
    tour.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    tour.add_argument("--plain", action="store_true",
                      help="one line per match, no live view (also when stdout is not a terminal)")
    tour.add_argument("--scheduler", metavar="tcp://HOST:8786",
                      help="run matches on a Dask cluster (pip install 'spite-arena[dask]'; docs/scaling.md)")
    tour.set_defaults(func=cmd_tournament)

    board = sub.add_parser("leaderboard", help="show a tournament's leaderboard from the store")
    board.add_argument("--format", choices=["table", "json", "csv", "markdown"], default="table")
    board.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    board.add_argument("--tournament", help="a tournament's name or id (default: the latest)")
    board.add_argument("--recompute", action="store_true",
                       help="rate again from the stored results (any of the options below implies it)")
    for option in ("mu", "sigma", "beta", "tau", "draw-probability"):
        board.add_argument(f"--{option}", type=float, help=f"TrueSkill {option.replace('-', '_')} for --recompute")
    board.set_defaults(func=cmd_leaderboard)

    doc = sub.add_parser("doctor", help="say how this machine sandboxes bots (bubblewrap or insecure) and why")
    doc.add_argument("--json", action="store_true", help="print the report as JSON")
    doc.set_defaults(func=cmd_doctor)

    seed = sub.add_parser("seed", help="commit to a secret master seed before a hosted tournament, reveal it after")
    seed_sub = seed.add_subparsers(dest="seed_command", required=True)
    commit = seed_sub.add_parser("commit", help="write a new secret seed file and print the commitment to publish")
    commit.add_argument("--out", default="seed.secret", help="the new seed file, mode 0600 (default seed.secret)")
    commit.set_defaults(func=cmd_seed_commit)
    verify = seed_sub.add_parser("verify", help="check that a revealed seed opens a published commitment")
    verify.add_argument("--commitment", required=True, help="the published sha256:...")
    given = verify.add_mutually_exclusive_group(required=True)
    given.add_argument("--seed", help="the revealed seed (hex)")
    given.add_argument("--seed-file", help="a file holding it")
    verify.set_defaults(func=cmd_seed_verify)
    reveal = seed_sub.add_parser("reveal", help="print a finished tournament's committed seed")
    reveal.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    reveal.add_argument("--tournament", help="a tournament's name or id (default: the latest)")
    reveal.add_argument("--seed-file", help="the seed file (default: the tournament file's seed_file)")
    reveal.set_defaults(func=cmd_seed_reveal)

    from tournaments import checkbot
    checkbot.register(sub)
    from spite_web import cli as web_cli
    web_cli.add_parser(sub)
    from . import arena, serve; serve.register(sub); arena.register(sub)  # noqa: E702 (issue 16: serve, submit, arena)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
