"""The bot sandbox with real processes: bubblewrap isolation, cgroup limits, pause and resume,
CPU time of the whole bot, ``spite doctor``, and hostile bots that fork-bomb, hog memory,
flood their output, reach for the network or read what they should not.

Every match here checks that no process of the bot is left afterwards, by a marker on its
command line that all its children inherit. Where the machine lacks bubblewrap or a cgroup
controller the test is skipped with the reason, except under CI (``CI=true``), where that
is a failure: CI installs bubblewrap (.ci/run) and must run these for real.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import socket
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.local import LocalMatch, play_local_match
from referee.processes.launcher import LOG_CAP, BotProcess
from referee.processes.manifest import BotManifest, ManifestError, load_manifest
from referee.sandbox import Isolation, Limits, cgroup_parents, detect, process_cpu_seconds
from referee.transports.server import start_referee
from spite_cli import doctor
from spite_engine import Ending, parse_rules

from ..load import frozen, until
from .conftest import BOTS, FAST, good, run_match


def survivors(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (zombies have none); waits up to
    2 s for ones already killed to go."""
    found: list[int] = []
    for _ in range(40):
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and entry.name != str(os.getpid()):
                try:
                    if marker.encode() in (entry / "cmdline").read_bytes():
                        found.append(int(entry.name))
                except OSError:
                    continue
        if not found:
            return found
        time.sleep(0.05)
    return found


def unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must have it (.ci/run installs bubblewrap)")
    pytest.skip(reason)


def require_bubblewrap() -> None:
    mode = detect()
    if not mode.isolated:
        unavailable(f"no bubblewrap sandbox on this machine: {mode.reason}")


def require_cgroup(controller: str) -> None:
    if controller not in cgroup_parents():
        unavailable(f"the cgroup v1 '{controller}' controller is not writable here")


def marked(mode: str, marker: str, env: dict[str, str] | None = None, limits: Limits | None = None,
           workdir: Path = BOTS) -> BotManifest:
    """The hostile bot in ``mode``, with ``marker`` on its command line."""
    return BotManifest(name=f"hostile-{mode}", command=(sys.executable, str(BOTS / "hostile_bot.py"), mode, marker),
                       workdir=workdir, language="python", env=env or {}, limits=limits)


def new_marker() -> str:
    return f"--marker=spite-test-{uuid.uuid4().hex}"


def log_text(result: LocalMatch, seat: int) -> str:
    path = result.logs[seat]
    return Path(path).read_text(errors="replace") if path else ""


def only_outcome(result: LocalMatch) -> Any:
    assert len(result.match.results) == 1
    return result.match.results[0].outcome


# -- mode and doctor -------------------------------------------------------------------------

def test_every_bot_runs_in_the_machines_sandbox_mode(logs: Path) -> None:
    result = run_match([good(), good()], log_dir=logs)
    assert only_outcome(result).ending.by_rules
    assert [e.sandbox for e in result.exits] == [detect().name] * 2
    if os.environ.get("CI") == "true":
        assert detect().isolated, detect().reason  # .ci/run installed bubblewrap


