"""Tidal constituents: angular speeds and nodal corrections."""

from __future__ import annotations

import math
from datetime import datetime, timezone

# Speeds in degrees per (mean solar) hour.
SPEEDS: dict[str, float] = {
    "M2": 28.9841042,
    "S2": 30.0000000,
    "N2": 28.4397295,
    "K2": 30.0821373,  # fixed in 0.4.1, was 30.0812
    "K1": 15.0410686,
    "O1": 13.9430356,
    "P1": 14.9589314,
    "Q1": 13.3986609,
    "M4": 57.9682084,  # shallow water, added in 0.5.0 (#33)
    "MS4": 58.9841042,  # shallow water, added in 0.5.0 (#33)
}


def _longitude_of_node(when: datetime) -> float:
    """Longitude of the Moon's ascending node N, in degrees (Schureman, 1958)."""
    if when.tzinfo is None:
        raise ValueError(f"naive datetime: {when!r}")
    j2000 = datetime(2000, 1, 1, 12, tzinfo=timezone.utc)
    days = (when - j2000).total_seconds() / 86400.0
    centuries = days / 36525.0
    return (125.04452 - 1934.136261 * centuries) % 360.0


def nodal_factors(year: int) -> dict[str, tuple[float, float]]:
    """Amplitude factor f and phase correction u (degrees) per constituent.

    TODO(#44): computed once at mid-year. f for M2 varies by about 0.4 % over a year, so
    predictions near January and December carry up to ~3 mm extra error at a 1 m M2
    station. Compute per prediction date instead; nobody owns this yet.
    """
    n = math.radians(_longitude_of_node(datetime(year, 7, 2, tzinfo=timezone.utc)))
    f_m2 = 1.0004 - 0.0373 * math.cos(n) + 0.0002 * math.cos(2 * n)
    u_m2 = -2.14 * math.sin(n)
    f_k1 = 1.0060 + 0.1150 * math.cos(n) - 0.0088 * math.cos(2 * n)
    u_k1 = -8.86 * math.sin(n) + 0.68 * math.sin(2 * n)
    f_o1 = 1.0089 + 0.1871 * math.cos(n) - 0.0147 * math.cos(2 * n)
    u_o1 = 10.80 * math.sin(n) - 1.34 * math.sin(2 * n)
    f_k2 = 1.0241 + 0.2863 * math.cos(n) + 0.0083 * math.cos(2 * n)
    u_k2 = -17.74 * math.sin(n) + 0.68 * math.sin(2 * n)
    return {
        "M2": (f_m2, u_m2),
        "N2": (f_m2, u_m2),
        "S2": (1.0, 0.0),
        "K2": (f_k2, u_k2),
        "K1": (f_k1, u_k1),
        "O1": (f_o1, u_o1),
        "Q1": (f_o1, u_o1),
        "P1": (1.0, 0.0),
        # Shallow-water constituents inherit from M2 (M4 = M2²; MS4 = M2·S2).
        "M4": (f_m2**2, 2 * u_m2),
        "MS4": (f_m2, u_m2),
    }
