"""An uploaded bot: unpacked safely, its manifest checked, then the conformance checks.

An upload is a gzipped tar of the bot's directory (``spite submit`` makes it). Unpacking
takes only regular files and directories, refuses absolute names, ``..``, links and
devices, and stops at the competition's caps on compressed size, unpacked size and entries
(files and directories; a zip bomb hits the unpacked cap while streaming). Every extended
tar header is bounded before it is read. The manifest may not have ``[limits]`` (the
competition's defaults apply), its ``workdir`` stays inside the upload, and its version is
a label (:func:`referee.core.labels.check_label`).

A ``build`` command runs first, in the sandbox (:func:`referee.processes.build.build`: the upload's
folder writable and nothing else, no network, the caps of the competition's ``[build]``
table, for the languages it names); its output goes to ``DATA/checks/vN/build.log`` and its
last lines into the report's build line, which ``spite submit`` prints and ``/me`` shows. A
failed build deletes what the upload left on disk. Each entrant has a build cache of its own
(:func:`build_cache`).

The checks are those of ``spite check-bot`` (:mod:`tournaments.checkbot`) under the
competition's own rules and time control (no variants: the ladder plays one rule set), run
in a subprocess (``python -m spite_arena.uploads MANIFEST``) that prints one JSON line; the
bot runs in the sandbox there as in every match, its logs go to ``DATA/checks/vN`` and the
entrant reads them on ``/me``. When the reference bot missed its limits too, or the checks
could not run, the report is a *platform fault*: the bot was not judged and the upload
does not count against ``builds_per_hour``.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import io
import json
import os
import shutil
import sys
import tarfile
import tomllib
import zlib
from dataclasses import dataclass, replace
from pathlib import Path

from referee.core.labels import LabelError, check_label, terminal_safe
from referee.processes.build import BuildResult, build, folder_usage
from referee.processes.manifest import BotManifest, ManifestError, load_manifest
from referee.sandbox import SandboxError

from .config import Competition, Limits

CHECK_TIMEOUT_S = 600
CHECKS_AT_ONCE = 1
"""Uploads of one entrant being unpacked or checked at once (the next waits for a verdict)."""


class UploadError(ValueError):
    """An upload refused before its checks; the message is the one-line reason."""


@dataclass(frozen=True)
class CheckReport:
    passed: bool
    lines: tuple[str, ...]
    reason: str
    platform_fault: bool = False
    """The checks did not judge the bot: the server's fault, so the upload costs nothing."""


HEADER_BYTES = 8 * 1024
"""The largest extended tar header (a GNU long name or link, a pax header): names are at most
400 characters, so 8 KiB leaves room for a pax header's times and ids and nothing more."""
HEADERS_IN_A_ROW = 4
"""Extended headers before one member (GNU tar writes at most a long name and a long link)."""
HEADER_BUDGET = 1024 * 1024
"""All extended headers of one upload, together."""


class _Stream:
    """The decompressed tar stream, cut at ``limit`` bytes: however the archive is built
    (headers, padding, members skipped), unpacking reads no more than that."""

    def __init__(self, source: io.BufferedIOBase, limit: int, unpacked_mb: int) -> None:
        self.source, self.left, self.unpacked_mb = source, limit, unpacked_mb

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or size > self.left + 1:
            size = self.left + 1
        data = self.source.read(size)
        self.left -= len(data)
        if self.left < 0:
            raise UploadError(f"the upload unpacks to more than {self.unpacked_mb} MiB")
        return data


