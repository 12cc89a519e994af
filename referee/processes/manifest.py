"""Bot manifests (``bot.toml``): reading and checking one.

A manifest::

    name = "greedy"                    # required
    version = "1.0.0"
    language = "python"
    command = ["{python}", "bot.py"]   # required; a list, or one string split like a shell
    workdir = "."                      # relative to the manifest, inside its folder; default: its directory
    build = "go build -o bot ."        # optional, run once (in workdir) before games start
    transport = "grpc"                 # or "stdio"
    stdio_format = "json"              # stdio only: "json" (JSON lines) or "protobuf" (length-delimited frames)
    [env]                              # optional extra environment for the bot, set inside its sandbox
    GOMAXPROCS = "1"                   # (not the loader's or interpreters' start-up variables: docs/security.md)
    [limits]                           # optional; defaults per language (referee.sandbox.LANGUAGE_LIMITS)
    memory_mb = 512                    # resident memory (cgroup), or address space (RLIMIT_AS) without one
    cpu_seconds = 600                  # CPU seconds per process over the match
    processes = 128                    # processes and threads of the whole bot
    open_files = 1024

``{python}`` is the interpreter running Spite Arena, ``{dir}`` the manifest's directory.
Every problem is a :class:`ManifestError` naming the bot and the field, raised before
any game starts. A manifest cannot reach out of its folder: ``workdir`` and every path in
``command`` resolve inside it (symlinks followed), so the sandbox never binds the
organizer's files (a tournament's seed secret, store or logs) into a bot's view.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from referee.core.labels import LabelError, check_label
from referee.sandbox import Limits, limits_from_table
from referee.sandbox.environment import check_manifest_env

TRANSPORTS = ("grpc", "stdio")
STDIO_FORMATS = ("json", "protobuf")


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the bot and the field."""


@dataclass(frozen=True)
class BotManifest:
    name: str
    command: tuple[str, ...]
    workdir: Path
    version: str = ""
    language: str = ""
    build: str = ""
    transport: str = "grpc"
    stdio_format: str = "json"
    """How a stdio bot's messages are written (docs/protocol.md): ``json`` lines or ``protobuf``
    frames; unused on gRPC."""
    env: dict[str, str] = field(default_factory=dict)
    path: Path | None = None
    """The bot.toml this came from (None for a bare command line)."""
    limits: Limits | None = None
    """Resource limits from ``[limits]`` over the language's defaults (None: the defaults)."""

    def fingerprint(self) -> str:
        """SHA-256 over the manifest and the files of its directory (not build output caches)."""
        # stdio_format only when it is not the default, so every manifest from before it keeps its fingerprint
        transport = self.transport if self.stdio_format == "json" else (self.transport, self.stdio_format)
        digest = hashlib.sha256(repr((self.name, self.version, self.command, self.build, transport,
                                      sorted(self.env.items()))).encode())
        if self.path is not None:
            root = self.path.parent
            for file in sorted(p for p in root.rglob("*") if p.is_file() and not _ignored(p, root)):
                digest.update(str(file.relative_to(root)).encode())
                digest.update(file.read_bytes())
        return digest.hexdigest()

    def run_build(self) -> None:
        """Run the build command once; a failure is a :class:`ManifestError` with its output."""
        if not self.build:
            return
        result = subprocess.run(self.build, shell=True, cwd=self.workdir, capture_output=True, text=True)
        if result.returncode != 0:
            tail = (result.stdout + result.stderr).strip()[-2000:]
            raise ManifestError(f"bot {self.name!r}: field 'build' failed (exit {result.returncode}): "
                                f"{self.build}\n{tail}")
        self.check_command()

    def check_command(self) -> None:
        """The program to run exists and is executable."""
        program = self.command[0]
        if os.sep in program:
            candidate = Path(program) if os.path.isabs(program) else self.workdir / program
            ok = candidate.is_file() and os.access(candidate, os.X_OK)
        else:
            ok = shutil.which(program) is not None
        if not ok:
            raise ManifestError(f"bot {self.name!r}: field 'command': program {program!r} not found "
                                f"(looked in {self.workdir if os.sep in program else 'PATH'})")


def _ignored(path: Path, root: Path) -> bool:
    parts = path.relative_to(root).parts
    return any(p in {"target", "node_modules", "__pycache__", ".gradle", "build", "bin", "dist"} or p.startswith(".")
               for p in parts)


def read_toml(path: Path, what: str, error: Callable[[str], Exception]) -> dict[str, object]:
    """The TOML document at ``path`` (a bot manifest, a tournament or a competition file, the
    ``what``), or ``error`` raised with one line: no such file, unreadable, not valid TOML."""
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as problem:
        raise error(f"{path}: not valid TOML: {problem}") from None
    except OSError as problem:
        raise error(f"{path}: cannot read the {what}: {problem.strerror or problem}") from None


def load_manifest(path: Path | str) -> BotManifest:
    """Read and check a bot.toml (or a directory holding one)."""
    path = Path(path)
    if path.is_dir():
        path = path / "bot.toml"
    return manifest_from_dict(read_toml(path, "manifest", ManifestError), path)


