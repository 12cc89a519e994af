#!/usr/bin/env python3
"""The referee's own cost per decision, and how many matches one referee process holds.

    .venv/bin/python bench/referee_load.py [--matches 50] [--seconds 10] [--think 0] [--json]
    .venv/bin/python bench/referee_load.py --matches 1000 --think 1 --seconds 60   # the hosting figure

One referee process (``referee.transports.server.start_referee`` on TCP port 0) holds ``--matches``
concurrent two-seat matches; one light client process plays every seat over raw gRPC
stubs (Hello with the token in metadata, then ``move_index`` 0 for every decision, after
``--think`` seconds). After a warm-up, for ``--seconds``, the benchmark reads the referee
process's CPU time (``/proc/PID/stat``, user + system) and counts the decisions it judged:

* **referee CPU per decision** = its CPU time / decisions (everything: gRPC, protobuf,
  the rules engine, deadlines), and decisions per second;
* **added latency**: from the client writing an Action to the next DecisionRequest of that
  match reaching it (p50, p99), i.e. the referee's turnaround plus the transport;
* **lost matches**: matches that ended other than by playing (a seat timed out, crashed,
  never connected; void or aborted), read from the referee's GetMatch at the end;
* **memory**: the referee's resident set before the matches and with them all running
  (with ``--think`` > 0 they are mostly idle), per match.

The limits, measured in the same run with the same number of matches:

* a **bare gRPC bidi echo** server (a generic handler, bytes in, bytes out, no parsing) that
  answers each Action with a ready-serialized DecisionRequest (a game's first), with the same
  client and streams. Its CPU per round trip is what any referee on this gRPC stack pays at least;
* the **match loop without a wire**: the same ``Match`` objects, in this process, each seat's
  channel a function that hands back an ``Action`` for ``move_index`` 0 as soon as it reads a
  DecisionRequest's id. Its CPU per decision is the referee's own work: the rules engine, the
  encoding, deadlines and asyncio, with no transport. Referee ≈ this + the echo.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import random
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import echo  # noqa: E402  (bench/echo.py)
import grpc  # noqa: E402

from spite.v1 import referee_pb2 as rpb  # noqa: E402
from spite.v1 import referee_pb2_grpc  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
CHANNEL_STREAMS = 200
"""Streams per client channel (one HTTP/2 connection each)."""


# -- the servers (run as child processes of the benchmark) ------------------------------

async def _serve_referee(admin: str) -> None:
    from referee.transports.server import start_referee, tune_gc

    tune_gc()  # as spite referee does
    referee = await start_referee("127.0.0.1:0", admin_token=admin)
    print(referee.address, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await referee.stop(grace=0.2)


def _child_main(argv: list[str]) -> None:
    what, value = argv[0], argv[1]
    profile = argv[2] if len(argv) > 2 else ""
    runner = (lambda: asyncio.run(_serve_referee(value))) if what == "referee" else (
        lambda: asyncio.run(echo.serve_grpc(value)))
    if profile:
        import cProfile

        cProfile.runctx("runner()", globals(), {"runner": runner}, profile)
    else:
        runner()


class Child:
    """A server child process: its address, its CPU time and resident memory."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen([sys.executable, __file__, "--child", *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.address = self.process.stdout.readline().strip()
        if not self.address:
            raise SystemExit(f"referee_load: the {args[0]} server did not start")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def rss_bytes(self) -> int:
        return int(Path(f"/proc/{self.process.pid}/statm").read_text().split()[1]) * PAGE

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


# -- the client ---------------------------------------------------------------------------

