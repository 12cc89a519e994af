"""The bot sandbox: how far this machine can isolate a bot, and the resource controls.

Two modes, decided once per machine (:func:`detect`):

``bubblewrap``
    ``bwrap`` is installed and a trial run works. Every bot runs in new PID, network,
    IPC, UTS and cgroup namespaces with no capabilities, sees a read-only allow-list of
    the file system (the system directories, the toolchains, its own directory) with a
    private writable HOME and ``/tmp``, and reaches the referee only through the Unix
    socket bound into its sandbox (see :class:`Isolation` and :func:`bwrap_command`).
``insecure``
    No bubblewrap: the bot shares the machine's file system, network and process table.
    It still gets its own process group, a clean environment, its own HOME, the
    resource limits below, and is killed with everything it started. Only for bots you
    trust; ``spite doctor`` says which mode a machine gets and why.

Resource controls, in both modes (:class:`BotCgroup`): per-bot cgroup v1 groups where
the hierarchy is writable -- ``pids.max`` (processes and threads), ``memory.limit_in_bytes``
(and ``memory.memsw.limit_in_bytes``: resident memory, swap included), ``cpuacct.usage``
(CPU time of the whole group) and the freezer (pause and resume) -- falling back to
rlimits (``RLIMIT_AS`` for languages whose runtime survives it, ``RLIMIT_NPROC`` when not
root), a scan of ``/proc`` for CPU time, and SIGSTOP/SIGCONT for pausing. ``RLIMIT_CPU``,
``RLIMIT_NOFILE``, ``RLIMIT_FSIZE`` and ``RLIMIT_CORE`` = 0 apply always.

``SPITE_SANDBOX=insecure`` forces the insecure mode; ``SPITE_SANDBOX_BIND`` (paths joined
by ``:``) adds directories a bot may read under bubblewrap (e.g. a toolchain outside the
usual places).
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Iterable, Iterator, Sequence

BUBBLEWRAP = "bubblewrap"
INSECURE = "insecure"
CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("pids", "memory", "cpuacct", "freezer", "cpu")
"""The cgroup v1 controllers the sandbox uses, each for one control."""
BOT_CPU_SHARES = 1024
"""A bot group's ``cpu.shares``: the weight of one ordinary process, for the whole bot. A bot
that forks spinners (up to its process limit) still weighs as one process against the
referee, so it cannot starve the referee and make it late -- which would void the bot's own
timeouts as the platform's fault (docs/tournaments.md, "Referee lag") -- and the bot is not
ranked below the machine's other processes either."""

_MIB = 1024 * 1024


class SandboxError(RuntimeError):
    """The sandbox could not be set up for a bot (a cgroup write failed, etc.)."""


# -- limits --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Limits:
    """One bot's resource limits (a manifest's ``[limits]`` table over its language's defaults)."""

    memory_mb: int = 512
    """Resident memory (cgroup), or address space where the fallback RLIMIT_AS applies."""
    cpu_seconds: int = 600
    """CPU seconds per process over the whole match (RLIMIT_CPU: SIGXCPU, then SIGKILL)."""
    processes: int = 128
    """Processes and threads of the whole bot (cgroup pids.max; RLIMIT_NPROC when not root)."""
    open_files: int = 1024
    """Open file descriptors per process (RLIMIT_NOFILE)."""

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


FILE_SIZE_LIMIT = 64 * _MIB
"""No bot writes a file over 64 MiB (RLIMIT_FSIZE: SIGXFSZ, or EFBIG where ignored)."""

LANGUAGE_LIMITS: dict[str, Limits] = {
    "": Limits(),
    "c": Limits(), "c++": Limits(), "rust": Limits(), "go": Limits(), "python": Limits(), "perl": Limits(),
    "typescript": Limits(memory_mb=1024), "javascript": Limits(memory_mb=1024), "node": Limits(memory_mb=1024),
    "java": Limits(memory_mb=1024, processes=256), "kotlin": Limits(memory_mb=1024, processes=256),
    "scala": Limits(memory_mb=1024, processes=256),
}
"""Default limits per manifest ``language`` (unknown languages get the first row). The JVM and
Node reserve more memory and the JVM starts more threads than a C, Rust, Go or Python bot."""

NO_ADDRESS_SPACE_LIMIT = frozenset({"go", "java", "kotlin", "scala", "typescript", "javascript", "node"})
"""Runtimes that reserve far more address space than they use (Go's arenas, the JVM's heap
and code cache, V8's cage): where there is no memory cgroup they get no RLIMIT_AS at all,
and the others get four times ``memory_mb`` (Python's and glibc's per-thread arenas)."""


