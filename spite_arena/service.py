"""``spite serve``: the ladder, its workers and its web face in one long-lived process.

One asyncio loop runs the uvicorn server (pages and the JSON API, :mod:`.web`), the ladder
loop (:mod:`.ladder`) over local worker processes or a Dask cluster, and the checks of
uploads (each in a subprocess). SIGINT or SIGTERM stops it; SIGKILL is safe too (the store
resumes, :mod:`.store`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import sys
from pathlib import Path
from typing import Any, Sequence

from referee.processes.manifest import ManifestError
from tournaments.backends import Backend, DaskBackend, LocalBackend, bundle_of
from tournaments.bot_specs import resolve_bot
from tournaments.bundles import BundleError
from tournaments.jobs import SeatJob

from .config import Competition
from .ladder import Ladder, SlotHealth
from .store import ArenaStore, LadderIncident, VersionStatus
from .uploads import check_log_dir, run_checks

log = logging.getLogger("spite.arena")
ADMIN_TOKEN_FILE = "admin.token"


def split_address(text: str, what: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535 or not host:
        raise ValueError(f"{what} must be HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port)


def admin_token(data: Path) -> str:
    """The organizer's token: ``DATA/admin.token``, made on first start (mode 0600)."""
    path = data / ADMIN_TOKEN_FILE
    if not path.exists():
        data.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(32) + "\n")
    return path.read_text().strip()


class ServeError(RuntimeError):
    """The service stopped for a reason the organizer must read (one line)."""


