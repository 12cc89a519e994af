"""Bot bundles: a bot version's files, content-addressed, for workers that share nothing but
the Dask scheduler with the server.

A bundle is the folder of a bot's manifest as it stands after its build: every regular file
under it (``__pycache__`` aside), each listed in an index with its path, size, executable bit
and SHA-256. The bundle's **digest** is the SHA-256 of that index in canonical JSON, so one
64-hex string names the whole tree and every byte of it. The server makes bundles
(:func:`make_bundle`); a worker keeps the ones it was sent in its :class:`BundleCache`,
installed once (checked against the digest, every path inside the bundle's folder, read-only)
and checked again before every game that uses them (:meth:`BundleCache.manifest`).

What a bundle may not hold, refused with a :class:`BundleError` on either side: a symlink or
any file that is not a regular file, a path that leaves the folder (absolute, ``..``, a
backslash, a NUL), more than :data:`MAX_FILES` files or :data:`MAX_BYTES` bytes, a file whose
bytes do not match its hash, an index that does not match the digest.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

MAX_FILES = 10_000
MAX_BYTES = 64 * 1024 * 1024
"""A bundle travels in a Dask task's arguments (through the scheduler): a built bot is a few
MB; anything near this is a build that leaves its caches in the bot's folder."""
MAX_PATH = 255
MAX_DEPTH = 32
FORMAT = 1
SKIPPED = frozenset({"__pycache__"})
"""Folders never bundled: an interpreter rebuilds them (and a bundle is installed read-only)."""
DIGEST = re.compile(r"[0-9a-f]{64}")
CACHE_ENV = "SPITE_BUNDLE_CACHE"


class BundleError(ValueError):
    """A bundle that cannot be made, sent or used; the message names the bot or the digest."""


@dataclass(frozen=True)
class BundleFile:
    path: str
    """Relative POSIX path inside the bot's folder."""
    size: int
    sha256: str
    executable: bool


@dataclass(frozen=True)
class Bundle:
    """A bot's folder as an index and its files' bytes (by SHA-256)."""

    manifest: str
    """The manifest's path inside the folder (usually ``bot.toml``)."""
    files: tuple[BundleFile, ...]
    blobs: Mapping[str, bytes]

    @property
    def index(self) -> bytes:
        return _index(self.manifest, self.files)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.index).hexdigest()

    @property
    def size(self) -> int:
        return sum(len(b) for b in self.blobs.values())

    def to_wire(self) -> dict[str, Any]:
        """The form a Dask task carries: the index's bytes and the blobs by hash."""
        return {"index": self.index, "blobs": dict(self.blobs)}


def _index(manifest: str, files: tuple[BundleFile, ...]) -> bytes:
    listing = [{"path": f.path, "size": f.size, "sha256": f.sha256, "x": f.executable} for f in files]
    return json.dumps({"format": FORMAT, "manifest": manifest, "files": listing}, sort_keys=True,
                      separators=(",", ":")).encode()


def check_path(path: str) -> str:
    """``path`` if it is a plain relative path inside a bundle's folder, else a :class:`BundleError`."""
    if not isinstance(path, str) or not path or len(path) > MAX_PATH or "\\" in path or "\0" in path:
        raise BundleError(f"bundle path {path!r}: not a plain relative path")
    parts = PurePosixPath(path).parts
    if (path.startswith("/") or any(p in ("..", ".", "") for p in parts) or len(parts) > MAX_DEPTH
            or str(PurePosixPath(*parts)) != path or any(p in SKIPPED for p in parts)):
        raise BundleError(f"bundle path {path!r} leaves the bot's folder or is not in canonical form")
    return path


def check_digest(digest: str) -> str:
    if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
        raise BundleError(f"{digest!r} is not a bundle digest (64 lowercase hex digits)")
    return digest


