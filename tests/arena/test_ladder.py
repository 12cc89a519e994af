"""The ladder loop in process over real local workers: a worker that dies mid-game is an
incident and the game is played again, counted once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from spite_arena.config import load_competition
from spite_arena.ladder import Ladder
from spite_arena.store import ArenaStore
from tournaments.backends import LocalBackend, WorkerDied
from tournaments.jobs import JobResult, MatchJob

pytestmark = pytest.mark.slow


class DiesOnce(LocalBackend):
    """Real local workers, but the first game's worker dies (as a killed process would)."""

    died = False

    async def run(self, slot: int, job: MatchJob) -> JobResult:
        if not self.died:
            self.died = True
            raise WorkerDied("the worker process exited (code -9) during the match")
        return await super().run(slot, job)


def test_a_worker_death_is_retried_and_counted_once(tmp_path: Path) -> None:
    file = tmp_path / "c.toml"
    file.write_text('house_bots = ["greedy", "naive"]\nparallel = 1\n')
    competition = load_competition(file)
    data = tmp_path / "data"
    with ArenaStore(data) as store:
        for name in ("greedy", "naive"):
            store.ensure_house_bot(name, "1", name, competition.rating)
        ladder = Ladder(competition, store, DiesOnce(1), data)

        async def play() -> None:
            task = asyncio.create_task(ladder.run())
            while store.counts()["done"] < 3:
                await asyncio.sleep(0.2)
            ladder.stopping.set()
            await task

        asyncio.run(asyncio.wait_for(play(), 120))
        first = store.game(1)
        assert first is not None and first.status == "done" and first.attempts == 2
        assert [i.kind for i in store.incidents()] == ["retried"]
        assert sum(v.games for v in store.versions()) == 2 * store.counts()["done"]
        assert ladder.health[0].failures == 1 and ladder.health[0].played >= 3
        second = store.game(2)
        assert second is not None and (second.seed, second.versions) == (first.seed, first.versions[::-1])
