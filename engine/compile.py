"""Build the compiled engine: the hot modules of ``spite_engine`` (``spite_engine.compiled.MODULES``)
compiled by Cython from their own sources and the typed declarations of their ``.pxd`` files,
in place beside them, with the digest of those sources (``spite_engine/compiled.json``) that
tells the package the build is current.

    .venv/bin/python engine/compile.py           # build (make setup does it)
    .venv/bin/python engine/compile.py --clean   # remove the build: the Python sources run

Exit status 0 when built (or cleaned), 1 with one line on stderr when it could not be (no C
compiler, no Cython): the engine then runs from its Python sources, as it always can.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ENGINE = Path(__file__).resolve().parent
sys.path.insert(0, str(ENGINE))
os.environ["SPITE_ENGINE"] = "python"  # this process only reads the digest; never loads a build

from spite_engine import compiled  # noqa: E402


def clean() -> None:
    for name in compiled.MODULES:
        while (path := compiled.extension_path(name)) is not None:
            path.unlink()
        (compiled.PACKAGE_DIR / f"{name}.c").unlink(missing_ok=True)
    compiled.STAMP.unlink(missing_ok=True)


def build() -> None:
    from Cython import __version__ as cython_version
    from Cython.Build import cythonize
    from setuptools import Extension, setup

    digest = compiled.source_digest()
    compiled.STAMP.unlink(missing_ok=True)
    extensions = [Extension(f"spite_engine.{name}", [f"spite_engine/{name}.py"]) for name in compiled.MODULES]
    with tempfile.TemporaryDirectory(prefix="spite-engine-build-") as work:
        previous = Path.cwd()
        os.chdir(ENGINE)
        try:
            modules = cythonize(extensions, build_dir=work, quiet=True, compiler_directives={
                # The sources are typed for mypy, not for C: only the .pxd files' types count.
                "language_level": 3, "annotation_typing": False, "binding": True})
            setup(name="spite-engine-compiled", ext_modules=modules,
                  script_args=["--quiet", "build_ext", "--inplace", "--build-temp", work])
        finally:
            os.chdir(previous)
    if compiled.source_digest() != digest:
        raise RuntimeError("the sources changed during the build; run it again")
    compiled.STAMP.write_text(json.dumps({"digest": digest, "cython": cython_version,
                                          "modules": list(compiled.MODULES)}, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    args = parser.parse_args(argv)
    if args.clean:
        clean()
        return 0
    if shutil.which(os.environ.get("CC", "cc")) is None:
        print("engine/compile.py: no C compiler (cc): the engine runs from its Python sources", file=sys.stderr)
        return 1
    try:
        build()
    except Exception as error:  # noqa: BLE001 - any build failure leaves the Python engine, said in one line
        clean()
        print(f"engine/compile.py: the compiled engine was not built ({type(error).__name__}: {error}); "
              "the engine runs from its Python sources", file=sys.stderr)
        return 1
    print(f"engine/compile.py: built {', '.join(compiled.MODULES)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