def make_bundle(manifest_path: Path, name: str = "") -> Bundle:
    """The bundle of the bot whose manifest is ``manifest_path``: its folder's regular files.
    A symlink, a special file, too many files or bytes: a :class:`BundleError` naming ``name``."""
    who = f"bot {name!r}" if name else str(manifest_path)
    root = manifest_path.parent
    files: list[BundleFile] = []
    blobs: dict[str, bytes] = {}
    total = 0
    def unreadable(error: OSError) -> None:
        raise BundleError(f"{who}: cannot read {error.filename}: {error.strerror}")

    for directory, folders, names in os.walk(root, onerror=unreadable, followlinks=False):
        folders[:] = sorted(f for f in folders if f not in SKIPPED)
        here = Path(directory)
        for entry in [*folders, *sorted(names)]:
            path = here / entry
            relative = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                raise BundleError(f"{who}: {relative} is a symlink; a bot shipped to workers holds regular files "
                                  f"only (copy the file into the bot's folder)")
            if stat.S_ISDIR(info.st_mode):
                continue
            if not stat.S_ISREG(info.st_mode):
                raise BundleError(f"{who}: {relative} is not a regular file")
            check_path(relative)
            total += info.st_size
            if len(files) >= MAX_FILES or total > MAX_BYTES:
                raise BundleError(f"{who}: the bot's folder holds more than {MAX_FILES} files or "
                                  f"{MAX_BYTES // (1024 * 1024)} MiB; keep build caches out of it")
            data = path.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            blobs[digest] = data
            files.append(BundleFile(relative, len(data), digest, bool(info.st_mode & stat.S_IXUSR)))
    manifest = manifest_path.relative_to(root).as_posix()
    if manifest not in {f.path for f in files}:
        raise BundleError(f"{who}: its manifest {manifest_path} is not a regular file in its folder")
    return Bundle(manifest, tuple(files), blobs)


def from_wire(digest: str, wire: Any) -> Bundle:
    """The bundle ``wire`` (:meth:`Bundle.to_wire`) holds, checked against ``digest``: the index's
    hash, every path, the count and size limits, and each file's bytes against its hash."""
    check_digest(digest)
    if not isinstance(wire, dict) or not isinstance(wire.get("index"), bytes) or not isinstance(wire.get("blobs"),
                                                                                                dict):
        raise BundleError(f"bundle {digest[:12]}: not a bundle")
    index: bytes = wire["index"]
    if len(index) > MAX_FILES * (MAX_PATH + 200) or hashlib.sha256(index).hexdigest() != digest:
        raise BundleError(f"bundle {digest[:12]}: its index does not match its digest (hash mismatch)")
    bundle = _parse_index(digest, index, wire["blobs"])
    for file in bundle.files:
        data = bundle.blobs.get(file.sha256)
        if not isinstance(data, bytes) or len(data) != file.size or hashlib.sha256(data).hexdigest() != file.sha256:
            raise BundleError(f"bundle {digest[:12]}: {file.path} does not match its hash (hash mismatch)")
    return bundle


def _parse_index(digest: str, index: bytes, blobs: Mapping[str, bytes]) -> Bundle:
    try:
        data = json.loads(index)
        manifest = check_path(data["manifest"])
        files = tuple(BundleFile(check_path(f["path"]), int(f["size"]), check_digest(f["sha256"]), bool(f["x"]))
                      for f in data["files"])
    except (ValueError, KeyError, TypeError) as error:
        raise BundleError(f"bundle {digest[:12]}: a malformed index ({error})") from None
    if data.get("format") != FORMAT or _index(manifest, files) != index:
        raise BundleError(f"bundle {digest[:12]}: not a format-{FORMAT} index in canonical form")
    paths = [f.path for f in files]
    if len(files) > MAX_FILES or sum(f.size for f in files) > MAX_BYTES or any(f.size < 0 for f in files):
        raise BundleError(f"bundle {digest[:12]}: more than {MAX_FILES} files or {MAX_BYTES} bytes")
    prefixes = {str(parent) for p in paths for parent in PurePosixPath(p).parents}
    if len(set(paths)) != len(paths) or prefixes & set(paths) or manifest not in paths:
        raise BundleError(f"bundle {digest[:12]}: a path listed twice, a file where a folder is, or no manifest")
    return Bundle(manifest, files, blobs)


