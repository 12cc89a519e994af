"""Charts drawn on the server as inline SVG: no charting library, nothing to fetch, works offline.

Each function returns an SVG string (escaped, safe to put in a page as-is) for one chart of
the bot page: rating over time, the decision-time histogram, games by ending.
"""

from __future__ import annotations

import math
from html import escape
from typing import Sequence

from tournaments.queries import HistogramBar, RatingPoint

WIDTH, HEIGHT, PAD = 560, 220, 36


def _axis(ymin: float, ymax: float, ticks: int = 4) -> str:
    lines = []
    for i in range(ticks + 1):
        value = ymin + (ymax - ymin) * i / ticks
        y = HEIGHT - PAD - (HEIGHT - 2 * PAD) * i / ticks
        lines.append(f'<line class="grid" x1="{PAD}" x2="{WIDTH - 8}" y1="{y:.1f}" y2="{y:.1f}"/>'
                     f'<text class="tick" x="{PAD - 4}" y="{y + 4:.1f}" text-anchor="end">{value:.3g}</text>')
    return "".join(lines)


def rating_chart(points: Sequence[RatingPoint], title: str = "rating") -> str:
    """mu with a mu ± sigma band and the conservative mu - 3 sigma, by match of the schedule."""
    if not points:
        return '<p class="empty">No rated matches yet.</p>'
    xs = [p.ordinal for p in points]
    lows = [p.conservative for p in points]
    highs = [p.mu + p.sigma for p in points]
    ymin, ymax = math.floor(min(lows) - 1), math.ceil(max(highs) + 1)
    x0, x1 = min(xs), max(max(xs), min(xs) + 1)

    def at(x: float, y: float) -> str:
        px = PAD + (WIDTH - PAD - 8) * (x - x0) / (x1 - x0)
        py = HEIGHT - PAD - (HEIGHT - 2 * PAD) * (y - ymin) / (ymax - ymin)
        return f"{px:.1f},{py:.1f}"

    band = " ".join(at(p.ordinal, p.mu + p.sigma) for p in points) + " " + " ".join(
        at(p.ordinal, p.mu - p.sigma) for p in reversed(points))
    mu = " ".join(at(p.ordinal, p.mu) for p in points)
    low = " ".join(at(p.ordinal, p.conservative) for p in points)
    dots = "".join(f'<circle class="mu" cx="{at(p.ordinal, p.mu).split(",")[0]}" '
                   f'cy="{at(p.ordinal, p.mu).split(",")[1]}" r="2.5"><title>after match {p.ordinal}: '
                   f'mu {p.mu:.2f} ± {p.sigma:.2f}, mu-3σ {p.conservative:.2f}</title></circle>' for p in points)
    return (f'<svg class="chart rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'aria-label="{escape(title)}" data-points="{len(points)}">{_axis(ymin, ymax)}'
            f'<polygon class="band" points="{band}"/><polyline class="low" points="{low}"/>'
            f'<polyline class="mu" points="{mu}"/>{dots}'
            f'<text class="axis-label" x="{PAD}" y="{HEIGHT - 8}">match {x0}</text>'
            f'<text class="axis-label" x="{WIDTH - 8}" y="{HEIGHT - 8}" text-anchor="end">match {x1}</text>'
            f'<text class="legend" x="{WIDTH - 8}" y="16" text-anchor="end">— mu   ▒ mu ± σ   ┅ mu − 3σ</text>'
            "</svg>")


def bar_chart(labels: Sequence[str], counts: Sequence[int], title: str, css: str = "bars") -> str:
    """Vertical bars with their labels under them and the count on top."""
    if not counts or not sum(counts):
        return '<p class="empty">Nothing yet.</p>'
    top = max(counts)
    slot = (WIDTH - PAD - 8) / len(counts)
    bars = []
    every = max(1, math.ceil(len(counts) / 10))  # at most about ten labels under the bars
    for i, (label, count) in enumerate(zip(labels, counts)):
        h = (HEIGHT - 2 * PAD) * count / top
        x = PAD + i * slot
        bars.append(f'<g><title>{escape(label)}: {count}</title>'
                    f'<rect x="{x + slot * 0.1:.1f}" y="{HEIGHT - PAD - h:.1f}" width="{slot * 0.8:.1f}" '
                    f'height="{h:.1f}"/><text class="count" x="{x + slot / 2:.1f}" y="{HEIGHT - PAD - h - 4:.1f}" '
                    f'text-anchor="middle">{count if len(counts) <= 24 else ""}</text>'
                    + (f'<text class="tick" x="{x + slot / 2:.1f}" y="{HEIGHT - PAD + 14}" '
                       f'text-anchor="middle">{escape(label)}</text>' if i % every == 0 else "") + "</g>")
    return (f'<svg class="chart {css}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">'
            f'<line class="grid" x1="{PAD}" x2="{WIDTH - 8}" y1="{HEIGHT - PAD}" y2="{HEIGHT - PAD}"/>'
            + "".join(bars) + "</svg>")


def histogram_chart(bars: Sequence[HistogramBar]) -> str:
    return bar_chart([_ms(b.ms) for b in bars], [b.count for b in bars], "decision times", "bars histogram")


def _ms(ms: float) -> str:
    return f"{ms:.2g}" if ms < 10 else f"{ms:.0f}"
