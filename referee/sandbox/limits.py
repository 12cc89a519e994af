"""Resource limits: one bot's :class:`Limits`, the defaults per language, and the rlimits a
bot gets where a cgroup controller is missing (:func:`referee.sandbox.cgroups.child_rlimits`)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

_MIB = 1024 * 1024


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
