"""The stdio transport's protobuf frames (``stdio_format = "protobuf"``): the codec over random
messages and split reads, Python SDK bots on frames against gRPC and JSON-lines bots, and
hostile frames, each with its documented ending while the referee serves other matches.
Real referees, real bot processes, real pipes."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.local import LocalMatch, play_local_match
from referee.processes.manifest import BotManifest, ManifestError, load_manifest
from referee.transports.server import start_referee
from referee.transports.stdio import PROTOBUF_FRAMES, Unreadable
from spite.v1 import game_pb2 as pb
from spite.v1 import referee_pb2 as rpb
from spite_engine import Ending, parse_rules
from spite_sdk.pipe import Pipes
from spite_wire.encoding import varint
from tests.inprocess import play_match

from .conftest import BOTS, FAST, good, run_match

REPO = Path(__file__).resolve().parents[2]
CAP = 64 * 1024
SEED, BOT_SEED = 11, 5
CALM = TimeControl(decision_ms=2000, bank_ms=10_000, connect_ms=10_000)


def frames(mode: str) -> BotManifest:
    return BotManifest(name=f"frames-{mode}", command=(sys.executable, str(BOTS / "frames_bot.py"), mode),
                       workdir=BOTS, transport="stdio", stdio_format="protobuf")


def sample(name: str, transport: str = "grpc", stdio_format: str = "json") -> BotManifest:
    folder = REPO / "sample_bots" / name
    return BotManifest(name=name, command=(sys.executable, str(folder / "bot.py")), workdir=folder, language="python",
                       transport=transport, stdio_format=stdio_format)


def framed(message: Any) -> bytes:
    body = message.SerializeToString()
    return varint(len(body)) + body


# -- the codec ----------------------------------------------------------------------------

moves = st.builds(pb.Move, kind=st.integers(0, 3), source=st.integers(0, 3), source_index=st.integers(0, 3),
                  card=st.integers(0, 13), target=st.integers(0, 3))
texts = st.one_of(st.text(max_size=40), st.integers(0, 20_000).map(lambda n: "x" * n))
actions = st.builds(lambda decision_id, choice, debug: rpb.Action(decision_id=decision_id, debug=debug, **choice),
                    st.integers(0, 2**64 - 1),
                    st.one_of(st.just({}), st.integers(0, 2**32 - 1).map(lambda i: {"move_index": i}),
                              moves.map(lambda m: {"move": m}),
                              st.lists(moves, max_size=32).map(lambda ms: {"plan": rpb.Plan(moves=ms)})),
                    texts)
hellos = st.builds(rpb.Hello, token=st.text(max_size=50), name=st.text(max_size=64), version=st.text(max_size=10),
                   protocol_version=st.integers(0, 2**32 - 1), warm=st.booleans(), compact=st.booleans())
bot_messages = st.one_of(st.builds(lambda a: rpb.BotMessage(action=a), actions),
                         st.builds(lambda h: rpb.BotMessage(hello=h), hellos), st.just(rpb.BotMessage()))


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:])]


@settings(max_examples=150, deadline=None)
@given(messages=st.lists(bot_messages, max_size=8), cuts=st.lists(st.integers(0, 50_000), max_size=12))
def test_frames_read_back_whatever_the_reads_split(messages: list[rpb.BotMessage], cuts: list[int]) -> None:
    """The referee reads every frame back, however the pipe's reads cut the bytes, and then
    the end of the stream; the bytes it writes are protobuf's delimited format."""
    data = b"".join(framed(m) for m in messages)

    async def main() -> list[rpb.BotMessage | None]:
        stream = asyncio.StreamReader(limit=CAP + 1)

        async def feed() -> None:
            for chunk in split(data, cuts):
                stream.feed_data(chunk)
                await asyncio.sleep(0)
            stream.feed_eof()

        feeder = asyncio.get_running_loop().create_task(feed())
        read: list[rpb.BotMessage | None] = []
        while (raw := await PROTOBUF_FRAMES.read(stream)) is not None:
            read.append(PROTOBUF_FRAMES.decode(raw))
        read.append(None)
        await feeder
        return read

    assert asyncio.run(main()) == [*messages, None]


refusals = st.builds(lambda code, message: rpb.RefereeMessage(refusal=rpb.Refusal(code=code, message=message)),
                     st.text(max_size=20), texts)
referee_messages = st.one_of(refusals, st.builds(lambda d: rpb.RefereeMessage(decision=rpb.DecisionRequest(
    decision_id=d, deadline_ms=1000, packed_legal_moves=[1, 2, 3])), st.integers(0, 2**64 - 1)))


