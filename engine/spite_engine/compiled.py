"""Which build of the engine this process runs: the compiled one or the Python sources.

The hot modules of a package (the engine's :data:`ENGINE`; the SDK's reference policies and
the tactician's search, ``spite_sdk.BUILD``) can be compiled by Cython from these very sources, with the typed
declarations of their ``.pxd`` files (``engine/compile.py``, run by ``make setup``): the same
code, about 1.5 times the decisions per second. The Python sources stay the reference: the
compiled build must play identical games (``tests/rules/test_compiled.py``).

A compiled module is used only when it was built from the sources as they are now (the
digest ``engine/compile.py`` writes beside it); otherwise, or with ``SPITE_ENGINE=python``
in the environment, :meth:`Build.load` imports every module of the build from its ``.py``
file before anything else imports the package's modules, so an edited source is never
shadowed by a stale build.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

ENVIRONMENT = "SPITE_ENGINE"
"""``SPITE_ENGINE=python`` runs the Python sources even where a current build exists."""


@dataclass(frozen=True)
class Build:
    """The compiled modules of one package."""

    package: str
    directory: Path
    modules: tuple[str, ...]
    """In the order they import one another."""

    @property
    def stamp(self) -> Path:
        """Written by ``engine/compile.py``: the digest of the sources the extensions were built from."""
        return self.directory / "compiled.json"

    def source_digest(self) -> str:
        """SHA-256 of every module's ``.py`` and ``.pxd`` source, in order."""
        digest = hashlib.sha256()
        for name in self.modules:
            for suffix in (".py", ".pxd"):
                path = self.directory / f"{name}{suffix}"
                digest.update(f"{name}{suffix}\0".encode())
                digest.update(path.read_bytes() if path.exists() else b"")
        return digest.hexdigest()

    def extension_path(self, name: str) -> Path | None:
        """The built extension module of ``name`` for this interpreter, if there is one."""
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = self.directory / f"{name}{suffix}"
            if path.exists():
                return path
        return None

    def is_current(self) -> bool:
        """Whether every module has an extension built from today's sources."""
        if not all(self.extension_path(name) for name in self.modules):
            return False
        try:
            stamp = json.loads(self.stamp.read_text())
        except (OSError, ValueError):
            return False
        return isinstance(stamp, dict) and stamp.get("digest") == self.source_digest()

    def load(self) -> bool:
        """Called by the package before it imports its modules. Returns True when the compiled
        modules will be imported; else imports each module from its source file now (the
        import system would otherwise prefer a built extension next to it)."""
        wanted = os.environ.get(ENVIRONMENT, "").strip().lower() != "python"
        if wanted and self.is_current():
            return True
        if not any(self.extension_path(name) for name in self.modules):
            return False  # nothing built: the ordinary imports find the sources
        parent = sys.modules[self.package]
        for name in self.modules:
            qualified = f"{self.package}.{name}"
            if qualified in sys.modules:
                continue
            spec = importlib.util.spec_from_file_location(qualified, self.directory / f"{name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[qualified] = module
            spec.loader.exec_module(module)
            setattr(parent, name, module)
        return False


ENGINE = Build("spite_engine", Path(__file__).resolve().parent, ("rng", "moves", "outcome", "state", "observation"))
"""The engine's compiled modules."""
