"""A warm stdio bot for the tests: says warm in its Hello, plays the first legal move, and logs
every Welcome (``welcome process=<id> match=<match id> seat=<seat> warm=<0|1>`` on stderr).
It exits when the referee closes its stdin."""

from __future__ import annotations

import json
import sys
import uuid

PROCESS = uuid.uuid4().hex[:12]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    send({"hello": {"name": "warm-stdio", "version": "1", "protocolVersion": 1, "warm": True}})
    for line in sys.stdin:
        message = json.loads(line)
        if "welcome" in message:
            welcome = message["welcome"]
            print(f"welcome process={PROCESS} match={welcome['matchId']} seat={welcome.get('seat', 0)} "
                  f"warm={int(welcome.get('warm', False))}", file=sys.stderr, flush=True)
        elif "matchOver" in message and not welcome.get("warm", False):
            return 0
        elif "decision" in message:
            send({"action": {"decisionId": message["decision"]["decisionId"], "moveIndex": 0}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
