"""A stdio-transport bot for the tests: newline-delimited canonical JSON on stdin/stdout.

    python stdio_bot.py MODE      (token from SPITE_TOKEN)

"good" plays the first legal play (else the last legal move); "greedy" plays the
SDK's greedy policy (for the transport benchmark: same games as the gRPC bots); the
other modes misbehave once, at their second decision.
"""

from __future__ import annotations

import json
import os
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


KINDS = {"MOVE_KIND_PLAY": 0, "MOVE_KIND_DISCARD": 1, "MOVE_KIND_PASS": 2}
SOURCES = {"SOURCE_HAND": 0, "SOURCE_STOCK": 1, "SOURCE_DISCARD_PILE": 2}


def greedy(observation: dict, wild: frozenset[int]) -> int:
    """Index of spite_sdk.policies.greedy_move's choice, reading the JSON observation."""
    from types import SimpleNamespace

    from spite_sdk.policies import greedy_move

    moves = [SimpleNamespace(kind=KINDS[m.get("kind", "")], source=SOURCES.get(m.get("source", ""), 0),
                             index=m.get("sourceIndex", 0), card=m.get("card", 0), target=m.get("target", 0))
             for m in observation.get("legalMoves", [])]
    piles = [[tuple(p.get("cards", ())) for p in seat.get("piles", [])]
             for seat in observation.get("discardPiles", [])]
    view = SimpleNamespace(legal_moves=moves, rules=SimpleNamespace(wild_ranks=wild), discard_piles=piles,
                           seat=observation.get("seat", 0))
    return moves.index(greedy_move(view))


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
    wild: frozenset[int] = frozenset()
    for line in sys.stdin:
        message = json.loads(line)
        if "welcome" in message:
            wild = frozenset(message["welcome"]["rules"].get("wildRanks", []))
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
        pick = greedy(decision["observation"], wild) if MODE == "greedy" else choose(decision["observation"])
        send({"action": {"decisionId": decision["decisionId"], "moveIndex": pick,
                         "debug": f"mode {MODE}"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
