"""``spite arena ...``: the organizer's commands over a competition's store (``--data``).

Each writes one row in a short transaction, so they work while ``spite serve`` runs (it
reads the flags on its next loop).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .common import SQLITE_MAGIC, UsageError, output_dir, ranged_int, store_tables


def check_arena_data(data: Path, *, create: bool) -> None:
    """Refuse, with :class:`UsageError` and before SQLite writes a byte, a ``--data`` that is a
    file, holds a damaged ``arena.db`` or another kind of store (a tournament's), or (unless
    ``create``: ``add-entrant``, ``serve``) holds no store at all -- instead of making an empty
    one that would answer "no entrants" or "paused" about a competition that does not exist."""
    from spite_arena.store import STORE_FILE

    if data.exists() and not data.is_dir():
        raise UsageError(f"--data {data} is a file; the competition's data directory is expected")
    store = data / STORE_FILE
    if store.is_dir():
        raise UsageError(f"{store} is a directory; remove it, or pass another --data")
    if not store.exists():
        if create:
            output_dir("--data", data)
            return
        raise UsageError(f"no arena store in {data} (start the competition with `spite serve FILE --data {data}`, "
                         f"or add an entrant with `spite arena add-entrant NAME --data {data}`)")
    try:
        with open(store, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise UsageError(f"cannot read the arena store {store}: {error.strerror}") from None
    if head != SQLITE_MAGIC:
        raise UsageError(f"{store} is not an arena store (not an SQLite database); it was left untouched")
    tables = store_tables(store, "the arena store")
    if "versions" not in tables or "entrants" not in tables:
        what = "a tournament results store" if "tournaments" in tables else "another SQLite database"
        raise UsageError(f"{store} is {what}, not an arena store; it was left untouched. Pass another --data")


def _store(args: argparse.Namespace, *, create: bool = False) -> Any:
    from spite_arena.store import ArenaStore

    check_arena_data(Path(args.data), create=create)
    return ArenaStore(args.data)


def cmd_add_entrant(args: argparse.Namespace) -> int:
    from spite_arena.store import ArenaStoreError

    try:
        with _store(args, create=True) as store:
            key = store.add_entrant(args.name)
    except ArenaStoreError as error:
        print(f"spite arena add-entrant: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"entrant": args.name, "key": key}))
    else:
        print(f"entrant {args.name}: key {key}\n(shown once; only its hash is kept)")
    return 0


def cmd_rotate_key(args: argparse.Namespace) -> int:
    from spite_arena.store import ArenaStoreError

    try:
        with _store(args) as store:
            key = store.rotate_key(args.name)
    except ArenaStoreError as error:
        print(f"spite arena rotate-key: {error}", file=sys.stderr)
        return 2
    print(json.dumps({"entrant": args.name, "key": key}) if args.json else
          f"entrant {args.name}: new key {key}\n(shown once; the old key no longer works)")
    return 0


def cmd_flag(args: argparse.Namespace) -> int:
    with _store(args) as store:
        store.set_meta("paused", "1" if args.command == "pause" else "0")
    print(f"ladder {'paused' if args.command == 'pause' else 'resumed'}")
    return 0


def cmd_disable(args: argparse.Namespace) -> int:
    from spite_arena.store import ArenaStoreError, VersionStatus

    try:
        with _store(args) as store:
            store.set_version_status(args.version, VersionStatus.DISABLED, args.reason)
    except ArenaStoreError as error:
        print(f"spite arena disable: {error}", file=sys.stderr)
        return 2
    print(f"version {args.version} disabled: {args.reason}")
    return 0


def cmd_ban(args: argparse.Namespace) -> int:
    from spite_arena.store import ArenaStoreError

    try:
        with _store(args) as store:
            disabled = store.ban(args.name, args.reason)
    except ArenaStoreError as error:
        print(f"spite arena ban: {error}", file=sys.stderr)
        return 2
    print(f"entrant {args.name} banned: its key is refused and {disabled} version(s) are off the ladder "
          f"(their joined remote bots are told within a second)")
    return 0


def cmd_enable(args: argparse.Namespace) -> int:
    from spite_arena.store import ArenaStoreError

    try:
        with _store(args) as store:
            version = store.enable_version(args.version)
    except ArenaStoreError as error:
        print(f"spite arena enable: {error}", file=sys.stderr)
        return 2
    print(f"{version.title} (id {version.id}) is back on the ladder")
    return 0


def cmd_rerun_void(args: argparse.Namespace) -> int:
    with _store(args) as store:
        print(f"{store.rerun_void()} void game(s) will be played again")
    return 0


def cmd_incidents(args: argparse.Namespace) -> int:
    with _store(args) as store:
        incidents = store.incidents(args.limit)
    if args.json:
        print(json.dumps([i.to_dict() for i in incidents]))
    for i in [] if args.json else reversed(incidents):
        print(f"{i.at}  {i.kind:<8} game {i.game_id or '-'}  {i.detail}")
    return 0


def _workers(args: argparse.Namespace) -> list[dict[str, Any]] | str:
    """The running server's worker slots (from /api/admin with the data directory's admin
    token), or why they cannot be read."""
    import urllib.error
    import urllib.request

    try:
        token = (Path(args.data) / "admin.token").read_text().strip()
        request = urllib.request.Request(args.server.rstrip("/") + "/api/admin",
                                         headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return list(json.loads(answer.read())["workers"])
    except (OSError, ValueError, KeyError) as error:
        return f"cannot ask {args.server}: {error}"


def status_table(rows: list[dict[str, Any]]) -> list[str]:
    """The leaderboard as aligned text columns (numbers never cut)."""
    header = ("rank", "rating", "mu", "sigma", "games", "kind", "version")
    cells = [(str(r["rank"]), f"{r['rating']:.2f}", f"{r['mu']:.2f}", f"{r['sigma']:.2f}", str(r["games"]),
              r["kind"], f"{r['entrant']}/{r['bot']} v{r['version']} (id {r['id']})") for r in rows]
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]
    def line(cols: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if i < 5 else c.ljust(w) for i, (c, w) in enumerate(zip(cols, widths))).rstrip()
    return [line(header), *(line(c) for c in cells)]


def cmd_status(args: argparse.Namespace) -> int:
    from spite_arena.store import VersionStatus
    from spite_arena.web import board_rows

    with _store(args) as store:
        rows = board_rows(store.versions(statuses=(VersionStatus.ACTIVE,)), store.records())
        counts, paused = store.counts(), store.paused
    workers = _workers(args) if args.server else None
    if args.json:
        print(json.dumps({"paused": paused, "games": counts, "leaderboard": rows,
                          **({"workers": workers} if workers is not None else {})}))
        return 0
    print(f"ladder {'paused' if paused else 'running'}; games: {counts['done']} done, {counts['running']} running, "
          f"{counts['pending']} pending, {counts['void']} void")
    if isinstance(workers, str):
        print(f"workers: {workers}")
    for w in workers or []:
        if isinstance(w, dict):
            print(f"  slot {w['slot']}: game {w['game'] or '-'}, played {w['played']}, failures {w['failures']}"
                  + (f", last error: {w['last_error']}" if w["last_error"] else ""))
    if rows:
        print("\n".join(status_table(rows)))
    else:
        print("no active versions on the board")
    return 0


def cmd_finals(args: argparse.Namespace) -> int:
    """Pause the ladder, freeze the top versions, publish the commitment, play the finals, reveal."""
    import subprocess

    from spite_arena.config import CompetitionError, load_competition
    from spite_arena.finals import FinalsError, commit_finals, prepare_finals
    from tournaments.seeds import SeedError

    if args.commit:
        try:
            load_competition(args.file)
            commitment, new = commit_finals(Path(args.data))
        except (CompetitionError, FinalsError, SeedError, OSError) as error:
            print(f"spite arena finals: {error}", file=sys.stderr)
            return 2
        if args.json:
            print(json.dumps({"commitment": commitment, "new": new}))
            return 0
        print(f"seed commitment of the next finals (publish it now): {commitment}")
        print(("made now" if new else "made before, still unused") + f"; the ladder goes on. The finals are dealt "
              f"from it: spite arena finals {args.file} --data {args.data} (or [finals] start)")
        return 0
    try:
        competition = load_competition(args.file)
        with _store(args) as store:
            store.set_meta("paused", "1")
            plan = prepare_finals(store, competition, Path(args.data))
    except (CompetitionError, FinalsError, SeedError, OSError) as error:
        print(f"spite arena finals: {error}", file=sys.stderr)
        return 2
    print(f"the ladder is paused (spite arena resume --data {args.data} restarts it)")
    print(f"finalists: {', '.join(v.title for v in plan.finalists)}")
    if plan.left_out:
        print(f"left out (remote bots cannot play duplicate deals): {', '.join(v.title for v in plan.left_out)}")
    if plan.precommitted:
        print(f"seed commitment (published ahead; the finals are dealt from it): {plan.commitment}", flush=True)
    else:
        print(f"seed commitment (publish it now): {plan.commitment}", flush=True)
    spite = [sys.executable, "-m", "spite_cli.main"]
    played = subprocess.run([*spite, "tournament", str(plan.file), "--db", str(plan.db), "--plain"])
    if played.returncode != 0:
        print(f"spite arena finals: the tournament stopped (exit {played.returncode}); "
              f"resume it with: spite tournament {plan.file} --db {plan.db} --resume", file=sys.stderr)
        return 1
    subprocess.run([*spite, "leaderboard", "--db", str(plan.db)])
    return subprocess.run([*spite, "seed", "reveal", "--db", str(plan.db)]).returncode


def register(sub: Any) -> None:
    arena = sub.add_parser("arena", help="organize a hosted competition (entrants, pause, disable, incidents)")
    commands = arena.add_subparsers(dest="command", required=True)

    def command(name: str, help: str, func: Any) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = commands.add_parser(name, help=help)
        parser.add_argument("--data", default="arena-data", help="the competition's data directory")
        parser.set_defaults(func=func, command_name=f"arena {name}")
        return parser

    add = command("add-entrant", "add an entrant and print its API key (once)", cmd_add_entrant)
    add.add_argument("name")
    add.add_argument("--json", action="store_true")
    rotate = command("rotate-key", "replace an entrant's lost or leaked key (prints the new one once)", cmd_rotate_key)
    rotate.add_argument("name")
    rotate.add_argument("--json", action="store_true")
    command("pause", "stop scheduling new ladder games", cmd_flag)
    command("resume", "schedule ladder games again", cmd_flag)
    disable = command("disable", "take a bot version off the ladder, with a reason its owner sees", cmd_disable)
    disable.add_argument("version", type=ranged_int(1, 2**63 - 1, "the version id"),
                         help="the version id (its page is /bots/ID)")
    disable.add_argument("--reason", required=True)
    ban = command("ban", "ban an entrant: every version off the ladder, its key refused", cmd_ban)
    ban.add_argument("name")
    ban.add_argument("--reason", required=True, help="shown to the entrant")
    enable = command("enable", "put a disabled (or benched) version back on the ladder", cmd_enable)
    enable.add_argument("version", type=int, help="the version id")
    command("rerun-void", "play void games again", cmd_rerun_void)
    incidents = command("incidents", "crashes, timeouts, platform faults, refused uploads", cmd_incidents)
    incidents.add_argument("--limit", type=ranged_int(1, 100_000, "--limit"), default=50)
    incidents.add_argument("--json", action="store_true")
    finals = command("finals", "pause the ladder and play the finals of its top versions (duplicate deals, "
                     "stop when separated, tau 0, committed seed)", cmd_finals)
    finals.add_argument("file", help="the competition file (its [finals] table)")
    finals.add_argument("--commit", action="store_true",
                        help="only commit to the finals' seed now and print the commitment to publish; "
                             "the finals, played later, are dealt from it")
    finals.add_argument("--json", action="store_true", help="with --commit: {\"commitment\": ..., \"new\": ...}")
    status = command("status", "the ladder's state and leaderboard (and with --server, its workers' health)",
                     cmd_status)
    status.add_argument("--json", action="store_true")
    status.add_argument("--server", help="the running server's web address, to show its worker slots")
