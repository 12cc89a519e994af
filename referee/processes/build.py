"""Building a bot in the sandbox: a manifest's ``build`` command, under caps, its output kept.

An upload's build (``spite serve``) and a local tournament's (``spite tournament``) run the
same way, as a bot does (:class:`referee.processes.launcher.BotProcess`: bubblewrap, cgroups, a uid of
its own when the launcher is root, the supervisor that kills everything it started), with
three differences: the bot's folder is bound *writable* (nothing else is), the host's
toolchains for the accepted languages are readable (:data:`BUILD_TOOLS`), and the
environment says "offline" to every package manager (``GOPROXY=off``, ``CARGO_NET_OFFLINE``,
``npm_config_offline``, Maven's ``-o``): the sandbox has no network, so dependencies come
with the bot (a Go ``vendor/``, a Cargo ``vendor/``, ``node_modules``, a Maven repository in
the folder; docs/hosting.md).

The caps (:class:`BuildCaps`, a competition file's ``[build]`` table) and what stops a build
at each: wall time (watched here), CPU time of the whole build (the cgroup's, watched here;
RLIMIT_CPU per process besides), memory (the memory cgroup), processes and threads
(``pids.max``), the folder's size on disk and its entries (measured here every
:data:`DISK_EVERY_S`; no file over 64 MiB, RLIMIT_FSIZE, so a build overshoots the disk cap by
at most what it writes in that time), and its output (the log stops at ``output_kb`` and the
build is stopped). The verdict is one line (:attr:`BuildResult.reason`) and the output's
tail (:attr:`BuildResult.tail`); the whole output, to its cap, is in the log file.

When it has ended the folder is the organizer's again (a build run as its own uid gave it
that uid), without set-uid bits, and a build that left a link leading out of the folder, or
anything but files and directories, fails: the bot's sandbox binds what links point at.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Iterable

from referee.processes.launcher import BotProcess
from referee.sandbox import Isolation, Limits, SandboxError

BUILD_TOOLS: dict[str, tuple[str, ...]] = {
    "python": (), "go": ("go",), "rust": ("cargo", "rustc"), "typescript": ("node", "npm"),
    "javascript": ("node", "npm"), "java": ("java", "javac", "mvn"), "c++": ("g++", "cmake", "make"),
    "c": ("gcc", "cmake", "make"),
}
"""The programs a build in each language may use: their directories are readable in the
sandbox and on its PATH (a rustup ``cargo`` brings its toolchains, read-only)."""
LANGUAGE_NAMES = {"cpp": "c++", "cxx": "c++", "ts": "typescript", "node": "javascript", "js": "javascript",
                  "golang": "go"}
"""Other names a manifest's ``language`` may give (``cpp-greedy`` says ``cpp``)."""
OFFLINE_ENV = {"GOPROXY": "off", "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false", "CARGO_NET_OFFLINE": "true",
               "npm_config_offline": "true", "npm_config_update_notifier": "false", "npm_config_fund": "false",
               "npm_config_audit": "false", "MAVEN_ARGS": "-o -B"}
"""What tells each package manager it has no network (Go builds from ``vendor/`` where there is one;
it stamps no VCS status: the checkout's ``.git`` the sandbox sees may belong to another user, and
``git`` then refuses it)."""
DISK_EVERY_S = 0.25
"""How often the folder's size is measured."""
MOST_ENTRIES = 200_000
"""Files and directories a build may leave in its folder."""
TAIL_LINES = 20
TAIL_WIDTH = 200


SDK_BUILT_IN_PLACE = {"typescript": "typescript", "javascript": "typescript", "java": "java"}
"""The SDKs a kit's bot builds in their own folder (``npm ci`` there, Maven's ``target/``)."""


