"""Join a hosted ladder (``spite serve``) as a remote bot: bring your own compute.

Any SDK bot becomes a remote ladder bot when its environment has

==================  ======================================================
SPITE_ARENA         the competition's gRPC address, ``host:port`` (``tls:host:port``)
SPITE_BOT_KEY       the entrant's API key (``spite arena add-entrant`` printed it)
SPITE_ARENA_CAPACITY  games this process plays at once (default 1, at most 64)
==================  ======================================================

(and the ``SPITE_TLS*`` variables of :mod:`spite_sdk.bot` for TLS). ``Bot.run()`` then calls
:func:`run_ladder`: it joins the lobby (``Arena.Join``, proto/spite/v1/arena.proto) and plays
every game it is assigned, each on its own copy of the bot as it was before its first
game, over ``Referee.Play`` at the same address, until the process is stopped. When the
server goes away it joins again, waiting a little longer each time.
"""

from __future__ import annotations

import asyncio
import copy
import os
import sys
from typing import Any, Protocol

import grpc
import grpc.aio

from spite.v1 import arena_pb2, arena_pb2_grpc

from .connection import TlsSettings, open_channel

KEY_METADATA = "spite-bot-key"
RETRY_S = (1.0, 2.0, 5.0, 10.0)


class Player(Protocol):
    """What the ladder needs of a bot (:class:`spite_sdk.Bot` is one)."""

    @property
    def version(self) -> Any: ...

    @property
    def display_name(self) -> str: ...

    async def play(self, address: str, token: str, *, tls: TlsSettings | None = None) -> Any: ...


def joined(metadata: dict[str, Any], asked: int) -> str:
    """What the lobby said about a Join (its initial metadata, ``spite_arena.lobby.JOINED_METADATA``),
    as one line; empty when it said nothing (an older server, or a refused Join)."""
    if "spite-entrant" not in metadata:
        return ""
    granted = str(metadata.get("spite-capacity", "?"))
    line = (f"entrant {metadata['spite-entrant']}, version {metadata.get('spite-version', '?')}, "
            f"{granted} game{'' if granted == '1' else 's'} at once")
    note = str(metadata.get("spite-capacity-note", ""))
    if note or granted != str(asked):
        line += f" (asked for {asked}; {note or 'capped by the server'})"
    return line


def ladder_requested() -> bool:
    return bool(os.environ.get("SPITE_ARENA", "").strip() and os.environ.get("SPITE_BOT_KEY", "").strip())


def run_ladder(bot: Player, tls: TlsSettings | None, game_error: type[Exception]) -> None:
    """Play ladder games until stopped; exits the process (1 for a refused key, 2 for bad
    settings). ``tls`` is the bot's TLS settings or None; ``game_error`` (what a lost game
    raises) comes from :mod:`spite_sdk.bot`."""
    address = os.environ["SPITE_ARENA"].strip()
    key = os.environ["SPITE_BOT_KEY"].strip()
    try:
        capacity = int(os.environ.get("SPITE_ARENA_CAPACITY", "1") or "1")
        if not 1 <= capacity <= 64:
            raise ValueError
    except ValueError:
        print(f"{bot.display_name}: SPITE_ARENA_CAPACITY must be a whole number in 1..64", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        code = asyncio.run(ladder(bot, address, key, capacity, tls, game_error))
    except KeyboardInterrupt:
        code = 0
    raise SystemExit(code)


async def ladder(bot: Player, address: str, key: str, capacity: int, tls: TlsSettings | None,
                 game_error: type[Exception]) -> int:
    """Join and play until cancelled; returns 1 when the server refuses to let the bot join."""
    pristine = copy.deepcopy(bot)
    games: set[asyncio.Task[None]] = set()
    failures = 0

    async def play(token: str, match_id: str) -> None:
        player = copy.deepcopy(pristine)
        endings: list[str] = []  # each game's own reason (a forfeit says so; the match's result only counts)
        hook = getattr(player, "on_game_over", None)
        if callable(hook):
            def on_game_over(number: int, outcome: Any) -> None:
                endings.append(str(getattr(outcome, "reason", "")))
                hook(number, outcome)
            setattr(player, "on_game_over", on_game_over)
        try:
            result = await player.play(address, token, tls=tls)
            seat = getattr(getattr(player, "welcome", None), "seat", None)
            verdict = "a draw" if not result.winners else "won" if seat in result.winners else "lost"
            why = "; ".join(e for e in endings if e) or result.reason
            print(f"{bot.display_name}: game {match_id}: {verdict} ({why})", file=sys.stderr, flush=True)
        except game_error as error:
            print(f"{bot.display_name}: game {match_id}: {error}", file=sys.stderr, flush=True)
        except Exception as error:  # the bot's own bug: that game is lost, the others go on
            print(f"{bot.display_name}: game {match_id}: the bot raised {type(error).__name__}: {error}",
                  file=sys.stderr, flush=True)

    while True:
        async with open_channel(address, tls) as channel:
            call = arena_pb2_grpc.ArenaStub(channel).Join(  # type: ignore[no-untyped-call]
                arena_pb2.JoinRequest(key=key, bot_name=bot.display_name, bot_version=str(bot.version),
                                      capacity=capacity), metadata=((KEY_METADATA, key),))
            said = ""
            try:
                said = joined(dict(await call.initial_metadata() or ()), capacity)
                if said:
                    failures = 0
                    print(f"{bot.display_name}: joined the arena at {address}: {said}", file=sys.stderr, flush=True)
                async for assignment in call:
                    failures = 0
                    task = asyncio.get_running_loop().create_task(play(assignment.token, assignment.match_id))
                    games.add(task)
                    task.add_done_callback(games.discard)
            except grpc.aio.AioRpcError as error:
                if error.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.INVALID_ARGUMENT,
                                    grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.FAILED_PRECONDITION,
                                    grpc.StatusCode.PERMISSION_DENIED):
                    what = "ended the bot's stream" if said else "refused to let the bot join"
                    print(f"{bot.display_name}: the arena {what}: {error.details()}", file=sys.stderr, flush=True)
                    return 1
                why = error.details() or error.code().name
            else:
                why = "the stream ended"
        wait = RETRY_S[min(failures, len(RETRY_S) - 1)]
        failures += 1
        print(f"{bot.display_name}: not joined to the arena at {address} ({why}); trying again in {wait:g} s",
              file=sys.stderr, flush=True)
        await asyncio.sleep(wait)
