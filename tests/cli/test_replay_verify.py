"""``spite replay --verify`` checks what a replay claims (issue 30, item 1): a replay that does
not verify is "a check said no" (exit 1) with the first difference, in one line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from .conftest import spite


def _replay(tmp_path: Path) -> Path:
    done = spite("play", "greedy", "random", "--replay-dir", str(tmp_path / "replays"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return next((tmp_path / "replays").glob("*.jsonl.gz"))


def _claim(path: Path, name: str) -> Path:
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    header = json.loads(lines[0])
    header["rules"]["name"] = name
    claimed = path.with_name("claimed.jsonl.gz")
    claimed.write_bytes(gzip.compress("\n".join([json.dumps(header), *lines[1:]]).encode() + b"\n"))
    return claimed


def test_a_replay_that_claims_another_rule_set_does_not_verify(tmp_path: Path) -> None:
    original = _replay(tmp_path)
    assert spite("replay", "--verify", str(original)).returncode == 0
    done = spite("replay", "--verify", str(_claim(original, "kings-only")))
    assert done.returncode == 1, done.stderr
    assert "MISMATCH" in done.stderr and "jokers_per_deck" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
