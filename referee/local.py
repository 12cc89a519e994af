"""Play one match on this machine: a referee in process, each bot a sandboxed subprocess.

Used by ``spite play`` and by the tournament runner. The referee listens on a Unix
socket in a private temporary directory (fast, and not reachable from the network);
each bot gets a private home next to it and runs under the machine's sandbox
(:mod:`referee.sandbox`), which binds only the socket's directory into the bot's view.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator, Awaitable, Callable, Sequence

from referee.core.match import Match, MatchConfig
from referee.core.replay import bot_log_path
from referee.core.seats import Seat
from referee.processes.launcher import BotProcess, ExitInfo, SeatLaunch
from referee.processes.manifest import BotManifest
from referee.processes.scratch import OwnedScratch, socket_directory
from referee.sandbox import detect
from referee.transports.server import RunningReferee, start_referee, unix_address
from referee.transports.session import Arena
from referee.transports.stdio import serve_stdio_seat


@dataclass
class LocalMatch:
    match: Match
    exits: list[ExitInfo]
    logs: list[Path | None]


async def play_local_match(bots: Sequence[BotManifest], config: MatchConfig, *, log_dir: Path | None = None,
                           bot_seed: int = 0, referee: RunningReferee | None = None,
                           on_start: Callable[[Match], Awaitable[None] | None] | None = None,
                           hide: Sequence[Path] = ()) -> LocalMatch:
    """Run ``config`` with ``bots`` (one per seat, in seat order) and wait for the end.

    Every bot process group is killed when the match ends, whatever happened. Under
    bubblewrap no bot can read ``log_dir``, the replay directory, the paths in ``hide``
    (e.g. the tournament store) or another seat's home.
    """
    # locked by this process: a kill leaves it for the next start to remove
    with OwnedScratch("spite-", socket_directory()) as scratch:
        root = Path(scratch)
        root.chmod(0o711)  # bots running as uids of their own pass through to their home and the socket
        sockets = root / "referee"
        sockets.mkdir(mode=0o711)
        own_referee = referee is None
        if referee is None:
            referee = await start_referee(unix_address(sockets))
        processes: list[BotProcess] = []
        watchers: list[asyncio.Task[None]] = []
        try:
            async with reachable(referee.address, sockets) as (address, socket_dir):
                connectable(address)
                match = referee.arena.create(config)
                if on_start is not None:
                    result = on_start(match)
                    if asyncio.iscoroutine(result):
                        await result
                for seat in match.seats:
                    match.expect_process(seat)
                hidden = open_private_dirs(config, log_dir, hide)
                for seat, bot in zip(match.seats, bots):
                    home = root / f"seat{seat.index}"
                    home.mkdir(mode=0o700)
                    launch = seat_launch(match, seat, bot, home, address=address, socket_dir=socket_dir,
                                         hidden=hidden, log_dir=log_dir, bot_seed=bot_seed)
                    process, session = await launch_seat(referee.arena, match, seat, bot, launch)
                    processes.append(process)
                    watchers.append(asyncio.get_running_loop().create_task(_watch(match, seat, process)))
                    if session is not None:
                        watchers.append(session)
                await match.finished.wait()
        finally:
            for watcher in watchers:
                watcher.cancel()
            exits = list(await asyncio.gather(*(p.stop() for p in processes)))
            if own_referee:
                await referee.stop(grace=0.5)
        return LocalMatch(match, exits, [p.log_path for p in processes])


def open_private_dirs(config: MatchConfig, log_dir: Path | None, hide: Sequence[Path]) -> tuple[Path, ...]:
    """The paths no bot of the match may see: the log and replay directories (made here) and
    ``hide``, closed to other users (:func:`close_to_others`)."""
    hidden = tuple(p for p in (log_dir, config.replay_dir, *hide) if p is not None)
    for directory in (log_dir, config.replay_dir):
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)
    close_to_others(hidden)
    return hidden


def seat_launch(match: Match, seat: Seat, bot: BotManifest, home: Path, *, address: str, socket_dir: Path,
                hidden: tuple[Path, ...], log_dir: Path | None, bot_seed: int) -> SeatLaunch:
    """How ``seat``'s bot is started: in ``home``, with the seat's token, the referee at
    ``address`` (reachable in ``socket_dir``), its log in ``log_dir`` and ``hidden`` out of view."""
    log_path = bot_log_path(log_dir, match.match_id, seat.index, bot.name) if log_dir else None
    return SeatLaunch(home=home, token=seat.token, address=address, socket_dir=socket_dir,
                      connect_ms=match.config.time_control.connect_ms, bot_seed=bot_seed, hidden=hidden,
                      log_path=log_path)


async def launch_seat(arena: Arena, match: Match, seat: Seat, bot: BotManifest,
                      launch: SeatLaunch) -> tuple[BotProcess, asyncio.Task[None] | None]:
    """Start ``bot`` for ``seat`` as ``launch`` says and bind it to the seat (its connect time
    starts when it runs). A stdio bot's session is served on its pipes by the task returned
    with it (None for a gRPC bot, which dials the referee itself)."""
    if launch.log_path is not None:
        launch.log_path.parent.mkdir(parents=True, exist_ok=True)
    match.launching(seat)
    process = BotProcess.from_manifest(bot, launch)
    await process.start()
    match.bind_process(seat, process)
    if not process.stdio:
        return process, None
    session = serve_stdio_seat(arena, seat, process, match.config.time_control.connect_ms)
    return process, asyncio.get_running_loop().create_task(session)


def close_to_others(paths: Sequence[Path]) -> None:
    """The tournament's files closed to every user but the organizer's: directories (logs,
    replays) 0700, files (the store, the seed) 0600. Under bubblewrap bots cannot see them
    anyway; without it, a bot running as a uid of its own cannot read them either (a finished
    replay would show the deal of its duplicate, still to be played)."""
    for path in paths:
        try:
            if path.is_dir():
                path.chmod(0o700)
            elif path.exists():
                path.chmod(0o600)
        except OSError:  # not the organizer's to change: as it is
            pass


def connectable(address: str) -> None:
    """Let bots running as uids of their own connect to the referee's Unix socket (connecting
    needs write permission on it); its directory stays unlistable and the seat tokens guard
    the sessions."""
    if address.startswith("unix:"):
        try:
            os.chmod(address[len("unix:"):], 0o666)
        except OSError:  # not ours (a referee started elsewhere): as it is
            pass


async def _watch(match: Match, seat: Seat, process: BotProcess) -> None:
    if process.process is not None:
        code = await process.wait()
        match.seat_exited(seat, code, process.limit_hit())


@contextlib.asynccontextmanager
async def reachable(address: str, sockets: Path) -> AsyncIterator[tuple[str, Path]]:
    """The address bots are given and the directory to bind into their sandbox: the referee's
    own Unix socket, or, for a referee on TCP under bubblewrap (where bots have no network),
    a relay socket in ``sockets`` forwarding to it."""
    if address.startswith("unix:"):
        yield address, Path(address[len("unix:"):]).parent
        return
    if not detect().isolated:
        yield address, sockets
        return
    host, _, port = address.rpartition(":")
    host = host.strip("[]")

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pump(reader, upstream_writer), _pump(upstream_reader, writer))

    path = sockets / "relay.sock"
    server = await asyncio.start_unix_server(relay, path=str(path))
    try:
        yield f"unix:{path}", sockets
    finally:
        server.close()


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()
