"""The `tidepool` command."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from .extremes import find_extremes
from .harmonics import predict
from .stations import list_stations, load_station


def _parse_start(text: str, station_tz: str) -> datetime:
    # TODO(#47): a naive --start is converted with the *machine's* zone by astimezone(),
    # violating decision 0002. Ben's PR #49 replaces this with
    #   datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(station_tz))
    # for naive input. Until then, predictions near DST changes are an hour off on any
    # machine whose zone differs from the station's.
    _ = ZoneInfo(station_tz)
    parsed = datetime.fromisoformat(text)
    return parsed.astimezone(timezone.utc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tidepool")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("stations", help="list known stations")
    p = sub.add_parser("predict", help="predict heights and extremes")
    p.add_argument("station")
    p.add_argument("--start", required=True, help="ISO date/time; station-local if no offset")
    p.add_argument("--hours", type=float, default=24)
    p.add_argument("--step", type=float, default=6, help="minutes between predictions")
    p.add_argument("--datum", default="MLLW")
    p.add_argument("--json", action="store_true", help="machine-readable output (#45)")
    args = parser.parse_args(argv)

    if args.command == "stations":
        for row in list_stations():
            print(f"{row['id']:>10}  {row['name']}")
        return 0

    station = load_station(args.station)
    start = _parse_start(args.start, station.timezone)
    series = predict(station, start, args.hours, args.step, args.datum)
    extremes = find_extremes(series)
    if args.json:
        json.dump(
            [{"kind": e.kind, "time": e.time.isoformat(), "height_m": round(e.height, 3)} for e in extremes],
            sys.stdout,
            indent=2,
        )
        print()
    else:
        zone = ZoneInfo(station.timezone)
        for e in extremes:
            print(f"{e.kind:>4}  {e.time.astimezone(zone):%Y-%m-%d %H:%M %Z}  {e.height:6.2f} m {args.datum}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
