"""Play one match on this machine: a referee in process, each bot a subprocess.

Used by ``spite play`` and by the tournament runner. The referee listens on a Unix
socket in a private temporary directory (fast, and not reachable from the network).
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable, Sequence

from tournaments.manifest import BotManifest

from .launcher import BotProcess, ExitInfo
from .match import Match, MatchConfig, Seat
from .server import RunningReferee, start_referee, unix_address
from .stdio import serve_stdio_seat


@dataclass
class LocalMatch:
    match: Match
    exits: list[ExitInfo]
    logs: list[Path | None]


async def play_local_match(bots: Sequence[BotManifest], config: MatchConfig, *, log_dir: Path | None = None,
                           bot_seed: int = 0, referee: RunningReferee | None = None,
                           on_start: Callable[[Match], Awaitable[None] | None] | None = None) -> LocalMatch:
    """Run ``config`` with ``bots`` (one per seat, in seat order) and wait for the end.

    Every bot process group is killed when the match ends, whatever happened.
    """
    with tempfile.TemporaryDirectory(prefix="spite-") as scratch:
        own_referee = referee is None
        if referee is None:
            referee = await start_referee(unix_address(Path(scratch)))
        processes: list[BotProcess] = []
        watchers: list[asyncio.Task[None]] = []
        try:
            match = referee.arena.create(config)
            if on_start is not None:
                result = on_start(match)
                if asyncio.iscoroutine(result):
                    await result
            for seat in match.seats:
                match.expect_process(seat)
            for seat, bot in zip(match.seats, bots):
                log_path = log_dir / f"{match.match_id}-seat{seat.index}-{bot.name}.log" if log_dir else None
                if log_dir:
                    log_dir.mkdir(parents=True, exist_ok=True)
                stdio = bot.transport == "stdio"
                settings = {"SPITE_TOKEN": seat.token, "SPITE_BOT_SEED": str(bot_seed), "HOME": scratch}
                if not stdio:
                    settings["SPITE_ADDRESS"] = referee.address
                env = BotProcess.clean_env({**bot.env, **settings})
                process = BotProcess(bot.name, bot.command, bot.workdir, env, log_path, stdio=stdio)
                processes.append(process)
                await process.start()
                loop = asyncio.get_running_loop()
                watchers.append(loop.create_task(_watch(match, seat, process)))
                if stdio:
                    watchers.append(loop.create_task(serve_stdio_seat(
                        referee.arena, match, seat, process, config.time_control.connect_ms / 1000)))
            await match.finished.wait()
        finally:
            for watcher in watchers:
                watcher.cancel()
            exits = list(await asyncio.gather(*(p.stop() for p in processes)))
            if own_referee:
                await referee.stop(grace=0.5)
        return LocalMatch(match, exits, [p.log_path for p in processes])


async def _watch(match: Match, seat: Seat, process: BotProcess) -> None:
    if process.process is not None:
        match.seat_exited(seat, await process.process.wait())
