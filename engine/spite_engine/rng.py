"""A keyed, portable random stream for shuffles.

``random.Random.shuffle`` is not promised to give the same order across Python
versions, so the engine draws its randomness from the game's seed alone: shuffle ``n``
is keyed by ``HMAC-SHA256(seed, b"shuffle:n")`` and reads big-endian 64-bit words from
SHAKE-256 of that key. The same seed gives the same games on any machine and any
Python version; a golden test pins the output.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from typing import MutableSequence, TypeVar

T = TypeVar("T")

MAX_SEED = 2**64 - 1
_TWO64 = 2**64


def check_seed(seed: int) -> int:
    """Return ``seed`` if it is an int in 0..2**64-1, else raise ``ValueError``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
    return seed


def derive(seed: int, label: str) -> int:
    """A 64-bit value derived from ``seed`` and ``label`` (e.g. who cuts first)."""
    digest = hmac.new(check_seed(seed).to_bytes(8, "big"), label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def keyed_shuffle(items: MutableSequence[T], seed: int, counter: int) -> None:
    """Shuffle ``items`` in place (Fisher-Yates), driven by shuffle number ``counter`` of ``seed``.

    The shuffle's key is ``HMAC-SHA256(seed, b"shuffle:<counter>")``; SHAKE-256 of that key
    gives the stream of big-endian 64-bit words. Each index is drawn by rejection sampling,
    so every order is equally likely.
    """
    n = len(items)
    if n < 2:
        return
    # hmac.digest: the same HMAC-SHA256 in one call of the C implementation (hmac.new builds an object in Python).
    key = hmac.digest(check_seed(seed).to_bytes(8, "big"), f"shuffle:{counter}".encode(), "sha256")
    count = n + 8
    words = struct.unpack(f">{count}Q", hashlib.shake_256(key).digest(8 * count))
    if max(words[:n - 1]) < _TWO64 - n:
        # The usual case by far: a word is only rejected when at least 2**64 - n, so here none
        # is, step i uses word i, and this loop is the one below without its checks.
        for i, word in zip(range(n - 1, 0, -1), words):
            j = word % (i + 1)
            items[i], items[j] = items[j], items[i]
        return
    position = 0
    for i in range(n - 1, 0, -1):
        bound = i + 1
        limit = _TWO64 - (_TWO64 % bound)
        while True:
            if position == count:  # rejections used the stream up: extend it (same prefix)
                count *= 2
                words = struct.unpack(f">{count}Q", hashlib.shake_256(key).digest(8 * count))
            word = words[position]
            position += 1
            if word < limit:
                break
        j = word % bound
        items[i], items[j] = items[j], items[i]
