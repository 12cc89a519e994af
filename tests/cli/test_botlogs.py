"""The log tail and the one-line crash summary that play, check-bot and the tournament show."""

from __future__ import annotations

from pathlib import Path

from tournaments.botlogs import crash_summary, tail

PYTHON = ["Traceback (most recent call last):", '  File "/a/sdk/bot.py", line 410, in _session',
          "    choice = self.decide(observation)", '  File "/a/bot.py", line 24, in decide',
          '    raise ValueError("x")', "ValueError: x", "crashy: the bot raised an exception and stopped"]
NODE = ["/x/dist/bot.js:12", '  throw new Error("boom");', "Error: boom",
        "    at Object.decide (/x/dist/bot.js:12:11)", "    at run (/x/node_modules/sdk/index.js:4:2)",
        "Node.js v20.11.0"]


def test_python_exception_and_the_innermost_frame() -> None:
    assert crash_summary(PYTHON) == "ValueError: x (bot.py line 24, in decide)"


def test_syntax_error() -> None:
    lines = ['  File "/tmp/b.py", line 3', "    def f(x)", "           ^", "SyntaxError: expected ':'"]
    assert crash_summary(lines) == "SyntaxError: expected ':' (b.py line 3)"


def test_node_exception_and_its_first_frame() -> None:
    assert crash_summary(NODE) == "Error: boom (bot.js line 12)"


def test_no_exception_is_empty() -> None:
    assert crash_summary(["connected", "played 20 moves"]) == ""


def test_tail_is_capped_in_lines_and_characters(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_text("\n".join(f"line {i}" for i in range(1000)) + "\n" + "x" * 10_000 + "\n")
    lines = tail(log, lines=5, chars=300)
    assert len(lines) <= 5 and sum(len(line) for line in lines) <= 300
    assert lines[-1].endswith("…")
    assert tail(tmp_path / "missing.log") == [] and tail(None) == []
