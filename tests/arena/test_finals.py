"""The finals: frozen copies of the top versions that run here, a separated-stop duplicate-deal
tournament with tau 0 and a committed seed; remote versions left out and named."""

from __future__ import annotations

from pathlib import Path

from spite_arena.config import load_competition
from spite_arena.finals import prepare_finals
from spite_arena.store import ArenaStore
from tournaments.config import load_tournament


def test_the_finals_freeze_the_top_versions_into_a_committed_tournament(tmp_path: Path) -> None:
    file = tmp_path / "c.toml"
    file.write_text('house_bots = ["greedy", "naive"]\n[finals]\ntop = 3\nrounds = 4\nconfidence = 0.9\n')
    competition = load_competition(file)
    data = tmp_path / "data"
    with ArenaStore(data) as store:
        for name in ("greedy", "naive", "random"):
            store.ensure_house_bot(name, "1.0.0", name, competition.rating)
        bob = store.add_entrant("bob")
        entrant = store.entrant_for_key(bob)
        assert entrant is not None
        remote = store.remote_version(entrant.id, "greedy", "9", competition.rating)
        store.db.execute("UPDATE versions SET mu = 40 WHERE id = ?", (remote,))
        store.db.execute("UPDATE versions SET mu = 10 WHERE bot = 'random'")
        plan = prepare_finals(store, competition, data)
    assert [v.title for v in plan.left_out] == ["bob/greedy v1"]
    # top = 3 eligible versions (24.12): the remote one at #1 does not take a finalist's place
    assert sorted(v.bot for v in plan.finalists) == ["greedy", "naive", "random"]
    tournament = load_tournament(plan.file)
    assert tournament.rating.tau == 0
    assert tournament.stop.rule == "separated" and tournament.stop.max_rounds == 4
    assert tournament.stop.confidence == 0.9
    assert tournament.seed_commitment == plan.commitment
    assert sorted(tournament.bots) == ["house-greedy-v1", "house-naive-v1", "house-random-v1"]


def test_spite_serve_starts_the_finals_at_their_start_time(tmp_path: Path) -> None:
    import sqlite3

    from .conftest import running_arena

    competition = ('name = "timed"\nhouse_bots = ["greedy", "naive"]\nparallel = 1\n'
                   '[finals]\ntop = 2\nrounds = 1\nstart = 2020-01-01T00:00:00Z\n')
    with running_arena(tmp_path, competition) as arena:
        def finished() -> bool:
            db = arena.data / "finals.db"
            if not db.exists():
                return False
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                try:
                    return bool(conn.execute("SELECT 1 FROM tournaments WHERE status = 'finished'").fetchone())
                except sqlite3.OperationalError:
                    return False
        arena.wait_for("the finals to finish", finished, timeout=240)
        log = arena.data / "finals.log"
        arena.wait_for("the seed's reveal", lambda: "master seed" in log.read_text(), timeout=60)
        # committed at serve's start (24.13), before the finals: they are dealt from it
        assert "seed commitment (published ahead; the finals are dealt from it): sha256:" in log.read_text()
        assert arena.get("/api/admin", (arena.data / "admin.token").read_text().strip())[1]["paused"] is True
