"""Hostile bots, one per behaviour, as real processes against a real referee.

For each: the right ending and reason are recorded, the other seat gets the win
(forfeit policy) or the game goes on (substitute policy), the bot is told what it
did wrong, and no bot process survives the match.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.core.status import FaultKind
from referee.local import play_local_match
from referee.transports.server import start_referee
from spite_engine import Ending, parse_rules

from .conftest import BOTS, FAST, good, hostile, judged_or_void, run_match
from .test_sandbox import survivors


def only_game(result):  # type: ignore[no-untyped-def]
    assert len(result.match.results) == 1
    return result.match.results[0].outcome


def log_text(result, seat: int) -> str:  # type: ignore[no-untyped-def]
    path = result.logs[seat]
    return Path(path).read_text() if path else ""


@pytest.mark.parametrize("mode, ending, words", [
    ("garbage", Ending.MALFORMED, "no move_index, move or plan"),
    ("bad-move", Ending.ILLEGAL_MOVE, "illegal move"),
    ("future-decision", Ending.MALFORMED, "does not exist yet"),
    ("hello-again", Ending.MALFORMED, "expected an Action"),
    ("flood", Ending.MALFORMED, "flooding"),
    ("loop-forever", Ending.TIMEOUT, "no answer"),
    ("crash-mid", Ending.CRASH, "exited with code 7"),
    ("disconnect-mid", Ending.DISCONNECT, "closed its stream"),
    ("exit-early", Ending.CRASH, "before connecting"),
    ("wrong-token", Ending.CRASH, "before connecting"),
])
def test_forfeit_policy_records_the_fault_and_the_other_seat_wins(mode: str, ending: Ending, words: str,
                                                                  logs: Path) -> None:
    result = run_match([hostile(mode), good()], log_dir=logs)
    # beside the suite's busy processes the looping bot may get none of ten windows: void, not its loss
    if judged_or_void(result.match):
        outcome = only_game(result)
        assert outcome.ending is ending, outcome
        assert words in outcome.reason, outcome.reason
        assert outcome.offender == 0 and outcome.winners == (1,)
        report = result.match.seats[0].report
        assert report.status in ("invalid", "timeout", "error")
        assert result.match.seats[1].report.status == "done"
    for info in result.exits:
        assert info.returncode is not None  # every process was reaped (the group was killed)


def test_wrong_token_is_told_unauthenticated(logs: Path) -> None:
    result = run_match([hostile("wrong-token"), good()], log_dir=logs)
    assert "UNAUTHENTICATED" in log_text(result, 0)


def test_second_connection_for_a_seat_is_refused_and_the_first_plays_on(logs: Path) -> None:
    result = run_match([hostile("double-connect"), good()], log_dir=logs)
    assert "ALREADY_EXISTS" in log_text(result, 0)
    assert only_game(result).ending.by_rules


def test_the_offender_is_told_why(logs: Path) -> None:
    result = run_match([hostile("bad-move"), good()], log_dir=logs)
    text = log_text(result, 0)
    assert "referee says: illegal move: H:Q>C0: there is no Q in your hand" in text
    assert "game over: seat 0 forfeits" in log_text(result, 1)  # the other bot is told too


def test_substitute_policy_plays_a_fallback_and_counts_strikes(logs: Path) -> None:
    result = run_match([hostile("bad-move"), good()], policy=Policy.SUBSTITUTE, log_dir=logs)
    outcome = only_game(result)
    assert outcome.ending.by_rules, outcome  # one strike: the game went on to a normal end
    report = result.match.seats[0].report
    assert report.illegal_moves == 1 and report.status == "done"
    assert "strike 1 of 3" in log_text(result, 0)


def test_late_answer_is_dropped_never_applied(logs: Path) -> None:
    # The bot oversleeps its first decision and the whole bank by 3 s (more than a busy
    # referee's own lag, which it would owe the bot); its later decisions get 2 s each.
    unhurried = TimeControl(decision_ms=2000, bank_ms=300, connect_ms=8000)
    result = run_match([hostile("sleep-once"), good()], policy=Policy.SUBSTITUTE, log_dir=logs,
                       time_control=unhurried)
    report = result.match.seats[0].report
    # charged for its first decision; the next one, sent while it slept on, may be late too
    # (its own doing: it was asleep, the referee gave it its time)
    assert report.timeouts >= 1 and report.faults[0].kind is FaultKind.TIMEOUT, report.faults
    assert report.faults[0].reason.startswith("game 0 decision 1:"), report.faults
    assert report.illegal_moves == 0 and report.malformed == 0  # the late answer was not judged
    assert "is closed; the action was dropped" in log_text(result, 0)
    assert only_game(result).ending.by_rules


def test_answers_to_old_decisions_are_dropped_without_penalty(logs: Path) -> None:
    result = run_match([hostile("old-decision"), good()], log_dir=logs)
    assert only_game(result).ending.by_rules
    report = result.match.seats[0].report
    assert report.timeouts == report.illegal_moves == report.malformed == 0


def test_oversized_message_ends_the_seat_not_the_referee(logs: Path) -> None:
    result = run_match([hostile("oversized"), good()], log_dir=logs)
    outcome = only_game(result)
    assert outcome.ending is Ending.CRASH and outcome.offender == 0
    assert "RESOURCE_EXHAUSTED" in log_text(result, 0)  # the bot was told why


def test_time_bank_absorbs_small_overruns() -> None:
    """A bot slower than the per-decision limit but within its bank is not faulted."""
    # good bots answer in a few ms; with decision_ms=1 nearly every answer overruns a little
    result = run_match([good(), good()], time_control=TimeControl(decision_ms=1, bank_ms=60_000, connect_ms=8000))
    reports = [s.report for s in result.match.seats]
    assert all(r.timeouts == 0 for r in reports)
    assert only_game(result).ending.by_rules


def test_referee_keeps_serving_other_matches_while_one_is_hostile(tmp_path: Path) -> None:
    async def main() -> tuple[object, object]:
        referee = await start_referee("127.0.0.1:0")
        try:
            rules = parse_rules("standard")
            calm = MatchConfig(rules, ["a", "b"], FAST, 2, 5, Policy.FORFEIT)
            rough = MatchConfig(rules, ["x", "y"], FAST, 2, 6, Policy.FORFEIT)
            return await asyncio.gather(
                play_local_match([good(), good()], calm, referee=referee),
                play_local_match([hostile("crash-mid"), good()], rough, referee=referee))
        finally:
            await referee.stop()

    calm, rough = asyncio.run(main())
    assert all(g.outcome.ending.by_rules for g in calm.match.results)  # type: ignore[attr-defined]
    assert [g.outcome.ending for g in rough.match.results] == [Ending.CRASH, Ending.CRASH]  # type: ignore[attr-defined]


def test_no_bot_process_survives_a_match(tmp_path: Path) -> None:
    """A bot that leaves a child behind (in a session of its own, so outside the bot's process
    group): everything the bot started dies with the match."""
    marker = f"--marker=leftover-{uuid.uuid4().hex}"
    script = tmp_path / "spawner.py"
    bot = tmp_path / "hostile_bot.py"  # next to the spawner: under bubblewrap only its directory is readable
    bot.write_text((Path(__file__).parent.parent / "bots" / "hostile_bot.py").read_text())
    script.write_text(
        "import os, subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {marker!r}], "
        "start_new_session=True)\n"
        f"os.execv(sys.executable, [sys.executable, {str(bot)!r}, 'good', {marker!r}])\n")
    import sys as _sys

    from referee.processes.manifest import BotManifest
    spawner = BotManifest(name="spawner", command=(_sys.executable, str(script)), workdir=tmp_path)
    result = run_match([spawner, good()])
    assert only_game(result).ending.by_rules
    assert survivors(marker) == []


def test_bots_run_under_resource_limits(logs: Path) -> None:
    """No core dumps, files capped at 64 MiB, 1024 open files: a bot writing a 100 MiB file
    is stopped by the kernel (SIGXFSZ, or EFBIG where the runtime ignores that signal, as
    CPython does) and loses the game."""
    result = run_match([hostile("limits"), good()], log_dir=logs)
    text = log_text(result, 0)
    assert "RLIMIT_CORE=0" in text and f"RLIMIT_FSIZE={64 * 1024 * 1024}" in text and "RLIMIT_NOFILE=1024" in text
    result = run_match([hostile("big-file"), good()], log_dir=logs)
    outcome = only_game(result)
    assert outcome.ending is Ending.CRASH and outcome.offender == 0, outcome
    assert "File too large" in log_text(result, 0)


# -- a manifest cannot reach out of its folder (both modes: checked before any process starts) --

@pytest.mark.parametrize("field, line", [
    ("workdir", 'workdir = "../.."'),
    ("workdir", 'workdir = "/"'),
    ("command", 'command = ["{python}", "../../seed.secret"]'),
    ("command", 'command = ["{python}", "/etc/hostname"]'),
    ("command", 'command = ["{python}", "bot.py", "--key=../seed.secret"]'),
    ("command", 'command = ["./link/bot"]'),
])
def test_a_manifest_that_reaches_out_of_its_folder_is_refused_naming_the_field(tmp_path: Path, field: str,
                                                                               line: str) -> None:
    """The attack: ``workdir = "../.."`` let a bot read the tournament's ``seed.secret`` under
    bubblewrap (its workdir is bound into its view), ``workdir = "/"`` voided its matches."""
    from referee.processes.manifest import ManifestError, load_manifest

    (tmp_path / "seed.secret").write_text("s3cret")
    folder = tmp_path / "entrant" / "bot"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "link").symlink_to(tmp_path)  # a symlink out of the folder is followed, then refused
    (tmp_path / "bot").write_text("#!/bin/sh\n")
    (tmp_path / "bot").chmod(0o755)
    text = 'name = "sneaky"\n' + ("" if line.startswith("command") else 'command = ["{python}", "bot.py"]\n') + line
    (folder / "bot.toml").write_text(text + "\n")
    with pytest.raises(ManifestError, match=f"field '{field}'.*leads out of the bot's folder"):
        load_manifest(folder / "bot.toml")


def test_a_manifest_inside_its_folder_still_loads(tmp_path: Path) -> None:
    from referee.processes.manifest import load_manifest

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bot.py").write_text("")
    (tmp_path / "bot.toml").write_text('name = "fine"\nworkdir = "src"\ncommand = ["{python}", "{dir}/src/bot.py", '
                                       '"--data=./x"]\n')
    assert load_manifest(tmp_path / "bot.toml").workdir == (tmp_path / "src").resolve()


# -- the attacks of issue 13, in both modes: isolated (bubblewrap) and the fallback ----------

MODES = ("isolated", "fallback")


_bot_python: dict[int, str] = {}


def bot_readable_python(uid: int) -> str:
    """An interpreter of this Python's version that ``uid`` can reach, with this environment's
    packages: this one, or else a venv (made once, in a directory every user can read) of
    the same version found outside the unreachable path, whose one ``.pth`` adds this
    environment's site-packages. A pyenv under a private /root is what the organizer of a
    real fallback machine would replace the same way."""
    import site
    import subprocess
    import sys
    import tempfile

    from referee.sandbox import unreachable

    if uid in _bot_python:
        return _bot_python[uid]
    if not unreachable(uid, [Path(sys.executable)]):
        _bot_python[uid] = sys.executable
        return sys.executable
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for base in (Path("/usr/bin") / version, Path("/usr/local/bin") / version):
        if not base.exists() or unreachable(uid, [base]):
            continue
        root = Path(tempfile.mkdtemp(prefix="spite-bot-python-"))
        root.chmod(0o755)
        made = subprocess.run([str(base), "-m", "venv", "--without-pip", str(root / "venv")], capture_output=True)
        if made.returncode != 0:
            continue
        packages = next(iter((root / "venv" / "lib").glob("python*/site-packages")))
        ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
        (packages / "spite-arena.pth").write_text(
            "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours) + "\n")
        python = root / "venv" / "bin" / "python"
        check = subprocess.run([str(python), "-c", "import grpc, spite.v1.referee_pb2"], capture_output=True)
        if check.returncode == 0 and not unreachable(uid, [python]):
            _bot_python[uid] = str(python)
            return str(python)
    return ""


@pytest.fixture(params=MODES)
def sandbox_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each attack runs isolated (bubblewrap: skipped without it, a failure under CI) and in the
    fallback (``SPITE_SANDBOX=insecure``), where bots are kept apart by a uid of their own when
    the organizer is root. Bot uids cannot reach an interpreter under a private home (a
    pyenv under /root): the fallback then runs the bots with :func:`bot_readable_python`,
    and skips (fails under CI) only where there is none."""
    import os
    import sys

    from referee.sandbox import detect, uid_range, unreachable

    from .test_sandbox import unavailable

    if request.param == "isolated":
        if not detect().isolated:
            unavailable(f"bubblewrap is not usable here: {detect().reason}")
        yield "isolated"
        return
    bounds = uid_range()
    if bounds is None:
        unavailable("the fallback keeps bots apart only with a uid each, which needs root (SPITE_BOT_UIDS)")
    assert bounds is not None
    python = bot_readable_python(bounds[0])
    blocked = unreachable(bounds[0], [Path(python or sys.executable), BOTS])
    if blocked or not python:
        unavailable(f"the fallback cannot give bots uids of their own here: uid {bounds[0]} cannot reach "
                    f"{blocked or sys.executable}, and no {sys.version_info.major}.{sys.version_info.minor} "
                    f"interpreter it can reach was found")
    monkeypatch.setattr(sys, "executable", python)  # the bots' (and their supervisor's) interpreter
    monkeypatch.setenv("SPITE_SANDBOX", "insecure")
    detect.cache_clear()
    try:
        yield "fallback"
    finally:
        monkeypatch.delenv("SPITE_SANDBOX")
        detect.cache_clear()
        assert os.environ.get("SPITE_SANDBOX") is None


