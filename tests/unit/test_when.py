"""Times as people type them: durations back from now, or ISO dates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from archivist.when import parse_duration, parse_time

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30d", timedelta(days=30)),
        ("12h", timedelta(hours=12)),
        ("90m", timedelta(minutes=90)),
        (" 2w", timedelta(weeks=2)),
    ],
)
def test_durations(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected
    assert parse_time(text, NOW) == NOW - expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-01", datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-01-01T09:30", datetime(2026, 1, 1, 9, 30, tzinfo=UTC)),
        ("2026-01-01T09:30:00Z", datetime(2026, 1, 1, 9, 30, tzinfo=UTC)),
        ("2026-01-01T10:30+01:00", datetime(2026, 1, 1, 9, 30, tzinfo=UTC)),
    ],
)
def test_iso_dates_are_utc_unless_zoned(text: str, expected: datetime) -> None:
    assert parse_time(text, NOW) == expected


@pytest.mark.parametrize("text", ["", "0d", "30", "d30", "-1d", "1y", "soon", "2026-13-01"])
def test_nonsense_is_refused_with_a_hint(text: str) -> None:
    assert parse_duration(text) is None
    with pytest.raises(ValueError, match="30d, 7d, 12h or 30m"):
        parse_time(text, NOW)


@pytest.mark.parametrize("text", ["999999d", "1000000000d", "99999999999w"])
def test_a_duration_back_past_any_date_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="goes back further than any date"):
        parse_time(text, NOW)
