"""The limits the referee benchmarks measure against: a bare gRPC echo and a bare pipe echo.

    python bench/echo.py grpc RULES      # a server; prints its address, runs until stdin closes
    python bench/echo.py pipe RULES      # answers each line on stdin with a decision's JSON line

Each answers every message with a ready-made DecisionRequest (a game's first, for RULES),
so the replies are the size the referee's are, and does nothing else: no parsing, no game.
``bench/referee_load.py`` and ``bench/transport_speed.py`` drive them from the same client
code that drives the referee, in the same run.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from spite.v1 import referee_pb2 as rpb  # noqa: E402

METHOD = "/bench.Echo/Play"


def typical_decision(rules: str) -> bytes:
    """A typical DecisionRequest for ``rules``, serialized: the first decision of a game."""
    from spite_engine import GameState, observe, parse_rules
    from spite_wire.encoding import decision_message

    state = GameState.new(parse_rules(rules), 1)
    return decision_message(1, 0, observe(state, state.to_move), 1000, 10_000)


def typical_decision_line(rules: str) -> bytes:
    from spite_wire.canonical_json import referee_message_line

    return referee_message_line(typical_decision(rules))


async def serve_grpc(rules: str) -> None:
    reply = typical_decision(rules)

    async def play(requests: Any, context: grpc.aio.ServicerContext) -> Any:
        async for _ in requests:
            yield reply

    handler = grpc.method_handlers_generic_handler("bench.Echo", {
        "Play": grpc.stream_stream_rpc_method_handler(play)})
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"127.0.0.1:{port}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(0.2)


def serve_pipe(rules: str) -> None:
    reply = typical_decision_line(rules)
    out = sys.stdout.buffer
    for _ in sys.stdin.buffer:
        out.write(reply)
        out.flush()


def grpc_round_trips(rules: str, count: int) -> dict[str, float]:
    """``count`` sequential round trips on one stream to a gRPC echo in another process."""
    child = subprocess.Popen([sys.executable, __file__, "grpc", rules], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdin is not None
    address = child.stdout.readline().strip()
    action = rpb.BotMessage(action=rpb.Action(decision_id=1, move_index=0)).SerializeToString()

    async def run() -> list[float]:
        times = []
        async with grpc.aio.insecure_channel(address) as channel:
            call = channel.stream_stream(METHOD)()
            for _ in range(count):
                sent = time.perf_counter()
                await call.write(action)
                rpb.RefereeMessage.FromString(await call.read())
                times.append(time.perf_counter() - sent)
            await call.done_writing()
        return times

    try:
        started = time.perf_counter()
        times = asyncio.run(run())
        elapsed = time.perf_counter() - started
    finally:
        child.stdin.close()
        child.wait(10)
    return _summary(times, elapsed)


def pipe_round_trips(rules: str, count: int) -> dict[str, float]:
    """``count`` sequential round trips of JSON lines to a pipe echo in another process."""
    import json

    child = subprocess.Popen([sys.executable, __file__, "pipe", rules], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    assert child.stdout is not None and child.stdin is not None
    line = json.dumps({"action": {"decisionId": "1", "moveIndex": 0}}).encode() + b"\n"
    times = []
    try:
        started = time.perf_counter()
        for _ in range(count):
            sent = time.perf_counter()
            child.stdin.write(line)
            child.stdin.flush()
            json.loads(child.stdout.readline())
            times.append(time.perf_counter() - sent)
        elapsed = time.perf_counter() - started
    finally:
        child.stdin.close()
        child.wait(10)
    return _summary(times, elapsed)


def _summary(times: list[float], elapsed: float) -> dict[str, float]:
    ordered = sorted(times)
    return {"round_trips": len(times), "seconds": elapsed, "per_s": len(times) / elapsed,
            "p50_us": ordered[len(ordered) // 2] * 1e6,
            "p99_us": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1e6}


if __name__ == "__main__":
    if sys.argv[1] == "grpc":
        asyncio.run(serve_grpc(sys.argv[2]))
    else:
        serve_pipe(sys.argv[2])
