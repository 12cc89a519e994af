"""`spite tournament --scheduler` on a real Dask cluster (a ``dask scheduler`` and two ``dask
worker`` processes, tests/cluster.py) that cannot see the runner's folder: the bots reach the
workers as bundles, the replays and logs come back to the runner's folders, a worker SIGKILLed
mid-match loses nothing, and the results equal a local run's."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cluster import dask_cluster
from tournaments.store import Store

from .conftest import LEAGUE, REPO, Run, write_tournament
from .test_crash import comparable

pytestmark = pytest.mark.slow  # a cluster and a whole tournament


def test_a_tournament_on_workers_that_share_nothing_survives_a_killed_worker_and_equals_a_local_run(
        tmp_path: Path, league: Run) -> None:
    runner = tmp_path / "runner"
    bots = ["greedy", "random", "naive"]
    assert LEAGUE["bots"] == bots  # the reference run's league, the bots copied under the runner's folder
    for name in bots:
        shutil.copytree(REPO / "sample_bots" / name, runner / "bots" / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    fields = {**LEAGUE, "bots": [str(runner / "bots" / name / "bot.toml") for name in bots],
              "replay_dir": str(runner / "replays"), "log_dir": str(runner / "logs")}
    path = write_tournament(runner, "league", **fields)
    with dask_cluster(tmp_path / "cluster", hidden=runner) as cluster:
        process = subprocess.Popen([sys.executable, "-m", "spite_cli.main", "tournament", str(path), "--db",
                                    str(runner / "dask.db"), "--scheduler", cluster.address], cwd=runner,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            victim, _ = cluster.mid_game()
            cluster.kill(victim)
            output, _ = process.communicate(timeout=600)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 0, output
        survivor = next(n for n in cluster.workers if n != victim)
        assert 1 <= len(cluster.cache(survivor)) <= len(bots)
    assert comparable(runner / "dask.db") == comparable(league.db)
    with Store(runner / "dask.db", readonly=True) as store:
        found = store.tournament()
        assert found is not None
        finished = store.finished(found.id)
        assert len(finished) == 6
        replays = [Path(g.replay) for m in finished for g in m.games]
    assert replays and all(p.parent == runner / "replays" and p.is_file() for p in replays)
    logs = sorted((runner / "logs").rglob("*.log"))
    assert len(logs) >= 2 * len(finished)
