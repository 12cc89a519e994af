"""Bot.run() against a real grpc.aio referee, the bot in a real subprocess: on its blocking
stream (``spite_sdk.stream``) and, where a grpcio lacks that, on ``grpc.aio``, with the same
results."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import grpc
import pytest
from _sdk_referee import PYTHON, Session, run_bot
from _sdk_values import rule_set
from test_sdk_convert import sample_observation_proto

from spite.v1 import game_pb2, referee_pb2
from spite_sdk import Move, convert, policies

TOKEN = "seat-1-secret"

# Prints every hook call as one JSON line, and answers decisions 7, 8 and 9 with a move,
# a Decision(index, debug) and a plan.
SCRIPT_BOT = textwrap.dedent('''
    import json, sys, time
    from spite_sdk import Bot, Decision, policies

    def say(*what):
        print(json.dumps(what), flush=True)

    class ScriptBot(Bot):
        name = "script"
        version = "9.9.9"

        def on_welcome(self, welcome):
            say("welcome", welcome.seat, welcome.rules.name, sorted(welcome.rules.wild_ranks),
                welcome.time_control.decision, welcome.policy.name, self.seat)

        def on_game_start(self, game_number, observation):
            say("game_start", game_number, list(observation.hand), len(observation.legal_moves))

        def on_events(self, events):
            say("events", [[e.kind.name, e.seat, e.count] for e in events])

        def decide(self, observation):
            d = self.decision
            say("decide", d.decision_id, d.game_number, round(d.deadline - d.received, 3), d.bank,
                round(d.final_deadline - d.deadline, 3), 0 < d.time_left() <= 1.0, observation.seat,
                len(observation.events), str(observation.my_stock), observation.rules.name)
            if d.decision_id == 7:
                return policies.greedy_move(observation)
            if d.decision_id == 8:
                return Decision(-1, debug="\\u00e9" * 200)
            return [observation.legal_moves[0], observation.legal_moves[1]]

        def on_result(self, result):
            say("result", result.decision_id, result.fault.name, result.strikes)
            super().on_result(result)

        def on_game_over(self, game_number, outcome):
            say("game_over", game_number, outcome.ending.name, list(outcome.winners), outcome.offender)

        def on_match_over(self, result):
            say("match_over", list(result.points), result.reason)

    if __name__ == "__main__":
        result = ScriptBot().run()
        say("returned", result.reason)
''')


STREAMS = ["blocking", "event loop"]
NO_BLOCKING_STREAM = "import spite_sdk.stream\nspite_sdk.stream.supported = lambda channel: False\n"
"""Prepended to a bot's source: run() then plays as on a grpcio without the blocking stream."""


def write_bot(tmp_path: Path, source: str = SCRIPT_BOT, stream: str = "blocking") -> list[str]:
    path = tmp_path / "bot.py"
    path.write_text((NO_BLOCKING_STREAM if stream == "event loop" else "") + source)
    return [PYTHON, str(path)]


def test_this_grpcio_has_the_blocking_stream() -> None:
    """So the tests below that say "blocking" play on it."""
    from spite_sdk import stream

    with grpc.insecure_channel("127.0.0.1:1") as channel:
        assert stream.supported(channel)


