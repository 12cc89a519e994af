"""Committed master seeds for hosted tournaments: publish a hash first, reveal the seed after.

An organizer who picks the master seed could pick one whose deals favour a bot. With a
commitment nobody has to trust them:

1. ``spite seed commit --out FILE`` draws a secret from :mod:`secrets` (256 bits, 64 hex
   digits), writes it to FILE (mode 0600) and prints its commitment
   ``sha256:<hex>`` = SHA-256 of ``"spite-arena seed v1:" + secret``.
2. The organizer publishes the commitment before the tournament, and the tournament file
   says ``seed_file = "FILE"`` and ``seed_commitment = "sha256:..."`` instead of ``seed``.
   The runner checks the file against the commitment before any game.
3. After the tournament, ``spite seed reveal`` prints the secret; anyone can run
   ``spite seed verify --commitment C --seed S`` and recompute every deal from it.

The engine's seeds are 64-bit (:data:`spite_engine.rng.MAX_SEED`), so the tournament's
master seed is derived from the secret: the first 8 bytes, big-endian, of
HMAC-SHA256(secret bytes, ``"spite-arena master seed v1"``) (:func:`master_seed`). Every
match's deal seed derives from that as for a plain ``seed = N`` (``tournaments/schedule.py``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

SECRET_BYTES = 32
"""Random bytes in a new secret (256 bits)."""
MIN_SECRET_HEX = 32
"""Shortest secret accepted from a file or the command line: 32 hex digits, 128 bits."""
COMMITMENT_DOMAIN = b"spite-arena seed v1:"
MASTER_SEED_LABEL = b"spite-arena master seed v1"
_COMMITMENT = re.compile(r"sha256:[0-9a-f]{64}")
_SECRET = re.compile(r"[0-9a-f]+")


class SeedError(ValueError):
    """A secret, a seed file or a commitment that cannot be used, or that does not match."""


def new_secret() -> str:
    """A fresh secret: 64 lowercase hex digits from :func:`secrets.token_hex`."""
    return secrets.token_hex(SECRET_BYTES)


def check_secret(secret: str) -> str:
    """The secret normalized (stripped, lowercase); :class:`SeedError` unless it is an even
    number of hex digits, at least :data:`MIN_SECRET_HEX`."""
    normalized = secret.strip().lower()
    if not _SECRET.fullmatch(normalized) or len(normalized) % 2:
        raise SeedError("a seed secret is hex digits (as `spite seed commit` writes), with an even count")
    if len(normalized) < MIN_SECRET_HEX:
        raise SeedError(f"a seed secret needs at least {MIN_SECRET_HEX} hex digits ({MIN_SECRET_HEX * 4} bits), "
                        f"got {len(normalized)}")
    return normalized


def commitment(secret: str) -> str:
    """``sha256:`` and the hex SHA-256 of ``"spite-arena seed v1:" + secret`` (normalized)."""
    return "sha256:" + hashlib.sha256(COMMITMENT_DOMAIN + check_secret(secret).encode("ascii")).hexdigest()


def check_commitment(text: str) -> str:
    """The commitment normalized; :class:`SeedError` unless it reads ``sha256:`` + 64 hex digits."""
    normalized = text.strip().lower()
    if not _COMMITMENT.fullmatch(normalized):
        raise SeedError(f"a seed commitment reads 'sha256:' and 64 hex digits, got {text!r}")
    return normalized


def matches(secret: str, expected: str) -> bool:
    """Whether ``secret`` opens the commitment ``expected`` (compared in constant time)."""
    return hmac.compare_digest(commitment(secret), check_commitment(expected))


def master_seed(secret: str) -> int:
    """The tournament's 64-bit master seed from a secret (see the module docstring)."""
    key = bytes.fromhex(check_secret(secret))
    return int.from_bytes(hmac.new(key, MASTER_SEED_LABEL, hashlib.sha256).digest()[:8], "big")


def read_secret(path: Path) -> str:
    """The secret in a seed file; :class:`SeedError` naming the file when it cannot be read or used."""
    try:
        text = Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise SeedError(f"cannot read the seed file {str(path)!r}: {reason}") from None
    try:
        return check_secret(text)
    except SeedError as error:
        raise SeedError(f"the seed file {str(path)!r}: {error}") from None


def write_secret(path: Path, secret: str) -> None:
    """Write a secret to a new file, readable by its owner only; refuse to replace a file
    (a replaced secret would break a published commitment)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(check_secret(secret) + "\n")


def verify_file(path: Path, expected: str) -> str:
    """The secret in ``path`` if it opens ``expected``; else :class:`SeedError` saying so."""
    secret = read_secret(path)
    if not matches(secret, expected):
        raise SeedError(f"the seed file {str(path)!r} does not match the published commitment {expected} "
                        f"(it opens {commitment(secret)}): the file was changed or is the wrong one; "
                        "no game was played")
    return secret
