"""High and low waters from a height series."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Extreme:
    kind: str  # "high" or "low"
    time: datetime
    height: float


def find_extremes(series: list[tuple[datetime, float]]) -> list[Extreme]:
    """Turning points of the series: where it turns from rising to falling and back.

    Precision is the series step. FIXME(#52): with a 30-minute step, two high waters less
    than a step apart (Southampton's double high water, or any station with a strong M4)
    collapse into one, and a plateau (equal neighbours) is reported twice. Priya's plan:
    fit a parabola through each turning point and its neighbours and merge turns closer
    than 10 minutes. Deferred to 0.5.1 (notes/2026-11-18-weekly-sync.md).
    """
    found: list[Extreme] = []
    for (t0, h0), (t1, h1), (t2, h2) in zip(series, series[1:], series[2:]):
        if h1 >= h0 and h1 >= h2 and (h1 > h0 or h1 > h2):
            found.append(Extreme("high", t1, h1))
        elif h1 <= h0 and h1 <= h2 and (h1 < h0 or h1 < h2):
            found.append(Extreme("low", t1, h1))
    return found
