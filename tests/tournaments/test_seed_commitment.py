"""Committed master seeds: commit, run against the commitment, reveal, verify.

Real parts: the ``spite`` command line in this process, a real SQLite store and a real
tournament of the in-repo ``random`` and ``naive`` bots (one round, two matches).
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from spite_cli.main import main
from tournaments import seeds
from tournaments.backends import TournamentError
from tournaments.config import TournamentFileError, load_tournament
from tournaments.runner import build_bots, open_tournament
from tournaments.schedule import bot_seed, deal_seed
from tournaments.store import Store

from .conftest import Run, run, write_tournament

TINY = {"bots": ["random", "naive"], "rounds": 1, "parallel": 2}


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def commit(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    code, out, err = cli(capsys, "seed", "commit", "--out", str(path))
    assert code == 0, err
    assert f'seed_file = "{path}"' in err
    return out.strip()


def without_seed(path: Path) -> Path:
    """conftest's write_tournament always writes ``seed = 11``: drop it."""
    path.write_text(path.read_text().replace("seed = 11\n", ""))
    return path


def committed_tournament(directory: Path, secret_file: Path, commitment: str) -> Path:
    return without_seed(write_tournament(directory, "hosted", seed_file=secret_file.name, seed_commitment=commitment,
                                         **TINY))


