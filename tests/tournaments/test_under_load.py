"""A busy machine is the platform's fault, never a bot's (docs/rules.md, "Which timeouts
count"): a real league of the sample bots beside eight busy processes on this machine's
cores charges no honest bot a fault, while a bot that sleeps past its limit is still
charged. Real runner, real workers, real bot processes, real SQLite file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tournaments.store import Store

from ..load import hogs
from .conftest import REPO, run, write_tournament

# A league at a fraction of a core per bot, beside its own eight hogs: not beside the suite's
# other worker too, whose builds (the six languages' uploads) keep the disk busy, and the
# referee measures a bot's time kept off the CPU, not its time waiting for the disk (twice in
# the fresh-clone runs of 2026-12-02 an honest bot was charged so). CI runs
# it in `make test-load-subset`, beside its own hogs only.
pytestmark = [pytest.mark.slow, pytest.mark.alone]

HONEST = ("greedy", "naive", "random")
BUSY = REPO / "tests" / "bots" / "busy_bot.py"


def sleeper(directory: Path, ms: int) -> Path:
    """A bot that plays well but sleeps ``ms`` at every decision: past its limit, using no CPU."""
    folder = directory / "sleeper"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(BUSY, folder / BUSY.name)  # a manifest names only files in its own folder
    (folder / "bot.toml").write_text(f'name = "sleeper"\nversion = "1"\n'
                                     f'command = ["{{python}}", "{BUSY.name}", "sleep", "{ms}"]\n')
    return folder / "bot.toml"


def test_a_league_beside_eight_busy_processes_charges_no_honest_bot(tmp_path: Path) -> None:
    path = write_tournament(tmp_path, "loaded", bots=[*HONEST, str(sleeper(tmp_path, 1500))], rounds=1, parallel=2,
                            rules="short-13", policy="forfeit", seed=7,
                            time_control={"decision_ms": 200, "bank_ms": 300, "connect_ms": 1500})
    with hogs(8, 600):
        result = run(path, tmp_path / "loaded.db")
    with Store(tmp_path / "loaded.db", readonly=True) as store:
        tid = result.outcome.tournament_id
        matches = store.matches(tid)
        finished = store.finished(tid)
        incidents = store.incidents(tid)
    charged: dict[str, list[str]] = {}
    for m in finished:
        for seat in m.seats:
            if seat.faults:
                charged.setdefault(m.bots[seat.seat], []).extend(f.reason for f in seat.faults)
        for game in m.games:
            if game.offender is not None:
                charged.setdefault(m.bots[game.offender], []).append(game.ending)
    # no honest bot is charged anything, however little CPU the machine gave it
    assert not {bot: why for bot, why in charged.items() if bot in HONEST}, (charged, incidents)
    # every match between honest bots was played (not void, not benched)
    for m in matches:
        if set(m.bots) <= set(HONEST):
            assert m.status == "done", (m.bots, m.status, m.error, incidents)
    # the bot that sleeps past its limit was given its time, and is charged in every game it played
    against = [m for m in finished if "sleeper" in m.bots]
    assert against, (matches, incidents)
    assert all(any(g.ending == "timeout" and m.bots[g.offender] == "sleeper" for g in m.games)
               for m in against), [(m.bots, m.games) for m in against]
