"""`spite check-bot --rules`: a Skip-Bo-only bot fails under the default (standard) rules and
passes with --rules skip-bo, whose variants are the ones tried."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .conftest import BOTS, spite

SKIPBO = str(BOTS / "skipbo_only.py")


def test_a_skip_bo_only_bot_passes_with_rules_skip_bo(tmp_path: Path) -> None:
    run = spite("check-bot", SKIPBO, "--rules", "skip-bo", "--games", "1", "--json", cwd=tmp_path)
    report = json.loads(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
    assert report["ok"] and report["rules"] == "skip-bo"
    presets = next(c for c in report["checks"] if c["name"] == "presets")
    assert "skip-bo+3p" in presets["detail"] and presets["status"] == "PASS"


def test_the_same_bot_fails_under_standard_rules_with_its_own_error(tmp_path: Path) -> None:
    run = spite("check-bot", SKIPBO, "--games", "1", cwd=tmp_path)
    assert run.returncode == 1
    assert "RuntimeError: this bot plays Skip-Bo only" in run.stdout


def test_an_unknown_preset_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = spite("check-bot", SKIPBO, "--rules", "nosuch", cwd=tmp_path)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1 and run.stdout == ""


def test_a_bot_toml_version_unlike_the_hello_version_is_a_warning(tmp_path: Path) -> None:
    shutil.copy(SKIPBO, tmp_path / Path(SKIPBO).name)  # a manifest may name only files in its own folder
    (tmp_path / "bot.toml").write_text(f'name = "skipbo-only"\nversion = "0.9.0"\nlanguage = "python"\n'
                                       f'command = ["{{python}}", "{Path(SKIPBO).name}"]\n')
    run = spite("check-bot", str(tmp_path / "bot.toml"), "--rules", "skip-bo", "--games", "1", "--json", cwd=tmp_path)
    handshake = next(c for c in json.loads(run.stdout)["checks"] if c["name"] == "handshake")
    assert handshake["status"] == "PASS" and "WARNING: its bot.toml says version '0.9.0'" in handshake["detail"]
    assert "'1.0.0'" in handshake["fix"]
