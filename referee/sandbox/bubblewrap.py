"""Bubblewrap: the command line that runs a bot in its own namespaces with a read-only view
of the system, its own directory, its private home and the referee's socket."""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import signal
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from referee.sandbox.mode import NAMESPACES, SandboxError, SandboxMode

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""Read-only in every sandbox (symlinks such as /bin -> usr/bin are recreated as symlinks)."""


@dataclass(frozen=True)
class Isolation:
    """What one bot's sandbox holds besides the system: its private home, the directory of the
    referee's socket, and paths that must stay invisible even inside a readable directory."""

    home: Path
    """Private and writable; also the HOME of the bot in insecure mode."""
    socket_dir: Path | None = None
    """Bound read-only so the bot can connect to the referee's Unix socket (None: a stdio bot)."""
    readable: tuple[Path, ...] = ()
    """More read-only paths (beyond the system, the toolchains and the bot's own directory)."""
    hidden: tuple[Path, ...] = ()
    """Covered by an empty tmpfs (or /dev/null for a file) where they fall inside a bound path:
    the tournament store, results, replays and logs."""
    writable: tuple[Path, ...] = ()
    """Bound read-write instead of read-only: a build's own folder (:mod:`referee.processes.build`)."""


@functools.lru_cache(maxsize=1)
def toolchain_dirs() -> tuple[Path, ...]:
    """Directories outside the system ones that bots' runtimes need: this Python (venv and base
    installation), the Python SDK with the engine and the wire packages it imports (public
    source: bots that search simulate with the engine), the protocol's ``proto/`` (the
    TypeScript SDK loads it), JAVA_HOME, GOROOT, and ``SPITE_SANDBOX_BIND``."""
    found: list[Path] = [Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent.parent]
    for package in ("spite_sdk", "spite_engine", "spite_wire", "spite"):
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        for location in (spec.submodule_search_locations or []) if spec else []:
            found.append(Path(location).resolve().parent)
    found.append(Path(__file__).resolve().parents[2] / "proto")  # the public protocol; SDKs load it at run time
    for variable in ("JAVA_HOME", "GOROOT"):
        if os.environ.get(variable):
            found.append(Path(os.environ[variable]))
    found += [Path(p) for p in os.environ.get("SPITE_SANDBOX_BIND", "").split(os.pathsep) if p]
    return tuple(_unique(p.resolve() for p in found if p.is_absolute() and p.exists()))


@functools.lru_cache(maxsize=1)
def private_system_files() -> tuple[Path, ...]:
    """Files and directories under /etc that other users may not read (/etc/shadow, ssh host
    keys, ...): masked in the sandbox, since a bot runs as the organizer's user and could."""
    masked: list[Path] = []
    for root, dirs, files in os.walk("/etc"):
        if root.count(os.sep) > 3:
            dirs[:] = []
            continue
        for name in list(dirs):
            path = Path(root) / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode) and (info.st_mode & 0o005) != 0o005:
                masked.append(path)
                dirs.remove(name)
        for name in files:
            path = Path(root) / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and not info.st_mode & stat.S_IROTH:
                masked.append(path)
    return tuple(masked)


SUPERVISOR = Path(__file__).resolve().with_name("supervisor.py")
"""The bot supervisor (:mod:`referee.sandbox.supervisor`); also what drops to a bot's uid
inside a sandbox started by root."""

PRIVATE_SPACE_BYTES = 256 * 1024 * 1024
"""The size of a bot's private HOME and of its ``/tmp`` under bubblewrap (each a tmpfs that
disappears with the sandbox: nothing a bot writes outlives its match)."""

ROOT_NAMESPACES = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                   "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                   "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID")
"""For a sandbox started by root that drops to the bot's uid: no user namespace (in one, the
bot would still be root on the host), and only the two capabilities that dropping needs,
gone once the supervisor's ``--exec --uid`` has become the bot's uid."""