def local_sources(folder: Path, language: str = "") -> tuple[list[Path], list[Path], dict[str, str]]:
    """What a local build (``spite tournament``) reads besides its folder: the checkout it is
    in (the nearest folder above it with ``.git``: a kit's sample bot builds against the
    repository's SDK) and this user's package caches, read-only, with the environment that
    points each toolchain there: Go's module cache, Maven's repository, Cargo's registry (a
    build that needs what is not there fails offline: build once outside, or vendor). npm
    writes to its cache even offline: its cache is the bot's own copy (:func:`local_cache`).
    Returns (readable, writable, environment): writable is the checkout's SDK of ``language``
    where the kit's bots build it in place (:data:`SDK_BUILT_IN_PLACE`: ``sdk/typescript``,
    ``sdk/java``), so that a sample bot builds in the sandbox as it does outside."""
    found: list[Path] = []
    writable: list[Path] = []
    for parent in folder.resolve().parents:
        if (parent / ".git").exists():
            found.append(parent)
            sdk = parent / "sdk" / SDK_BUILT_IN_PLACE.get(canonical_language(language), "")
            if sdk != parent / "sdk" and sdk.is_dir():
                writable.append(sdk)
            break
    env: dict[str, str] = {}
    home = Path.home()
    modules = Path(os.environ.get("GOMODCACHE") or Path(os.environ.get("GOPATH") or home / "go") / "pkg" / "mod")
    if modules.is_dir():
        found.append(modules)
        env["GOMODCACHE"] = str(modules)
    maven = home / ".m2" / "repository"
    if maven.is_dir():
        found.append(maven)
        env["MAVEN_OPTS"] = f"-Dmaven.repo.local={maven}"
    cargo = Path(os.environ.get("CARGO_HOME") or home / ".cargo")
    if (cargo / "registry").is_dir():
        found += [p for p in (cargo / "registry", cargo / "git", cargo / "config.toml") if p.exists()]
        env["CARGO_HOME"] = str(cargo)
    if (home / ".npmrc").is_file():
        found.append(home / ".npmrc")
        env["npm_config_userconfig"] = str(home / ".npmrc")
    return found, writable, env


def local_cache(folder: Path, language: str = "") -> Path:
    """A local bot's own build cache (``~/.cache/spite/builds/<hash of its folder>``); for a
    TypeScript or JavaScript bot, its npm cache starts as a copy of this user's (``~/.npm``),
    so an offline ``npm ci`` finds what the user installed, and a build cannot change the user's."""
    key = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "spite" / "builds" / key
    user_npm = Path.home() / ".npm" / "_cacache"
    own_npm = cache / "npm" / "_cacache"
    if canonical_language(language) in ("typescript", "javascript") and user_npm.is_dir() and not own_npm.exists():
        own_npm.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(user_npm, own_npm, symlinks=True)
    return cache


def canonical_language(language: str) -> str:
    name = language.strip().lower()
    return LANGUAGE_NAMES.get(name, name)


@dataclass(frozen=True)
class BuildCaps:
    """What one build may use (a competition file's ``[build]`` table)."""

    languages: tuple[str, ...] = ("python", "go", "rust", "typescript", "javascript", "java", "c++", "c")
    """The languages whose builds run (their toolchains are this host's)."""
    wall_seconds: int = 300
    cpu_seconds: int = 600
    """CPU time of the whole build: every process and thread it ran."""
    memory_mb: int = 2048
    processes: int = 256
    disk_mb: int = 1024
    """The folder's size when built, the upload's own files included."""
    output_kb: int = 1024

    RANGES = {"wall_seconds": (1, 3600), "cpu_seconds": (1, 7200), "memory_mb": (64, 16384),
              "processes": (8, 4096), "disk_mb": (1, 16384), "output_kb": (1, 65536)}

    @classmethod
    def from_table(cls, table: dict[str, object]) -> BuildCaps:
        """``[build]`` over the defaults; a bad key or value raises ``ValueError`` naming the field."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise ValueError(f"[build] has unknown field(s) {unknown}; known: {sorted(known)}")
        values: dict[str, object] = {}
        for key, value in table.items():
            if key == "languages":
                if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value) \
                        or len(value) > 32:
                    raise ValueError("field 'build.languages' must be a list of language names")
                bad = sorted({canonical_language(v) for v in value} - set(BUILD_TOOLS))
                if bad:
                    raise ValueError(f"field 'build.languages': unknown {bad}; known: {sorted(BUILD_TOOLS)}")
                values[key] = tuple(dict.fromkeys(canonical_language(v) for v in value))
                continue
            low, high = cls.RANGES[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"field 'build.{key}' must be a whole number in {low}..{high}, got {value!r}")
            values[key] = value
        return cls(**values)  # type: ignore[arg-type]

    def accepts(self, language: str) -> bool:
        return canonical_language(language) in self.languages


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    reason: str
    """One line: why it failed, what to do ("" when it succeeded)."""
    seconds: float
    tail: tuple[str, ...]
    """The output's last lines (each cut to :data:`TAIL_WIDTH` characters)."""
    limit: str = ""
    """The cap that stopped it, if one did (``wall time``, ``disk``, ``output``, ...)."""


class _BuildProcess(BotProcess):
    """A bot process whose writable folders become its own uid's while it runs (when it has one)."""

    def _take_identity(self) -> int | None:
        uid = super()._take_identity()
        if uid is not None and self.isolation is not None:
            for folder in self.isolation.writable:
                _chown_tree(folder, uid, uid)
        return uid


