"""A stdio bot for the tests speaking length-delimited protobuf frames by hand (no SDK).

    python frames_bot.py MODE      (stdio_format = "protobuf"; token from SPITE_TOKEN_FILE, or none)

"good" answers every decision with its first legal move. The other modes misbehave once,
at their second decision, then read stdin until the referee closes it:

- ``huge-length``: a frame size of 2**40 bytes, and nothing after it;
- ``long-varint``: a frame size written in 11 bytes (ten with the continuation bit);
- ``truncated``: a frame of 100 bytes cut after 10, then it exits;
- ``garbage``: a frame whose bytes are no BotMessage;
- ``flood``: 500 stale actions in a row;
- ``at-cap``: its answer in a frame of exactly 64 KiB (a long debug text), then plays on;
- ``over-cap``: the same answer one byte longer.
"""

from __future__ import annotations

import os
import sys

from spite.v1 import referee_pb2 as rpb

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
CAP = 64 * 1024
IN, OUT = sys.stdin.buffer, sys.stdout.buffer


def varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def send_raw(data: bytes) -> None:
    OUT.write(data)
    OUT.flush()


def send(message: rpb.BotMessage) -> None:
    body = message.SerializeToString()
    send_raw(varint(len(body)) + body)


def receive() -> rpb.RefereeMessage | None:
    size, shift = 0, 0
    while True:
        byte = IN.read(1)
        if not byte:
            return None
        size |= (byte[0] & 0x7F) << shift
        shift += 7
        if not byte[0] & 0x80:
            break
    return rpb.RefereeMessage.FromString(IN.read(size))


def sized_answer(decision_id: int, size: int) -> rpb.BotMessage:
    """Move 0 for ``decision_id``, padded with debug text to exactly ``size`` bytes."""
    message = rpb.BotMessage(action=rpb.Action(decision_id=decision_id, move_index=0))
    pad = size - message.ByteSize()
    while True:
        message.action.debug = "x" * pad
        if message.ByteSize() == size:
            return message
        pad -= message.ByteSize() - size


def misbehave(decision_id: int) -> bool:
    """The mode's act at the second decision; False when the bot plays on afterwards."""
    if MODE == "huge-length":
        send_raw(varint(2**40))
    elif MODE == "long-varint":
        send_raw(b"\x80" * 10 + b"\x01")
    elif MODE == "truncated":  # then exit: while the bot lives its launcher holds the pipe open too
        send_raw(varint(100) + b"\x08" * 10)
        os._exit(0)
    elif MODE == "garbage":
        send_raw(varint(4) + b"\xff\xff\xff\xff")
    elif MODE == "flood":
        for _ in range(500):
            send(rpb.BotMessage(action=rpb.Action(decision_id=decision_id - 1, move_index=0)))
    elif MODE == "at-cap":
        send(sized_answer(decision_id, CAP))
        return False
    elif MODE == "over-cap":
        send(sized_answer(decision_id, CAP + 1))
    return True


def main() -> int:
    token_file = os.environ.get("SPITE_TOKEN_FILE", "")
    token = open(token_file).read().strip() if token_file else ""
    send(rpb.BotMessage(hello=rpb.Hello(token=token, name=f"frames-{MODE}", version="1", protocol_version=1)))
    decisions = 0
    while (message := receive()) is not None:
        kind = message.WhichOneof("body")
        if kind == "refusal":
            print(f"refused: {message.refusal.code}: {message.refusal.message}", file=sys.stderr)
            return 1
        if kind != "decision":
            continue
        decisions += 1
        if decisions == 2 and MODE != "good" and misbehave(message.decision.decision_id):
            while IN.read(65536):  # until the referee closes stdin
                pass
            return 0
        if decisions != 2 or MODE == "good":
            send(rpb.BotMessage(action=rpb.Action(decision_id=message.decision.decision_id, move_index=0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