def _attack(mode: str, tmp_path: Path) -> tuple[Any, str, str]:
    from .test_sandbox import log_text, marked, new_marker

    marker = new_marker()
    logs = tmp_path / "logs"
    result = run_match([marked(mode, marker), good()], log_dir=logs)
    assert survivors(marker) == [], "nothing of the hostile bot survives the match"
    return result, log_text(result, 0), log_text(result, 1)


def _honest_bot_won(result: Any, honest_log: str) -> None:
    outcome = only_game(result)
    assert outcome.ending.by_rules or outcome.winners == (1,), outcome
    assert "UNAUTHENTICATED" not in honest_log and "referee refused" not in honest_log, honest_log
    assert result.match.seats[1].report.status == "done", result.match.seats[1].report
    assert result.match.seats[1].report.crashes == 0


def test_a_bot_cannot_steal_the_other_seats_token(sandbox_mode: str, tmp_path: Path) -> None:
    """The attack: read SPITE_TOKEN from the opponent's /proc/<pid>/environ, connect as its seat
    first and forfeit it. Now the token is in neither the environment, nor a file, nor a pipe
    the hostile bot can open."""
    result, hostile_log, honest_log = _attack("steal", tmp_path)
    assert "steal: 0 foreign tokens" in hostile_log, hostile_log
    assert result.match.seats[1].token not in hostile_log
    _honest_bot_won(result, honest_log)


