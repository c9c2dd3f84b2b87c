"""JSON Lines in and out: strict reading that names the line, writing every reader can split.

What a decoded value may hold is `limits`' business; the interchange fields are
`interchange`'s.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

from synapse_tui.core.base import limits
from synapse_tui.core.base.errors import InputError, SynapseError
from synapse_tui.core.base.textsafe import UNSAFE

Progress = Callable[[int, int], None]
# NaN and Infinity decode to a marker that `limits.problem` refuses, naming the field; one
# decoder for every line (json.loads with an option builds a new one per call)
_DECODER = json.JSONDecoder(parse_constant=limits.NonFinite)


# Python's JSON messages (json.decoder, _json.c) as a person reads them
_SENTENCES = (
    ("Expecting value", "a value is missing or is not JSON (text takes double quotes)"),
    ("Expecting ',' delimiter", "a comma is missing between two items"),
    ("Expecting ':' delimiter", "a colon is missing after a field's name"),
    ("Expecting property name enclosed in double quotes", "a field's name must be in double quotes"),
    ("Extra data", "more follows the end of the JSON value: one object per line"),
    ("Unterminated string", "a string is never closed: a double quote is missing"),
    (
        "Invalid control character",
        "a string holds a raw control character (a tab or newline must be escaped)",
    ),
    ("Invalid \\uXXXX escape", "a string holds a \\u escape without four hex digits"),
    ("Invalid \\escape", "a string holds a backslash escape JSON does not have"),
    ("Illegal trailing comma", "a comma before a closing bracket is not allowed"),
)


def json_problem(exc: json.JSONDecodeError) -> str:
    """'not valid JSON at column 25: a comma is missing between two items': a decoder's
    error as a sentence, its column counted within its own line ('the line ends' when the
    decoder ran past it: `colno` then counts beyond the trailing newline)."""
    lines = exc.doc.splitlines() or [""]
    line = lines[min(exc.lineno, len(lines)) - 1]  # past the last line: the last one ended too soon
    if exc.lineno > len(lines) or exc.colno > len(line):
        if not exc.msg.startswith("Extra data"):
            return f"not valid JSON: the line ends (at column {len(line)}) before its value is closed"
    sentence = _at_a_comma(exc) or next(
        (said for start, said in _SENTENCES if exc.msg.startswith(start)), exc.msg
    )
    return f"not valid JSON at column {exc.colno}: {sentence}"


def _at_a_comma(exc: json.JSONDecodeError) -> str | None:
    """What a comma out of place did, where the decoder only says what it expected."""
    if not exc.msg.startswith(("Expecting value", "Expecting property name")):
        return None
    here = exc.doc[exc.pos : exc.pos + 1]
    before = exc.doc[: exc.pos].rstrip()[-1:]
    if before == "," and here in ("}", "]"):
        return "a comma before a closing bracket is not allowed"
    if before == "," and here == ",":
        return "two commas in a row: an item is missing between them"
    return None


def read_jsonl(path: str | os.PathLike[str], progress: Progress | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, decoded object) for each non-blank line, errors naming the line.

    Strict JSON: NaN and Infinity, which Python's reader accepts, are refused (by
    `limits.problem`, naming the field). A UTF-8 byte order mark before the first line is
    skipped. `progress(bytes read, file size)` is called every few thousand lines."""
    name = str(path)
    try:
        fh = open(path, "rb")
        size = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=name) from None
    done = 0
    with fh:
        number = 0
        while raw := fh.readline(limits.MAX_LINE_BYTES + 1):
            number += 1
            done += len(raw)
            if progress and (number % 5000 == 0 or done == size):
                progress(done, size)
            if len(raw) > limits.MAX_LINE_BYTES:
                raise InputError(f"longer than {limits.MAX_LINE_BYTES:,} bytes", file=name, line=number)
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError("not valid UTF-8", file=name, line=number) from None
            if not line.strip():
                continue
            try:
                obj = _DECODER.decode(line)
            except json.JSONDecodeError as exc:
                # the column within this line: `colno` counts past its trailing newline when
                # the line ends too soon ("line 2 column 1" of a one-line text)
                raise InputError(json_problem(exc), file=name, line=number) from None
            except RecursionError:
                raise InputError(
                    f"nested more than {limits.MAX_DEPTH} levels deep", file=name, line=number
                ) from None
            except ValueError:  # Python refuses integer literals of over 4,300 digits
                raise InputError(
                    "holds an integer of thousands of digits, outside the signed 64-bit range",
                    file=name,
                    line=number,
                ) from None
            yield number, obj


def _escape(match: re.Match[str]) -> str:
    return json.dumps(match.group(0))[1:-1]  # "\\u202e"; a surrogate pair past U+FFFF


def json_line(obj: Any) -> str:
    """One JSON Lines record: UTF-8 text as is, but what `textsafe` would picture (C1
    controls, bidi overrides, line separators that str.splitlines() and JavaScript split
    at) is escaped: the same data, one object per line, and nothing a terminal acts on."""
    text = json.dumps(obj, ensure_ascii=False)
    return text if text.isascii() else UNSAFE.sub(_escape, text)


def write_jsonl(objs: Iterator[dict[str, Any]], path: str | os.PathLike[str] | None) -> None:
    """Write to a file atomically (temp + rename), or to stdout when path is None."""
    if path is None:
        for obj in objs:
            sys.stdout.write(json_line(obj) + "\n")
        return
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            for obj in objs:
                fh.write(json_line(obj) + "\n")
        os.replace(tmp, p)
    except OSError as exc:
        with suppress(OSError):
            tmp.unlink()
        raise SynapseError(f"{p}: cannot write: {exc.strerror or exc}") from None