class Service:
    def __init__(self, competition: Competition, data: Path, *, web: str = "127.0.0.1:8000",
                 grpc_listen: str = "127.0.0.1:50051", scheduler: str | None = None,
                 trusted_proxies: Sequence[str] = ()) -> None:
        self.competition = competition
        self.trusted_proxies = tuple(trusted_proxies)
        self.data = data
        self.web_address = split_address(web, "--web")
        self.scheduler = scheduler
        split_address(grpc_listen, "--grpc")
        self.grpc_listen = grpc_listen
        self.store = ArenaStore(data, writer=True)  # the one long-lived writer: a second spite serve here is refused
        self.store.recover_uploads()  # before the web face takes new ones
        self.admin_token = admin_token(data)
        self.ladder: Ladder | None = None
        self.checks: set[asyncio.Task[None]] = set()
        self.interrupted = False
        """Stopped by SIGINT (Ctrl-C): ``spite serve`` exits 130, as every command does."""

    def enter_house_bots(self) -> None:
        for spec in self.competition.house_bots:
            try:
                manifest = resolve_bot(spec)
            except ManifestError as error:
                raise ValueError(f"house bot {spec!r}: {error}") from None
            if self.scheduler:  # refused now, not game after game on the workers
                try:
                    bundle_of(SeatJob(spec))
                except BundleError as error:
                    raise ValueError(f"house bot {spec!r} cannot go to Dask workers: {error}") from None
            self.store.ensure_house_bot(manifest.name, manifest.version, spec, self.competition.rating)

    def backend(self) -> Backend:
        if self.scheduler:
            return DaskBackend(self.scheduler, self.competition.parallel)
        return LocalBackend(self.competition.parallel)

    def health(self) -> list[SlotHealth]:
        return self.ladder.health if self.ladder else []

    def remote_bots(self) -> list[dict[str, Any]]:
        """The remote bots joined now (:meth:`.lobby.Lobby.joined`)."""
        return self.ladder.lobby.joined() if self.ladder and self.ladder.lobby else []

    def start_check(self, version_id: int, manifest: Path) -> None:
        """Check an upload in the background; the version goes active or refused."""
        async def check() -> None:
            report = await run_checks(manifest, self.competition, version_id, check_log_dir(self.data, version_id))
            self.store.finish_check(version_id, report.passed, report.lines, report.reason,
                                    platform_fault=report.platform_fault)
            if not report.passed:
                self.store.add_incident(LadderIncident.PLATFORM if report.platform_fault else LadderIncident.REFUSED,
                                        f"version {version_id}: {report.reason}")
        task = asyncio.get_running_loop().create_task(check())
        self.checks.add(task)
        task.add_done_callback(self.checks.discard)

    def resume_checks(self) -> None:
        """Uploads whose checks a kill cut off are checked again."""
        for version in self.store.versions(statuses=(VersionStatus.CHECKING,)):
            self.start_check(version.id, Path(version.spec))

    async def finals_at_start_time(self) -> None:
        """``[finals] start``: at that time, once, run ``spite arena finals`` (the ladder pauses)."""
        start = self.competition.finals.start
        if start is None or self.store.meta("finals_started"):
            return
        import datetime as dt

        await asyncio.sleep(max(0.0, (start - dt.datetime.now(dt.timezone.utc)).total_seconds()))
        self.store.set_meta("finals_started", dt.datetime.now(dt.timezone.utc).isoformat())
        from referee.processes.launcher import die_with_parent

        log_path = self.data / "finals.log"
        with open(log_path, "ab") as out:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "spite_cli.main", "arena", "finals", str(self.competition.file),
                "--data", str(self.data), stdout=out, stderr=out, preexec_fn=die_with_parent)
        print(f"spite serve: the finals started (output in {log_path})", flush=True)
        code = await process.wait()
        print(f"spite serve: the finals ended (exit {code}); results in {self.data / 'finals.db'}", flush=True)

    async def run(self, ready: Any = None) -> None:
        import uvicorn

        from referee.transports.server import TlsConfig
        from spite_web.serving import ListenError, bind_listener, server_config

        from .lobby import Lobby, start_lobby
        from .web import create_app

        self.enter_house_bots()
        limits = self.competition.limits
        lobby = Lobby(self.store, self.competition.rating, limits.remote_matches, bots_per_entrant=limits.bots,
                      versions_per_entrant=limits.versions)
        self.store.retire_unplayed()  # remote versions that never played: their bots are gone with the last run
        credentials = TlsConfig(*self.competition.tls).credentials() if self.competition.tls else None
        referee = await start_lobby(self.grpc_listen, lobby, credentials)
        self.ladder = Ladder(self.competition, self.store, self.backend(), self.data, lobby=lobby, referee=referee)
        host, port = self.web_address
        server = uvicorn.Server(server_config(create_app(self), host, port, trusted_proxies=self.trusted_proxies))
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        def on_signal(sig: signal.Signals) -> None:
            self.interrupted = self.interrupted or sig is signal.SIGINT
            stop.set()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal, sig)
        try:
            listener = bind_listener(host, port, "--web", "another spite serve")
        except ListenError as error:
            raise OSError(str(error)) from None
        serving = loop.create_task(server.serve(sockets=[listener]))
        while not server.started:
            if serving.done():
                raise OSError(f"the web server could not start on {host}:{port}")
            await asyncio.sleep(0.05)
        bound = listener.getsockname()
        print(f"spite serve: {self.competition.name}: web http://{bound[0]}:{bound[1]}/ grpc {referee.address} "
              f"({referee.mode}); admin token in {self.data / ADMIN_TOKEN_FILE}; data in {self.data}", flush=True)
        from referee.sandbox import detect

        if not detect().isolated:
            print(f"spite serve: WARNING: bots are not sandboxed here ({detect().reason}); uploads are refused, "
                  f"house and remote bots still play", file=sys.stderr, flush=True)
        if self.competition.finals.start is not None and not self.store.meta("finals_started"):
            from tournaments.seeds import SeedError

            from .finals import FinalsError, commit_finals

            try:
                commitment, _ = commit_finals(self.data)
                print(f"spite serve: the finals start at {self.competition.finals.start.isoformat()}; their seed "
                      f"commitment (publish it now): {commitment}", flush=True)
            except (FinalsError, SeedError, OSError) as error:
                print(f"spite serve: WARNING: no seed commitment for the finals: {error}", file=sys.stderr,
                      flush=True)
        self.resume_checks()
        ladder = loop.create_task(self.ladder.run())
        finals = loop.create_task(self.finals_at_start_time())
        stopper = loop.create_task(stop.wait())
        await asyncio.wait({ladder, serving, stopper}, return_when=asyncio.FIRST_COMPLETED)
        self.ladder.stopping.set()
        server.should_exit = True
        for task in self.checks:
            task.cancel()
        await asyncio.gather(ladder, serving, return_exceptions=True)
        stopper.cancel()
        finals.cancel()
        await lobby.shutdown()
        await referee.stop(grace=1.0)
        self.store.close()
        if ladder.done() and not ladder.cancelled() and ladder.exception() is not None:
            raise ServeError(f"the ladder stopped: {ladder.exception()}")