class _BoundedTarInfo(tarfile.TarInfo):
    """A tar header whose extended headers are checked for size *before* they are read:
    :mod:`tarfile` reads a GNU long name or a pax header whole into memory, so a 1 MB upload
    declaring a 1 GiB long name would otherwise take a GiB of the server's memory."""

    def _proc_member(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise UploadError("sparse files may not be uploaded; upload the file itself")
        if self.type not in EXTENDED_HEADERS:
            return super()._proc_member(archive)  # type: ignore[misc, no-any-return]
        if self.size > HEADER_BYTES:
            raise UploadError(f"a tar header of the upload declares {self.size} bytes, over the limit of "
                              f"{HEADER_BYTES}; pack the bot with `spite submit` or a plain `tar czf`")
        state: list[int] = archive.__dict__.setdefault("_spite_headers", [0, 0])  # [in a row, bytes in all]
        state[1] += self.size
        if state[0] >= HEADERS_IN_A_ROW or state[1] > HEADER_BUDGET:
            raise UploadError("the upload's tar headers are too many or too large; pack the bot with `spite submit` "
                              "or a plain `tar czf`")
        state[0] += 1
        try:
            return super()._proc_member(archive)  # type: ignore[misc, no-any-return]
        finally:
            state[0] -= 1

    def _no_sparse(self, *args: object) -> None:
        raise UploadError("sparse files may not be uploaded; upload the file itself")

    _proc_gnusparse_00 = _proc_gnusparse_01 = _proc_gnusparse_10 = _no_sparse


EXTENDED_HEADERS = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE,
                    tarfile.SOLARIS_XHDTYPE)


def unpack(blob: bytes, dest: Path, limits: Limits) -> None:
    """Unpack a gzipped tar of a bot into the new directory ``dest``, safely (module docstring).

    Memory stays small whatever the archive says: the tar is read as a stream, every extended
    header is bounded before it is read (:class:`_BoundedTarInfo`), and the decompressed
    stream is cut a little past the unpacked cap."""
    if len(blob) > limits.upload_mb * 1024 * 1024:
        raise UploadError(f"the upload is {len(blob) // 1024} KiB, over the limit of {limits.upload_mb} MiB")
    budget = limits.unpacked_mb * 1024 * 1024
    # headers and padding of every entry, the extended headers, the end-of-archive records
    stream_limit = budget + (limits.files + 1) * 2 * tarfile.BLOCKSIZE + HEADER_BUDGET + 64 * 1024
    entries = 0
    dest.mkdir(parents=True)
    root = dest.resolve()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(blob), mode="rb") as inflated, \
                tarfile.open(fileobj=_Stream(inflated, stream_limit, limits.unpacked_mb),  # type: ignore[call-overload]
                             mode="r|", tarinfo=_BoundedTarInfo) as archive:
            while (member := archive.next()) is not None:
                archive.members.clear()  # a stream needs no index of what it has read
                entries += 1
                if entries > limits.files:
                    raise UploadError(f"the upload has more than {limits.files} files and directories; leave out what "
                                      "the bot does not need")
                name = member.name
                parts = Path(name).parts
                if not name or name.startswith(("/", "\\")) or ".." in parts or "\x00" in name or len(name) > 400:
                    raise UploadError(f"refused path in the upload: {name[:80]!r}")
                target = (root / name).resolve()
                if target != root and root not in target.parents:
                    raise UploadError(f"refused path in the upload: {name[:80]!r}")
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isreg():
                    raise UploadError(f"only files and directories may be uploaded; {name[:80]!r} is a "
                                      f"{'link' if member.issym() or member.islnk() else 'special file'}")
                source = archive.extractfile(member)
                if source is None:
                    raise UploadError(f"unreadable file in the upload: {name[:80]!r}")
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "xb") as out:
                    while chunk := source.read(1 << 16):
                        budget -= len(chunk)
                        if budget < 0:
                            raise UploadError(f"the upload unpacks to more than {limits.unpacked_mb} MiB")
                        out.write(chunk)
                os.chmod(target, 0o755 if member.mode & 0o100 else 0o644)
    except (tarfile.TarError, EOFError, OSError, UnicodeError, zlib.error) as error:
        raise UploadError(f"not a gzipped tar of a bot directory: {str(error)[:200]}") from None


