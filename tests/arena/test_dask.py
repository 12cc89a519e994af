"""`spite serve --scheduler`: ladder games played as tasks on a real Dask cluster."""

from __future__ import annotations

from pathlib import Path

import pytest
from distributed import LocalCluster

from .conftest import running_arena

pytestmark = pytest.mark.slow

HOUSE = 'name = "dask-ladder"\nhouse_bots = ["greedy", "naive"]\nparallel = 2\n'


def test_the_ladder_plays_on_a_dask_cluster(tmp_path: Path) -> None:
    # tcp://: the cluster lives in this test's process, spite serve in its own.
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                      dashboard_address=None) as cluster:
        with running_arena(tmp_path, HOUSE, scheduler=cluster.scheduler_address) as arena:
            arena.wait_for("games on the cluster", lambda: arena.get("/api/games")[1]["counts"]["done"] >= 4)
            board = arena.get("/api/leaderboard")[1]
            assert sorted(r["bot"] for r in board) == ["greedy", "naive"] and all(r["games"] > 0 for r in board)