def manifest_from_dict(data: dict[str, object], path: Path) -> BotManifest:
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ManifestError(f"{path}: field 'name' is required (a non-empty string)")
    try:
        check_label(name.strip(), "field 'name'")
    except LabelError as error:
        raise ManifestError(f"{path}: {error}") from None
    if "/" in name or "\\" in name or name.strip() in (".", ".."):
        raise ManifestError(f"{path}: field 'name' is a label, not a path: no '/' or '\\', not '.' or '..'")
    known = {"name", "version", "language", "command", "workdir", "build", "transport", "stdio_format", "env", "limits"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ManifestError(f"bot {name!r} ({path}): unknown field(s) {unknown}; known: {sorted(known)}")
    base = path.parent.resolve()
    command = data.get("command")
    if isinstance(command, str):
        command = shlex.split(command)
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        raise ManifestError(f"bot {name!r} ({path}): field 'command' is required (a list of strings or a string)")
    command = [c.replace("{python}", sys.executable).replace("{dir}", str(base)) for c in command]
    workdir = (base / str(data.get("workdir", "."))).resolve()
    if not _inside(workdir, base):
        raise ManifestError(f"bot {name!r} ({path}): field 'workdir': {data.get('workdir')!r} leads out of the bot's "
                            f"folder {base}; a bot runs in its own folder or below it")
    _confine_command(command, workdir, base, f"bot {name!r} ({path})")
    if not workdir.is_dir():
        raise ManifestError(f"bot {name!r} ({path}): field 'workdir': {workdir} is not a directory")
    transport = data.get("transport", "grpc")
    if transport not in TRANSPORTS:
        raise ManifestError(f"bot {name!r} ({path}): field 'transport' must be one of {TRANSPORTS}, got {transport!r}")
    stdio_format = data.get("stdio_format", "json")
    if "stdio_format" in data and transport != "stdio":
        raise ManifestError(f"bot {name!r} ({path}): field 'stdio_format' is for transport = \"stdio\" only "
                            f"(this bot's transport is {transport!r})")
    if stdio_format not in STDIO_FORMATS:
        raise ManifestError(f"bot {name!r} ({path}): field 'stdio_format' must be one of {STDIO_FORMATS}, "
                            f"got {stdio_format!r}")
    env = data.get("env", {})
    if not isinstance(env, dict):
        raise ManifestError(f"bot {name!r} ({path}): field 'env' must be a table of strings")
    problem = check_manifest_env(env)
    if problem:
        raise ManifestError(f"bot {name!r} ({path}): {problem}")
    build = data.get("build", "")
    if not isinstance(build, str):
        raise ManifestError(f"bot {name!r} ({path}): field 'build' must be a string")
    language = str(data.get("language", ""))
    table = data.get("limits", {})
    if not isinstance(table, dict):
        raise ManifestError(f"bot {name!r} ({path}): field 'limits' must be a table")
    try:
        limits = limits_from_table(language, table)
    except ValueError as error:
        raise ManifestError(f"bot {name!r} ({path}): {error}") from None
    manifest = BotManifest(name=name.strip(), command=tuple(command), workdir=workdir,
                           version=str(data.get("version", "")), language=language,
                           build=build.replace("{python}", sys.executable), transport=transport,
                           stdio_format=stdio_format, env=dict(env),
                           path=path.resolve(), limits=limits)
    if not build:
        manifest.check_command()
    return manifest


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _confine_command(command: list[str], workdir: Path, folder: Path, where: str) -> None:
    """Every path in ``command`` stays in the bot's folder: the program (unless it is a bare
    name found on PATH, or ``{python}``) and each argument that is absolute or climbs with
    ``..`` (also after an ``=``, as in ``--jar=../x``). A bot's sandbox binds the paths its command
    names, so a path out of its folder would hand it the organizer's files."""
    for position, part in enumerate(command):
        if position == 0 and (part == sys.executable or os.sep not in part):
            continue
        for piece in part.split("=") if position else [part]:
            climbs = ".." in Path(piece).parts
            if not (os.path.isabs(piece) or climbs or position == 0):
                continue
            if position and piece == sys.executable:
                continue
            resolved = Path(os.path.realpath(piece if os.path.isabs(piece) else workdir / piece))
            if not _inside(resolved, folder):
                raise ManifestError(f"{where}: field 'command': {part!r} leads out of the bot's folder {folder}; "
                                    f"put the file in the folder (a manifest may name only its own files, "
                                    f"{{python}} and programs on PATH)")


def bot_fingerprint(manifest: BotManifest) -> str:
    """The manifest's fingerprint with this interpreter's path put back as ``{python}``, so a
    worker machine whose Python lives elsewhere still recognises the same bot."""
    portable = dataclasses.replace(
        manifest, command=tuple(c.replace(sys.executable, "{python}") for c in manifest.command),
        build=manifest.build.replace(sys.executable, "{python}"))
    return portable.fingerprint()