@settings(max_examples=150, deadline=None)
@given(messages=st.lists(referee_messages, max_size=8), cuts=st.lists(st.integers(0, 50_000), max_size=12))
def test_the_sdk_reads_the_referees_frames_whatever_the_reads_split(messages: list[rpb.RefereeMessage],
                                                                    cuts: list[int]) -> None:
    """The SDK's pipe reader, given the referee's frames a piece at a time, returns each whole
    frame once it has all of it, and the end of the stream after the last."""
    data = b"".join(PROTOBUF_FRAMES.encode(m.SerializeToString() if i % 2 else m) for i, m in enumerate(messages))
    assert data == b"".join(framed(m) for m in messages)  # ready-written bytes go out as they are
    read_fd, write_fd = os.pipe()
    call = Pipes(read_fd, write_fd)
    got: list[rpb.RefereeMessage] = []
    try:
        for chunk in split(data, cuts):
            os.write(write_fd, chunk)
            while (frame := call._next_frame(block=False)) is not None:
                got.append(rpb.RefereeMessage.FromString(frame))
        os.close(write_fd)
        assert call._next_frame(block=True) is None
    finally:
        os.close(read_fd)
    assert got == messages


@pytest.mark.parametrize("data, words", [
    (varint(2**40), "a frame of 1099511627776 bytes, over 64 KiB"),
    (varint(CAP + 1) + b"\x00" * 10, "a frame of 65537 bytes, over 64 KiB"),
    (b"\x80" * 10 + b"\x01", "a frame length over 10 bytes"),
    (b"\xff" * 9, "a frame length cut short"),
    (varint(100) + b"\x08" * 10, "a frame cut short by the end of the stream (10 of 100 bytes)"),
])
def test_an_unreadable_stream_is_refused_with_its_reason(data: bytes, words: str) -> None:
    async def main() -> None:
        stream = asyncio.StreamReader(limit=CAP + 1)
        stream.feed_data(data)
        stream.feed_eof()
        with pytest.raises(Unreadable, match=words.replace("(", r"\(").replace(")", r"\)")):
            await PROTOBUF_FRAMES.read(stream)

    asyncio.run(main())


def test_bytes_that_are_no_bot_message_are_a_value_error() -> None:
    with pytest.raises(ValueError, match="not a BotMessage in protobuf wire format"):
        PROTOBUF_FRAMES.decode(b"\xff\xff\xff\xff")
    assert PROTOBUF_FRAMES.decode(b"") == rpb.BotMessage()  # an empty frame is an empty message, as on gRPC


# -- the manifest ---------------------------------------------------------------------------

