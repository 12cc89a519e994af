"""A warm stdio bot for the tests: says warm in its Hello, plays the first legal move, and logs
every Welcome (``welcome process=<id> match=<match id> seat=<seat>`` on stderr) and every
MatchOver (``over process=<id> match=<match id> warm=<0|1>``).
It exits when the referee closes its stdin. ``python warm_stdio_bot.py chatter``: after each
MatchOver it writes 100 lines of garbage and stale actions (a flood between matches)."""

from __future__ import annotations

import json
import sys
import uuid

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"

PROCESS = uuid.uuid4().hex[:12]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    welcome: dict = {}
    warm = False
    send({"hello": {"name": "warm-stdio", "version": "1", "protocolVersion": 1, "warm": True}})
    for line in sys.stdin:
        message = json.loads(line)
        if "welcome" in message:
            welcome = message["welcome"]
            print(f"welcome process={PROCESS} match={welcome['matchId']} seat={welcome.get('seat', 0)}",
                  file=sys.stderr, flush=True)
        elif "gameStart" in message:
            warm = message["gameStart"].get("warm", False)
        elif "matchOver" in message:
            print(f"over process={PROCESS} match={welcome.get('matchId')} warm={int(warm)}", file=sys.stderr,
                  flush=True)
            if not warm:
                return 0
        if "matchOver" in message and MODE == "chatter":
            for n in range(50):
                sys.stdout.write("not json at all\n")
                send({"action": {"decisionId": str(n), "moveIndex": 3}})
            sys.stdout.flush()
        elif "decision" in message:
            send({"action": {"decisionId": message["decision"]["decisionId"], "moveIndex": 0}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