def test_doctor_reports_mode_cgroups_and_toolchains(capsys: pytest.CaptureFixture[str]) -> None:
    from spite_cli.main import main
    assert main(["doctor", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sandbox"]["mode"] == detect().name and data["sandbox"]["reason"]
    assert set(data["cgroups"]) == {"pids", "memory", "cpuacct", "freezer", "cpu"}
    for name, group in data["cgroups"].items():
        assert group["usable"] == (name in cgroup_parents())
        assert (group["fallback"] is None) == group["usable"]
    assert set(data["toolchains"]) == {"python", "node", "go", "cargo", "java", "perl"}
    assert data["toolchains"]["python"]["found"] and "Python 3" in data["toolchains"]["python"]["version"]
    assert main(["doctor"]) == 0
    text = capsys.readouterr().out
    assert ("BUBBLEWRAP" if detect().isolated else "INSECURE") in text and "toolchains" in text


def test_doctor_labels_the_insecure_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPITE_SANDBOX", "insecure")
    detect.cache_clear()
    try:
        out = io.StringIO()
        assert doctor.main(out=out) == 0
        assert "INSECURE (bots are NOT isolated)" in out.getvalue() and "SPITE_SANDBOX=insecure" in out.getvalue()
    finally:
        monkeypatch.delenv("SPITE_SANDBOX")
        detect.cache_clear()


def test_unisolated_play_and_tournament_say_so_and_untrusted_entrants_are_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Without isolation ``spite play`` and ``spite tournament`` print one WARNING line saying why,
    and a tournament of ``entrants = "untrusted"`` does not start, naming the fix."""
    from spite_cli.main import main
    from tests.tournaments.conftest import write_tournament

    monkeypatch.setenv("SPITE_SANDBOX", "insecure")
    detect.cache_clear()
    try:
        untrusted = write_tournament(tmp_path, "untrusted", bots=["greedy", "random"], entrants="untrusted")
        assert main(["tournament", str(untrusted), "--db", str(tmp_path / "u.db"), "--plain"]) == 2
        err = capsys.readouterr().err
        assert 'entrants = "untrusted" needs isolated bots' in err and "Fix: unset SPITE_SANDBOX" in err
        assert not (tmp_path / "u.db").exists(), "refused before anything ran"
        trusted = write_tournament(tmp_path, "trusted", bots=["greedy", "random"], match_games=1)
        main(["tournament", str(trusted), "--db", str(tmp_path / "t.db"), "--plain"])
        out = capsys.readouterr().out
        assert sum("WARNING: bots run UNISOLATED" in line for line in out.splitlines()) == 1
        assert main(["play", "greedy", "random", "--games", "1", "--plain"]) == 0
        err = capsys.readouterr().err
        assert sum("WARNING: bots run UNISOLATED" in line for line in err.splitlines()) == 1
    finally:
        monkeypatch.delenv("SPITE_SANDBOX")
        detect.cache_clear()
    if not detect().isolated:
        return
    assert main(["play", "greedy", "random", "--games", "1", "--plain"]) == 0
    assert "UNISOLATED" not in capsys.readouterr().err, "isolated: no warning"


def test_a_tournament_file_says_who_its_entrants_are(tmp_path: Path) -> None:
    from tests.tournaments.conftest import write_tournament
    from tournaments.config import TournamentFileError, load_tournament

    assert load_tournament(write_tournament(tmp_path, "u", entrants="untrusted")).untrusted
    assert not load_tournament(write_tournament(tmp_path, "t")).untrusted
    with pytest.raises(TournamentFileError, match="entrants"):
        load_tournament(write_tournament(tmp_path, "bad", entrants="friends"))


# -- limits in the manifest ------------------------------------------------------------------

def test_manifest_limits_override_the_language_defaults(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "jvm"\nlanguage = "java"\ncommand = ["java", "-version"]\n'
                                       '[limits]\nmemory_mb = 2048\n')
    limits = load_manifest(tmp_path).limits
    assert limits == Limits(memory_mb=2048, cpu_seconds=600, processes=256, open_files=1024)
    for table, words in [("memory_mb = -1", "'limits.memory_mb' must be a positive integer"),
                         ("processes = 2", "'limits.processes' must be at least 8"),
                         ('cpu_seconds = "lots"', "'limits.cpu_seconds' must be a positive integer"),
                         ("threads = 4", "unknown key(s) ['threads']")]:
        (tmp_path / "bot.toml").write_text(f'name = "bad"\ncommand = ["java"]\n[limits]\n{table}\n')
        with pytest.raises(ManifestError, match="bot 'bad'") as error:
            load_manifest(tmp_path)
        assert words in str(error.value)


# -- pause, resume and CPU time ------------------------------------------------------------

BUSY_FAMILY = ("import os, sys\n"
               "if os.fork() == 0:\n"
               "    while True: pass\n"
               "while True: pass\n")


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandbox", "process-group"])
def test_pause_freezes_the_whole_bot_and_cpu_counts_every_process(tmp_path: Path, sandboxed: bool) -> None:
    """A bot and its child both spin. Paused, neither uses CPU; the bot's CPU time covers both.

    No comparison depends on how much CPU a loaded machine gives the spinners: running, they
    are waited for (generously) until they have used some; paused, they must use none at all
    over two seconds, where running they would have had up to four."""
    marker = new_marker()

    async def until_used(process: BotProcess, since: float, seconds: float) -> float:
        deadline = time.monotonic() + 30  # not a speed check: a loaded machine gives them less than a core
        while process.cpu_seconds() - since < seconds and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return process.cpu_seconds() - since

    async def main() -> tuple[float, float, float, float, float]:
        home = tmp_path / "home"
        home.mkdir()
        process = BotProcess("busy", [sys.executable, "-c", BUSY_FAMILY, marker], tmp_path,
                             BotProcess.clean_env({"HOME": str(home)}), None, language="python",
                             isolation=Isolation(home=home) if sandboxed else None)
        await process.start()
        try:
            ran = await until_used(process, 0.0, 0.5)
            process.pause()
            await until(lambda: frozen(process._members()), "the freezer (or SIGSTOP) to catch every thread")
            paused_at = process.cpu_seconds()
            await asyncio.sleep(2.0)
            while_paused = process.cpu_seconds() - paused_at
            members = process._members()
            whole = process.cpu_seconds()
            each = process_cpu_seconds(members)
            process.resume()
            resumed = await until_used(process, whole, 0.2)
            return ran, while_paused, resumed, whole, each
        finally:
            await process.stop(grace=0)

    ran, while_paused, resumed, whole, each = asyncio.run(main())
    assert ran >= 0.5, ran  # both spin
    assert while_paused < 0.02, (ran, while_paused)  # frozen: no CPU at all (one clock tick of slack)
    assert resumed >= 0.2, (resumed, while_paused)  # thawed: they spin again
    assert whole >= 0.9 * each, (whole, each)  # every process of the bot is counted
    assert survivors(marker) == []


UNHURRIED = TimeControl(decision_ms=2000, bank_ms=5000, connect_ms=20_000)
"""For tests about something else than deadlines: a loaded machine must not turn them into timeouts."""


def test_frozen_thinking_stops_a_bot_between_its_decisions(logs: Path) -> None:
    """A bot whose child spins all match, against a bot that idles 50 ms per decision. The bot
    measures its child's CPU time in the waits between its answer and its next decision (the
    opponent's turns): with thinking frozen the child is stopped there, so it gets at most
    the moments the referee takes to freeze and thaw it -- a small share of that wall time
    however loaded the machine is, as CPU time cannot exceed the time the child was thawed.
    Allowed to think, the child runs through those waits."""
    from referee.core.deadlines import Thinking
    marker = new_marker()
    waits = {}
    for thinking in (Thinking.ALLOWED, Thinking.FROZEN):
        result = run_match([marked("ponder", marker), marked("slow", marker, env={"SPITE_SLOW_MS": "50"})],
                           log_dir=logs, thinking=thinking, time_control=UNHURRIED)
        assert result.match.state_name == "finished", result.match.summary()
        assert only_outcome(result).ending.by_rules, only_outcome(result)
        report = result.match.seats[0].report
        assert report.decisions > 20 and len(report.decision_cpu_us) == report.decisions
        text = log_text(result, 0)
        assert "between decisions: " in text, text[-2000:]
        words = text.split("between decisions: ")[-1].split()
        waits[thinking] = (float(words[0]), float(words[3]))  # (child's CPU s, wall s) in the waits
        assert survivors(marker) == []
    frozen_cpu, frozen_wall = waits[Thinking.FROZEN]
    allowed_cpu, allowed_wall = waits[Thinking.ALLOWED]
    assert frozen_wall >= 0.05 * 20, waits  # the opponent idled 50 ms in each wait, loaded or not
    assert frozen_cpu < 0.2 * frozen_wall, waits  # frozen: a sliver of the waits, never a core
    assert allowed_cpu > 2 * frozen_cpu * allowed_wall / frozen_wall, waits  # the measure sees thinking


# -- hostile bots under the sandbox -----------------------------------------------------------

def test_a_fork_bomb_is_contained_and_leaves_nothing(logs: Path) -> None:
    require_cgroup("pids")
    marker = new_marker()
    bomber = marked("fork-bomb", marker, limits=Limits(processes=64))
    result = run_match([bomber, good()], log_dir=logs, policy=Policy.FORFEIT)
    text = log_text(result, 0)
    assert "fork bomb: 8 children" in text, text[-2000:]
    assert "fork bomb: all" not in text and "fork bomb: 64 children" not in text
    assert result.exits[0].limit == "the process limit (64 processes and threads)", result.exits[0]
    outcome = only_outcome(result)  # the bomber may stall (gRPC cannot start threads): then it times out
    assert outcome.ending.by_rules or (outcome.offender == 0 and outcome.winners == (1,)), outcome
    assert result.match.state_name == "finished" and result.match.seats[1].report.status == "done"
    assert survivors(marker) == []


def test_a_memory_hog_is_killed_by_the_memory_limit(logs: Path) -> None:
    require_cgroup("memory")
    marker = new_marker()
    hog = marked("memory-hog", marker, limits=Limits(memory_mb=192))
    result = run_match([hog, good()], log_dir=logs)
    outcome = only_outcome(result)
    assert outcome.ending is Ending.CRASH and outcome.offender == 0 and outcome.winners == (1,), outcome
    assert "SIGKILL" in outcome.reason, outcome.reason
    assert result.exits[0].limit == "the memory limit (192 MiB)", result.exits[0]
    assert "memory hog: 128 MiB" in log_text(result, 0)
    assert survivors(marker) == []


def test_an_output_flood_is_capped_and_the_match_goes_on(logs: Path) -> None:
    marker = new_marker()
    result = run_match([marked("output-flood", marker), good()], log_dir=logs)
    assert only_outcome(result).ending.by_rules
    info = result.exits[0]
    assert info.log_bytes == LOG_CAP and info.log_dropped > 5_000_000, info
    path = result.logs[0]
    assert path is not None and LOG_CAP <= path.stat().st_size < LOG_CAP + 200
    assert "log cut at" in log_text(result, 0)
    assert survivors(marker) == []


def test_a_bot_reaches_neither_the_network_nor_the_referees_tcp_port(tmp_path: Path) -> None:
    """A TCP listener outside the sandbox and the referee's own TCP port: the bot reaches
    neither, yet plays its match through the Unix socket relayed into its sandbox."""
    require_bubblewrap()
    marker = new_marker()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    async def main() -> LocalMatch:
        referee = await start_referee("127.0.0.1:0")
        try:
            port = referee.address.rpartition(":")[2]
            probe = f"127.0.0.1:{listener.getsockname()[1]},127.0.0.1:{port}"
            bots = [marked("network", marker, env={"SPITE_PROBE_TCP": probe}), good()]
            config = MatchConfig(parse_rules("standard"), [b.name for b in bots], FAST, 1, 1, Policy.FORFEIT)
            return await play_local_match(bots, config, referee=referee, log_dir=tmp_path / "logs")
        finally:
            await referee.stop()

    try:
        result = asyncio.run(main())
    finally:
        listener.close()
    text = log_text(result, 0)
    assert text.count(": failed (") == 2 and "connected" not in text, text
    assert only_outcome(result).ending.by_rules  # it played, through the relay
    assert survivors(marker) == []


def _snoop_match(tmp_path: Path, marker: str) -> tuple[LocalMatch, dict[str, Path]]:
    """Seat 0 snoops, seat 1 plants its token in its home. Secrets sit where a tournament keeps
    its store, results and logs: inside the bot's own (readable) directory and elsewhere."""
    botdir = tmp_path / "bot"
    botdir.mkdir()
    (botdir / "hostile_bot.py").write_text((BOTS / "hostile_bot.py").read_text())
    store = botdir / "results"
    store.mkdir()
    secrets = {"store": store / "spite.db", "elsewhere": tmp_path / "replays" / "secret.txt"}
    secrets["elsewhere"].parent.mkdir()
    for path in secrets.values():
        path.write_text("the-secret")
    log_dir = botdir / "runs"
    probe = ",".join([*map(str, secrets.values()), str(log_dir / "anything.log")])
    snoop = BotManifest(name="snoop", command=(sys.executable, str(botdir / "hostile_bot.py"), "snoop", marker),
                        workdir=botdir, env={"SPITE_PROBE_FILES": probe})
    plant = marked("plant", marker)
    bots = [snoop, plant]
    config = MatchConfig(parse_rules("standard"), [b.name for b in bots], FAST, 1, 1, Policy.FORFEIT,
                         replay_dir=tmp_path / "replays")
    return asyncio.run(play_local_match(bots, config, log_dir=log_dir, hide=[store])), secrets


def test_a_bot_cannot_read_the_store_logs_other_homes_or_tokens(tmp_path: Path) -> None:
    require_bubblewrap()
    marker = new_marker()
    result, secrets = _snoop_match(tmp_path, marker)
    text = log_text(result, 0)
    assert "environ: " in text, text
    assert "the-secret" not in text and "got " not in text, text
    for path in secrets.values():
        assert f"read {path}: failed" in text, text
    assert "0 with another seat's token" in text and "/seat1/secret.txt: failed" in text, text
    assert result.match.seats[1].token not in text
    assert only_outcome(result).ending.by_rules
    assert survivors(marker) == []


def test_without_the_sandbox_the_same_probes_do_find_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probes above are real: in the insecure mode they read what bubblewrap hides."""
    marker = new_marker()
    monkeypatch.setenv("SPITE_SANDBOX", "insecure")
    detect.cache_clear()
    try:
        result, secrets = _snoop_match(tmp_path, marker)
    finally:
        monkeypatch.delenv("SPITE_SANDBOX")
        detect.cache_clear()
    text = log_text(result, 0)
    assert f"read {secrets['store']}: got 'the-secret'" in text, text
    # Other processes' environments are readable here, yet seat 1's token is not in its own any
    # more: tokens go through an inherited pipe (before, this probe found seat 1's SPITE_TOKEN;
    # tokens it may find now belong to other referees on the machine that put them there).
    assert "environ: 0 readable" not in text, text
    assert f"another seat's token {result.match.seats[1].token[:12]}" not in text, text
    assert result.exits[0].sandbox == "insecure"
    assert survivors(marker) == []


def test_crashes_at_start_and_mid_game_under_the_sandbox(logs: Path) -> None:
    marker = new_marker()
    for mode, words in [("exit-early", "exited with code 3 before connecting"), ("crash-mid", "exited with code 7")]:
        result = run_match([marked(mode, marker), good()], log_dir=logs)
        outcome = only_outcome(result)
        assert outcome.ending is Ending.CRASH and words in outcome.reason, outcome
        assert outcome.winners == (1,)
    assert survivors(marker) == []


# -- cgroup v2 ---------------------------------------------------------------------------------

def test_cgroup_v2_alone_counts_freezes_and_kills_the_whole_bot(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """With only the unified hierarchy (most current distributions), a bot's v2 group counts
    the CPU time of all its processes (cpu.stat), freezes them (cgroup.freeze) and kills them
    at once, a setsid child included (cgroup.kill)."""
    from referee.sandbox import SandboxMode, cgroups

    parents = cgroups.cgroup_parents()
    if cgroups.UNIFIED not in parents:
        unavailable("no writable cgroup v2 hierarchy here (mount | grep cgroup2)")
    monkeypatch.setattr(cgroups, "cgroup_parents", lambda: {cgroups.UNIFIED: parents[cgroups.UNIFIED]})
    marker = new_marker()
    spinner = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    while True: pass\nwhile True: time.sleep(1)"

    async def main() -> None:
        home = tmp_path / "home"
        home.mkdir()
        bot = BotProcess("v2", [sys.executable, "-c", spinner, marker], tmp_path,
                         BotProcess.clean_env({"HOME": str(home)}), None, language="python",
                         isolation=Isolation(home=home), mode=SandboxMode("insecure", "test"))
        await bot.start()
        try:
            assert bot.cgroup is not None and set(bot.cgroup.dirs) == {cgroups.UNIFIED}
            assert bot.cgroup.has("freezer") and bot.cgroup.has("cpuacct")
            deadline = time.monotonic() + 20  # a loaded machine gives the spinner less than a core
            while bot.cpu_seconds() < 0.3 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert bot.cpu_seconds() >= 0.3, "the setsid spinner's CPU time is the bot's"
            bot.pause()
            await until(lambda: frozen(bot._members()), "the freezer to catch every thread")
            frozen_at = bot.cpu_seconds()
            await asyncio.sleep(2.0)  # a thawed spinner would use up to 2 s here
            assert bot.cpu_seconds() - frozen_at < 0.02, "frozen: no CPU time"
            bot.resume()
            while bot.cpu_seconds() - frozen_at < 0.05 and time.monotonic() < deadline + 20:
                await asyncio.sleep(0.05)
            assert bot.cpu_seconds() - frozen_at >= 0.05, "thawed: the spinner runs again"
            bot.cgroup.kill_all()
            assert bot.cgroup.pids() == [], "cgroup.kill ended every process at once"
        finally:
            await bot.stop(grace=0)

    asyncio.run(main())
    assert survivors(marker) == []


def test_doctor_says_which_cgroup_hierarchy_and_whether_bots_get_their_own_uid() -> None:
    data = doctor.report()
    assert data["cgroup_hierarchy"] in ("v1", "v2", "hybrid", "none")
    assert set(data["identities"]) == {"separate", "range", "why"} and data["identities"]["why"]
    if os.geteuid() == 0 and detect().isolated and not os.environ.get("SPITE_BOT_UIDS"):
        assert data["identities"]["separate"] and data["identities"]["range"] == [61000, 61999]
    out = io.StringIO()
    doctor.print_report(data, out)
    assert f"hierarchy {data['cgroup_hierarchy']}" in out.getvalue() and "bot users" in out.getvalue()


def test_process_trees_and_cpu_time_without_cgroups_agree_with_proc() -> None:
    """The portable path (psutil) sees the same tree and CPU time as the /proc scan it replaces."""
    import subprocess

    from referee.sandbox import processes

    assert processes.psutil is not None, "psutil is a dependency of spite-arena: pip install -e ."
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                               "subprocess.Popen([sys.executable, '-c', 'while True: pass'])\ntime.sleep(30)"])
    try:
        deadline = time.monotonic() + 10
        while len(processes.descendants(parent.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        tree = processes.descendants(parent.pid)
        assert len(tree) == 2 and tree == processes._proc_descendants(parent.pid)
        while processes.process_cpu_seconds(tree) < 0.2 and time.monotonic() < deadline + 20:
            time.sleep(0.05)  # a loaded machine gives the spinner less than its share
        portable, by_hand = processes.process_cpu_seconds(tree), processes._proc_cpu_seconds(tree)
        assert portable >= 0.2 and abs(portable - by_hand) < 0.1, (portable, by_hand)
    finally:
        for pid in processes.descendants(parent.pid):
            os.kill(pid, 9)
        parent.wait()
