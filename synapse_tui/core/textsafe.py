"""Fact text is data: control characters become visible, never interpreted (SPEC 5).

An escape sequence in a fact shows as `␛[31m` instead of colouring the terminal. Used by
the browser and by the CLI's human output alike.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def clean(text: str) -> str:
    """One display line: control characters made visible, never interpreted."""
    return _CONTROL.sub(_picture, text)


def clean_block(text: str) -> str:
    """Like `clean`, but keeps newlines (for wrapped, multi-line display)."""
    return "\n".join(clean(line) for line in text.split("\n"))
