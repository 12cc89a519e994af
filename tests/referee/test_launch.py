"""One launch for a seat's bot (issue 29): ``BotProcess.from_manifest`` turns a manifest and a
:class:`referee.processes.launcher.SeatLaunch` into the process that ``spite play`` and the warm pool
both start. What the bot is told depends on its transport, never on who launches it; its
token never reaches its environment. A real process is started and its environment read."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from referee.core.deadlines import GIVEN_CAP
from referee.processes.launcher import BotProcess, SeatLaunch
from referee.processes.manifest import BotManifest

PRINT_ENV = "import json, os; print(json.dumps(dict(os.environ)))"


def launch(tmp_path: Path, hidden: tuple[Path, ...] = ()) -> SeatLaunch:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return SeatLaunch(home=home, token="seat-token-xyz", address="unix:/nowhere/referee.sock",
                      socket_dir=tmp_path, connect_ms=3000, bot_seed=77, hidden=hidden, log_path=tmp_path / "bot.log")


def bot(transport: str = "grpc", stdio_format: str = "json", env: dict[str, str] | None = None) -> BotManifest:
    return BotManifest(name="env", command=(sys.executable, "-c", PRINT_ENV), workdir=Path.cwd(), transport=transport,
                       stdio_format=stdio_format, env=env or {})


def test_a_grpc_bot_is_told_the_referee_and_how_long_to_wait_for_it(tmp_path: Path) -> None:
    process = BotProcess.from_manifest(bot(env={"GOMAXPROCS": "1"}), launch(tmp_path))
    assert not process.stdio and process.token == "seat-token-xyz" and process.log_path == tmp_path / "bot.log"
    assert process.env["SPITE_ADDRESS"] == "unix:/nowhere/referee.sock"
    assert process.env["SPITE_CONNECT_TIMEOUT"] == f"{GIVEN_CAP * 3:g}"
    assert process.env["SPITE_BOT_SEED"] == "77" and process.env["HOME"] == str(tmp_path / "home")
    assert process.env["GOMAXPROCS"] == "1"
    assert process.isolation is not None and process.isolation.socket_dir == tmp_path


def test_a_stdio_bot_is_told_its_format_not_an_address(tmp_path: Path) -> None:
    process = BotProcess.from_manifest(bot("stdio", stdio_format="protobuf"), launch(tmp_path))
    assert process.stdio and process.stdio_format == "protobuf"
    assert "SPITE_ADDRESS" not in process.env and "SPITE_CONNECT_TIMEOUT" not in process.env
    assert process.isolation is not None and process.isolation.socket_dir is None


def test_the_started_bot_sees_its_settings_and_never_its_token(tmp_path: Path) -> None:
    async def main() -> dict[str, str]:
        process = BotProcess.from_manifest(bot(), launch(tmp_path, hidden=(tmp_path / "store",)))
        await process.start()
        try:
            await process.wait()
        finally:
            await process.stop()
        seen: dict[str, str] = json.loads((tmp_path / "bot.log").read_text().splitlines()[-1])
        return seen

    seen = asyncio.run(main())
    assert seen["SPITE_BOT_SEED"] == "77" and seen["SPITE_ADDRESS"] == "unix:/nowhere/referee.sock"
    assert "seat-token-xyz" not in json.dumps(seen) and seen["SPITE_TOKEN_FILE"].startswith("/dev/fd/")