def default_cache_dir() -> Path:
    """``$SPITE_BUNDLE_CACHE``, else ``$XDG_CACHE_HOME/spite-arena/bundles``, else ``~/.cache/...``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "spite-arena" / "bundles"


class BundleCache:
    """A worker's bundles, one read-only folder per digest: ``ROOT/DIGEST/files/...`` beside
    ``ROOT/DIGEST/index.json``. Safe for several threads and processes installing at once."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_cache_dir()

    def _entry(self, digest: str) -> Path:
        return self.root / check_digest(digest)

    def has(self, digest: str) -> bool:
        return (self._entry(digest) / "index.json").is_file()

    def install(self, digest: str, wire: Any) -> None:
        """Check ``wire`` against ``digest`` (:func:`from_wire`) and write it into the cache;
        a copy already there is kept if it verifies, replaced if not."""
        bundle = from_wire(digest, wire)
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o711)  # a bot's own uid passes through to its folder, cannot list the others
        staging = self.root / f".install-{secrets.token_hex(8)}"
        try:
            files = staging / "files"
            files.mkdir(parents=True)
            for file in bundle.files:
                target = files / file.path
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "xb") as out:
                    out.write(bundle.blobs[file.sha256])
                target.chmod(0o555 if file.executable else 0o444)
            (staging / "index.json").write_bytes(bundle.index)
            _seal(staging)
            entry = self._entry(digest)
            for _ in range(2):
                try:
                    os.rename(staging, entry)
                    return
                except OSError:
                    if self._verified(digest):
                        return  # another install of the same digest won the race
                    remove_tree(entry)
            raise BundleError(f"bundle {digest[:12]}: cannot install it in {self.root}")
        finally:
            if staging.exists():
                remove_tree(staging)

    def manifest(self, digest: str) -> Path:
        """The installed bundle's manifest, after checking every file against the digest. A copy
        that differs (a file changed, added or removed since it was installed: a cache poisoned by
        something else on this machine) is removed and refused with a :class:`BundleError`."""
        entry = self._entry(digest)
        try:
            bundle = self._check(digest)
        except BundleError:
            remove_tree(entry)
            raise
        return entry / "files" / bundle.manifest

    def _verified(self, digest: str) -> bool:
        try:
            self._check(digest)
        except BundleError:
            return False
        return True

    def _check(self, digest: str) -> Bundle:
        entry = self._entry(digest)
        try:
            index = (entry / "index.json").read_bytes()
        except OSError:
            raise BundleError(f"bundle {digest[:12]} is not in this worker's cache") from None
        if hashlib.sha256(index).hexdigest() != digest:
            raise BundleError(f"bundle {digest[:12]} in this worker's cache: its index does not match its "
                              f"digest (the cache was changed: removed)")
        bundle = _parse_index(digest, index, {})
        files = entry / "files"
        listed = {f.path: f for f in bundle.files}
        found: set[str] = set()
        for directory, folders, names in os.walk(files, followlinks=False):
            for name in [*folders, *names]:
                path = Path(directory) / name
                relative = path.relative_to(files).as_posix()
                info = path.lstat()
                if stat.S_ISDIR(info.st_mode):
                    continue
                file = listed.get(relative)
                if (file is None or not stat.S_ISREG(info.st_mode) or info.st_size != file.size
                        or bool(info.st_mode & stat.S_IXUSR) != file.executable
                        or _sha256(path) != file.sha256):
                    raise BundleError(f"bundle {digest[:12]} in this worker's cache: {relative} differs from "
                                      f"the bundle (the cache was changed since it was installed: removed)")
                found.add(relative)
        if found != set(listed):
            missing = sorted(set(listed) - found)[0]
            raise BundleError(f"bundle {digest[:12]} in this worker's cache: {missing} is missing (removed)")
        return bundle


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while chunk := source.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _seal(root: Path) -> None:
    """Folders read-only too (files are already): nothing running as this worker's bots adds a file."""
    for directory, _, _ in os.walk(root, topdown=False):
        os.chmod(directory, 0o555)


def remove_tree(path: Path) -> None:
    """Remove a (sealed, read-only) installed tree, or whatever is at ``path``."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
        return
    if not path.exists():
        return
    for directory, _, _ in os.walk(path):
        try:
            os.chmod(directory, 0o700)
        except OSError:
            pass
    shutil.rmtree(path, ignore_errors=True)
