#!/usr/bin/env python3
"""Regenerate the Python code for the wire contract from ../../proto (the one source).

    python wire/generate.py            # writes wire/spite/v1/*_pb2*.py(i)
    python wire/generate.py --out DIR  # writes elsewhere (the regeneration test diffs)

The generated modules live in the top-level package ``spite.v1`` (the proto package),
shipped by the ``spite-wire`` distribution, so their own imports work unchanged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTO_ROOT = HERE.parent / "proto"
PROTOS = sorted((PROTO_ROOT / "spite" / "v1").glob("*.proto"))
INIT = '"""Generated from proto/spite/v1 by wire/generate.py; do not edit."""\n'


def generate(out: Path) -> None:
    from grpc_tools import protoc  # dev dependency: pip install grpcio-tools

    package = out / "spite" / "v1"
    package.mkdir(parents=True, exist_ok=True)
    args = ["protoc", f"-I{PROTO_ROOT}", f"--python_out={out}", f"--pyi_out={out}",
            f"--grpc_python_out={out}", *map(str, PROTOS)]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for init in (out / "spite" / "__init__.py", package / "__init__.py"):
        init.write_text(INIT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=HERE, help="output root (default: wire/)")
    generate(parser.parse_args(argv).out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