class Tally:
    def __init__(self) -> None:
        self.decisions = 0
        self.latencies: list[float] = []
        self.measuring = False
        self.errors: list[str] = []


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def _play_seat(stub: Any, token: str, think: float, tally: Tally, sent_at: dict[str, float],
                     match_id: str, compact: bool, jitter: float = 0.0) -> None:
    call = stub.Play(metadata=((("spite-token", token),)))
    hello = rpb.Hello(name="load", version="1", protocol_version=1)
    if compact:
        hello.compact = True
    await call.write(rpb.BotMessage(hello=hello))
    async for message in call:
        kind = message.WhichOneof("body")
        if kind == "decision":
            now = time.perf_counter()
            if tally.measuring and match_id in sent_at:
                tally.latencies.append(now - sent_at[match_id])
            tally.decisions += tally.measuring
            if think:
                await asyncio.sleep(think * (1 + jitter * (2 * random.random() - 1)))
            sent_at[match_id] = time.perf_counter()
            await call.write(rpb.BotMessage(action=rpb.Action(decision_id=message.decision.decision_id,
                                                              move_index=0)))
        elif kind == "match_over":
            await call.done_writing()
            return


async def _play_echo(stub: Any, think: float, tally: Tally, request: bytes) -> None:
    call = stub()
    sent = time.perf_counter()
    await call.write(request)
    async for reply in call:
        now = time.perf_counter()
        rpb.RefereeMessage.FromString(reply)  # what a client does with a decision
        if tally.measuring:
            tally.latencies.append(now - sent)
            tally.decisions += 1
        if think:
            await asyncio.sleep(think)
        sent = time.perf_counter()
        await call.write(rpb.BotMessage(action=rpb.Action(decision_id=1, move_index=0)).SerializeToString())


async def _measure(child: Child, tally: Tally, warmup: float, seconds: float) -> dict[str, float]:
    await asyncio.sleep(warmup)
    rss = child.rss_bytes()
    cpu0, t0 = child.cpu_seconds(), time.perf_counter()
    tally.measuring = True
    await asyncio.sleep(seconds)
    tally.measuring = False
    cpu, wall = child.cpu_seconds() - cpu0, time.perf_counter() - t0
    return {"cpu_s": cpu, "wall_s": wall, "rss_running": rss}


