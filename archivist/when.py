"""Times as people type them: a duration back from now (`30m`, `12h`, `7d`, `2w`) or an ISO
date or date-time (`2026-01-01`, `2026-01-01T09:00`, with or without a zone; UTC if none)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated

from pydantic import BeforeValidator, WithJsonSchema

_DURATION = re.compile(r"\s*(\d+)\s*([mhdw])\s*")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
HINT = "a duration like 30d, 7d, 12h or 30m (ago), or an ISO date like 2026-01-01"


def parse_duration(text: str) -> timedelta | None:
    """`30m`, `12h`, `7d` or `2w` as a positive timedelta; None if `text` is not one."""
    match = _DURATION.fullmatch(text)
    if not match or int(match.group(1)) == 0:
        return None
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


def parse_time(text: str, now: datetime | None = None) -> datetime:
    """A point in time: `now` minus a duration, or an ISO date/date-time (UTC when naive).

    Raises ValueError with a hint when `text` is neither.
    """
    try:
        duration = parse_duration(text)
        if duration is not None:
            return (now or datetime.now(UTC)) - duration
    except OverflowError:  # "999999d": before the year 1, or past what a timedelta holds
        raise ValueError(f"{text!r} goes back further than any date") from None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not {HINT}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _moment(value: object) -> object:
    return parse_time(value) if isinstance(value, str) else value


# A time argument of the Python client and the MCP tools: a datetime, an ISO string or a
# duration back from now, as on the command line.
Moment = Annotated[
    datetime,
    BeforeValidator(_moment),
    WithJsonSchema({"type": "string"}),
]
