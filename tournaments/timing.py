"""Decision times as sparse log-scale histograms: what workers record and standings merge."""

from __future__ import annotations

import math
from collections import Counter
from typing import Iterable

HISTOGRAM_STEPS_PER_OCTAVE = 8
"""Decision times are kept as a log histogram: bucket b holds [2^(b/8), 2^((b+1)/8)) us."""


def histogram(values_us: Iterable[int]) -> dict[str, int]:
    """A sparse log-scale histogram of decision times (bucket -> count), JSON-ready."""
    counts: Counter[int] = Counter()
    for us in values_us:
        counts[bucket(us)] += 1
    return {str(b): n for b, n in sorted(counts.items())}


def bucket(us: int) -> int:
    return int(math.floor(HISTOGRAM_STEPS_PER_OCTAVE * math.log2(max(1, us))))


def bucket_value(b: int) -> float:
    """A representative value (us) of bucket ``b``: its geometric middle."""
    return float(2 ** ((b + 0.5) / HISTOGRAM_STEPS_PER_OCTAVE))


def percentile(histogram: dict[int, int], q: float) -> float:
    """The ``q`` quantile (0..1) of a merged histogram, in microseconds; 0 when empty."""
    total = sum(histogram.values())
    if total == 0:
        return 0.0
    rank = min(total - 1, int(q * total))
    seen = 0
    for b in sorted(histogram):
        seen += histogram[b]
        if seen > rank:
            return bucket_value(b)
    return bucket_value(max(histogram))
