"""Per-bot cgroups: process, memory and CPU limits, CPU time, pause and resume, and killing a
whole bot at once."""

from __future__ import annotations

import functools
import itertools
import os
import signal
import time
from pathlib import Path

from referee.sandbox.limits import _MIB, FILE_SIZE_LIMIT, NO_ADDRESS_SPACE_LIMIT, Limits
from referee.sandbox.mode import SandboxError
from referee.sandbox.processes import alive

CGROUP_ROOT = Path("/sys/fs/cgroup")
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
        if controller not in own or not controller:
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
    unified = unified_parent(own.get(""))
    if unified is not None:
        usable[UNIFIED] = unified
        _remove_stale(unified)
    return usable


UNIFIED = "unified"
"""The key of the cgroup v2 group in :func:`cgroup_parents` and :attr:`BotCgroup.dirs`."""
V2_CONTROLLERS = ("memory", "pids", "cpu")


def unified_parent(own: str | None) -> Path | None:
    """Where bot groups go in the cgroup v2 (unified) hierarchy: ``SPITE_CGROUP`` (a delegated
    subtree the organizer made, e.g. with systemd's ``Delegate=yes``) or this process's own v2
    group, where a trial mkdir works. The memory, pids and cpu controllers are switched on for
    its children where the parent allows (it may not hold processes itself: cgroup v2's rule);
    without them a v2 group still kills (``cgroup.kill``), freezes and counts CPU time."""
    configured = os.environ.get("SPITE_CGROUP", "").strip()
    mount = unified_mount()
    if configured:
        parent = Path(configured)
    elif mount is not None and own is not None:
        parent = mount / own.lstrip("/")
    else:
        return None
    trial = parent / f"spite-trial-{os.getpid()}"
    try:
        trial.mkdir()
        trial.rmdir()
    except OSError:
        return None
    try:
        offered = (parent / "cgroup.controllers").read_text().split()
        enabled = (parent / "cgroup.subtree_control").read_text().split()
        wanted = [c for c in V2_CONTROLLERS if c in offered and c not in enabled]
        for controller in wanted:
            try:
                _write(parent / "cgroup.subtree_control", f"+{controller}")
            except OSError:  # processes in the parent, or not delegated: core features only
                pass
    except OSError:
        pass
    return parent


