"""Time: RFC 3339 parsing and the one object allowed to read the wall clock."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from .errors import InputError

# RFC 3339 date-time; the offset may be missing (read as UTC, SPEC 1).
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$")


def parse_time(value: object) -> float:
    """Epoch seconds of an RFC 3339 string; ValueError with a reason otherwise."""
    if not isinstance(value, str) or not _RFC3339.match(value):
        raise ValueError(f"not an RFC 3339 timestamp: {value!r}")
    text = value.replace("z", "Z").replace("t", "T")
    frac = re.search(r"\.(\d+)", text)
    if frac and len(frac.group(1)) > 6:  # fromisoformat takes at most microseconds
        text = text.replace(frac.group(0), "." + frac.group(1)[:6])
    try:
        dt = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"not an RFC 3339 timestamp: {value!r} ({exc})") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def format_time(ts: float) -> str:
    """Canonical UTC RFC 3339 with microseconds dropped when zero."""
    dt = datetime.fromtimestamp(ts, tz=UTC)
    if dt.microsecond:
        return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


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
        try:
            return cls(parse_time(value))
        except ValueError as exc:
            source = "--now" if now is not None else "SYNAPSE_NOW"
            raise InputError(str(exc), field=source) from None
