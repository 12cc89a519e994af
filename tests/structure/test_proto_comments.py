"""Every field and enum value of the wire contract says what it is (units, visibility), as
the README promises: a comment on the line before it, or at the head of a run of fields
that one comment describes together."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PROTOS = sorted((Path(__file__).resolve().parents[2] / "proto" / "spite" / "v1").glob("*.proto"))
FIELD = re.compile(r"^\s*(repeated |optional )?[\w.]+ \w+ = \d+;|^\s*[A-Z][A-Z0-9_]* = \d+;")


@pytest.mark.parametrize("proto", PROTOS, ids=lambda p: p.name)
def test_every_field_and_enum_value_is_commented(proto: Path) -> None:
    lines = proto.read_text().splitlines()
    bare = []
    for number, line in enumerate(lines):
        if not FIELD.match(line) or "//" in line:
            continue
        above = number - 1
        while above >= 0 and FIELD.match(lines[above]) and "//" not in lines[above]:
            above -= 1  # one comment may describe a run of fields
        if above < 0 or not lines[above].strip().startswith("//"):
            bare.append(f"{proto.name}:{number + 1}: {line.strip()}")
    assert len(PROTOS) >= 2 and not bare, "fields without a comment:\n" + "\n".join(bare)
