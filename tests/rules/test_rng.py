"""The keyed shuffle (``engine/spite_engine/rng.py``): pinned output, the documented algorithm,
and a rough uniformity check.

Every game is a function of its seed through this stream, so a change to it changes every
game on record: the golden values below catch any such change on any machine or Python
version. All seeds here are fixed, so the statistical checks are deterministic; their
bounds are loose (several standard deviations).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter

import pytest

from spite_engine.rng import MAX_SEED, check_seed, derive, keyed_shuffle


def test_keyed_shuffle_golden_values() -> None:
    """The stream is pinned: these exact orders for these (seed, counter) pairs."""
    items = list(range(20))
    keyed_shuffle(items, seed=12345, counter=0)
    assert items == [13, 1, 12, 15, 3, 8, 14, 19, 10, 11, 17, 16, 7, 9, 6, 4, 0, 18, 2, 5]
    letters = list("abcdefghijklmnopqrstuvwxyz")
    keyed_shuffle(letters, seed=MAX_SEED, counter=7)
    assert "".join(letters) == "esxgdkvqwourflytbjnpmhziac"


def test_derive_golden_values() -> None:
    """The first seat's cut is derived from the seed; pinned too."""
    assert derive(12345, "first-seat") == 9252086187160463243
    assert derive(0, "first-seat") == 171548364026947893


def reference_shuffle(items: list[int], seed: int, counter: int) -> list[int]:
    """The algorithm as rng.py's docstring states it, written independently: key =
    HMAC-SHA256(seed as 8 big-endian bytes, b"shuffle:<counter>"); big-endian 64-bit words of
    SHAKE-256(key); Fisher-Yates from the end, index j = word % (i+1) after rejecting words
    at or above the largest multiple of (i+1) below 2**64."""
    key = hmac.new(seed.to_bytes(8, "big"), f"shuffle:{counter}".encode(), hashlib.sha256).digest()
    stream = hashlib.shake_256(key).digest(8 * 4 * len(items))
    words = (int.from_bytes(stream[k:k + 8], "big") for k in range(0, len(stream), 8))
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = 2**64 - 2**64 % bound
        word = next(w for w in words if w < limit)
        j = word % bound
        out[i], out[j] = out[j], out[i]
    return out


@pytest.mark.parametrize("size", [2, 3, 5, 20, 54, 108, 162])
def test_keyed_shuffle_is_the_documented_algorithm(size: int) -> None:
    """The implementation matches an independent reading of its documentation."""
    for seed, counter in ((0, 0), (1, 1), (12345, 9), (MAX_SEED, 123)):
        items = list(range(size))
        keyed_shuffle(items, seed, counter)
        assert items == reference_shuffle(list(range(size)), seed, counter)


def test_keyed_shuffle_permutes_and_depends_on_seed_and_counter() -> None:
    """A shuffle is a permutation; tiny lists are left alone; different seeds or counters give
    different orders; the same ones give the same order."""
    base = list(range(52))
    orders = set()
    for seed, counter in itertools.product((0, 1, 2), (0, 1, 2)):
        items = base[:]
        keyed_shuffle(items, seed, counter)
        assert sorted(items) == base
        again = base[:]
        keyed_shuffle(again, seed, counter)
        assert again == items
        orders.add(tuple(items))
    assert len(orders) == 9
    for tiny in ([], [7]):
        copy = tiny[:]
        keyed_shuffle(copy, 5, 0)
        assert copy == tiny


def test_seeds_are_64_bit_unsigned_integers() -> None:
    """Seeds outside 0..2**64-1, or not ints, are refused."""
    assert check_seed(0) == 0 and check_seed(MAX_SEED) == MAX_SEED
    for bad in (-1, MAX_SEED + 1, True, 1.0, "1"):
        with pytest.raises(ValueError):
            check_seed(bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            keyed_shuffle([1, 2, 3], bad, 0)  # type: ignore[arg-type]


def test_keyed_shuffle_is_roughly_uniform_over_permutations() -> None:
    """4,800 shuffles of four items: each of the 24 orders about 200 times (chi-square with
    23 degrees of freedom under 80, a p-value far below 1e-6)."""
    counts: Counter[tuple[int, ...]] = Counter()
    for counter in range(4800):
        items = [0, 1, 2, 3]
        keyed_shuffle(items, 2024, counter)
        counts[tuple(items)] += 1
    assert len(counts) == 24
    expected = 4800 / 24
    chi_square = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi_square < 80, chi_square


def test_keyed_shuffle_is_roughly_uniform_over_positions() -> None:
    """2,000 shuffles of ten items over many seeds: every item lands in every position about
    200 times (each within 4.5 standard deviations), and the position chi-square is sane."""
    table = [[0] * 10 for _ in range(10)]
    for seed in range(2000):
        items = list(range(10))
        keyed_shuffle(items, seed, seed % 7)
        for position, item in enumerate(items):
            table[item][position] += 1
    cells = [n for row in table for n in row]
    assert all(140 <= n <= 260 for n in cells), table
    chi_square = sum((n - 200) ** 2 / 200 for n in cells)
    assert chi_square < 160, chi_square  # 81 degrees of freedom
