"""A bot that misbehaves on purpose, one way per mode, for the referee's hostile-bot tests.

    python hostile_bot.py MODE     (address and token from SPITE_ADDRESS / SPITE_TOKEN)

It speaks the wire protocol with the raw generated stubs (no SDK), so it can send
what no SDK would. In "good" mode, and between its misdeeds, it plays the first
legal play (else the last legal move). It writes what the referee told it to stderr.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

import grpc
from spite.v1 import referee_pb2 as rpb
from spite.v1 import referee_pb2_grpc

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"


def choose(decision: rpb.DecisionRequest) -> int:
    moves = decision.observation.legal_moves
    for index, move in enumerate(moves):
        if move.kind == 1:
            return index
    return len(moves) - 1


def action(decision_id: int, index: int, debug: str = "") -> rpb.BotMessage:
    return rpb.BotMessage(action=rpb.Action(decision_id=decision_id, move_index=index, debug=debug))


async def connect(address: str, token: str) -> grpc.aio.StreamStreamCall:
    channel = grpc.aio.insecure_channel(address, options=[("grpc.max_send_message_length", 1 << 22)])
    call = referee_pb2_grpc.RefereeStub(channel).Play()
    await call.write(rpb.BotMessage(hello=rpb.Hello(token=token, name=f"hostile-{MODE}", version="1",
                                                    protocol_version=1)))
    return call


async def main() -> int:
    if MODE == "exit-early":
        return 3
    if MODE == "limits":
        import resource
        for name in ("RLIMIT_CORE", "RLIMIT_FSIZE", "RLIMIT_NOFILE"):
            print(f"{name}={resource.getrlimit(getattr(resource, name))[0]}", file=sys.stderr, flush=True)
    address, token = os.environ["SPITE_ADDRESS"], os.environ["SPITE_TOKEN"]
    if MODE == "wrong-token":
        token = "not-the-token"
    call = await connect(address, token)
    if MODE == "double-connect":
        second = await connect(address, token)
        try:
            await second.read()
            await second.read()
        except grpc.aio.AioRpcError as error:
            print(f"second connection refused: {error.code().name}: {error.details()}", file=sys.stderr, flush=True)
    decisions = 0
    try:
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                return 0
            body = message.WhichOneof("body")
            if body == "result" and message.result.error:
                print(f"referee says: {message.result.error}", file=sys.stderr, flush=True)
            if body == "game_over":
                print(f"game over: {message.game_over.outcome.reason}", file=sys.stderr, flush=True)
            if body != "decision":
                continue
            decision = message.decision
            decisions += 1
            did = decision.decision_id
            if MODE == "sleep-once" and decisions == 1:
                time.sleep((decision.deadline_ms + decision.bank_ms) / 1000 + 0.3)
                await call.write(action(did, choose(decision)))  # late: must be dropped, never applied
                continue
            if MODE == "loop-forever" and decisions == 2:
                while True:
                    pass
            if MODE == "old-decision" and decisions > 1:
                await call.write(action(did - 1, 0))
            if MODE == "garbage" and decisions == 2:
                await call.write(rpb.BotMessage(action=rpb.Action(decision_id=did)))
                continue
            if MODE == "bad-move" and decisions == 2:
                bad = rpb.BotMessage(action=rpb.Action(decision_id=did))
                bad.action.move.kind = 1
                bad.action.move.source = 1
                bad.action.move.card = 12
                bad.action.move.target = 0
                await call.write(bad)
                continue
            if MODE == "future-decision" and decisions == 2:
                await call.write(action(did + 5, 0))
                continue
            if MODE == "hello-again" and decisions == 2:
                await call.write(rpb.BotMessage(hello=rpb.Hello(token=token, protocol_version=1)))
                continue
            if MODE == "oversized" and decisions == 2:
                await call.write(action(did, 0, debug="x" * 200_000))
                continue
            if MODE == "flood" and decisions == 2:
                for _ in range(500):
                    await call.write(action(did - 1, 0))
                continue
            if MODE == "big-file" and decisions == 2:
                with open(os.path.join(os.environ["HOME"], "big.bin"), "wb") as out:
                    for _ in range(100):
                        out.write(b"x" * (1 << 20))
            if MODE == "crash-mid" and decisions == 3:
                os._exit(7)
            if MODE == "disconnect-mid" and decisions == 3:
                await call.done_writing()
                await asyncio.sleep(5)
                return 0
            await call.write(action(did, choose(decision), debug=f"mode {MODE}"))
    except grpc.aio.AioRpcError as error:
        print(f"referee refused: {error.code().name}: {error.details()}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
