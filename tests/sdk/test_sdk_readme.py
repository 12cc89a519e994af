"""sdk/python/README.md runs as written: its bot plays a whole match, its manifest is
the sample bots' shape, and its `spite play` line works."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from _sdk_engine_referee import GAMES, EngineReferee
from _sdk_referee import PYTHON, run_bot

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "sdk" / "python" / "README.md").read_text()


def readme_block(language: str) -> str:
    match = re.search(rf"```{language}\n(.*?)```", README, re.S)
    assert match, f"no {language} block in the README"
    return match.group(1)


def test_the_readme_bot_plays_a_match(tmp_path: Path) -> None:
    bot = tmp_path / "mybot.py"
    bot.write_text(readme_block("python"))
    referee = EngineReferee()
    run = run_bot([PYTHON, str(bot)], referee, env={"SPITE_TOKEN": "t"})
    assert run.returncode == 0, run.stderr
    assert run.session.hello is not None and run.session.hello.name == "mybot"
    assert len(referee.outcomes) == GAMES


def test_the_readme_manifest_matches_the_sample_bots() -> None:
    manifest = tomllib.loads(readme_block("toml"))
    sample = tomllib.loads((ROOT / "sample_bots" / "greedy" / "bot.toml").read_text())
    assert manifest.keys() == sample.keys()
    assert {k: manifest[k] for k in ("language", "command", "transport")} == \
        {k: sample[k] for k in ("language", "command", "transport")}


def test_spite_play_runs_the_readme_bot(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(readme_block("python"))
    result = subprocess.run([sys.executable, "-c", "import sys; from spite_cli.main import main; sys.exit(main())",
                             "play", "./mybot.py", "greedy", "--plain"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "mybot" in result.stdout