def test_commit_writes_a_private_256_bit_secret_and_verify_opens_it(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    path = tmp_path / "seed.secret"
    commitment = commit(capsys, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    secret = path.read_text().strip()
    assert len(bytes.fromhex(secret)) == 32
    assert commitment == seeds.commitment(secret) == "sha256:" + __import__("hashlib").sha256(
        b"spite-arena seed v1:" + secret.encode()).hexdigest()

    code, out, _ = cli(capsys, "seed", "verify", "--commitment", commitment, "--seed", secret)
    assert code == 0 and out.startswith("OK") and str(seeds.master_seed(secret)) in out
    code, out, _ = cli(capsys, "seed", "verify", "--commitment", commitment, "--seed-file", str(path))
    assert code == 0
    other = seeds.new_secret()
    code, out, _ = cli(capsys, "seed", "verify", "--commitment", commitment, "--seed", other)
    assert code == 1 and out.startswith("MISMATCH")
    code, _, err = cli(capsys, "seed", "verify", "--commitment", commitment, "--seed", "1234")
    assert code == 2 and "at least 32 hex digits" in err

    code, _, err = cli(capsys, "seed", "commit", "--out", str(path))  # never replaces a committed secret
    assert code == 2 and "exists" in err
    assert path.read_text().strip() == secret


def test_secrets_are_fresh_and_the_master_seed_fits_the_engine() -> None:
    drawn = {seeds.new_secret() for _ in range(100)}
    assert len(drawn) == 100
    for secret in drawn:
        assert 0 <= seeds.master_seed(secret) < 2**64
    secret = next(iter(drawn))
    assert seeds.master_seed(secret) == seeds.master_seed(secret.upper() + "\n")  # one secret, one seed


def test_the_tournament_file_takes_a_seed_file_and_commitment_instead_of_seed(tmp_path: Path) -> None:
    secret_file = tmp_path / "seed.secret"
    seeds.write_secret(secret_file, secret := seeds.new_secret())
    commitment = seeds.commitment(secret)
    config = load_tournament(committed_tournament(tmp_path, secret_file, commitment))
    assert config.seed == seeds.master_seed(secret) and config.seed_file == secret_file
    assert config.identity()["seed_commitment"] == commitment
    for fields, words in [({"seed": 3, "seed_file": "seed.secret", "seed_commitment": commitment}, "not both"),
                          ({"seed_file": "seed.secret"}, "go together"),
                          ({"seed_commitment": commitment}, "go together"),
                          ({"seed_file": "seed.secret", "seed_commitment": "sha256:abc"}, "64 hex digits"),
                          ({"seed_file": "missing.secret", "seed_commitment": commitment},
                           "cannot read the seed file")]:
        path = write_tournament(tmp_path, "bad", bots=["random", "naive"], **fields)
        if "seed" not in fields:
            without_seed(path)
        with pytest.raises(TournamentFileError, match=words):
            load_tournament(path)
    assert load_tournament(write_tournament(tmp_path, "plain", seed=2**64 - 1, **TINY)).seed_commitment is None


def hosted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, str]:
    secret_file = tmp_path / "seed.secret"
    commitment = commit(capsys, secret_file)
    return committed_tournament(tmp_path, secret_file, commitment), secret_file, commitment


def test_a_tampered_seed_file_is_refused_before_any_match(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path, secret_file, commitment = hosted(tmp_path, capsys)
    secret_file.write_text(seeds.new_secret() + "\n")  # swapped after the commitment was published
    db = tmp_path / "hosted.db"
    with pytest.raises(TournamentError, match="does not match the published commitment"):
        run(path, db)
    assert not db.exists()  # nothing stored, nothing played
    code, _, err = cli(capsys, "tournament", str(path), "--db", str(db), "--plain")
    assert code == 2 and "does not match the published commitment" in err and commitment in err
    assert not db.exists()


@pytest.fixture
def hosted_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[Run, Path, str]:
    path, secret_file, commitment = hosted(tmp_path, capsys)
    return run(path, tmp_path / "hosted.db"), secret_file, commitment


def test_a_committed_tournament_deals_from_its_seed_and_reveals_it_after(
        hosted_run: tuple[Run, Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    result, secret_file, commitment = hosted_run
    secret = secret_file.read_text().strip()
    master = seeds.master_seed(secret)
    assert result.outcome.done == 2 and "matches the published commitment" in result.output
    with Store(result.db, readonly=True) as store:
        tournament = store.tournament("hosted")
        assert tournament is not None and tournament.master_seed == master
        assert tournament.config["seed_commitment"] == commitment
        matches = store.matches(tournament.id)
        assert len(matches) == 2
        for match in matches:  # the same seed gives the same deals: each derives from it
            assert match.seed == deal_seed(master, match.round, match.unit)
            assert match.bot_seed == bot_seed(master, match.round, match.unit)

    code, out, _ = cli(capsys, "leaderboard", "--db", str(result.db), "--format", "json")
    assert code == 0
    shown = json.loads(out)
    assert shown["tournament"]["seed_commitment"] == commitment  # finished: seed shown too
    assert shown["tournament"]["master_seed"] == master

    code, out, err = cli(capsys, "seed", "reveal", "--db", str(result.db))
    assert code == 0, err
    assert f"seed        {secret}" in out and commitment in out and str(master) in out
    code, out, _ = cli(capsys, "seed", "verify", "--commitment", commitment, "--seed", secret)
    assert code == 0


def test_reveal_is_refused_before_the_tournament_finished(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path, _, commitment = hosted(tmp_path, capsys)
    config = load_tournament(path)
    db = tmp_path / "running.db"
    with Store(db) as store:
        open_tournament(store, config, build_bots(config), False)  # journaled, status 'running'
    code, _, err = cli(capsys, "seed", "reveal", "--db", str(db))
    assert code == 2 and "is running, not finished" in err
    code, out, _ = cli(capsys, "leaderboard", "--db", str(db), "--format", "json")
    shown = json.loads(out)
    assert shown["tournament"]["seed_commitment"] == commitment
    assert shown["tournament"]["master_seed"] is None  # not while it runs


def test_reveal_refuses_a_tournament_without_a_commitment(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = load_tournament(write_tournament(tmp_path, "plain", **TINY))  # seed = 11: never secret
    db = tmp_path / "plain.db"
    with Store(db) as store:
        open_tournament(store, config, build_bots(config), False)  # journaled: no need to play it
    code, _, err = cli(capsys, "seed", "reveal", "--db", str(db))
    assert code == 2 and "has no committed seed" in err and "was never secret" in err
