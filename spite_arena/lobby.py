"""The remote bots' lobby: the Arena service (proto/spite/v1/arena.proto) and the gRPC
server that carries it next to the Referee service on ``spite serve --grpc``.

A remote bot joins with its entrant's key, a name, a version and how many games it takes
at once; it becomes (or stays) an active **remote** version of that entrant's bot. The
ladder schedules it only while it is joined and below its capacity, and sends it the
seat token of each game it gets; the bot plays that seat over ``Referee.Play`` on the same
address. The servicer only translates: the store decides who the key is.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

import grpc

from referee.core.labels import LabelError, check_label
from referee.transports.server import SERVER_OPTIONS, RefereeServicer, RunningReferee, add_referee_servicer
from referee.transports.session import Arena
from spite.v1 import arena_pb2, arena_pb2_grpc
from tournaments.ratings import RatingParams

from .store import ArenaStore, ArenaStoreError, VersionLimit, VersionStatus, check_name, hash_key

log = logging.getLogger("spite.arena")
KEY_METADATA = "spite-bot-key"
MAX_CAPACITY = 64
JOINS_PER_MINUTE = 12
"""Joins per key (known or not) in any sliding minute: the SDKs' reconnect backoff stays far
below it; 300 joins in 16 s do not."""
NEW_VERSIONS_PER_HOUR = 6
SWEEP_S = 1.0
"""How often the lobby checks its joined streams against the store (rotated keys, CLI disables)."""
"""New remote versions (new version strings) per entrant per hour, as many as uploads checked."""


class JoinRefused(Exception):
    """A Join the lobby refuses; ``code`` is the gRPC status, the message one line saying what to do."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


