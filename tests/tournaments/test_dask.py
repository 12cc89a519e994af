"""Matches on a real Dask cluster (in this process, two worker threads): each task runs the
same worker code, the results flow back to the one store, and they equal a local run's."""

from __future__ import annotations

from pathlib import Path

import pytest
from distributed import LocalCluster

from .conftest import LEAGUE, Run, run, write_tournament
from .test_crash import comparable

pytestmark = pytest.mark.slow  # a Dask cluster and a whole tournament


def test_a_tournament_on_a_dask_cluster_equals_a_local_run(tmp_path: Path, league: Run) -> None:
    path = write_tournament(tmp_path, "league", **LEAGUE)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        result = run(path, tmp_path / "dask.db", scheduler=cluster.scheduler_address)
    assert result.outcome.done == 6 and result.outcome.void == 0
    assert result.output.count("round 0 deal") == 6
    assert comparable(tmp_path / "dask.db") == comparable(league.db)