def toolchain_paths(language: str) -> tuple[list[Path], dict[str, str]]:
    """The directories a build in ``language`` reads its toolchain from (and PATH order), and
    the environment that points the toolchain there."""
    dirs: list[Path] = []
    env: dict[str, str] = {}
    for program in BUILD_TOOLS.get(canonical_language(language), ()):
        found = shutil.which(program)
        if found is None:
            continue
        dirs.append(Path(found).parent)
        real = Path(os.path.realpath(found))
        if real.name == "rustup":  # a rustup proxy: the toolchains and the default it reads
            rustup = Path(os.environ.get("RUSTUP_HOME", Path.home() / ".rustup"))
            dirs += [p for p in (rustup / "toolchains", rustup / "settings.toml", rustup / "update-hashes")
                     if p.exists()]
            env["RUSTUP_HOME"] = str(rustup)
        elif real.parent != Path(found).parent:
            dirs.append(real.parent)
    return list(dict.fromkeys(dirs)), env


def folder_usage(folder: Path, most_entries: int = MOST_ENTRIES) -> tuple[int, int]:
    """(bytes on disk, entries) under ``folder``, links not followed; stops counting entries
    past ``most_entries``."""
    used = entries = 0
    for current, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            entries += 1
            try:
                used += os.lstat(os.path.join(current, name)).st_blocks * 512
            except OSError:
                continue
        if entries > most_entries:
            break
    return used, entries


def _over_disk(folders: Iterable[Path], caps: BuildCaps) -> str:
    """Why the folders together are over the disk cap, or ""."""
    used = entries = 0
    for folder in folders:
        size, count = folder_usage(folder)
        used, entries = used + size, entries + count
    if used <= caps.disk_mb * 1024 * 1024 and entries <= MOST_ENTRIES:
        return ""
    return (f"the build filled its folder past the disk limit of {caps.disk_mb} MiB or {MOST_ENTRIES} files; "
            "write less (clean build caches)")


def _chown_tree(folder: Path, uid: int, gid: int) -> None:
    for current, dirs, files in os.walk(folder):
        for name in [current, *(os.path.join(current, n) for n in [*dirs, *files])]:
            try:
                os.lchown(name, uid, gid)
            except OSError:
                continue


def _settle(folder: Path, owner: tuple[int, int] | None, also: Iterable[Path] = ()) -> str:
    """After the build: give the folder back to ``owner`` (if it changed hands), drop set-uid
    and set-gid bits, and say what may not stay (a link out of the folder and the ``also``
    folders the build could write, a special file)."""
    root = folder.resolve()
    inside = (root, *(p.resolve() for p in also))
    problem = ""
    for current, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(current) / name
            try:
                info = path.lstat()
                if owner is not None:
                    os.lchown(path, *owner)
                if stat.S_ISLNK(info.st_mode):
                    target = Path(os.path.realpath(path))
                    if not any(target == r or r in target.parents for r in inside) and not problem:
                        problem = (f"the build left a link leading out of its folder: {path.relative_to(root)}; "
                                   "a build may write only inside its folder")
                elif not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
                    if not problem:
                        problem = (f"the build left a special file: {path.relative_to(root)}; leave only files and "
                                   "directories")
                    path.unlink()
                elif info.st_mode & (stat.S_ISUID | stat.S_ISGID):
                    os.chmod(path, stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))
            except OSError:
                continue
    if owner is not None:
        try:
            os.lchown(root, *owner)
        except OSError:
            pass
    return problem


def _tail(log_path: Path) -> tuple[str, ...]:
    try:
        with open(log_path, "rb") as source:
            source.seek(max(0, log_path.stat().st_size - 16 * 1024))
            text = source.read().decode("utf-8", errors="replace")
    except OSError:
        return ()
    return tuple(line[:TAIL_WIDTH] for line in text.splitlines()[-TAIL_LINES:] if line.strip())


