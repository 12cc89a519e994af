"""Build the compiled engine: the hot modules of a package (``spite_engine.compiled.Build``)
compiled by Cython from their own sources and the typed declarations of their ``.pxd`` files,
in place beside them, with the digest of those sources (``compiled.json``) that tells the
package the build is current.

    .venv/bin/python engine/compile.py                          # the engine (spite_engine)
    .venv/bin/python engine/compile.py spite_engine spite_sdk   # ... and the SDK's policies (make setup)
    .venv/bin/python engine/compile.py --clean spite_engine spite_sdk   # back to the Python sources

Exit status 0 when built (or cleaned), 1 with one line on stderr when a package could not be
(no C compiler, no Cython): it then runs from its Python sources, as it always can.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import sys
import tempfile

os.environ["SPITE_ENGINE"] = "python"  # this process only reads the sources; it never loads a build

from spite_engine.compiled import Build  # noqa: E402


def find(package: str) -> Build:
    build = getattr(importlib.import_module(package), "BUILD", None)
    if not isinstance(build, Build):
        raise SystemExit(f"engine/compile.py: {package} declares no compiled modules (BUILD)")
    return build


def clean(build: Build) -> None:
    for name in build.modules:
        while (path := build.extension_path(name)) is not None:
            path.unlink()
    build.stamp.unlink(missing_ok=True)


def compile_build(build: Build) -> None:
    from Cython import __version__ as cython_version
    from Cython.Build import cythonize
    from setuptools import Extension, setup

    digest = build.source_digest()
    build.stamp.unlink(missing_ok=True)
    root = build.directory.parent
    extensions = [Extension(f"{build.package}.{name}", [f"{build.directory.name}/{name}.py"],
                            extra_compile_args=["-Wno-maybe-uninitialized"])
                  for name in build.modules]
    with tempfile.TemporaryDirectory(prefix="spite-compile-") as work:
        previous = os.getcwd()
        os.chdir(root)
        try:
            modules = cythonize(extensions, build_dir=work, quiet=True, compiler_directives={
                # The sources are typed for mypy, not for C: only the .pxd files' types count.
                "language_level": 3, "annotation_typing": False, "binding": True})
            setup(name=f"{build.package}-compiled", ext_modules=modules,
                  script_args=["--quiet", "build_ext", "--inplace", "--build-temp", work])
        finally:
            os.chdir(previous)
    if build.source_digest() != digest:
        raise RuntimeError("the sources changed during the build; run it again")
    build.stamp.write_text(json.dumps({"digest": digest, "cython": cython_version,
                                       "modules": list(build.modules)}, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="*", default=["spite_engine"],
                        help="packages whose compiled modules to build (default: spite_engine)")
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    args = parser.parse_args(argv)
    builds = [find(package) for package in args.packages]
    if args.clean:
        for build in builds:
            clean(build)
        return 0
    if shutil.which(os.environ.get("CC", "cc")) is None:
        print("engine/compile.py: no C compiler (cc): the engine runs from its Python sources", file=sys.stderr)
        return 1
    for build in builds:
        try:
            compile_build(build)
        except Exception as error:  # noqa: BLE001 - any failure leaves the Python sources, said in one line
            clean(build)
            print(f"engine/compile.py: {build.package} was not compiled ({type(error).__name__}: {error}); "
                  "it runs from its Python sources", file=sys.stderr)
            return 1
        print(f"engine/compile.py: compiled {build.package}: {', '.join(build.modules)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