@pytest.mark.parametrize("extra, words", [
    ('transport = "stdio"\nstdio_format = "msgpack"\n', "field 'stdio_format' must be one of ('json', 'protobuf'), "
                                                         "got 'msgpack'"),
    ('stdio_format = "protobuf"\n', "field 'stdio_format' is for transport = \"stdio\" only"),
    ('transport = "grpc"\nstdio_format = "json"\n', "field 'stdio_format' is for transport = \"stdio\" only"),
])
def test_manifest_stdio_format_errors_are_one_line(tmp_path: Path, extra: str, words: str) -> None:
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "bot.toml").write_text(f'name = "b"\ncommand = ["{{python}}", "bot.py"]\n{extra}')
    with pytest.raises(ManifestError) as error:
        load_manifest(tmp_path)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_stdio_format_defaults_to_json_and_changes_the_fingerprint_only_when_set(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    base = 'name = "b"\ncommand = ["{python}", "bot.py"]\ntransport = "stdio"\n'
    (tmp_path / "bot.toml").write_text(base)
    plain = load_manifest(tmp_path)
    (tmp_path / "bot.toml").write_text(base + 'stdio_format = "json"\n')
    json_lines = load_manifest(tmp_path)
    (tmp_path / "bot.toml").write_text(base + 'stdio_format = "protobuf"\n')
    protobuf = load_manifest(tmp_path)
    assert (plain.stdio_format, protobuf.stdio_format) == ("json", "protobuf")
    # (path None: the fingerprint of the manifest alone; the rewritten bot.toml would differ anyway)
    plain, json_lines, protobuf = (dataclasses.replace(m, path=None) for m in (plain, json_lines, protobuf))
    assert plain.fingerprint() == json_lines.fingerprint() != protobuf.fingerprint()


# -- whole matches --------------------------------------------------------------------------

def outcomes(local: LocalMatch) -> list[tuple[Ending, tuple[int, ...]]]:
    return [(g.outcome.ending, tuple(g.outcome.winners)) for g in local.match.results]


def expected(names: Sequence[str], games: int) -> list[tuple[Ending, tuple[int, ...]]]:
    config = MatchConfig(parse_rules("standard"), list(names), CALM, games, SEED, Policy.FORFEIT)
    return [(o.ending, tuple(o.winners)) for o in play_match(config, list(names), bot_seed=BOT_SEED)]


def play(bots: Sequence[BotManifest], games: int, log_dir: Path) -> LocalMatch:
    config = MatchConfig(parse_rules("standard"), [b.name for b in bots], CALM, games, SEED, Policy.FORFEIT)
    return asyncio.run(play_local_match(bots, config, log_dir=log_dir, bot_seed=BOT_SEED))


@pytest.mark.parametrize("opponent, in_process", [
    (sample("random"), "random"),                                                       # gRPC, the Python SDK
    (BotManifest(name="stdio-greedy", command=(sys.executable, str(BOTS / "stdio_bot.py"), "greedy"),
                 workdir=BOTS, transport="stdio"), "greedy"),                            # JSON lines, no SDK
])
def test_an_sdk_bot_on_protobuf_frames_plays_as_in_process(opponent: BotManifest, in_process: str,
                                                           tmp_path: Path) -> None:
    bots = [sample("greedy", "stdio", "protobuf"), opponent]
    local = play(bots, 3, tmp_path / "logs")
    assert outcomes(local) == expected(["greedy", in_process], 3)
    assert [s.report.faults for s in local.match.seats] == [[], []]
    assert [e.returncode for e in local.exits] == [0, 0]


def test_a_bot_that_prints_to_stdout_still_plays(tmp_path: Path) -> None:
    """print(), a raw write to descriptor 1 and a child process's output go to the bot's log,
    not into the frames."""
    chatty = BotManifest(name="printing", command=(sys.executable, str(BOTS / "printing_bot.py")), workdir=BOTS,
                         transport="stdio", stdio_format="protobuf", language="python")
    local = play([chatty, sample("greedy")], 2, tmp_path / "logs")
    assert outcomes(local) == expected(["greedy", "greedy"], 2)
    assert local.match.seats[0].report.faults == []
    log = Path(local.logs[0] or "").read_text()
    assert "print: decision" in log and "raw: fd 1" in log and "child: echo" in log, log[-2000:]


def test_the_sdk_says_in_one_line_that_it_does_not_speak_json_lines(tmp_path: Path) -> None:
    env = {**os.environ, "SPITE_STDIO": "json"}
    done = subprocess.run([sys.executable, str(REPO / "sample_bots" / "greedy" / "bot.py")], env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert 'stdio_format = "protobuf"' in done.stderr


@pytest.mark.parametrize("mode, ending, words", [
    ("huge-length", Ending.MALFORMED, "a frame of 1099511627776 bytes, over 64 KiB: the session is closed"),
    ("long-varint", Ending.MALFORMED, "a frame length over 10 bytes"),
    # the end of its stream and its exit come together: either is its own loss
    ("truncated", (Ending.MALFORMED, Ending.CRASH), ("a frame cut short by the end of the stream (10 of 100 bytes)",
                                                     "exited with code 0")),
    ("garbage", Ending.MALFORMED, "unreadable frame on stdout: not a BotMessage"),
    ("flood", Ending.MALFORMED, "flooding"),
    ("over-cap", Ending.MALFORMED, "a frame of 65537 bytes, over 64 KiB"),
])
def test_hostile_frames_end_the_session_and_the_referee_serves_other_matches(
        mode: str, ending: Ending | tuple[Ending, ...], words: str | tuple[str, ...], tmp_path: Path) -> None:
    async def main() -> tuple[LocalMatch, LocalMatch]:
        referee = await start_referee("127.0.0.1:0")
        try:
            rules = parse_rules("standard")
            calm = MatchConfig(rules, ["a", "b"], FAST, 2, 5, Policy.FORFEIT)
            rough = MatchConfig(rules, ["x", "y"], FAST, 1, 6, Policy.FORFEIT)
            return await asyncio.gather(
                play_local_match([frames("good"), good()], calm, referee=referee),
                play_local_match([frames(mode), good()], rough, referee=referee, log_dir=tmp_path))
        finally:
            await referee.stop()

    calm, rough = asyncio.run(main())
    assert all(g.outcome.ending.by_rules for g in calm.match.results)
    outcome = rough.match.results[0].outcome
    endings, reasons = (ending, words) if isinstance(ending, tuple) else ((ending,), (words,))
    assert any(outcome.ending is e and w in outcome.reason for e, w in zip(endings, reasons)), outcome
    assert outcome.winners == (1,)


def test_a_frame_of_exactly_the_cap_is_a_message(tmp_path: Path) -> None:
    local = run_match([frames("at-cap"), good()], log_dir=tmp_path)
    assert local.match.results[0].outcome.ending.by_rules, local.match.results[0].outcome
    assert local.match.seats[0].report.faults == []


def test_the_sdk_on_pipes_says_hello_without_a_token_and_reports_a_refusal_in_one_line() -> None:
    """The SDK alone, its pipes driven by hand: its first frame is a Hello (no token: none was
    given), and a Refusal frame ends it with one line and status 1."""
    refusal = rpb.RefereeMessage(refusal=rpb.Refusal(code="UNAUTHENTICATED", message="unknown or expired seat token"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPITE_")}
    done = subprocess.run([sys.executable, str(REPO / "sample_bots" / "greedy" / "bot.py")], input=framed(refusal),
                          env={**env, "SPITE_STDIO": "protobuf"}, capture_output=True, timeout=60)
    assert done.returncode == 1, done
    size, body = done.stdout[0], done.stdout[1:]
    assert size == len(body) and rpb.BotMessage.FromString(body).hello.name == "greedy"
    assert rpb.BotMessage.FromString(body).hello.token == ""
    assert done.stderr.decode().strip().splitlines() == [
        "greedy: the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE) "
        "(UNAUTHENTICATED: unknown or expired seat token)"]