async def build(command: str, folder: Path, caps: BuildCaps, log_path: Path, *, language: str = "",
                workdir: Path | None = None, readable: Iterable[Path] = (), hidden: Iterable[Path] = (),
                env: dict[str, str] | None = None, cache: Path | None = None,
                writable: Iterable[Path] = ()) -> BuildResult:
    """Run ``command`` (a shell command line) in ``workdir`` (default: ``folder``), with
    ``folder`` (and ``writable``: a local build's SDK, :func:`local_sources`) writable, in the
    sandbox under ``caps``; its
    output goes to ``log_path`` (to ``caps.output_kb``); ``readable`` paths are bound read-only
    and ``env`` is added to the build's environment. ``cache``, a folder of this bot's own
    (never shared with another bot's builds: one could plant code in the next), keeps Go's
    build cache and npm's between builds; it counts against the disk cap. Never raises for what the build does;
    :class:`referee.sandbox.SandboxError` or ``OSError`` when the sandbox cannot start."""
    folder = folder.resolve()
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        cache = cache.resolve()
    tools, tool_env = toolchain_paths(language)
    info = folder.stat()
    owner = (info.st_uid, info.st_gid)
    writable = [p.resolve() for p in writable]
    shared_owners = {p: (p.stat().st_uid, p.stat().st_gid) for p in writable}
    home = Path(tempfile.mkdtemp(prefix="spite-build-"))
    path = os.pathsep.join(dict.fromkeys([*(str(d) for d in tools if d.is_dir()), "/usr/local/bin", "/usr/bin",
                                          "/bin"]))
    environment = {"PATH": path, "LANG": "C.UTF-8", "HOME": str(home), "TMPDIR": "/tmp", "PYTHONUNBUFFERED": "1",
                   "CARGO_HOME": str(home / ".cargo"), "GOCACHE": str((cache or home / ".cache") / "go-build"),
                   **({"npm_config_cache": str(cache / "npm")} if cache else {}),
                   "GOPATH": str(home / "go"), **OFFLINE_ENV, **tool_env, **(env or {})}
    isolation = Isolation(home=home, readable=(*tools, *readable), hidden=tuple(hidden),
                          writable=(folder, *writable, *([cache] if cache else [])))
    limits = Limits(memory_mb=caps.memory_mb, cpu_seconds=caps.cpu_seconds, processes=caps.processes)
    process = _BuildProcess(f"build-{folder.name}", ["/bin/sh", "-c", command], (workdir or folder).resolve(),
                            environment, log_path, log_cap=caps.output_kb * 1024, limits=limits,
                            language="java", isolation=isolation)  # no address-space rlimit: JVMs and V8 build too
    started = time.monotonic()
    limit = reason = ""
    try:
        await process.start()
        assert process.process is not None
        waiting = asyncio.ensure_future(process.process.wait())
        next_disk = 0.0
        while True:
            done, _ = await asyncio.wait({waiting}, timeout=0.1)
            if done:
                break
            now = time.monotonic()
            if process.output_bytes > caps.output_kb * 1024:  # counted as read, not as flushed to the log
                limit, reason = "output", (f"the build printed more than its output limit of {caps.output_kb} KiB; "
                                           "print less (quiet flags: go build, cargo -q, mvn -q, npm --silent)")
            elif now - started > caps.wall_seconds:
                limit, reason = "wall time", (f"the build ran past its wall-time limit of {caps.wall_seconds} s; "
                                              "make it faster or build ahead (upload built files)")
            elif process.cpu_seconds() > caps.cpu_seconds:
                limit, reason = "cpu", (f"the build used more than its CPU time limit of {caps.cpu_seconds} s "
                                        "(all its processes together)")
            elif hit := process.limit_hit():
                limit, reason = "memory" if "memory" in hit else "processes", f"the build hit {hit}"
            elif now >= next_disk:
                reason = await asyncio.to_thread(_over_disk, isolation.writable, caps)
                limit = "disk" if reason else ""
                next_disk = time.monotonic() + DISK_EVERY_S
            if limit:
                break
        exit_info = await process.stop(grace=0 if limit else 2.0)
    except BaseException:
        await process.stop(grace=0)
        for written in isolation.writable:
            await asyncio.to_thread(_settle, written, owner)
        shutil.rmtree(home, ignore_errors=True)
        raise
    seconds = time.monotonic() - started
    problem = await asyncio.to_thread(_settle, folder, owner, writable)
    for shared, shared_owner in shared_owners.items():  # a local build's SDK: checked like its folder
        problem = problem or await asyncio.to_thread(_settle, shared, shared_owner, [folder])
    if cache is not None:
        await asyncio.to_thread(_settle, cache, owner)
    shutil.rmtree(home, ignore_errors=True)
    tail = _tail(log_path)
    if not limit and exit_info.limit:
        limit = "memory" if "memory" in exit_info.limit else "processes" if "process" in exit_info.limit else "cpu"
        reason = f"the build hit {exit_info.limit}"
    if not limit and exit_info.returncode != 0:
        last = tail[-1] if tail else "no output"
        reason = f"the build command failed (exit {exit_info.returncode}): {last}"
    if not reason:
        reason = await asyncio.to_thread(_over_disk, isolation.writable, caps)
        limit = "disk" if reason else ""
        reason = reason or problem
    return BuildResult(not reason, reason, seconds, tail, limit)


__all__ = ["BUILD_TOOLS", "BuildCaps", "BuildResult", "SandboxError", "build", "canonical_language",
           "folder_usage", "local_cache", "local_sources", "toolchain_paths"]
