"""A real grpc.aio server on port 0 (or a unix socket) implementing the Referee's Play
rpc with a scripted exchange, and a runner for a bot as a real subprocess."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable

import grpc
import grpc.aio

from spite.v1 import referee_pb2, referee_pb2_grpc

Script = Callable[["Session"], Awaitable[None]]


@dataclass
class Session:
    """One Play stream as the scripted referee sees it."""

    context: grpc.aio.ServicerContext
    metadata: dict[str, str] = field(default_factory=dict)
    hello: referee_pb2.Hello | None = None
    actions: list[referee_pb2.Action] = field(default_factory=list)
    half_closed: bool = False

    async def send(self, **body: object) -> None:
        await self.context.write(referee_pb2.RefereeMessage(**body))  # type: ignore[arg-type]

    async def receive(self) -> referee_pb2.BotMessage | None:
        message = await self.context.read()
        if message is grpc.aio.EOF:
            self.half_closed = True
            return None
        return message

    async def action(self) -> referee_pb2.Action:
        message = await asyncio.wait_for(self.receive(), 10)
        assert message is not None and message.WhichOneof("body") == "action", message
        self.actions.append(message.action)
        return message.action


class ScriptedReferee(referee_pb2_grpc.RefereeServicer):
    def __init__(self, script: Script) -> None:
        self.script = script
        self.sessions: list[Session] = []
        self.errors: list[BaseException] = []

    async def Play(self, request_iterator: object, context: grpc.aio.ServicerContext) -> None:  # noqa: N802
        session = Session(context, {k: v for k, v in context.invocation_metadata() if isinstance(v, str)})
        self.sessions.append(session)
        first = await session.receive()
        if first is not None and first.WhichOneof("body") == "hello":
            session.hello = first.hello
        try:
            await self.script(session)
        except (AssertionError, asyncio.TimeoutError) as error:
            self.errors.append(error)
            await context.abort(grpc.StatusCode.INTERNAL, f"script failed: {error!r}")


@dataclass
class BotRun:
    returncode: int
    stdout: str
    stderr: str
    referee: ScriptedReferee

    @property
    def session(self) -> Session:
        assert len(self.referee.sessions) == 1, self.referee.sessions
        return self.referee.sessions[0]


def bot_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPITE_")}
    env.update(extra)
    return env


async def run_bot_async(command: list[str], script: Script, *, cwd: Path | None = None, transport: str = "tcp",
                        env: dict[str, str] | None = None, timeout: float = 60) -> BotRun:
    """Serve ``script`` and run ``command`` as a bot process against it.

    ``env`` is added to a copy of the environment without any SPITE_ variable;
    SPITE_ADDRESS is set to the server unless ``env`` sets it.
    """
    referee = ScriptedReferee(script)
    server = grpc.aio.server(options=[("grpc.http2.min_ping_interval_without_data_ms", 10_000)])
    referee_pb2_grpc.add_RefereeServicer_to_server(referee, server)
    socket_dir = tempfile.mkdtemp(prefix="spite-sdk-")  # short: unix socket paths are limited to ~100 bytes
    try:
        if transport == "unix":
            address = f"unix:{socket_dir}/referee.sock"
            server.add_insecure_port(address)
        else:
            address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
        await server.start()
        full_env = bot_env(**{"SPITE_ADDRESS": address, **(env or {})})
        process = await asyncio.create_subprocess_exec(
            *command, cwd=cwd, env=full_env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(process.communicate(), timeout)
        except asyncio.TimeoutError:
            process.kill()
            out, err = await process.communicate()
            raise AssertionError(f"the bot did not finish in {timeout} s; stderr:\n{err.decode()}") from None
    finally:
        await server.stop(grace=1)
        shutil.rmtree(socket_dir, ignore_errors=True)
    if referee.errors:
        raise AssertionError(f"the referee's script failed: {referee.errors[0]!r}\n"
                             f"bot stderr:\n{err.decode()}") from referee.errors[0]
    return BotRun(process.returncode if process.returncode is not None else -1, out.decode(), err.decode(), referee)


def run_bot(command: list[str], script: Script, **kwargs: object) -> BotRun:
    return asyncio.run(run_bot_async(command, script, **kwargs))  # type: ignore[arg-type]


PYTHON = sys.executable
