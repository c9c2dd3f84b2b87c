"""Fact text is data: characters that act on the terminal or on how a line reads become
visible, never interpreted (SPEC 5).

An escape sequence in a fact shows as `␛[31m` instead of colouring the terminal; a
right-to-left override shows as `⟨U+202E⟩` instead of silently reversing what follows
(so `invoice⟨U+202E⟩fdp.exe` cannot pass for `invoiceexe.pdf`). Used by the browser and
by the CLI's human output alike, so both show the same thing.
"""

from __future__ import annotations

import re

# C0 and C1 controls and DEL: a terminal acts on them.
_CONTROLS = "\x00-\x1f\x7f-\x9f"
# Invisible characters that reorder or hide text: bidirectional embeddings, overrides and
# isolates (U+202A-U+202E, U+2066-U+2069), the directional marks (U+200E, U+200F,
# U+061C), zero-width characters (U+200B-U+200D, U+2060, U+FEFF), the other invisible
# format characters (U+180E, U+2061-U+2064, U+206A-U+206F, U+FFF9-U+FFFB), line and
# paragraph separators (U+2028, U+2029: a line break inside one display line) and the
# tag characters (U+E0000-U+E007F), which can carry a hidden ASCII message.
_INVISIBLE = (
    "\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f"
)
UNSAFE = re.compile(f"[{_CONTROLS}{_INVISIBLE}]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if code <= 0x9F:
        return "\ufffd"
    return f"\u27e8U+{code:04X}\u27e9"


def first_unsafe(text: str) -> str | None:
    """The first character `clean` would replace, or None when the text shows as it is."""
    match = UNSAFE.search(text)
    return None if match is None else match.group(0)


def clean(text: str) -> str:
    """One display line: control and invisible characters made visible, never interpreted."""
    return UNSAFE.sub(_picture, text)


def clean_block(text: str) -> str:
    """Like `clean`, but keeps newlines (for wrapped, multi-line display)."""
    return "\n".join(clean(line) for line in text.split("\n"))