def test_a_bot_cannot_kill_the_other_bot(sandbox_mode: str, tmp_path: Path) -> None:
    result, hostile_log, honest_log = _attack("kill", tmp_path)
    assert "kill: 0 signalled" in hostile_log, hostile_log
    _honest_bot_won(result, honest_log)
    assert result.exits[1].returncode == 0, result.exits[1]


def test_a_bot_cannot_leave_its_cgroup_or_outlive_the_match(sandbox_mode: str, tmp_path: Path) -> None:
    """The attack: as root, move to the parent cgroup, then setsid and double fork a daemon
    (it survived the match, ppid 1). The bot's own uid cannot write the root-owned cgroup
    files, and the supervisor, its subreaper, kills whatever it started."""
    result, hostile_log, honest_log = _attack("escape", tmp_path)
    assert "escape: 0 cgroup moves" in hostile_log, hostile_log
    _honest_bot_won(result, honest_log)


def test_nothing_a_bot_writes_outlives_the_match(sandbox_mode: str, tmp_path: Path) -> None:
    import ast
    import re

    result, hostile_log, honest_log = _attack("disk", tmp_path)
    written = re.search(r"disk: wrote (\[.*\])", hostile_log)
    assert written, hostile_log
    names = {Path(path).name for path in ast.literal_eval(written.group(1))}  # this bot's files, not another test's
    assert len(names) == 1, written.group(1)
    name = names.pop()
    leftovers = [p for p in ("/tmp", "/var/tmp", "/dev/shm", str(BOTS)) if (Path(p) / name).exists()]
    assert leftovers == [], f"files the bot wrote remain in {leftovers}"
    _honest_bot_won(result, honest_log)