class SlidingWindow:
    """At most ``limit`` events per name in any sliding ``seconds``."""

    def __init__(self, limit: int, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.seconds, self.clock = limit, seconds, clock
        self.seen: dict[str, deque[float]] = defaultdict(deque)

    def allow(self, name: str) -> bool:
        now = self.clock()
        if len(self.seen) > 10_000:  # forget idle names: made-up keys cannot grow this without end
            for idle in [n for n, t in self.seen.items() if not t or t[-1] < now - self.seconds]:
                del self.seen[idle]
        times = self.seen[name]
        while times and times[0] <= now - self.seconds:
            times.popleft()
        if len(times) >= self.limit:
            return False
        times.append(now)
        return True


@dataclass
class RemoteBot:
    """One joined stream."""

    entrant: str
    version_id: int
    capacity: int
    key_hash: str = ""
    """The hash of the key it joined with: a rotated key ends the stream (:meth:`Lobby.sweep`)."""
    asked: int = 0
    """The capacity it asked for (``capacity`` is what it was granted)."""
    in_flight: int = 0
    assignments: asyncio.Queue[arena_pb2.Assignment | JoinRefused] = field(default_factory=asyncio.Queue)

    @property
    def free(self) -> bool:
        return self.in_flight < self.capacity


class Lobby:
    """The joined remote bots, per version."""

    def __init__(self, store: ArenaStore, params: RatingParams, per_key: int, *,
                 joins_per_minute: int = JOINS_PER_MINUTE, new_versions_per_hour: int = NEW_VERSIONS_PER_HOUR,
                 bots_per_entrant: int | None = None, versions_per_entrant: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.params = params
        self.per_key = per_key
        self.bots_per_entrant, self.versions_per_entrant = bots_per_entrant, versions_per_entrant
        self.new_versions_per_hour = new_versions_per_hour
        self.joins = SlidingWindow(joins_per_minute, 60.0, clock)
        self.bots: dict[int, list[RemoteBot]] = defaultdict(list)

    def joined(self) -> list[dict[str, Any]]:
        """The joined streams, for the organizer: entrant, version id, capacity granted and
        asked for, games in flight."""
        return [{"entrant": b.entrant, "version_id": vid, "capacity": b.capacity, "asked": b.asked,
                 "in_flight": b.in_flight} for vid, bots in sorted(self.bots.items()) for b in bots]

    def connected(self) -> set[int]:
        return {vid for vid, bots in self.bots.items() if bots}

    def available(self) -> set[int]:
        return {vid for vid, bots in self.bots.items() if any(b.free for b in bots)}

    def reserve(self, version_id: int) -> RemoteBot | None:
        """Take one game's room on the least busy joined process of the version (None: none
        has room). Reserve before the first ``await`` after choosing the game, so two worker
        slots cannot both count on the same room."""
        candidates = [b for b in self.bots.get(version_id, []) if b.free]
        if not candidates:
            return None
        bot = min(candidates, key=lambda b: b.in_flight / b.capacity)
        bot.in_flight += 1
        return bot

    @staticmethod
    def deliver(bot: RemoteBot, match_id: str, token: str) -> None:
        bot.assignments.put_nowait(arena_pb2.Assignment(match_id=match_id, token=token))

    def assign(self, version_id: int, match_id: str, token: str) -> RemoteBot | None:
        """Reserve and deliver at once."""
        bot = self.reserve(version_id)
        if bot is not None:
            self.deliver(bot, match_id, token)
        return bot

    def join(self, key: str, name: str, label: str, capacity: int) -> RemoteBot:
        """Check a Join and register it; raises :class:`LookupError` (key), :class:`ValueError`,
        :class:`OverflowError` (capacity) or :class:`JoinRefused` (rate, versions, bench)."""
        if not self.joins.allow(hash_key(key)):
            raise JoinRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                              f"more than {self.joins.limit} joins with this key in a minute; join once and keep "
                              f"the stream open (SPITE_ARENA_CAPACITY=N for N games at once)")
        entrant = self.store.entrant_for_key(key)
        if entrant is None:
            raise LookupError("unknown key; use the key `spite arena add-entrant` printed for you (the organizer can "
                              "rotate it)")
        if entrant.banned is not None:
            raise JoinRefused(grpc.StatusCode.PERMISSION_DENIED,
                              f"entrant {entrant.name} is banned from this competition ({entrant.banned}); "
                              f"ask the organizer")
        try:
            check_name(name, "bot_name")
            check_label(label, "bot_version")
        except (ArenaStoreError, LabelError) as error:
            raise ValueError(str(error)) from None
        if not 1 <= capacity <= MAX_CAPACITY:
            raise ValueError(f"capacity must be 1..{MAX_CAPACITY}")
        used = sum(b.capacity for bots in self.bots.values() for b in bots if b.entrant == entrant.name)
        room = self.per_key - used
        if room <= 0:
            raise OverflowError(f"this key already plays {used} remote games at once, the competition's limit")
        try:
            version_id = self.store.remote_version(entrant.id, name, label, self.params,
                                                   new_per_hour=self.new_versions_per_hour,
                                                   bots=self.bots_per_entrant, versions=self.versions_per_entrant)
        except VersionLimit as error:
            raise JoinRefused(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error)) from None
        version = self.store.version(version_id)
        if version is not None and version.status is not VersionStatus.ACTIVE:
            raise JoinRefused(grpc.StatusCode.FAILED_PRECONDITION, refusal(version.title, version.reason))
        bot = RemoteBot(entrant.name, version_id, min(capacity, room), hash_key(key), capacity)
        self.bots[version_id].append(bot)
        return bot

    def leave(self, bot: RemoteBot) -> None:
        """A stream ended. A version whose last stream it was and that never played a game
        leaves the board (:meth:`ArenaStore.retire_unplayed`): joining for a moment under ever
        new names adds no rows."""
        if bot in self.bots[bot.version_id]:
            self.bots[bot.version_id].remove(bot)
        if not self.bots.get(bot.version_id):
            self.bots.pop(bot.version_id, None)
            try:
                self.store.retire_unplayed(bot.version_id)
            except sqlite3.Error as error:  # a busy store: the next start retires it
                log.warning("lobby: %s", error)

    def sweep(self) -> int:
        """End the streams the store no longer admits: joined with a key since rotated (or an
        entrant banned), or of a version the organizer disabled from the CLI (another process:
        the store is the only channel). Returns how many streams it ended."""
        if not any(self.bots.values()):
            return 0
        keys = self.store.key_hashes()
        ended = 0
        for version_id, bots in list(self.bots.items()):
            version = self.store.version(version_id)
            if version is not None and version.status is not VersionStatus.ACTIVE:
                ended += len(bots)
                reason = (version.reason if version.status is VersionStatus.DISABLED
                          else "retired: a newer version replaced it")
                self.bench(version_id, version.title, reason)
                continue
            for bot in list(bots):
                if keys.get(bot.entrant) != bot.key_hash:
                    bots.remove(bot)
                    ended += 1
                    bot.assignments.put_nowait(JoinRefused(
                        grpc.StatusCode.UNAUTHENTICATED,
                        f"the key of entrant {bot.entrant} was replaced (spite arena rotate-key) or withdrawn; "
                        f"join again with the new key from the organizer"))
        return ended

    async def watch(self, stopping: asyncio.Event, every_s: float = SWEEP_S) -> None:
        """Sweep (:meth:`sweep`) every ``every_s`` until ``stopping`` is set."""
        while not stopping.is_set():
            try:
                ended = self.sweep()
            except sqlite3.Error as error:  # a busy store: the next sweep tries again
                log.warning("lobby sweep: %s", error)
                ended = 0
            if ended:
                log.info("lobby: ended %d stream(s) the store no longer admits", ended)
            try:
                await asyncio.wait_for(stopping.wait(), every_s)
            except (asyncio.TimeoutError, TimeoutError):
                pass

    async def shutdown(self, grace_s: float = 2.0) -> None:
        """End every joined stream (``UNAVAILABLE``: the SDKs join again when the server is
        back) and wait up to ``grace_s`` for them to close, so that stopping the gRPC server
        cancels no servicer (each one cancelled printed a ``CancelledError`` traceback)."""
        for bots in self.bots.values():
            for bot in bots:
                bot.assignments.put_nowait(JoinRefused(grpc.StatusCode.UNAVAILABLE,
                                                       "the arena is stopping; join again when it is back"))
        deadline = time.monotonic() + grace_s
        while any(self.bots.values()) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    def bench(self, version_id: int, title: str, reason: str) -> None:
        """End every joined stream of a version taken off the ladder, telling it why."""
        for bot in self.bots.pop(version_id, []):
            bot.assignments.put_nowait(JoinRefused(grpc.StatusCode.FAILED_PRECONDITION, refusal(title, reason)))


