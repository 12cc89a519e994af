"""A bot's name is a label, never a path: found while auditing what of a manifest reaches the
organizer's processes (issue 31, item 1). A manifest named ``x/../../../../tmp/pwned`` had the
launcher, running as root, create ``/tmp/pwned.log`` and fill it with the bot's output."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.core.replay import bot_log_path
from referee.processes.manifest import ManifestError, load_manifest

from ..cli.conftest import spite

REPO = Path(__file__).resolve().parents[2]


@given(st.text(min_size=0, max_size=200), st.integers(0, 3))
def test_a_log_file_stays_in_the_log_directory_whatever_the_name(name: str, seat: int) -> None:
    path = bot_log_path(Path("/logs"), "m1", seat, name)
    assert path.parent == Path("/logs") and not path.name.startswith(".")
    assert path.name.startswith(f"m1-seat{seat}-") and path.name.endswith(".log") and len(path.name) < 100


def test_ordinary_names_keep_their_log_file_names() -> None:
    assert bot_log_path("/l", "m", 1, "house-greedy-v1").name == "m-seat1-house-greedy-v1.log"


@pytest.mark.parametrize("name",
                         ["x/../../../../tmp/pwned", "a\\\\b", "x\\u001b[31mred", "\\u202eevil", "..", "n" * 65])
def test_a_name_that_is_not_a_label_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "bot.toml").write_text(f'name = "{name}"\ncommand = ["{{python}}", "bot.py"]\n')
    (tmp_path / "bot.py").write_text("")
    with pytest.raises(ManifestError, match="field 'name'"):
        load_manifest(tmp_path / "bot.toml")


def test_spite_play_with_a_path_for_a_name_writes_nothing_outside(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    shutil.copy(REPO / "sample_bots" / "greedy" / "bot.py", folder / "bot.py")
    (folder / "bot.toml").write_text(f'name = "x/../../../../../../../..{tmp_path}/pwned"\n'
                                     'command = ["{python}", "bot.py"]\ntransport = "stdio"\n')
    done = spite("play", str(folder / "bot.toml"), "greedy", "--no-replays", cwd=tmp_path)
    assert done.returncode == 2 and "field 'name'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "pwned.log").exists()
