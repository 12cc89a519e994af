"""``spite doctor``'s parser: the report itself is :mod:`spite_cli.doctor` (the sandbox's own
module; this one only wires it into the command line). Always exits 0: it reports."""

from __future__ import annotations

import argparse
from typing import Any

from . import doctor


def cmd_doctor(args: argparse.Namespace) -> int:
    return doctor.main(as_json=args.json)


def register(sub: Any) -> None:
    doc = sub.add_parser("doctor", help="say how this machine sandboxes bots (bubblewrap or insecure) and why")
    doc.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    doc.set_defaults(func=cmd_doctor)