def default_limits(language: str) -> Limits:
    """The defaults for a manifest ``language`` (case-insensitive)."""
    return LANGUAGE_LIMITS.get(language.strip().lower(), LANGUAGE_LIMITS[""])


def runtime_hints(language: str, limits: Limits) -> dict[str, str]:
    """Environment that tells a runtime its memory limit, which it cannot see from inside the
    sandbox (no /sys): the JVM sizes its heap from MaxRAM, Go's collector works harder near
    GOMEMLIMIT. A manifest's own ``[env]`` value wins."""
    language = language.strip().lower()
    if language in ("java", "kotlin", "scala"):
        return {"JAVA_TOOL_OPTIONS": f"-XX:MaxRAM={limits.memory_mb}m"}
    if language == "go":
        return {"GOMEMLIMIT": f"{limits.memory_mb * 9 // 10}MiB"}
    return {}


def limits_from_table(language: str, table: dict[str, object]) -> Limits:
    """``[limits]`` over the language defaults; a bad key or value raises ``ValueError``
    naming the field (the manifest loader adds the bot's name)."""
    base = default_limits(language)
    unknown = sorted(set(table) - set(Limits.field_names()))
    if unknown:
        raise ValueError(f"field 'limits': unknown key(s) {unknown}; known: {list(Limits.field_names())}")
    values: dict[str, int] = {}
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"field 'limits.{key}' must be a positive integer, got {value!r}")
        values[key] = value
    if values.get("processes", base.processes) < 8:
        raise ValueError("field 'limits.processes' must be at least 8 (runtimes start threads of their own)")
    if values.get("memory_mb", base.memory_mb) < 32:
        raise ValueError("field 'limits.memory_mb' must be at least 32")
    return replace(base, **values)


# -- the mode ------------------------------------------------------------------------------

@dataclass(frozen=True)
class SandboxMode:
    """How this machine isolates bots, and why."""

    name: str
    """``bubblewrap`` or ``insecure``."""
    reason: str
    bwrap: str | None = None
    """The bwrap program, in bubblewrap mode."""
    bwrap_version: str = ""

    @property
    def isolated(self) -> bool:
        return self.name == BUBBLEWRAP


