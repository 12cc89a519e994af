"""Which build of the engine this process runs: the compiled one or the Python sources.

The hot modules (:data:`MODULES`) can be compiled by Cython from these very sources, with
the typed declarations of their ``.pxd`` files (``engine/compile.py``, run by ``make setup``):
the same code, about 1.5 times the decisions per second. The Python sources stay the
reference: the compiled build must play identical games (``tests/rules/test_compiled.py``).

A compiled module is used only when it was built from the sources as they are now (the
digest ``engine/compile.py`` writes beside it); otherwise, or with ``SPITE_ENGINE=python``
in the environment, :func:`load` imports every module of :data:`MODULES` from its ``.py``
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
from pathlib import Path

MODULES = ("rng", "moves", "outcome", "state", "observation")
"""The compiled modules, in the order they import one another."""

PACKAGE_DIR = Path(__file__).resolve().parent
STAMP = PACKAGE_DIR / "compiled.json"
"""Written by ``engine/compile.py``: the digest of the sources the extensions were built from."""

ENVIRONMENT = "SPITE_ENGINE"
"""``SPITE_ENGINE=python`` runs the Python sources even where a current build exists."""


def source_digest() -> str:
    """SHA-256 of every compiled module's ``.py`` and ``.pxd`` source, in :data:`MODULES` order."""
    digest = hashlib.sha256()
    for name in MODULES:
        for suffix in (".py", ".pxd"):
            path = PACKAGE_DIR / f"{name}{suffix}"
            digest.update(f"{name}{suffix}\0".encode())
            digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def extension_path(name: str) -> Path | None:
    """The built extension module of ``name`` for this interpreter, if there is one."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = PACKAGE_DIR / f"{name}{suffix}"
        if path.exists():
            return path
    return None


def build_is_current() -> bool:
    """Whether every module of :data:`MODULES` has an extension built from today's sources."""
    if not all(extension_path(name) for name in MODULES):
        return False
    try:
        stamp = json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(stamp, dict) and stamp.get("digest") == source_digest()


def load(package: str) -> bool:
    """Called by the package before it imports its modules. Returns True when the compiled
    modules will be imported; else imports each of :data:`MODULES` from its source file now
    (the import system would otherwise prefer a built extension next to it)."""
    wanted = os.environ.get(ENVIRONMENT, "").strip().lower() != "python"
    if wanted and build_is_current():
        return True
    if not any(extension_path(name) for name in MODULES):
        return False  # nothing built: the ordinary imports find the sources
    parent = sys.modules[package]
    for name in MODULES:
        qualified = f"{package}.{name}"
        if qualified in sys.modules:
            continue
        spec = importlib.util.spec_from_file_location(qualified, PACKAGE_DIR / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = module
        spec.loader.exec_module(module)
        setattr(parent, name, module)
    return False
