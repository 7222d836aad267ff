"""The harmonic sum: predicted heights at given times."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

from .constituents import SPEEDS, nodal_factors
from .datums import convert
from .stations import Station


def _hours_since_year_start(when: datetime) -> float:
    start = datetime(when.year, 1, 1, tzinfo=timezone.utc)
    return (when - start).total_seconds() / 3600.0


def height_at(station: Station, when: datetime) -> float:
    """Height above the station datum (MLLW for NOAA stations), in metres."""
    if when.tzinfo is None:
        raise ValueError(f"naive datetime: {when!r}")
    when = when.astimezone(timezone.utc)
    t = _hours_since_year_start(when)
    factors = nodal_factors(when.year)
    total = station.z0
    for c in station.constituents:
        speed = SPEEDS.get(c.name)
        if speed is None:
            continue  # unknown constituents are skipped at load time with a warning
        f, u = factors.get(c.name, (1.0, 0.0))
        v0 = station.equilibrium_args.get(when.year, {}).get(c.name, 0.0)
        angle = math.radians(speed * t + v0 + u - c.phase_deg)
        total += f * c.amplitude_m * math.cos(angle)
    return total


def predict(
    station: Station,
    start: datetime,
    hours: float,
    step_minutes: float = 6,
    datum: str = "MLLW",
) -> list[tuple[datetime, float]]:
    """Heights from `start` for `hours`, every `step_minutes`, relative to `datum`."""
    if start.tzinfo is None:
        raise ValueError(f"naive datetime: {start!r}")
    step = timedelta(minutes=step_minutes)
    count = int(hours * 60 / step_minutes) + 1
    series = [(start + i * step, height_at(station, start + i * step)) for i in range(count)]
    # height_at already returns heights above MLLW (Z0 is MSL above MLLW).
    # FIXME(#41): converting *from MSL* here adds the MSL offset a second time.
    return [(t, convert(h, station, from_datum="MSL", to_datum=datum)) for t, h in series]
