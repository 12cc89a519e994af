"""A stdio-transport bot for the tests: newline-delimited canonical JSON on stdin/stdout.

    python stdio_bot.py MODE      (token from SPITE_TOKEN)

"good" plays the first legal play (else the last legal move); the other modes
misbehave once, at their second decision.
"""

from __future__ import annotations

import json
import os
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def choose(observation: dict) -> int:
    moves = observation.get("legalMoves", [])
    for index, move in enumerate(moves):
        if move.get("kind") == "MOVE_KIND_PLAY":
            return index
    return len(moves) - 1


def main() -> int:
    token = os.environ.get("SPITE_TOKEN", "")
    if MODE == "wrong-token":
        token = "nope"
    if MODE == "stray-before-hello":
        print("Hello referee, I am starting up!", flush=True)
    send({"hello": {"token": token, "name": f"stdio-{MODE}", "version": "1", "protocolVersion": 1}})
    decisions = 0
    for line in sys.stdin:
        message = json.loads(line)
        if "refusal" in message:
            print(f"refused: {message['refusal']['code']}: {message['refusal']['message']}", file=sys.stderr)
            return 1
        if "result" in message and message["result"].get("error"):
            print(f"referee says: {message['result']['error']}", file=sys.stderr, flush=True)
        if "matchOver" in message:
            return 0
        if "decision" not in message:
            continue
        decisions += 1
        decision = message["decision"]
        if decisions == 2 and MODE == "garbage":
            print("this is not json", flush=True)
            continue
        if decisions == 2 and MODE == "oversized":
            send({"action": {"decisionId": decision["decisionId"], "debug": "x" * 100_000}})
            continue
        if decisions == 2 and MODE == "silent":
            continue
        send({"action": {"decisionId": decision["decisionId"], "moveIndex": choose(decision["observation"]),
                         "debug": f"mode {MODE}"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
