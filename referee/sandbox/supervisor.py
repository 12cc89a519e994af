"""The bot supervisor: a tiny parent between the launcher and a bot, so nothing outlives either.

    python -I -S supervisor.py PARENT_PID [--uid UID] [--env-fd N] -- COMMAND...
    python -I -S supervisor.py --exec [--uid UID] [--env-fd N] -- COMMAND...

The launcher starts every bot through this file (standard library only, run without
``site`` so it starts in a few milliseconds). It

1. becomes a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): whatever the bot starts, even a
   ``setsid`` double-forked daemon, or a sandbox whose own parent died, is re-parented to
   the supervisor instead of to init, so the supervisor can always find and kill it;
2. arms ``PR_SET_PDEATHSIG`` (SIGTERM, which it handles) and *then* checks that its parent
   is still ``PARENT_PID``: a launcher killed before the signal was armed is caught by the
   check (the classic race between fork and the parent-death signal);
3. starts COMMAND (with the parent-death signal SIGKILL and the same check, so killing the
   supervisor kills the bot), as user and group UID with no supplementary groups when
   ``--uid`` is given (the supervisor itself stays root, out of the bot's reach), and waits;
4. when COMMAND exits, or the launcher dies, or the launcher sends SIGTERM: SIGKILLs every
   process left below it until it has no child, then exits with COMMAND's status (killed by
   a signal: the same signal).

``--exec`` only becomes UID (if given) and runs COMMAND: what a bubblewrap sandbox runs first,
since bubblewrap must bind the toolchains as root before the bot loses it.

The supervisor starts with the launcher's fixed environment, never the bot's
(:mod:`referee.sandbox.environment`): ``--env-fd N`` names an inherited pipe holding the bot's
environment (``NAME=VALUE`` entries ended by NUL), which is read, closed, and given to COMMAND
only, after the uid is dropped. Without it COMMAND inherits the supervisor's environment (as
bubblewrap does, whose own sandboxed supervisor then reads the pipe).

Linux only; elsewhere (no prctl) it only runs COMMAND and passes its status on.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _children() -> list[int]:
    """This process's live children (after re-parenting, also what its children left behind)."""
    found: list[int] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children") as handle:
                found += [int(p) for p in handle.read().split()]
        except OSError:
            continue
    return found


def _below(pid: int) -> list[int]:
    """``pid`` and its descendants (children files, depth first)."""
    found = [pid]
    index = 0
    while index < len(found):
        current = found[index]
        index += 1
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                try:
                    with open(f"/proc/{current}/task/{task}/children") as handle:
                        found += [int(p) for p in handle.read().split() if int(p) not in found]
                except OSError:
                    continue
        except OSError:
            continue
    return found


def kill_everything_below() -> None:
    """SIGKILL every descendant and reap them, until no child is left (re-parented orphans
    included: this process is their subreaper)."""
    while True:
        children = _children()
        for child in children:
            for pid in _below(child):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            return
        if not children:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                return


class _Ending(Exception):
    """SIGTERM: the launcher died (the parent-death signal) or asks for the end."""


def _end(_signum: int, _frame: object) -> None:
    raise _Ending


def _program(name: str, env: dict[str, str]) -> str:
    """``name`` searched on the bot's PATH now (``execvp`` would import modules lazily, and
    after :func:`become` the standard library may be out of reach)."""
    if "/" in name:
        return name
    for directory in env.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(directory or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return name


def _read_env(fd: int) -> dict[str, str]:
    """The bot's environment from the pipe ``fd`` (closed afterwards)."""
    chunks: list[bytes] = []
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(fd)
    env: dict[str, str] = {}
    for entry in b"".join(chunks).split(b"\0"):
        name, equals, value = entry.partition(b"=")
        if equals and name:
            env[os.fsdecode(name)] = os.fsdecode(value)
    return env


def _parse(argv: list[str]) -> tuple[str, int | None, int | None, list[str]] | None:
    """``(PARENT_PID or "--exec", uid, env_fd, command)``, or None for a bad command line."""
    if "--" not in argv:
        return None
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    if not options or not command:
        return None
    first, rest = options[0], options[1:]
    values: dict[str, int] = {}
    while rest:
        if len(rest) < 2 or rest[0] not in ("--uid", "--env-fd") or not rest[1].isdigit():
            return None
        values[rest[0]] = int(rest[1])
        rest = rest[2:]
    if first != "--exec" and not first.isdigit():
        return None
    return first, values.get("--uid"), values.get("--env-fd"), command


def become(uid: int) -> None:
    """Become ``uid`` (and group ``uid``), with no supplementary groups and no capabilities."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def main(argv: list[str]) -> int:
    parsed = _parse(argv)
    if parsed is None:
        sys.stderr.write("usage: supervisor.py PARENT_PID|--exec [--uid UID] [--env-fd N] -- COMMAND...\n")
        return 2
    first, uid, env_fd, command = parsed
    env = _read_env(env_fd) if env_fd is not None else dict(os.environ)
    if first == "--exec":
        try:
            program = _program(command[0], env)
            if uid is not None:
                become(uid)
            os.execve(program, command, env)
        except OSError as error:
            sys.stderr.write(f"spite supervisor: cannot run {command[0]!r}: {error}\n")
        return 127
    parent = int(first)
    signal.signal(signal.SIGTERM, _end)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    if _prctl(PR_SET_PDEATHSIG, signal.SIGTERM) and os.getppid() != parent:
        return 1  # the launcher died before the signal was armed: start nothing
    me = os.getpid()
    try:
        bot = os.fork()
    except OSError as error:
        sys.stderr.write(f"spite supervisor: cannot start the bot: {error}\n")
        return 1
    if bot == 0:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            program = _program(command[0], env)
            if uid is not None:
                become(uid)  # clears the parent-death signal: armed again just below
            if _prctl(PR_SET_PDEATHSIG, signal.SIGKILL) and os.getppid() != me:
                os._exit(1)
            os.execve(program, command, env)
        except OSError as error:
            sys.stderr.write(f"spite supervisor: cannot run {command[0]!r}: {error}\n")
        os._exit(127)
    status = None
    try:
        while status is None:
            pid, raw = os.waitpid(-1, 0)
            if pid == bot:
                status = raw
    except (_Ending, ChildProcessError):
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    kill_everything_below()
    if status is None:
        return 128 + signal.SIGKILL
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        try:
            signal.signal(signum, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL and SIGSTOP: default already, and cannot be set
            pass
        os.kill(me, signum)
        return 128 + signum
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