def test_spite_blocking_stream_0_turns_the_blocking_stream_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The way out should a grpcio release change the private call it drives."""
    from spite_sdk import stream

    monkeypatch.setenv("SPITE_BLOCKING_STREAM", "0")
    with grpc.insecure_channel("127.0.0.1:1") as channel:
        assert not stream.supported(channel)


RULES = rule_set()


def decision_request(decision_id: int) -> referee_pb2.DecisionRequest:
    return referee_pb2.DecisionRequest(decision_id=decision_id, game_number=0, observation=sample_observation_proto(),
                                       deadline_ms=1000, bank_ms=5000)


async def whole_match(session: Session) -> None:
    await session.send(welcome=referee_pb2.Welcome(
        seat=1, rules=convert.rules_to_proto(RULES), games=1, match_id="m-test", protocol_version=1,
        time_control=referee_pb2.TimeControl(decision_ms=1000, bank_ms=5000, connect_ms=10_000),
        seat_names=["other", "script"], policy=referee_pb2.POLICY_SUBSTITUTE))
    opening = sample_observation_proto()
    del opening.legal_moves[:]
    await session.send(game_start=referee_pb2.GameStart(game_number=0, first_seat=0, observation=opening))
    await session.send(events=referee_pb2.EventBatch(game_number=0, events=[
        game_pb2.Event(kind=game_pb2.EVENT_KIND_TURN, seat=1, count=2, pile=-1)]))
    await session.send(decision=decision_request(7))
    await session.action()
    await session.send(result=referee_pb2.ActionResult(
        decision_id=7, fault=referee_pb2.FAULT_ILLEGAL_MOVE, strikes=1,
        error="H:7>C0: centre pile 0 needs 3 (or a wild), not 7",
        applied=[convert.move_to_proto(Move.parse("H:9>D1"))]))
    await session.send(decision=decision_request(8))
    await session.action()
    await session.send(result=referee_pb2.ActionResult(decision_id=8))
    await session.send(decision=decision_request(9))
    await session.action()
    await session.send(result=referee_pb2.ActionResult(decision_id=9, dropped=1))
    await session.send(game_over=referee_pb2.GameOver(game_number=0, outcome=game_pb2.Outcome(
        ending=game_pb2.ENDING_STOCK_EMPTIED, winners=[1], scores=[0, 1], reason="seat 1 emptied its stock",
        offender=-1)))
    await session.send(match_over=referee_pb2.MatchOver(points=[0, 1], wins=[0, 1], winners=[1],
                                                        reason="seat 1 won 1-0"))
    # The bot half-closes after MatchOver.
    assert await session.receive() is None


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_a_whole_match_over_a_real_stream(tmp_path: Path, transport: str, stream: str) -> None:
    env = {"SPITE_TOKEN": TOKEN} if transport == "tcp" else {"SPITE_TOKEN_FILE": str(tmp_path / "token")}
    (tmp_path / "token").write_text(TOKEN + "\n")
    run = run_bot(write_bot(tmp_path, stream=stream), whole_match, transport=transport, env=env)
    assert run.returncode == 0, run.stderr
    session = run.session

    # Hello first, with the token, and the token again in metadata; the SDK offers to play warm
    # and asks for the compact session (this scripted referee takes up neither: its GameStart
    # says so by leaving both false, so the stream is the full one and ends after MatchOver).
    assert session.hello == referee_pb2.Hello(token=TOKEN, name="script", version="9.9.9", protocol_version=1,
                                              warm=True, compact=True)
    assert session.metadata["spite-token"] == TOKEN
    assert session.half_closed

    # Each action echoes its decision_id; a move, an index (-1 counted from the end), a plan.
    first, second, third = session.actions
    legal = convert.observation_from_proto(sample_observation_proto(), RULES)
    assert first.decision_id == 7 and first.WhichOneof("choice") == "move"
    assert convert.move_from_proto(first.move) == policies.greedy_move(legal)
    assert not first.debug
    assert second.decision_id == 8 and second.WhichOneof("choice") == "move_index"
    assert second.move_index == len(legal.legal_moves) - 1
    assert second.debug == "é" * 128 and len(second.debug.encode()) == 256
    assert third.decision_id == 9 and third.WhichOneof("choice") == "plan"
    assert [convert.move_from_proto(m) for m in third.plan.moves] == list(legal.legal_moves[:2])

    # Every hook ran, in order, with converted values.
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [line[0] for line in lines] == ["welcome", "game_start", "events", "decide", "result", "decide", "result",
                                           "decide", "result", "game_over", "match_over", "returned"]
    assert lines[0] == ["welcome", 1, "standard", [0, 13], 1.0, "SUBSTITUTE", 1]
    assert lines[1] == ["game_start", 0, [0, 3, 3, 9, 13], 0]
    assert lines[2] == ["events", [["TURN", 1, 2]]]
    assert lines[3] == ["decide", 7, 0, 1.0, 5.0, 5.0, True, 1, 10, "StockView(count=0, visible=())", "standard"]
    assert lines[4] == ["result", 7, "ILLEGAL_MOVE", 1]
    assert lines[9] == ["game_over", 0, "STOCK_EMPTIED", [1], None]
    assert lines[10] == ["match_over", [0, 1], "seat 1 won 1-0"]

    # The rejection is on stderr, in words, by default.
    assert ("script: decision 7 rejected: ILLEGAL_MOVE: H:7>C0: centre pile 0 needs 3 (or a wild), not 7 "
            "(strikes: 1); the referee played H:9>D1 instead") in run.stderr
    assert "decision 8" not in run.stderr


async def refuse(session: Session) -> None:
    await session.context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown seat token")


@pytest.mark.parametrize("stream", STREAMS)
def test_a_refused_token_exits_non_zero_with_a_clear_line(tmp_path: Path, stream: str) -> None:
    run = run_bot(write_bot(tmp_path, stream=stream), refuse, env={"SPITE_TOKEN": "wrong"})
    assert run.returncode == 1
    assert run.session.hello is not None and run.session.hello.token == "wrong"
    assert run.stderr.strip().splitlines()[-1] == (
        "script: the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE) "
        "(UNAUTHENTICATED: unknown seat token)")
    assert "Traceback" not in run.stderr


async def hang_up_after_welcome(session: Session) -> None:
    await session.send(welcome=referee_pb2.Welcome(seat=0, rules=convert.rules_to_proto(RULES), protocol_version=1))


@pytest.mark.parametrize("stream", STREAMS)
def test_a_stream_closed_before_match_over_is_an_error(tmp_path: Path, stream: str) -> None:
    run = run_bot(write_bot(tmp_path, stream=stream), hang_up_after_welcome, env={"SPITE_TOKEN": TOKEN})
    assert run.returncode == 1
    assert "script: the referee closed the stream before the match was over" in run.stderr


async def one_decision(session: Session) -> None:
    await hang_up_after_welcome(session)
    await session.send(decision=decision_request(1))
    await session.receive()


@pytest.mark.parametrize("stream", STREAMS)
def test_an_exception_in_decide_stops_the_bot_with_its_traceback(tmp_path: Path, stream: str) -> None:
    source = ("from spite_sdk import Bot\nclass Broken(Bot):\n    def decide(self, o):\n        return 1 / 0\n"
              "Broken().run()\n")
    run = run_bot(write_bot(tmp_path, source, stream), one_decision, env={"SPITE_TOKEN": TOKEN})
    assert run.returncode == 1
    assert "ZeroDivisionError" in run.stderr
    assert "Broken: the bot raised an exception and stopped" in run.stderr


def test_a_decide_returning_nonsense_says_what_it_must_return(tmp_path: Path) -> None:
    source = "from spite_sdk import Bot\nclass Vague(Bot):\n    def decide(self, o):\n        pass\nVague().run()\n"
    run = run_bot(write_bot(tmp_path, source), one_decision, env={"SPITE_TOKEN": TOKEN})
    assert run.returncode == 1
    assert "decide() must return a Move, a list of Moves (a plan), an index" in run.stderr


async def never_called(session: Session) -> None:
    raise AssertionError("the bot connected without a token")


def test_no_token_is_a_configuration_error(tmp_path: Path) -> None:
    run = run_bot(write_bot(tmp_path), never_called)
    assert run.returncode == 2
    assert "script: no seat token: set SPITE_TOKEN, or SPITE_TOKEN_FILE" in run.stderr
    assert not run.referee.sessions


@pytest.mark.parametrize("stream", STREAMS)
def test_no_referee_is_reported_after_the_connect_timeout(tmp_path: Path, stream: str) -> None:
    run = run_bot(write_bot(tmp_path, stream=stream), never_called,
                  env={"SPITE_TOKEN": TOKEN, "SPITE_ADDRESS": "unix:/nonexistent/referee.sock",
                       "SPITE_CONNECT_TIMEOUT": "0.5"})
    assert run.returncode == 1
    assert "script: cannot reach the referee at unix:/nonexistent/referee.sock (waited 0.5 s" in run.stderr


async def whole_match_then_linger(session: Session) -> None:
    await whole_match(session)
    await asyncio.sleep(5)  # the stream stays open after the bot's half-close


@pytest.mark.parametrize("stream", STREAMS)
def test_a_stream_left_open_after_match_over_does_not_hold_the_bot(tmp_path: Path, stream: str) -> None:
    """After MatchOver the bot half-closes and gives the referee a moment (2 s) to end the
    stream; a referee that does not is not waited for."""
    run = run_bot(write_bot(tmp_path, stream=stream), whole_match_then_linger, env={"SPITE_TOKEN": TOKEN})
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == ["returned", "seat 1 won 1-0"]
