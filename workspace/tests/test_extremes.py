from datetime import datetime, timedelta, timezone

import pytest

from tidepool import find_extremes

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def series(heights, step_minutes=30):
    return [(T0 + i * timedelta(minutes=step_minutes), h) for i, h in enumerate(heights)]


def test_single_high_and_low():
    found = find_extremes(series([0.0, 1.0, 2.0, 1.0, 0.0, -1.0, 0.0]))
    assert [(e.kind, e.height) for e in found] == [("high", 2.0), ("low", -1.0)]


@pytest.mark.xfail(reason="#52: a plateau is reported as two highs", strict=True)
def test_plateau_is_one_high():
    found = find_extremes(series([0.0, 2.0, 2.0, 0.0]))
    assert len(found) == 1


@pytest.mark.skip(reason="#52: needs the Southampton harmonics file (Priya, action item 11-25)")
def test_double_high_water_southampton():
    ...