def test_the_fallback_keeps_a_root_organizers_bots_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without bubblewrap, as root: a bot (here a shell script, which any uid can run) gets a
    uid of its own, so it cannot signal the other bot or read its home; its HOME is a private
    tmpfs of 256 MiB; the store, replays and logs are closed to it; and what it wrote in /tmp or
    /dev/shm is deleted after the match."""
    import os

    from referee.processes.manifest import BotManifest
    from referee.sandbox import detect, uid_range

    from .test_sandbox import log_text, marked, new_marker

    if uid_range() is None:
        pytest.skip("bots get uids of their own only when the organizer is root")
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="spite-shbot-"))  # pytest's tmp_path is closed to other uids
    folder.chmod(0o755)
    secrets = Path(tempfile.mkdtemp(prefix="spite-organizer-"))  # the tournament's files, world-readable at first
    secrets.chmod(0o755)
    for name in ("store.db", "replays/old.jsonl", "logs/old.log"):
        (secrets / name).parent.mkdir(exist_ok=True)
        (secrets / name).write_text("the-secret")
        (secrets / name).chmod(0o644)
        (secrets / name).parent.chmod(0o755)
    honest = new_marker()
    tag = honest.rsplit("-", 1)[-1]
    script = (f"id -u; df -P $HOME | tail -1; echo x > /tmp/spite-sweep-{tag}; mkdir /dev/shm/spite-sweep-{tag}; "
              f"for p in $(pgrep -f -- {honest}); do [ $p = $$ ] || {{ kill -9 $p && echo killed $p; }}; done; "
              f"sleep 1; ls $HOME/../seat1 2>&1 | head -1; "
              f"for f in {secrets}/store.db {secrets}/replays/old.jsonl {secrets}/logs/old.log; do cat $f 2>&1; done; "
              f"sleep 1")
    monkeypatch.setenv("SPITE_SANDBOX", "insecure")
    detect.cache_clear()
    try:
        bots = [BotManifest(name="shbot", command=("sh", "-c", script), workdir=folder), marked("plant", honest)]
        config = MatchConfig(parse_rules("standard"), [b.name for b in bots], FAST, 1, 1, Policy.FORFEIT,
                             replay_dir=secrets / "replays")
        result = asyncio.run(play_local_match(bots, config, log_dir=secrets / "logs", hide=[secrets / "store.db"]))
    finally:
        monkeypatch.delenv("SPITE_SANDBOX")
        detect.cache_clear()
        shutil.rmtree(folder)
    text = log_text(result, 0)
    shutil.rmtree(secrets)
    uid = int(text.split()[0])
    assert uid != os.geteuid() and uid_range()[0] <= uid <= uid_range()[1], text  # type: ignore[index]
    assert "spite-" in text.splitlines()[1] and " 262144 " in text.splitlines()[1], "HOME: a 256 MiB tmpfs: " + text
    assert "killed" not in text and "Operation not permitted" in text, text
    assert "Permission denied" in text, "the other seat's home is closed to it: " + text
    assert "the-secret" not in text, "the store, the replays and the logs are closed to it: " + text
    assert not list(Path("/tmp").glob(f"spite-sweep-{tag}")) and not list(Path("/dev/shm").glob(f"spite-sweep-{tag}"))
    assert result.match.seats[1].report.status == "done" and only_game(result).winners == (1,)
    assert survivors(honest) == []