def bwrap_command(mode: SandboxMode, command: Sequence[str], workdir: Path, isolation: Isolation,
                  env_fd: int | None = None, uid: int | None = None,
                  space_bytes: int = PRIVATE_SPACE_BYTES) -> list[str]:
    """The bwrap command line running ``command`` in ``workdir`` inside the sandbox; as user
    ``uid`` (with its group) when given, which needs root. HOME (``isolation.home``) and
    ``/tmp`` are private tmpfs of ``space_bytes`` each.

    Inside, the supervisor starts ``command`` (``--exec``): it becomes ``uid`` and only then
    gives ``command`` the environment read from the inherited pipe ``env_fd``, so bubblewrap
    and everything before the drop run with the launcher's fixed environment
    (:mod:`referee.sandbox.environment`)."""
    if mode.bwrap is None:
        raise SandboxError(f"no bubblewrap in the {mode.name} mode: {mode.reason}")
    argv = [mode.bwrap, *(NAMESPACES if uid is None else ROOT_NAMESPACES)]
    for system in SYSTEM_DIRS:
        if os.path.islink(system):
            argv += ["--symlink", os.readlink(system), system]
        elif os.path.isdir(system):
            argv += ["--ro-bind", system, system]
    size = ["--size", str(space_bytes), "--perms", "01777"]
    argv += ["--dev", "/dev", "--proc", "/proc", *size, "--tmpfs", "/tmp", *size, "--tmpfs", "/var/tmp",
             "--dir", "/run"]
    readable = [*toolchain_dirs(), workdir.resolve(), *linked_targets(workdir), *isolation.readable,
                *(p.resolve() for p in isolation.writable),
                *_program_paths(command, workdir), SUPERVISOR]
    writable = {p.resolve() for p in isolation.writable}
    binds = sorted(_unique(p for p in readable if not _under_any(p, SYSTEM_DIRS) and
                           (p in writable or not _under_any(p, writable))), key=lambda p: len(p.parts))
    targets = [*binds, isolation.home, *([isolation.socket_dir] if isolation.socket_dir is not None else [])]
    for directory in _passages(targets, [*binds, *(Path(d) for d in SYSTEM_DIRS)]):
        argv += ["--perms", "0755", "--dir", str(directory)]
    for path in binds:
        argv += ["--bind" if path in writable else "--ro-bind", str(path), str(path)]
    if isolation.socket_dir is not None:
        argv += ["--ro-bind", str(isolation.socket_dir), str(isolation.socket_dir)]
    argv += [*size, "--tmpfs", str(isolation.home)]  # its own, and the bot's alone: a private mount
    mounted = [Path(s) for s in SYSTEM_DIRS] + binds
    for path in [*private_system_files(), *(h.resolve() for h in isolation.hidden)]:
        if not _under_any(path, mounted) or _under_any(isolation.home, [path]):
            continue
        if path.is_dir():
            argv += ["--tmpfs", str(path)]
        elif path.exists():
            argv += ["--ro-bind", "/dev/null", str(path)]
    command = [sys.executable, "-I", "-S", str(SUPERVISOR), "--exec", *(["--uid", str(uid)] if uid is not None else []),
               *(["--env-fd", str(env_fd)] if env_fd is not None else []), "--", *command]
    argv += ["--chdir", str(workdir.resolve()), "--", *command]
    return argv


def _passages(targets: Iterable[Path], mounted: Sequence[Path]) -> list[Path]:
    """The directories above ``targets`` that bwrap would otherwise create as it likes (as
    ``/root``, 0700): created first, 0755, so a bot running as its own uid can pass through to
    the toolchains, its home and the referee's socket -- they hold nothing but those mounts."""
    found: set[Path] = set()
    for target in targets:
        for parent in target.parents:
            if parent != Path("/") and not _under_any(parent, mounted):
                found.add(parent)
    return sorted(found, key=lambda p: len(p.parts))


_NO_LINKS_BELOW = frozenset({".git", "target", "__pycache__", ".gradle", ".venv", ".mypy_cache", ".pytest_cache"})


def linked_targets(directory: Path, depth: int = 3, budget: int = 20000) -> list[Path]:
    """Where symlinks in ``directory`` (to ``depth`` levels) lead outside it, e.g. a
    ``node_modules/@scope/sdk -> ../../../../sdk/typescript`` of a local dependency: the bot
    needs those too."""
    root = directory.resolve()
    found: list[Path] = []
    for current, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _NO_LINKS_BELOW]
        budget -= len(dirs) + len(files)
        if budget < 0 or Path(current).relative_to(root).parts.__len__() >= depth:
            dirs[:] = []
        for name in [*dirs, *files]:
            path = Path(current) / name
            if path.is_symlink():
                target = path.resolve()
                if target.exists() and root not in target.parents and target != root:
                    found.append(target)
    return found


def _program_paths(command: Sequence[str], workdir: Path) -> Iterator[Path]:
    """The program (wherever PATH finds it) and any absolute path among the arguments."""
    if command:
        program = command[0]
        found = shutil.which(program) if os.sep not in program else str(
            program if os.path.isabs(program) else workdir / program)
        if found:
            yield Path(found).resolve().parent
    for argument in command[1:]:
        if os.path.isabs(argument) and os.path.exists(argument):
            yield Path(argument).resolve()


def _under_any(path: Path, roots: Iterable[Path | str]) -> bool:
    return any(path == Path(root) or Path(root) in path.parents for root in roots)


def _unique(paths: Iterable[Path]) -> list[Path]:
    seen: dict[Path, None] = {}
    for path in paths:
        seen.setdefault(path, None)
    return list(seen)


def bwrap_returncode(returncode: int | None) -> int | None:
    """bwrap reports a bot killed by signal N as exit 128+N; give it back as -N, like Popen."""
    if returncode is not None and 128 < returncode < 128 + 65:
        try:
            signal.Signals(returncode - 128)
            return -(returncode - 128)
        except ValueError:
            pass
    return returncode

