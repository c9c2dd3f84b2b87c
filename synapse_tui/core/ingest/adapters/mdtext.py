"""Reading one Markdown file of a turn 4 source (mdfolder.py): front matter, read as YAML
where it is YAML and line by line where it is not (never refusing the file), and the times
a file's name or front matter give."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import yaml

from synapse_tui.core.base.clock import format_time, source_time

if TYPE_CHECKING:
    from synapse_tui.core.ingest.adapters.mditems import Doc

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DATED = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?:[T_ ](\d{2})[-:](\d{2})(?:[-:](\d{2}))?)?(?!\d)")
# front matter's fences, as markdown_memory.front reads them (`git-notes`): a `---` line
# opens it, the first `---` or `...` line closes it (else it is not front matter)
_OPEN = re.compile(r"[ ]{0,3}---[ \t]*\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.M)
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")
_YAML_SIGNS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# what YAML reads as other than text: numbers, booleans, nulls (dates are read from text alike)
_NOT_TEXT = re.compile(r"^(?:[-+.]?\d[\d_.eE+-]*|true|false|yes|no|on|off|null|~|\.inf|\.nan)$", re.I)
_DATE_KEYS = ("created", "created_at", "createdAt", "date", "updated", "updated_at", "updatedAt")


def front_matter(text: str, doc: Doc, *, yaml_first: bool = True) -> tuple[dict[str, Any], str, int]:
    """(front matter, body, lines before the body) of a file that may open with `---` (up to
    the first `---` or `...` line, as `git-notes` reads it: markdown_memory.front).
    Read as YAML; where that fails, leniently, line by line (`key: text`), and the fields
    that could not be read are named in `doc.left_out`: the text is never refused.
    `yaml_first` False: line by line only, as Cursor reads its rules' (`globs: **/*.ts`
    is no YAML)."""
    opening = _OPEN.match(text)
    close = _CLOSE.search(text, opening.end()) if opening is not None else None
    if opening is None or close is None:
        return {}, text, 0
    head = text[opening.end() : close.start()].removesuffix("\n")
    body = text[close.end() + 1 :]
    offset = text.count("\n", 0, close.end()) + 1  # the opening fence, the header's lines, the closing one
    meta: Any = _plain_lines(head) if yaml_first else None
    if meta is not None:
        return meta, body, offset
    if yaml_first:
        try:
            meta = yaml.load(head, Loader=_LOADER)  # noqa: S506  (a safe loader)
        except yaml.YAMLError:
            meta = None
        if isinstance(meta, dict):
            return meta, body, offset
    lenient: dict[str, Any] = {}
    bad: list[str] = []
    for line in head.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            if line[:1] in (" ", "\t", "-") and lenient:
                continue  # a nested line of the key before: that key is read as its first line
            bad.append(line.strip()[:40])
            continue
        lenient[match.group(1)] = (match.group(2) or "").strip().strip("'\"")
    if not yaml_first:
        if bad:
            doc.left_out.append(f"{doc.rel}: {len(bad)} front matter lines are not `key: value`; not read")
    elif meta is not None:
        doc.left_out.append(f"{doc.rel}: front matter is not a mapping; read line by line")
    else:
        doc.left_out.append(
            f"{doc.rel}: front matter is not strict YAML; read line by line"
            + (f" ({len(bad)} lines not read)" if bad else "")
        )
    return lenient, body, offset


def _plain_lines(head: str) -> dict[str, str] | None:
    """Front matter of `key: text` lines only, each text one YAML reads as that same
    string, read without YAML (most notes' front matter: a fraction of YAML's time);
    None when anything else is there."""
    meta: dict[str, str] = {}
    for line in head.split("\n"):
        if not line.strip():
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            return None
        value = match.group(2) or ""
        if not value or value[0] in _YAML_SIGNS or ": " in value or " #" in value:
            return None
        if _NOT_TEXT.match(value) and not _DATED.fullmatch(value):  # a date is read from text alike
            return None
        meta[match.group(1)] = value
    return meta


def plain(value: Any) -> str | int | float | bool | None:
    """A front matter value as it may reach provenance: plain values only (a nested value,
    a YAML alias bomb among them, never does); dates as RFC 3339."""
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime):
        return format_time((value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp())
    if hasattr(value, "isoformat") and hasattr(value, "year"):  # a date
        return value.isoformat()
    return None


def when(value: Any) -> float | None:
    """Epoch seconds of a time a file wrote (RFC 3339, ISO 8601, a YAML date), else None."""
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
    if hasattr(value, "isoformat") and hasattr(value, "year"):
        return datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp()
    if isinstance(value, str) and value.strip():
        try:
            return source_time(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        except (TypeError, ValueError):
            return None
    return None


def dated_name(name: str) -> float | None:
    """The instant a file's name gives (`2026-05-14.md`, `2026-02-12T10-30-00-ab12.md`)."""
    match = _DATED.search(name)
    if match is None:
        return None
    y, mo, d, h, mi, s = (int(g) if g else 0 for g in match.groups())
    try:
        return datetime(y, mo, d, h, mi, s, tzinfo=UTC).timestamp()
    except ValueError:
        return None


def front_date(meta: dict[str, Any]) -> tuple[float, str] | None:
    """The first creation or update date front matter records, and which field it was."""
    for key in _DATE_KEYS:
        at = when(meta.get(key))
        if at is not None:
            return at, f"front matter {key}"
    return None
