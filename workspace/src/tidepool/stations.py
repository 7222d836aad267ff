"""Stations and their harmonic constants, loaded from the data folder."""

from __future__ import annotations

import csv
import warnings
from dataclasses import dataclass, field
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


@dataclass(frozen=True)
class Constituent:
    name: str
    amplitude_m: float
    phase_deg: float


@dataclass(frozen=True)
class Station:
    id: str
    name: str
    timezone: str
    z0: float  # mean sea level above MLLW, metres
    datums: dict[str, float] = field(default_factory=dict)  # datum -> metres above MLLW
    constituents: tuple[Constituent, ...] = ()
    # Equilibrium arguments V0 per year and constituent, degrees. Empty means 0, which is
    # only right for stations whose phases were published as local epoch (kappa prime).
    equilibrium_args: dict[int, dict[str, float]] = field(default_factory=dict)


def list_stations(data_dir: Path = DATA_DIR) -> list[dict[str, str]]:
    with open(data_dir / "stations.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def load_station(station_id: str, data_dir: Path = DATA_DIR) -> Station:
    row = next((r for r in list_stations(data_dir) if r["id"] == station_id), None)
    if row is None:
        raise KeyError(f"no station {station_id!r} in {data_dir / 'stations.csv'}")
    datums = {
        name: float(row[column])
        for name, column in (("MSL", "msl_m"), ("MHW", "mhw_m"), ("MHHW", "mhhw_m"), ("MLW", "mlw_m"))
        if row.get(column)
    }
    return Station(
        id=row["id"],
        name=row["name"],
        timezone=row["timezone"],
        z0=datums.get("MSL", 0.0),
        datums=datums,
        constituents=tuple(_load_constituents(data_dir / f"harmonics-{station_id}.csv")),
    )


def _load_constituents(path: Path) -> list[Constituent]:
    if not path.exists():
        raise FileNotFoundError(f"no harmonic constants at {path}")
    out: list[Constituent] = []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            # Fixed in 0.4.2 (#38): empty fields used to raise ValueError.
            if not row["amplitude_m"] or not row["phase_deg"]:
                warnings.warn(f"{path.name}: skipping {row['constituent']} (empty field)")
                continue
            out.append(Constituent(row["constituent"], float(row["amplitude_m"]), float(row["phase_deg"])))
    return out