def _channels(address: str, streams: int) -> list[grpc.aio.Channel]:
    return [grpc.aio.insecure_channel(address) for _ in range(max(1, -(-streams // CHANNEL_STREAMS)))]


async def run_referee(matches: int, think: float, warmup: float, seconds: float, rules: str,
                      profile: str, compact: bool, jitter: float = 0.0) -> dict[str, Any]:
    admin = secrets.token_urlsafe(16)
    child = Child("referee", admin, *([profile] if profile else []))
    try:
        rss_idle = child.rss_bytes()
        admin_md = (("spite-admin-token", admin),)
        channels = _channels(child.address, 2 * matches)
        stubs = [referee_pb2_grpc.RefereeStub(c) for c in channels]  # type: ignore[no-untyped-call]
        tally = Tally()
        sent_at: dict[str, float] = {}
        match_ids: list[str] = []
        seats: list[asyncio.Task[None]] = []
        # long enough never to end within the run: every game played until stopped
        time_control = rpb.TimeControl(decision_ms=max(2000, int(think * 4000)), bank_ms=10_000, connect_ms=60_000)
        for number in range(matches):
            created = await stubs[0].CreateMatch(rpb.CreateMatchRequest(
                rules=rules, seats=[rpb.SeatSpec(name="a"), rpb.SeatSpec(name="b")], time_control=time_control,
                games=1000, seed=number, policy=rpb.POLICY_FORFEIT), metadata=admin_md)
            match_ids.append(created.match_id)
            for index, token in enumerate(created.seat_tokens):
                stub = stubs[(2 * number + index) % len(stubs)]
                seats.append(asyncio.create_task(_play_seat(stub, token, think, tally, sent_at, created.match_id,
                                                            compact, jitter)))
        figures = await _measure(child, tally, warmup, seconds)
        lost = 0
        for match_id in match_ids:
            status = await stubs[0].GetMatch(rpb.GetMatchRequest(match_id=match_id), metadata=admin_md)
            bad_seat = any(s.status in (rpb.SEAT_STATUS_ERROR, rpb.SEAT_STATUS_TIMEOUT, rpb.SEAT_STATUS_INVALID)
                           or s.timeouts for s in status.seats)
            lost += bad_seat or status.state in (rpb.MATCH_STATE_VOID, rpb.MATCH_STATE_ABORTED)
        for task in seats:
            task.cancel()
        await asyncio.gather(*seats, return_exceptions=True)
        for channel in channels:
            await channel.close()
    finally:
        child.stop()
    return _figures("referee" + ("" if compact else " (full)"), matches, think, tally, figures, rss_idle=rss_idle,
                    lost=lost)


async def run_echo(streams: int, think: float, warmup: float, seconds: float, rules: str) -> dict[str, Any]:
    child = Child("echo", rules)
    try:
        channels = _channels(child.address, streams)
        tally = Tally()
        request = rpb.BotMessage(action=rpb.Action(decision_id=1, move_index=0)).SerializeToString()
        calls = [c.stream_stream(echo.METHOD) for c in channels]
        tasks = [asyncio.create_task(_play_echo(calls[i % len(calls)], think, tally, request))
                 for i in range(streams)]
        figures = await _measure(child, tally, warmup, seconds)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close()
    finally:
        child.stop()
    return _figures("bare gRPC echo", streams, think, tally, figures)


class _LoopChannel:
    """A seat's channel with no wire: a DecisionRequest's id is read from its bytes, and the
    Action answering it goes straight back into the match, as a reader task would put it."""

    def __init__(self, match: Any, seat: Any, tally: Tally) -> None:
        self.match, self.seat, self.tally = match, seat, tally

    async def send(self, message: Any) -> None:
        if isinstance(message, bytes):
            if message[0] != 0x22:  # RefereeMessage.decision
                return
            decision = rpb.RefereeMessage.FromString(message).decision.decision_id
        elif message.WhichOneof("body") == "decision":
            decision = message.decision.decision_id
        else:
            return
        self.tally.decisions += self.tally.measuring
        answer = rpb.BotMessage(action=rpb.Action(decision_id=decision, move_index=0))
        asyncio.get_running_loop().call_soon(self.match.receive, self.seat, self, answer)

    def close(self) -> None:
        pass


async def run_loop(matches: int, warmup: float, seconds: float, rules: str,
                   live_dir: Path | None = None) -> dict[str, Any]:
    """The match loop without a wire (module docstring), in this process; with ``live_dir``,
    each match also writes its public feed there (``referee.core.feed``, bench/live_feed.py)."""
    from referee.core.deadlines import TimeControl
    from referee.core.match import Match, MatchConfig
    from spite_engine import parse_rules

    tally = Tally()
    config = dict(rules=parse_rules(rules), seat_names=["a", "b"], games=1000,
                  time_control=TimeControl(decision_ms=2000, bank_ms=10_000, connect_ms=60_000))
    tasks = []
    for number in range(matches):
        feed = live_dir / f"loop{number}.feed" if live_dir is not None else None
        match = Match(f"loop{number}", MatchConfig(seed=number, live_feed=feed, **config))  # type: ignore[arg-type]
        for seat in match.seats:
            match.attach(seat, _LoopChannel(match, seat, tally), "load", "1", compact=True)
        tasks.append(asyncio.create_task(match.run()))
    await asyncio.sleep(warmup)
    cpu0, t0 = time.process_time(), time.perf_counter()
    tally.measuring = True
    await asyncio.sleep(seconds)
    tally.measuring = False
    figures = {"cpu_s": time.process_time() - cpu0, "wall_s": time.perf_counter() - t0}
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return _figures("match loop, no wire", matches, 0, tally, figures)


def _figures(variant: str, streams: int, think: float, tally: Tally, figures: dict[str, float],
             rss_idle: int = 0, lost: int = 0) -> dict[str, Any]:
    decisions = max(1, tally.decisions)
    result: dict[str, Any] = {
        "variant": variant, "streams": streams, "think_s": think, "decisions": tally.decisions,
        "decisions_per_s": tally.decisions / figures["wall_s"],
        "cpu_us_per_decision": figures["cpu_s"] / decisions * 1e6,
        "cpu_share": figures["cpu_s"] / figures["wall_s"],
        "latency_p50_ms": _percentile(tally.latencies, 0.5) * 1000,
        "latency_p99_ms": _percentile(tally.latencies, 0.99) * 1000,
    }
    if variant.startswith("referee"):
        result["lost_matches"] = lost
        result["rss_idle_mb"] = rss_idle / 2**20
        result["rss_running_mb"] = figures["rss_running"] / 2**20
        result["kb_per_match"] = (figures["rss_running"] - rss_idle) / 1024 / streams
    return result


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child_main(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=50, help="concurrent two-seat matches (default 50)")
    parser.add_argument("--think", type=float, default=0.0, help="seconds each seat takes per decision (default 0)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window (default 10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring (default 3)")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--jitter", type=float, default=0.0,
                        help="each think time drawn from think x (1 +- jitter), 0..1 (default 0: every seat "
                             "takes exactly --think, so matches created together answer in waves)")
    parser.add_argument("--no-echo", action="store_true", help="skip the bare echo limit")
    parser.add_argument("--no-loop", action="store_true", help="skip the match loop without a wire")
    parser.add_argument("--full", action="store_true",
                        help="also measure the session of a bot that does not ask for the compact one")
    parser.add_argument("--full-only", action="store_true",
                        help="only the full session (e.g. against a referee from before compact sessions)")
    parser.add_argument("--profile", default="", help="write the referee's cProfile to this file")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args()
    if not 1 <= args.matches <= 5000:
        parser.error("--matches must be 1..5000")
    if not 0 <= args.think <= 10 or not 1 <= args.seconds <= 3600 or not 0 <= args.warmup <= 600:
        parser.error("--think 0..10, --seconds 1..3600, --warmup 0..600")
    if not 0 <= args.jitter <= 1:
        parser.error("--jitter must be 0..1")
    warmup = max(args.warmup, args.matches / 200 + args.think * 2)  # every seat connected and playing
    rows = []
    for compact in (False,) if args.full_only else (True, False) if args.full else (True,):
        rows.append(asyncio.run(run_referee(args.matches, args.think, warmup, args.seconds, args.rules, args.profile,
                                            compact, args.jitter)))
        print(f"{rows[-1]['variant']}: {rows[-1]['decisions_per_s']:.0f} decisions/s, "
              f"{rows[-1]['cpu_us_per_decision']:.0f} µs CPU per decision", file=sys.stderr)
    if not args.no_loop and not args.think:
        rows.append(asyncio.run(run_loop(args.matches, min(warmup, 3.0), args.seconds, args.rules)))
    if not args.no_echo:
        rows.append(asyncio.run(run_echo(2 * args.matches if args.think else args.matches, args.think, warmup,
                                         args.seconds, args.rules)))
    document = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "machine": {
        "cpus": os.cpu_count(), "python": platform.python_version(), "grpc": grpc.__version__,
        "load_average": os.getloadavg()}, "rules": args.rules, "rows": rows}
    if args.json:
        print(json.dumps(document, indent=2))
        return 0
    print(f"{document['date']}  {os.cpu_count()} CPUs  Python {platform.python_version()}  grpc {grpc.__version__}  "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"{'variant':16} {'streams':>7} {'think':>5} {'decisions/s':>11} {'CPU µs/dec':>10} {'CPU share':>9} "
          f"{'p50 ms':>7} {'p99 ms':>7} {'lost':>4} {'KB/match':>8}")
    for row in rows:
        print(f"{row['variant']:16} {row['streams']:>7} {row['think_s']:>5g} {row['decisions_per_s']:>11.0f} "
              f"{row['cpu_us_per_decision']:>10.0f} {row['cpu_share']:>9.2f} {row['latency_p50_ms']:>7.2f} "
              f"{row['latency_p99_ms']:>7.2f} {row.get('lost_matches', ''):>4} "
              f"{row.get('kb_per_match', 0) and format(row['kb_per_match'], '.0f'):>8}")
    if not args.no_echo:
        echo = rows[-1]
        for row in rows[:-1]:
            if not row["variant"].startswith("referee"):
                continue
            print(f"{row['variant']}: CPU per decision {row['cpu_us_per_decision'] / echo['cpu_us_per_decision']:.1f}x "
                  f"the bare echo's per round trip; {row['decisions_per_s'] / echo['decisions_per_s']:.0%} of its rate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
