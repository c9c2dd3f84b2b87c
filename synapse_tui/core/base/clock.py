"""Time: RFC 3339 parsing and the one object allowed to read the wall clock."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.limits import brief, time_problem

# RFC 3339 date-time; the offset may be missing (read as UTC, SPEC 1).
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$")


def parse_time(value: object) -> float:
    """Epoch seconds of an RFC 3339 string; ValueError with a reason otherwise."""
    if not isinstance(value, str) or not _RFC3339.match(value):
        raise ValueError(f"not an RFC 3339 timestamp: {brief(value)}")
    text = value.replace("z", "Z").replace("t", "T")
    frac = re.search(r"\.(\d+)", text)
    if frac and len(frac.group(1)) > 6:  # fromisoformat takes at most microseconds
        text = text.replace(frac.group(0), "." + frac.group(1)[:6])
    try:
        dt = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"not an RFC 3339 timestamp: {brief(value)} ({exc})") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


_FIRST = datetime(1, 1, 1, tzinfo=UTC)
_LAST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)


def source_time(value: object) -> float:
    """Epoch seconds of a time as another system wrote it: a number, or ISO 8601 text with
    or without an offset (none: UTC, as SQLite's `CURRENT_TIMESTAMP` writes it). Raises
    TypeError or ValueError when it is not a time."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):
        raise TypeError(f"not a time: {brief(value)}")
    when = datetime.fromisoformat(value.strip())
    return (when.replace(tzinfo=UTC) if when.tzinfo is None else when).timestamp()


def format_time(ts: float) -> str:
    """Canonical UTC RFC 3339 with microseconds dropped when zero.

    RFC 3339 writes four-digit years, so an instant past them (a review of a fact
    reinforced a thousand times falls due in year 330,000) is written as the last
    instant of year 9999, and one before year 1 as its first instant."""
    if not ts < _LAST.timestamp():  # also NaN
        dt = _LAST
    elif ts < _FIRST.timestamp():
        dt = _FIRST
    else:
        dt = datetime.fromtimestamp(ts, tz=UTC)
    # not strftime("%Y"): it does not pad years below 1000 to four digits
    text = f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}"
    return f"{text}.{dt.microsecond:06d}Z" if dt.microsecond else f"{text}Z"


@dataclass(frozen=True)
class Clock:
    """`pinned` None reads the wall clock; otherwise time stands still at it."""

    pinned: float | None = None

    def now(self) -> float:
        return time.time() if self.pinned is None else self.pinned

    @classmethod
    def from_option(cls, now: str | None) -> Clock:
        """`--now` wins, then SYNAPSE_NOW, then the wall clock."""
        value = now if now is not None else os.environ.get("SYNAPSE_NOW") or None
        if value is None:
            return cls()
        source = "--now" if now is not None else "SYNAPSE_NOW"
        try:  # named as the user gave it (`--now: ...`), not as an interchange field
            ts = parse_time(value)
        except ValueError as exc:
            raise InputError(f"{source}: {exc}") from None
        why = time_problem(ts)
        if why:
            raise InputError(f"{source}: {value!r} {why}")
        return cls(ts)
