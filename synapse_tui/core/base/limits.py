"""What an interchange line may hold, so that whatever imports can also be shown and exported.

Each limit is far beyond what a real agent's memory holds and well inside what every view,
SQLite and strict JSON can carry; a value past one is refused at import, naming line and
field (SPEC 5), instead of landing and breaking a later `show` or `export`.

- Counts (`corroborations`, `contradictions`, `reinforcement_count`) below 10**9: a fact
  corroborated a billion times is a bug upstream. The bound keeps r + s + W, triage's
  r + 1 and the O(1) form's log(n) exact in int64 and float64, far from SQLite's 2**63.
- Any other integer, wherever it is (provenance, unknown keys), fits a signed 64-bit
  integer, what SQLite and most JSON readers can hold.
- Times from year 1 up to (not including) year 9000: year 1 is the first instant Python
  and RFC 3339's four-digit years can write; 9000 leaves a millennium of headroom for
  review-due dates, which lie after the last event (`format_time` clamps the rest).
- `text` at most 100,000 characters (about 30 pages). Rendering it takes ~0.05 s in `show`
  and in the browser's detail; ten times that text ~0.6 s, for rendering grows faster than
  the text (benchmarks/bench_bad_input.py), and a 10 MB text took `show` half a minute.
- `id`, `supersedes`, `note` and entity names at most 1,000 characters: they are names,
  shown in tables and messages. Any other string at most 100,000 characters. An `id`
  holds no control or invisible character (`textsafe`): it is typed on the command line
  and shown in notices.
- At most 1,000 entities per fact (a fact names a handful): entity co-occurrence is
  counted per pair within a note, so the pairs grow with the square of that number.
- A line at most 16 MiB, and JSON nested at most 64 deep (provenance is a few levels).
- No NaN or Infinity (not JSON, though Python reads them), no number that overflows to
  infinity, no lone UTF-16 surrogate (`"\\ud800"`: no UTF-8 encoding exists for it).
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

MAX_COUNT = 10**9 - 1
MAX_INT = 2**63 - 1
MIN_TIME = datetime(1, 1, 1, tzinfo=UTC).timestamp()
MAX_TIME = datetime(9000, 1, 1, tzinfo=UTC).timestamp()
MAX_TEXT_CHARS = 100_000
MAX_NAME_CHARS = 1_000
MAX_STRING_CHARS = 100_000
MAX_ENTITIES = 1_000
MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64

NAME_FIELDS = ("id", "supersedes", "note", "entities")

_SURROGATE = re.compile(r"[\ud800-\udfff]")


class NonFinite:
    """What `json.loads(parse_constant=...)` yields for NaN / Infinity, found by `problem`."""

    def __init__(self, name: str) -> None:
        self.name = name


def brief(value: Any, limit: int = 60) -> str:
    """A value for an error message: its repr, cut short (a 10 MB value is one line too)."""
    text = f"{value.name} (not JSON)" if isinstance(value, NonFinite) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def counted(n: int, noun: str) -> str:
    """`n` and its noun for a person to read: "1 fact", "3,461 facts"."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def has_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def string_problem(text: str, max_chars: int) -> str | None:
    if len(text) > max_chars:
        return f"is {len(text):,} characters long; the limit is {max_chars:,}"
    if not text.isascii() and _SURROGATE.search(text):
        return "contains a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape), not text"
    return None


_ATOMS = (bool, type(None))


def problem(value: Any, max_chars: int = MAX_STRING_CHARS) -> str | None:
    """Why a decoded JSON value cannot be stored and shown, or None.

    Walks the value without recursion, so depth is measured, not hit. Strings, the
    common case, are checked without the walk (import calls this for every field)."""
    if type(value) is str:
        return string_problem(value, max_chars)
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is str:
            why = string_problem(item, max_chars)
            if why:
                return f"a string {why}"
        elif kind is int:
            if not -MAX_INT - 1 <= item <= MAX_INT:
                return f"holds the integer {brief(item)}, outside the signed 64-bit range"
        elif kind is float:
            if not math.isfinite(item):
                return "holds a number too large for a float (it overflows to infinity)"
        elif kind is list or kind is dict:
            if depth > MAX_DEPTH:
                return f"is nested more than {MAX_DEPTH} levels deep"
            if kind is dict:
                stack.extend((k, depth) for k in item)
                stack.extend((v, depth + 1) for v in item.values())
            else:
                stack.extend((v, depth + 1) for v in item)
        elif kind is NonFinite:
            return f"holds {item.name}, which is not JSON (numbers must be finite)"
        elif not isinstance(item, _ATOMS):
            return f"holds {brief(item)}, which is not JSON"
    return None


def time_problem(ts: float) -> str | None:
    if not MIN_TIME <= ts < MAX_TIME:
        return "is outside the supported range (year 1 to year 8999)"
    return None