def unified_mount() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (``/sys/fs/cgroup`` on a unified-only machine,
    ``/sys/fs/cgroup/unified`` on a hybrid one), or None."""
    try:
        for line in Path("/proc/self/mounts").read_text().splitlines():
            _, where, kind = line.split()[:3]
            if kind == "cgroup2":
                return Path(where)
    except OSError:
        pass
    return None


def hierarchy() -> str:
    """``v1``, ``v2`` (unified only) or ``hybrid`` (v1 controllers and a v2 tree), or ``none``."""
    try:
        kinds = {line.split()[2] for line in Path("/proc/self/mounts").read_text().splitlines()
                 if len(line.split()) > 2 and line.split()[2] in ("cgroup", "cgroup2")}
    except OSError:
        return "none"
    if kinds == {"cgroup", "cgroup2"}:
        return "hybrid"
    return "v2" if "cgroup2" in kinds else "v1" if "cgroup" in kinds else "none"


def _remove_stale(parent: Path) -> None:
    """Empty bot groups left by a referee that was killed (its pid is in their name)."""
    try:
        entries = [p for p in parent.iterdir() if p.name.startswith("spite-") and p.is_dir()]
    except OSError:
        return
    for path in entries:
        owner = path.name.split("-")[1]
        if owner.isdigit() and not alive(int(owner)):
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
    """One bot's cgroups: a v1 group per controller :func:`cgroup_parents` found, and a cgroup v2
    group where the unified hierarchy is writable (it kills the bot at once with
    ``cgroup.kill``, and stands in for missing v1 controllers: ``memory.max``, ``pids.max``,
    ``cpu.weight``, ``cgroup.freeze``, ``cpu.stat``).

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
            self._limit_unified(limits)
        except OSError as error:
            self.remove()
            raise SandboxError(f"could not set the limits of cgroup {self.name}: {error}") from error
        self._usage = os.open(self.dirs["cpuacct"] / "cpuacct.usage", os.O_RDONLY) if "cpuacct" in self.dirs else None
        self._freezer = os.open(self.dirs["freezer"] / "freezer.state", os.O_WRONLY) if "freezer" in self.dirs else None

    def _limit_unified(self, limits: Limits) -> None:
        """In the v2 group, the limits that no v1 controller took (where the parent enabled
        that controller for its children)."""
        unified = self.dirs.get(UNIFIED)
        if unified is None:
            return
        if "pids" not in self.dirs and (unified / "pids.max").exists():
            _write(unified / "pids.max", str(limits.processes))
        if "memory" not in self.dirs and (unified / "memory.max").exists():
            _write(unified / "memory.max", str(limits.memory_mb * _MIB))
            if (unified / "memory.swap.max").exists():
                _write(unified / "memory.swap.max", "0")
        if "cpu" not in self.dirs and (unified / "cpu.weight").exists():
            _write(unified / "cpu.weight", "100")  # one ordinary process's weight (v1: cpu.shares 1024)

    def _v2(self, name: str) -> Path | None:
        """A file of the v2 group, if the group and the file exist."""
        unified = self.dirs.get(UNIFIED)
        return unified / name if unified is not None and (unified / name).exists() else None

    def has(self, controller: str) -> bool:
        """Whether the bot's groups hold ``controller``'s control: a v1 group of it, or the v2
        group with its file (``pids`` -> pids.max, ``memory`` -> memory.max, ...)."""
        if controller in self.dirs:
            return True
        v2_file = {"pids": "pids.max", "memory": "memory.max", "cpu": "cpu.weight", "cpuacct": "cpu.stat",
                   "freezer": "cgroup.freeze"}.get(controller)
        return v2_file is not None and self._v2(v2_file) is not None

    def join_paths(self) -> list[str]:
        """The ``cgroup.procs`` files a child writes its pid to before exec."""
        return [str(path / "cgroup.procs") for path in self.dirs.values()]

    def cpu_seconds(self) -> float | None:
        """CPU time of every process the bot ran (live and exited), or None without cpuacct
        (v1) or cpu.stat (v2)."""
        if self._usage is None:
            stat_file = self._v2("cpu.stat")
            if stat_file is None:
                return None
            try:
                for line in stat_file.read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        self._cpu = int(value) / 1e6
            except (OSError, ValueError):
                pass
            return self._cpu
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
            freeze = self._v2("cgroup.freeze")
            if freeze is None:
                return False
            try:
                _write(freeze, "1" if state == b"FROZEN" else "0")
                return True
            except OSError:
                return False
        try:
            os.pwrite(self._freezer, state, 0)
            return True
        except OSError:
            return False

    def pids(self) -> list[int]:
        for controller in ("pids", "freezer", "cpuacct", "memory", UNIFIED):
            if controller in self.dirs:
                try:
                    return [int(p) for p in (self.dirs[controller] / "cgroup.procs").read_text().split()]
                except (OSError, ValueError):
                    return []
        return []

    def oom_kills(self) -> int:
        """How many processes the memory limit killed (0 without the memory controller)."""
        if "memory" not in self.dirs:
            return _event(self._v2("memory.events"), "oom_kill")
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
            return _event(self._v2("pids.events"), "max")
        try:
            return int((self.dirs["pids"] / "pids.events").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            return 0

    def kill_all(self, timeout: float = 5.0) -> None:
        """SIGKILL every process in the groups (frozen first, so none can fork meanwhile) and
        wait until they are gone."""
        self.cpu_seconds()
        kill = self._v2("cgroup.kill")
        if kill is not None:  # v2: the kernel kills the whole group at once, forks included
            try:
                _write(kill, "1")
            except OSError:
                pass
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


def _event(path: Path | None, key: str) -> int:
    """A counter of a v2 ``*.events`` file (0 if absent)."""
    if path is None:
        return 0
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:40]


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def child_rlimits(limits: Limits, language: str, cgroup: BotCgroup | None,
                  own_user: bool = False) -> list[tuple[int, int]]:
    """The rlimits a bot gets: the fixed ones, and the fallbacks for missing cgroup controllers
    (``own_user``: the bot runs as a uid of its own, so RLIMIT_NPROC counts its processes alone)."""
    import resource
    chosen = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT),
              (resource.RLIMIT_NOFILE, limits.open_files), (resource.RLIMIT_CPU, limits.cpu_seconds)]
    if (cgroup is None or not cgroup.has("memory")) and language.strip().lower() not in NO_ADDRESS_SPACE_LIMIT:
        chosen.append((resource.RLIMIT_AS, 4 * limits.memory_mb * _MIB))
    if (cgroup is None or not cgroup.has("pids")) and (os.geteuid() != 0 or own_user):
        chosen.append((resource.RLIMIT_NPROC, limits.processes))  # counts all the user's processes; root ignores it
    return chosen

