"""An uploaded bot: unpacked safely, its manifest checked, then the conformance checks.

An upload is a gzipped tar of the bot's directory (``spite submit`` makes it). Unpacking
takes only regular files and directories, refuses absolute names, ``..``, links and
devices, and stops at the competition's caps on compressed size, unpacked size and file
count (a zip bomb hits the unpacked cap while streaming). The manifest may not have a
``build`` step (nothing of an upload runs outside the sandbox; upload built files) nor
``[limits]`` (the competition's defaults apply), and its ``workdir`` stays inside the upload.

The checks are those of ``spite check-bot`` (:mod:`tournaments.checkbot`), run in a
subprocess (``python -m spite_arena.uploads MANIFEST``) that prints one JSON line; the bot
runs in the sandbox there as in every match.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from referee.manifest import BotManifest, ManifestError, load_manifest

from .config import Limits

CHECK_TIMEOUT_S = 600


class UploadError(ValueError):
    """An upload refused before its checks; the message is the one-line reason."""


@dataclass(frozen=True)
class CheckReport:
    passed: bool
    lines: tuple[str, ...]
    reason: str


def unpack(blob: bytes, dest: Path, limits: Limits) -> None:
    """Unpack a gzipped tar of a bot into the new directory ``dest``, safely (module docstring)."""
    if len(blob) > limits.upload_mb * 1024 * 1024:
        raise UploadError(f"the upload is {len(blob) // 1024} KiB, over the limit of {limits.upload_mb} MiB")
    budget = limits.unpacked_mb * 1024 * 1024
    files = 0
    dest.mkdir(parents=True)
    root = dest.resolve()
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as archive:
            for member in archive:
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
                files += 1
                if files > limits.files:
                    raise UploadError(f"the upload has more than {limits.files} files")
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
    except (tarfile.TarError, EOFError, OSError, UnicodeError) as error:
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
    if data.get("build"):
        raise UploadError("bot.toml: a 'build' step is not run for uploads (nothing runs outside the sandbox); "
                          "upload the built files")
    if "limits" in data:
        raise UploadError("bot.toml: '[limits]' is set by the competition, not by an upload")
    try:
        manifest = load_manifest(path)
    except ManifestError as error:
        raise UploadError(str(error).replace(str(dest.resolve()) + "/", "").splitlines()[0][:300]) from None
    root = dest.resolve()
    if manifest.workdir != root and root not in manifest.workdir.parents:
        raise UploadError("bot.toml: field 'workdir' must stay inside the upload")
    return manifest


async def run_checks(manifest_path: Path, decision_ms: int) -> CheckReport:
    """``spite check-bot``'s checks in a subprocess; never raises."""
    from referee.launcher import die_with_parent

    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "spite_arena.uploads", str(manifest_path), "--decision-ms", str(decision_ms),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, preexec_fn=die_with_parent)
        out, _ = await asyncio.wait_for(process.communicate(), CHECK_TIMEOUT_S)
        data = json.loads(out.decode().strip().splitlines()[-1])
        return CheckReport(bool(data["passed"]), tuple(str(x) for x in data["lines"]), str(data["reason"]))
    except (asyncio.TimeoutError, TimeoutError):
        process.kill()
        return CheckReport(False, (), f"the checks took longer than {CHECK_TIMEOUT_S} s")
    except (OSError, ValueError, KeyError, IndexError) as error:
        return CheckReport(False, (), f"the checks could not run: {str(error)[:200]}")


def main(argv: list[str] | None = None) -> int:
    from referee.match import TimeControl
    from tournaments.checkbot import check_bot

    parser = argparse.ArgumentParser(prog="python -m spite_arena.uploads")
    parser.add_argument("manifest")
    parser.add_argument("--decision-ms", type=int, default=1000)
    args = parser.parse_args(argv)
    results = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        checks = check_bot(load_manifest(args.manifest), games=1,
                           time_control=TimeControl(decision_ms=args.decision_ms, connect_ms=5000))
        failed = [c for c in checks if not c.passed]
        report = {"passed": not failed, "lines": [c.line() for c in checks],
                  "reason": f"failed the {failed[0].name} check: {failed[0].detail}" if failed else ""}
    except Exception as error:  # one line back to the server, never a traceback
        report = {"passed": False, "lines": [], "reason": f"the checks failed to run: {type(error).__name__}: "
                                                         f"{str(error)[:200]}"}
    results.write(json.dumps(report) + "\n")
    results.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
