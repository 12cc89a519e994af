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

Every bot starts through :mod:`referee.sandbox.supervisor`, a child subreaper that dies with
its launcher and kills everything the bot started (nothing survives a killed runner).

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

The package, one job per module: :mod:`.limits` (the limits model and rlimits), :mod:`.mode`
(detection), :mod:`.cgroups`, :mod:`.bubblewrap`, :mod:`.processes` (process trees and CPU
time without cgroups) and :mod:`.supervisor`.
"""

from __future__ import annotations

from referee.sandbox.bubblewrap import (
    PRIVATE_SPACE_BYTES,
    SUPERVISOR,
    SYSTEM_DIRS,
    Isolation,
    bwrap_command,
    bwrap_returncode,
    linked_targets,
    private_system_files,
    toolchain_dirs,
)
from referee.sandbox.cgroups import BOT_CPU_SHARES, CGROUP_ROOT, CONTROLLERS, BotCgroup, cgroup_parents, child_rlimits
from referee.sandbox.identity import BotIdentity, NoFreeIdentity, program_path, sweep, uid_range, unreachable
from referee.sandbox.identity import allocate as allocate_identity
from referee.sandbox.limits import (
    FILE_SIZE_LIMIT,
    LANGUAGE_LIMITS,
    NO_ADDRESS_SPACE_LIMIT,
    Limits,
    default_limits,
    limits_from_table,
    runtime_hints,
)
from referee.sandbox.mode import (
    BUBBLEWRAP,
    FIX_COMMAND,
    INSECURE,
    SandboxError,
    SandboxMode,
    detect,
    unisolated_warning,
    untrusted_refusal,
)
from referee.sandbox.processes import descendants, process_cpu_seconds

__all__ = ["PRIVATE_SPACE_BYTES", "SUPERVISOR", "BotIdentity", "NoFreeIdentity", "program_path", "unreachable",
           "uid_range", "allocate_identity", "sweep", "BOT_CPU_SHARES", "BUBBLEWRAP", "CGROUP_ROOT", "CONTROLLERS",
           "FILE_SIZE_LIMIT", "FIX_COMMAND", "INSECURE",
           "LANGUAGE_LIMITS", "NO_ADDRESS_SPACE_LIMIT", "SYSTEM_DIRS", "BotCgroup", "Isolation", "Limits",
           "SandboxError", "SandboxMode", "bwrap_command", "bwrap_returncode", "cgroup_parents", "child_rlimits",
           "default_limits", "descendants", "detect", "limits_from_table", "linked_targets", "private_system_files",
           "process_cpu_seconds", "runtime_hints", "toolchain_dirs", "unisolated_warning", "untrusted_refusal"]
