"""`spite serve --scheduler`: ladder games on a real Dask cluster (a ``dask scheduler`` and two
``dask worker`` processes, tests/cluster.py) whose workers cannot see the server's folder:
house bots and an upload reach them as bundles, replays and logs come back to the server's
store, and a worker SIGKILLed mid-game loses no game and counts none twice."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import dask_cluster

from .conftest import REPO, SPITE, free_port, running_arena


def _competition(bots: Path) -> str:
    house = ", ".join(f'"{bots / name / "bot.toml"}"' for name in ("greedy", "naive"))
    return (f'name = "dask-ladder"\nrules = "standard"\nhouse_bots = [{house}]\nparallel = 2\nplacement_games = 4\n'
            f"[time_control]\ndecision_ms = 2000\nbank_ms = 10000\nconnect_ms = 20000\n"
            f"[limits]\nrequests_per_minute = 10000\n")


def _rows(data: Path, sql: str, *args: Any) -> list[sqlite3.Row]:
    with sqlite3.connect(f"file:{data / 'arena.db'}?mode=ro", uri=True, timeout=30) as db:
        db.row_factory = sqlite3.Row
        return list(db.execute(sql, args))


@pytest.mark.slow  # a cluster, an upload's checks and a dozen games: about a minute idle
def test_the_ladder_plays_uploads_on_workers_that_share_nothing_and_a_killed_worker_loses_no_game(
        tmp_path: Path) -> None:
    server = tmp_path / "server"
    for name in ("greedy", "naive"):  # house bots under the server's folder: no worker can read them there
        shutil.copytree(REPO / "sample_bots" / name, server / "bots" / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    upload = tmp_path / "alice" / "random"
    shutil.copytree(REPO / "sample_bots" / "random", upload, ignore=shutil.ignore_patterns("__pycache__"))
    with dask_cluster(tmp_path / "cluster", hidden=server) as cluster, \
            running_arena(server, _competition(server / "bots"), scheduler=cluster.address) as arena:
        data = arena.data
        assert cluster.client.run(os.listdir, str(server)) == {i["address"]: [] for i in cluster.info().values()}
        key = arena.add_entrant("alice")
        submitted = arena.spite("submit", str(upload), "--server", arena.url, env={"SPITE_BOT_KEY": key})
        assert submitted.returncode == 0, submitted.stdout + submitted.stderr

        def counts() -> dict[str, int]:
            return dict(arena.get("/api/games")[1]["counts"])

        arena.wait_for("two games of the upload", lambda: _rows(
            data, "SELECT 1 FROM games, versions v WHERE games.status = 'done' AND v.kind = 'upload' AND "
                  "EXISTS (SELECT 1 FROM json_each(games.versions) WHERE value = v.id)")[1:])

        victim, task = cluster.mid_game()
        cut_game = int(re.fullmatch(r"spite-match-(\d+)-\d+", task).group(1))  # type: ignore[union-attr]
        cluster.kill(victim)
        done_at_kill = counts()["done"]
        arena.wait_for("four more games after the kill", lambda: counts()["done"] >= done_at_kill + 4, timeout=300)

        assert counts()["void"] == 0  # the killed worker's game was played again elsewhere, not voided
        games = _rows(data, "SELECT * FROM games WHERE status = 'done'")
        cut = [g for g in games if g["id"] == cut_game]
        assert cut and cut[0]["attempts"] == 1, "the game on the killed worker was finished once, by Dask's retry"
        assert len(_rows(data, "SELECT 1 FROM ratings WHERE game_id = ?", cut_game)) == 2
        assert len(_rows(data, "SELECT 1 FROM ratings")) == 2 * len(games)  # each game counted once
        assert sum(r["games"] for r in _rows(data, "SELECT games FROM versions")) == 2 * len(games)
        for game in games:  # every replay and log is in the server's store, where a local game puts it
            assert Path(game["replay"]).parent == data / "replays" and Path(game["replay"]).is_file()
            logs = json.loads(game["logs"])
            assert len(logs) == 2 and all(Path(p).parent == data / "logs" / str(game["id"]) and Path(p).is_file()
                                          for p in logs)
        mine = next(g for g in games if g["id"] in {x["id"] for x in _rows(
            data, "SELECT games.id FROM games, versions v WHERE v.kind = 'upload' AND EXISTS "
                  "(SELECT 1 FROM json_each(games.versions) WHERE value = v.id)")})
        seat = [_rows(data, "SELECT kind FROM versions WHERE id = ?", v)[0]["kind"]
                for v in json.loads(mine["versions"])].index("upload")
        status, text = arena.get(f"/api/me/logs/{mine['id']}/{seat}", key)
        assert status == 200 and isinstance(text, str)  # the owner reads its bot's log from the server
        status, replay = arena.get(f"/api/me/replays/{mine['id']}/{seat}", key)
        assert status == 200 and isinstance(replay, dict)

        survivor = next(n for n in cluster.workers if n != victim)
        versions = _rows(data, "SELECT id FROM versions")
        assert 1 <= len(cluster.cache(survivor)) <= len(versions)  # one bundle per bot version, fetched once
        assert cluster.client.run(os.listdir, str(server)) == {cluster.info()[survivor]["address"]: []}
        assert not _rows(data, "SELECT * FROM incidents WHERE kind IN ('bundle', 'platform')")

        # A poisoned cache (a bot file changed after it was installed): the worker refuses the
        # game with an incident, removes its copy, and the game is played from a clean one.
        digest = cluster.cache(survivor)[0]
        files = cluster.workers[survivor] / "home" / ".cache" / "spite-arena" / "bundles" / digest / "files"
        files.chmod(0o755)
        (files / "bot.py").chmod(0o644)
        with open(files / "bot.py", "a") as poison:
            poison.write("\nraise SystemExit('poisoned')\n")
        done_at_poison = counts()["done"]
        incident = arena.wait_for("a bundle incident", lambda: _rows(
            data, "SELECT * FROM incidents WHERE kind = 'bundle'"))[0]
        assert "refused the game" in incident["detail"] and "bot.py differs from the bundle" in incident["detail"]
        arena.wait_for("games after the refusal", lambda: counts()["done"] >= done_at_poison + 2, timeout=300)
        refused = _rows(data, "SELECT * FROM games WHERE id = ?", incident["game_id"])[0]
        assert refused["status"] in ("pending", "running", "done") and counts()["void"] == 0
        assert not _rows(data, "SELECT * FROM games WHERE status = 'done' AND faults LIKE '%poisoned%'")


def test_a_house_bot_that_cannot_be_shipped_is_refused_at_start(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "greedy"
    shutil.copytree(REPO / "sample_bots" / "greedy", bot, ignore=shutil.ignore_patterns("__pycache__"))
    (bot / "secret").symlink_to(tmp_path / "data" / "admin.token")
    file = tmp_path / "competition.toml"
    file.write_text(f'name = "x"\nhouse_bots = ["{bot / "bot.toml"}"]\n')
    done = subprocess.run([*SPITE, "serve", str(file), "--data", str(tmp_path / "data"), "--scheduler",
                           f"tcp://127.0.0.1:{free_port()}", "--web", f"127.0.0.1:{free_port()}", "--grpc",
                           f"127.0.0.1:{free_port()}"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot go to Dask workers" in lines[0] and "secret is a symlink" in lines[0]
