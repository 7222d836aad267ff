"""Converting heights between tidal datums."""

from __future__ import annotations

from .stations import Station

KNOWN = ("MLLW", "MLW", "MSL", "MHW", "MHHW", "NAVD88")


def offset(station: Station, datum: str) -> float:
    """Height of `datum` above the station's MLLW, in metres."""
    if datum not in KNOWN:
        raise ValueError(f"unknown datum {datum!r}; expected one of {', '.join(KNOWN)}")
    if datum == "MLLW":
        return 0.0
    value = station.datums.get(datum)
    if value is None:
        raise ValueError(f"station {station.id} has no {datum} datum")
    return value


def convert(height: float, station: Station, from_datum: str, to_datum: str) -> float:
    """Re-express a height given relative to `from_datum` relative to `to_datum`.

    FIXME(#41): correct on its own; the bug is in the caller (harmonics.predict passes
    from_datum="MSL" for heights that are already above MLLW). Mara's fix changes the
    caller to from_datum="MLLW" and adds tests/test_datums.py::test_predict_mllw_matches_noaa.
    Do not "fix" it here by dropping the offset: convert() is public API and correct.
    """
    if from_datum == to_datum:
        return height
    return height + offset(station, from_datum) - offset(station, to_datum)