JOINED_METADATA = ("spite-entrant", "spite-version", "spite-capacity", "spite-capacity-asked", "spite-capacity-note")
"""The Join stream's initial metadata: who the key is, the ladder version, and the capacity
granted (the SDKs print it once per Join)."""


def joined_metadata(bot: RemoteBot, title: str, per_key: int) -> tuple[tuple[str, str], ...]:
    note = "" if bot.capacity >= bot.asked else (
        f"capped: this key plays at most {per_key} remote games at once ([limits] remote_matches), "
        f"{per_key - bot.capacity} of them held by its other joined bots")
    return tuple(zip(JOINED_METADATA, (bot.entrant, title, str(bot.capacity), str(bot.asked), note)))


def refusal(title: str, reason: str) -> str:
    """Why a version's Join is refused, and what to do."""
    if reason.startswith(("benched:", "retired:")):
        return f"{title} is off the ladder ({reason}); fix the bot and join with a new version string"
    return f"{title} is off the ladder (disabled by the organizer: {reason or 'no reason given'}); ask the organizer"


class ArenaServicer(arena_pb2_grpc.ArenaServicer):
    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def Join(self, request: arena_pb2.JoinRequest,  # noqa: N802 (the rpc's name)
                   context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[arena_pb2.Assignment]:
        key = request.key or dict(context.invocation_metadata() or ()).get(KEY_METADATA, "")
        try:
            bot = self.lobby.join(str(key), request.bot_name, request.bot_version, request.capacity or 1)
        except LookupError as error:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(error))
        except OverflowError as error:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
        except ValueError as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        except JoinRefused as refused:
            await context.abort(refused.code, str(refused))
        log.info("remote bot joined: %s version %d, capacity %d", bot.entrant, bot.version_id, bot.capacity)
        version = self.lobby.store.version(bot.version_id)
        await context.send_initial_metadata(joined_metadata(bot, version.title if version else str(bot.version_id),
                                                            self.lobby.per_key))
        try:
            while True:
                assignment = await bot.assignments.get()
                if isinstance(assignment, JoinRefused):
                    await context.abort(assignment.code, str(assignment))
                    return
                yield assignment
        finally:
            self.lobby.leave(bot)
            log.info("remote bot left: %s version %d", bot.entrant, bot.version_id)


async def start_lobby(listen: str, lobby: Lobby, credentials: grpc.ServerCredentials | None = None) -> RunningReferee:
    """A gRPC server on ``listen`` with the Referee service (remote seats play there) and
    the Arena service (remote bots wait there)."""
    # The ladder records each game from the match play_remote returns; nobody holds this
    # referee's admin token to ask for a finished one: kept an hour, every remote game's
    # match grew spite serve by MBs a thousand games (issue 24, item 17).
    arena = Arena(retain_s=0.0)
    admin_token = secrets.token_urlsafe(32)
    server = grpc.aio.server(options=SERVER_OPTIONS)
    add_referee_servicer(RefereeServicer(arena, admin_token), server)
    arena_pb2_grpc.add_ArenaServicer_to_server(ArenaServicer(lobby), server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port(listen) if credentials is None else server.add_secure_port(listen, credentials)
    if port == 0 and not listen.endswith(":0"):
        raise OSError(f"cannot listen on {listen}")
    await server.start()
    host = listen.rsplit(":", 1)[0] or "127.0.0.1"
    address = f"{'127.0.0.1' if host in ('0.0.0.0', '[::]') else host}:{port}"
    return RunningReferee(server, arena, address, admin_token, "plaintext" if credentials is None else "TLS")
