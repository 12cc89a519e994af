"""How a BOT argument (a command line's, a tournament file's, a ladder's) becomes a manifest.

The checkout's sample bots live here, above the referee: the referee loads a manifest
(:func:`referee.processes.manifest.load_manifest`) and knows nothing of where this tree keeps its
bots. A BOT is a sample bot's name ("greedy"), a ``bot.toml`` or its directory, a ``.py``
file, or a command line found on PATH.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from referee.processes.manifest import BotManifest, ManifestError, load_manifest

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_BOTS = REPO_ROOT / "sample_bots"
_SCRIPT_SUFFIXES = {".py", ".js", ".mjs", ".ts", ".pl", ".rb", ".jar", ".sh"}


def sample_bot_names() -> list[str]:
    """The sample bots' names, sorted: each a folder of ``sample_bots/`` holding a bot.toml."""
    return sorted(p.parent.name for p in SAMPLE_BOTS.glob("*/bot.toml"))


def sample_bot(spec: str) -> Path | None:
    """The bot.toml of the sample bot named ``spec`` (a bare name, no '/'), or None."""
    sample = SAMPLE_BOTS / spec / "bot.toml"
    return sample if "/" not in spec and sample.is_file() else None


def resolve_bot(spec: str) -> BotManifest:
    """A BOT argument: a sample bot's name, a bot.toml or its directory, a .py file, or a command line."""
    sample = sample_bot(spec)
    if sample is not None:
        return load_manifest(sample)
    path = Path(spec)
    if path.suffix == ".toml" or (path.is_dir() and (path / "bot.toml").is_file()):
        return load_manifest(path)
    if path.suffix == ".py" and path.is_file():
        return BotManifest(name=path.stem, command=(sys.executable, str(path.resolve())), workdir=Path.cwd(),
                           language="python")
    words = shlex.split(spec)
    if not words:
        raise ManifestError("an empty bot command")
    program = next((w for w in reversed(words) if Path(w).suffix in _SCRIPT_SUFFIXES), words[0])
    manifest = BotManifest(name=Path(program).stem, command=tuple(words), workdir=Path.cwd())
    try:
        manifest.check_command()
    except ManifestError:
        raise ManifestError(f"{spec!r} is not a sample bot ({', '.join(sample_bot_names())}), a bot.toml, a .py "
                            f"file, or a command found on PATH") from None
    return manifest