@functools.lru_cache(maxsize=1)
def detect() -> SandboxMode:
    """Decide the mode once per process (``SPITE_SANDBOX=insecure`` forces insecure)."""
    wanted = os.environ.get("SPITE_SANDBOX", "auto").strip().lower()
    bwrap = shutil.which("bwrap")
    version = ""
    if bwrap:
        try:
            version = subprocess.run([bwrap, "--version"], capture_output=True, text=True,
                                     timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            version = ""
    if wanted == INSECURE:
        return SandboxMode(INSECURE, "SPITE_SANDBOX=insecure was set: bots are not isolated", None, version)
    if not sys.platform.startswith("linux"):
        return SandboxMode(INSECURE, f"bubblewrap needs Linux; this is {sys.platform}")
    if bwrap is None:
        return SandboxMode(INSECURE, "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    trial = [bwrap, *_NAMESPACES, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]
    try:
        done = subprocess.run(trial, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as error:
        return SandboxMode(INSECURE, f"a trial run of {bwrap} failed: {error}", None, version)
    if done.returncode != 0:
        why = (done.stderr.strip() or f"exit {done.returncode}").splitlines()[-1]
        return SandboxMode(INSECURE, f"a trial run of {bwrap} failed ({why}); user namespaces may be "
                                     "disabled, or this is a container without the rights bwrap needs",
                           None, version)
    return SandboxMode(BUBBLEWRAP, f"{bwrap} works here: private PID, network, IPC and UTS namespaces, "
                                   "a read-only system, no capabilities", bwrap, version)


_NAMESPACES = ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL")


# -- cgroups -------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def cgroup_parents() -> dict[str, Path]:
    """Per controller, the directory under which this process may create bot groups: its own
    cgroup v1 group, where a trial mkdir works. Controllers missing here fall back to rlimits."""
    usable: dict[str, Path] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return usable
    own: dict[str, str] = {}
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(","):
                own[controller] = parts[2]
    for controller in CONTROLLERS:
        if controller not in own:
            continue
        mount = _controller_mount(controller)
        if mount is None:
            continue
        parent = mount / own[controller].lstrip("/")
        trial = parent / f"spite-trial-{os.getpid()}"
        try:
            trial.mkdir()
            trial.rmdir()
        except OSError:
            continue
        usable[controller] = parent
        _remove_stale(parent)
    return usable


def _remove_stale(parent: Path) -> None:
    """Empty bot groups left by a referee that was killed (its pid is in their name)."""
    try:
        entries = [p for p in parent.iterdir() if p.name.startswith("spite-") and p.is_dir()]
    except OSError:
        return
    for path in entries:
        owner = path.name.split("-")[1]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            try:
                path.rmdir()
            except OSError:  # still has processes, or not ours to remove
                pass


def _controller_mount(controller: str) -> Path | None:
    for candidate in (CGROUP_ROOT / controller, CGROUP_ROOT / f"cpu,{controller}", CGROUP_ROOT / f"{controller},cpu"):
        if (candidate / "cgroup.procs").exists():
            return candidate
    try:
        for line in Path("/proc/self/mounts").read_text().splitlines():
            _, where, kind, options = line.split()[:4]
            if kind == "cgroup" and controller in options.split(","):
                return Path(where)
    except OSError:
        pass
    return None


_counter = itertools.count(1)


class BotCgroup:
    """One bot's cgroup v1 groups (whichever controllers :func:`cgroup_parents` found).

    The child joins them before exec (:meth:`join_paths`), so everything it starts is
    counted, limited, frozen and killed with it."""

    def __init__(self, label: str, limits: Limits) -> None:
        self.name = f"spite-{os.getpid()}-{next(_counter)}-{_safe(label)}"
        self.limits = limits
        self.dirs: dict[str, Path] = {}
        self._cpu = 0.0
        self._usage: int | None = None
        self._freezer: int | None = None
        for controller, parent in cgroup_parents().items():
            path = parent / self.name
            try:
                path.mkdir()
            except OSError:
                continue
            self.dirs[controller] = path
        try:
            if "pids" in self.dirs:
                _write(self.dirs["pids"] / "pids.max", str(limits.processes))
            if "cpu" in self.dirs:
                _write(self.dirs["cpu"] / "cpu.shares", str(BOT_CPU_SHARES))
            if "memory" in self.dirs:
                memory = self.dirs["memory"]
                _write(memory / "memory.limit_in_bytes", str(limits.memory_mb * _MIB))
                if (memory / "memory.memsw.limit_in_bytes").exists():
                    try:
                        _write(memory / "memory.memsw.limit_in_bytes", str(limits.memory_mb * _MIB))
                    except OSError:  # swap accounting off: resident memory is limited all the same
                        pass
        except OSError as error:
            self.remove()
            raise SandboxError(f"could not set the limits of cgroup {self.name}: {error}") from error
        self._usage = os.open(self.dirs["cpuacct"] / "cpuacct.usage", os.O_RDONLY) if "cpuacct" in self.dirs else None
        self._freezer = os.open(self.dirs["freezer"] / "freezer.state", os.O_WRONLY) if "freezer" in self.dirs else None

    def has(self, controller: str) -> bool:
        return controller in self.dirs

    def join_paths(self) -> list[str]:
        """The ``cgroup.procs`` files a child writes its pid to before exec."""
        return [str(path / "cgroup.procs") for path in self.dirs.values()]

    def cpu_seconds(self) -> float | None:
        """CPU time of every process the bot ran (live and exited), or None without cpuacct."""
        if self._usage is None:
            return None
        try:
            self._cpu = int(os.pread(self._usage, 32, 0)) / 1e9
        except (OSError, ValueError):
            pass
        return self._cpu

    def freeze(self) -> bool:
        return self._set_freezer(b"FROZEN")

    def thaw(self) -> bool:
        return self._set_freezer(b"THAWED")

    def _set_freezer(self, state: bytes) -> bool:
        if self._freezer is None:
            return False
        try:
            os.pwrite(self._freezer, state, 0)
            return True
        except OSError:
            return False

    def pids(self) -> list[int]:
        for controller in ("pids", "freezer", "cpuacct", "memory"):
            if controller in self.dirs:
                try:
                    return [int(p) for p in (self.dirs[controller] / "cgroup.procs").read_text().split()]
                except (OSError, ValueError):
                    return []
        return []

    def oom_kills(self) -> int:
        """How many processes the memory limit killed (0 without the memory controller)."""
        if "memory" not in self.dirs:
            return 0
        try:
            text = (self.dirs["memory"] / "memory.oom_control").read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        try:  # older kernels: no oom_kill counter; hitting the limit is the best sign there is
            return 1 if int((self.dirs["memory"] / "memory.failcnt").read_text()) > 0 and \
                "under_oom 1" in text else 0
        except (OSError, ValueError):
            return 0

    def process_limit_hits(self) -> int:
        """How many times a fork or thread start was refused by ``pids.max``."""
        if "pids" not in self.dirs:
            return 0
        try:
            return int((self.dirs["pids"] / "pids.events").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            return 0

    def kill_all(self, timeout: float = 5.0) -> None:
        """SIGKILL every process in the groups (frozen first, so none can fork meanwhile) and
        wait until they are gone."""
        self.cpu_seconds()
        frozen = self.freeze()
        deadline = time.monotonic() + timeout
        while True:
            members = self.pids()
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if frozen:
                self.thaw()  # killed tasks of a frozen v1 group die only once thawed
                frozen = False
            if not members or time.monotonic() > deadline:
                return
            time.sleep(0.01)
            if self.pids():
                frozen = self.freeze()

    def remove(self) -> None:
        """Kill what is left and delete the groups."""
        self.kill_all()
        self._close()
        for path in self.dirs.values():
            for _ in range(100):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # exiting processes still charged to the group
                    time.sleep(0.01)
        self.dirs = {}

    def _close(self) -> None:
        for fd in (self._usage, self._freezer):
            if fd is not None:
                os.close(fd)
        self._usage = self._freezer = None


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:40]


def _write(path: Path, value: str) -> None:
    path.write_text(value)


# -- rlimits (in the child, before exec) ------------------------------------------------------

def child_rlimits(limits: Limits, language: str, cgroup: BotCgroup | None) -> list[tuple[int, int]]:
    """The rlimits a bot gets: the fixed ones, and the fallbacks for missing cgroup controllers."""
    import resource
    chosen = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT),
              (resource.RLIMIT_NOFILE, limits.open_files), (resource.RLIMIT_CPU, limits.cpu_seconds)]
    if (cgroup is None or not cgroup.has("memory")) and language.strip().lower() not in NO_ADDRESS_SPACE_LIMIT:
        chosen.append((resource.RLIMIT_AS, 4 * limits.memory_mb * _MIB))
    if (cgroup is None or not cgroup.has("pids")) and os.geteuid() != 0:
        chosen.append((resource.RLIMIT_NPROC, limits.processes))  # counts all the user's processes; root ignores it
    return chosen


# -- bubblewrap ----------------------------------------------------------------------------

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
    found.append(Path(__file__).resolve().parent.parent / "proto")  # the public protocol; SDKs load it at run time
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


def bwrap_command(mode: SandboxMode, command: Sequence[str], workdir: Path, isolation: Isolation,
                  env_paths: Iterable[str] = ()) -> list[str]:
    """The bwrap command line running ``command`` in ``workdir`` inside the sandbox."""
    if mode.bwrap is None:
        raise SandboxError(f"no bubblewrap in the {mode.name} mode: {mode.reason}")
    argv = [mode.bwrap, *_NAMESPACES]
    for system in SYSTEM_DIRS:
        if os.path.islink(system):
            argv += ["--symlink", os.readlink(system), system]
        elif os.path.isdir(system):
            argv += ["--ro-bind", system, system]
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--dir", "/run"]
    readable = [*toolchain_dirs(), workdir.resolve(), *linked_targets(workdir), *isolation.readable,
                *_program_paths(command, workdir)]
    binds = sorted(_unique(p for p in readable if not _under_any(p, SYSTEM_DIRS)), key=lambda p: len(p.parts))
    for path in binds:
        argv += ["--ro-bind", str(path), str(path)]
    if isolation.socket_dir is not None:
        argv += ["--ro-bind", str(isolation.socket_dir), str(isolation.socket_dir)]
    argv += ["--bind", str(isolation.home), str(isolation.home)]
    mounted = [Path(s) for s in SYSTEM_DIRS] + binds
    for path in [*private_system_files(), *(h.resolve() for h in isolation.hidden)]:
        if not _under_any(path, mounted) or _under_any(isolation.home, [path]):
            continue
        if path.is_dir():
            argv += ["--tmpfs", str(path)]
        elif path.exists():
            argv += ["--ro-bind", "/dev/null", str(path)]
    argv += ["--chdir", str(workdir.resolve()), "--", *command]
    return argv


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


# -- processes, without cgroups ------------------------------------------------------------

def descendants(leader: int) -> list[int]:
    """The leader and every live process below it (one pass over /proc)."""
    parent_of: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields_ = handle.read().rsplit(b")", 1)[1].split()
            parent_of[int(entry.name)] = int(fields_[1])
        except (OSError, IndexError, ValueError):
            continue
    found = {leader} if leader in parent_of else set()
    changed = True
    while changed:
        changed = False
        for pid, parent in parent_of.items():
            if parent in found and pid not in found:
                found.add(pid)
                changed = True
    return sorted(found)


_CLK_TCK = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pids: Iterable[int]) -> float:
    """User + system time of ``pids`` and of their reaped children, from /proc."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields_ = handle.read().rsplit(b")", 1)[1].split()
            total += sum(int(x) for x in fields_[11:15])
        except (OSError, IndexError, ValueError):
            continue
    return total / _CLK_TCK
