"""``spite seed commit|verify|reveal``: commit to a secret master seed, and reveal it after."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import Any

from .common import check_store, output_file


def cmd_seed_commit(args: argparse.Namespace) -> int:
    from tournaments import seeds

    secret = seeds.new_secret()
    path = output_file("--out", Path(args.out))
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
    from tournaments.store import Store, StoreError, TournamentStatus

    check_store(Path(args.db), must_exist=True)
    try:
        with Store(args.db, readonly=True) as store:
            found = store.tournament(args.tournament)
    except (StoreError, sqlite3.DatabaseError) as error:
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
    if found.status is not TournamentStatus.FINISHED:
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


def register(sub: Any) -> None:
    seed = sub.add_parser("seed", help="commit to a secret master seed before a hosted tournament, reveal it after")
    seed_sub = seed.add_subparsers(dest="seed_command", required=True)
    commit = seed_sub.add_parser("commit", help="write a new secret seed file and print the commitment to publish")
    commit.add_argument("--out", default="seed.secret", help="the new seed file, mode 0600 (default seed.secret)")
    commit.set_defaults(func=cmd_seed_commit, command_name="seed commit")
    verify = seed_sub.add_parser("verify", help="check that a revealed seed opens a published commitment")
    verify.add_argument("--commitment", required=True, help="the published sha256:...")
    given = verify.add_mutually_exclusive_group(required=True)
    given.add_argument("--seed", help="the revealed seed (hex)")
    given.add_argument("--seed-file", help="a file holding it")
    verify.set_defaults(func=cmd_seed_verify, command_name="seed verify")
    reveal = seed_sub.add_parser("reveal", help="print a finished tournament's committed seed")
    reveal.add_argument("--db", default="spite.db", help="the results store (default spite.db)")
    reveal.add_argument("--tournament", help="a tournament's name or id (default: the latest)")
    reveal.add_argument("--seed-file", help="the seed file (default: the tournament file's seed_file)")
    reveal.set_defaults(func=cmd_seed_reveal, command_name="seed reveal")