def check_manifest(dest: Path) -> BotManifest:
    """The upload's manifest, if an upload may use it."""
    path = dest / "bot.toml"
    if not path.is_file():
        raise UploadError("the upload has no bot.toml at its top")
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UploadError(f"bot.toml: not valid TOML: {str(error)[:200]}") from None
    if "limits" in data:
        raise UploadError("bot.toml: '[limits]' is set by the competition, not by an upload")
    try:
        manifest = load_manifest(path)
    except ManifestError as error:
        raise UploadError(str(error).replace(str(dest.resolve()) + "/", "").splitlines()[0][:300]) from None
    root = dest.resolve()
    if manifest.workdir != root and root not in manifest.workdir.parents:
        raise UploadError("bot.toml: field 'workdir' must stay inside the upload")
    try:
        check_label(manifest.version, "bot.toml: field 'version'")
    except LabelError as error:
        raise UploadError(str(error)) from None
    return manifest


def build_cache(data: Path, entrant: str) -> Path:
    """An entrant's build cache (``DATA/build-cache/NAME``: Go's and npm's), kept between its
    uploads and never another entrant's (a shared one would let a build plant code in the next)."""
    return data / "build-cache" / entrant


def check_log_dir(data: Path, version_id: int) -> Path:
    """Where a version's check matches keep their logs (``DATA/checks/vN``; hidden from bots)."""
    return data / "checks" / f"v{version_id}"


def check_log_name(version_id: int) -> str:
    """How a check line names a log: where its entrant reads it, never a server path."""
    return f"/me, version {version_id}'s check logs"


NOT_JUDGED = ("{why}. This is the server's fault, not your bot's: the upload does not count against your "
              "uploads per hour; send it again later")
"""The reason of a platform fault (``spite submit`` prints it after ``not judged:``)."""


async def build_upload(manifest: BotManifest, competition: Competition, version_id: int, log_dir: Path) -> CheckReport:
    """The upload's ``build`` in the sandbox under the competition's ``[build]`` caps: a
    report of one build line (the output's last lines under it), passed or with the reason.
    ``SandboxError`` or ``OSError`` when the sandbox cannot start (not the bot's fault)."""
    from tournaments.checkbot import Check

    caps = competition.build
    folder = manifest.path.parent if manifest.path else manifest.workdir
    if not caps.accepts(manifest.language):
        why = (f"this competition builds {', '.join(caps.languages)}, not {manifest.language or 'an unnamed language'}"
               "; set bot.toml's 'language', or upload built files without a 'build' command")
        return CheckReport(False, (Check("build", False, why).line(),), f"failed the build check: {why}")
    log_dir.mkdir(parents=True, exist_ok=True)
    upload, data = folder.resolve(), log_dir.resolve().parent.parent
    cache = build_cache(data, upload.parent.name)
    if cache.is_dir() and folder_usage(cache)[0] > caps.disk_mb * 1024 * 1024 // 2:
        shutil.rmtree(cache, ignore_errors=True)  # it counts against the disk cap: start afresh
    result: BuildResult = await build(manifest.build, folder, caps, log_dir / "build.log", language=manifest.language,
                                      workdir=manifest.workdir, cache=cache)
    detail = f"{manifest.build} ({result.seconds:.1f} s)" if result.ok else result.reason
    check = Check("build", result.ok, detail, "" if result.ok else f"the whole output: {check_log_name(version_id)}",
                  notes=list(result.tail))
    line = _scrubbed(check.line(), upload, data)
    return CheckReport(result.ok, (line,), "" if result.ok else _scrubbed(f"failed the build check: {result.reason}",
                                                                            upload, data))


def _scrubbed(text: str, upload: Path, data: Path) -> str:
    """No server path in what the entrant reads: the upload's own files by their names in it
    (a traceback's ``File "bot.py"``), the data directory as DATA."""
    return terminal_safe(text.replace(f"{upload}/", "").replace(str(upload), ".").replace(str(data), "DATA"))


async def run_checks(manifest_path: Path, competition: Competition, version_id: int, log_dir: Path) -> CheckReport:
    """``spite check-bot``'s checks in a subprocess, under the competition's own rules and
    time control, the logs in ``log_dir``; never raises. A report with ``platform_fault``
    did not judge the bot (the machine was too slow, or the checks could not run)."""
    from referee.processes.launcher import die_with_parent

    process = None
    try:
        manifest = load_manifest(manifest_path)
        built = await build_upload(manifest, competition, version_id, log_dir) if manifest.build else None
        if built is not None and not built.passed:
            shutil.rmtree(manifest_path.parent, ignore_errors=True)  # what a failed build wrote, up to its disk cap
            return built
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "spite_arena.uploads", str(manifest_path), "--rules", competition.rules.name,
            "--time-control", json.dumps(competition.time_control.to_dict()),
            "--log-dir", str(log_dir), "--version-id", str(version_id), *(["--built"] if built else []),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, preexec_fn=die_with_parent)
        out, _ = await asyncio.wait_for(process.communicate(), CHECK_TIMEOUT_S)
        data = json.loads(out.decode().strip().splitlines()[-1])
        return CheckReport(bool(data["passed"]), (*(built.lines if built else ()), *(str(x) for x in data["lines"])),
                           str(data["reason"]), bool(data.get("platform_fault")))
    except (ManifestError, SandboxError) as error:
        return CheckReport(False, (), NOT_JUDGED.format(why=f"the checks could not run ({str(error)[:200]})"), True)
    except (asyncio.TimeoutError, TimeoutError):
        if process is not None:
            process.kill()
        return CheckReport(False, (), NOT_JUDGED.format(why=f"the checks took longer than {CHECK_TIMEOUT_S} s"), True)
    except (OSError, ValueError, KeyError, IndexError) as error:
        return CheckReport(False, (), NOT_JUDGED.format(why=f"the checks could not run ({str(error)[:200]})"), True)


def main(argv: list[str] | None = None) -> int:
    from referee.core.deadlines import TimeControl
    from spite_engine import parse_rules
    from tournaments.checkbot import check_bot

    parser = argparse.ArgumentParser(prog="python -m spite_arena.uploads")
    parser.add_argument("manifest")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--time-control", type=json.loads, default={}, help="the competition's, as JSON")
    parser.add_argument("--log-dir", type=Path, required=True)
    parser.add_argument("--version-id", type=int, required=True)
    parser.add_argument("--built", action="store_true", help="the build ran already, in the sandbox (build_upload)")
    args = parser.parse_args(argv)
    results = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        manifest = load_manifest(args.manifest)
        checks = check_bot(replace(manifest, build="") if args.built else manifest, games=1,
                           rules=parse_rules(args.rules), variants=False,
                           time_control=TimeControl.from_table(args.time_control),
                           log_dir=args.log_dir, log_name=lambda _: check_log_name(args.version_id))
        checks = [c for c in checks if not (args.built and c.name == "build")]  # the server's build line stands
        failed = [c for c in checks if c.failed]
        machine = next((c for c in failed if c.platform), None)
        upload, data = Path(args.manifest).resolve().parent, args.log_dir.resolve().parent.parent

        def scrubbed(text: str) -> str:
            return _scrubbed(text, upload, data)

        report = {"passed": not failed, "lines": [scrubbed(c.line()) for c in checks],
                  "platform_fault": machine is not None,
                  "reason": scrubbed(NOT_JUDGED.format(why=machine.detail) if machine else
                                     f"failed the {failed[0].name} check: {failed[0].detail}" if failed else "")}
    except Exception as error:  # one line back to the server, never a traceback
        report = {"passed": False, "lines": [], "platform_fault": True, "reason": NOT_JUDGED.format(
            why=f"the checks failed to run ({type(error).__name__}: {str(error)[:200]})")}
    results.write(json.dumps(report) + "\n")
    results.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
