"""Agents' memory kept as Markdown files (CLAUDE.md, AGENTS.md, memory banks, rules), read
as people and agents really write them (issue 38); shared by `git-notes` and `claude-code`.

Front matter. Read as YAML; a block that is not strict YAML (`description: User asked
2026-05-14: do NOT ...`) is read line by line instead: each `key: value` line keeps its
value as written, and the fields YAML could not read are named (the reader's `left out`).
A note is never refused for its front matter.

Blocks. Each top-level bullet (its nested lines with it) and each paragraph is a block,
under its heading. A bullet whose nested lines hold a heading holds a note of its own (a
whole CLAUDE.md kept under `- #memory`): from that heading on, its lines are read one
indent out, as a note, until a line less indented. Not blocks: code, fenced or indented, as
CommonMark reads it in and out of list items (`Code`: a fence under a nested bullet is that
item's code; indented code is four columns past the content column of the item holding it,
never right after a paragraph's line; the bullet's text stops at code, the lines after it
are read as after any fence),
HTML comments (`uncommented`), table rows, lines that are only prompt tags (`<guidelines>`, `</rules>`),
lines with no letter or digit (`---`, a lone `-->`), a label right before a list, code or a
table (`**Next Steps:**`: `label`), a block that only points to other files (`@AGENTS.md`,
Kiro's `#[[file:x.yaml]]`: `import`; the agent reads the file named as itself), and front
matter pasted mid-file (a file made of several, Task Master's `.windsurfrules`: a `---`
line, `key: value` lines with no blank line, a closing `---`; the copied file's metadata,
not memory); `skipped` counts them by kind. A paragraph after a thematic break is text.

HTML comments, as CommonMark reads them: `<!--` up to the first `-->`, outside code spans
(inside backticks, `` `<!-- marker -->` `` is text, and so is an arrow `a --> b`). One
opening a line (an HTML block) runs on to the first line holding `-->`; one opened later
in a line runs on only when its `-->` comes before the paragraph ends, else its `<!--` is
text. What follows a comment on its line is read.

Pairing. Between two states of one note, a block whose text (white space runs as one
space: a re-wrapped line is the same text) is unchanged keeps its record; of the others, a
removed and an added block in the same place of the note (one run of changed lines: git's
own `-U0` hunks for a committed change, `Places`; linediff for any other) whose words are alike (Dice of their word sets >=
EDIT_SIMILARITY, or, sharing at least half that, difflib's character ratio) are one record
edited, whatever heading each is under, the most alike first, one to one; the rest are
additions and deletions. Where no line diff is known (a file read against the store),
only blocks under the same heading pair.

Imports. CLAUDE.md's `@path` (outside code) names a file whose text Claude Code reads with
it: `imports` lists them, relative to the importing file, and only inside the folder read.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

import yaml

from synapse_tui.core.base.cjk import word_count
from synapse_tui.core.base.limits import MAX_TEXT_CHARS, counted
from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.ingest.adapters import (
    DEPENDENCY_FOLDERS,
    NOT_REGULAR,
    Evidence,
    KnownFact,
    dependency_folder,
    fact_id,
    linediff,
    not_read,
    unlisted,
)

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
EDIT_SIMILARITY = 0.5
RENAMED_SIMILARITY = 0.6  # across a heading the same change renamed (no line diff known)

_FENCE_OPEN = re.compile(r"^[ ]{0,3}---[ \t]*$")
_FENCE_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$")
_KEY_LINE = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$")
_BULLET = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.*?)[ \t#]*$")
_NESTED_HEADING = re.compile(r"^( +)#{1,6}[ \t]+\S")  # a heading inside a bullet's lines
# a label introducing what follows: "**Next Steps:**", "**Params**", "Common errors:", and
# with CJK's full-width colon "技术栈：", "**主要功能**："
_LABEL = re.compile(r"^(?:\*\*[^*\n]{1,60}\*\*[:：]?|[^\s*`#>|][^\n:：*`]{0,40}[:：])$")
LABEL_WORDS = 4  # a plain "Common errors:" is a label; a longer line ending in ':' says something
# code fences as CommonMark reads them (`Code`): an opening fence, three or more backticks
# (an info string after them holds none: ```` ```a``` ```` is a code span) or tildes; a
# closing one, of the same character, at least as long, nothing after it
_FENCE_OPENING = re.compile(r"^(?:(`{3,})[^`]*|(~{3,}).*)$")
_FENCE_CLOSING = re.compile(r"^(`{3,}|~{3,})[ \t]*$")
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)")
_BLOCK_START = re.compile(r"^(?:#{1,6}(?:[ \t]|$)|>|```|~~~|(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$))")
_RULE = re.compile(r"^[ ]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_TAG_LINE = re.compile(r"^\s*(?:</?[A-Za-z][\w:.-]*(?:\s+[^<>]*)?/?>\s*)+$")
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_COMMENT_OR_CODE = re.compile(r"`+|<!--")  # what may open a code span or an HTML comment
_COMMENT_BLOCK = re.compile(r"^[ ]{0,3}<!--")  # CommonMark's HTML block type 2 starts so
_FRONT_MORE = re.compile(r"^(?:[ \t]+\S|-[ \t])")  # a front matter value's own lines
_WORD = re.compile(r"\w+")
_IMPORT = re.compile(r"(?:(?<=\s)|^)@((?:~/|\.{1,2}/|/)?[\w.\-/]+\.[A-Za-z0-9]+)")
_CODE_SPAN = re.compile(r"(`+).*?\1")
# a pointer to another file, which the agent reads as itself: an import (`@AGENTS.md`, as
# `_IMPORT` finds one) or Kiro's file reference (`#[[file:api/openapi.yaml]]`)
_POINTER = re.compile(r"@(?:~/|\.{1,2}/|/)?[\w.\-/]+\.[A-Za-z0-9]+|#\[\[file:[^\]\s]+\]\]")


@dataclass
class Block:
    line: int
    section: str | None
    text: str
    bullet: bool = False
    end: int = 0  # its last line (0: its first)


@dataclass
class Front:
    meta: dict[str, Any]
    body: str
    offset: int  # lines before the body
    loose: list[str] = field(default_factory=list)  # fields read as written, not as YAML


def text_of(raw: str) -> str:
    return raw.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def front(text: str) -> Front:
    """Front matter (a `---` block at the top) and the body; see the module docstring."""
    lines = text.split("\n")
    if not lines or not _FENCE_OPEN.match(lines[0]):
        return Front({}, text, 0)
    end = next((i for i in range(1, len(lines)) if _FENCE_CLOSE.match(lines[i])), None)
    if end is None:
        return Front({}, text, 0)
    raw = "\n".join(lines[1:end])
    body = "\n".join(lines[end + 1 :])
    try:
        meta = yaml.load(raw, Loader=LOADER)  # noqa: S506  (a safe loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        meta, loose = _loose(lines[1:end], mark.line if mark is not None else None)
        return Front(meta, body, end + 1, loose)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return Front({}, body, end + 1, ["(front matter is not a mapping)"])
    return Front({str(k): v for k, v in meta.items()}, body, end + 1)


def _loose(lines: list[str], bad: int | None) -> tuple[dict[str, Any], list[str]]:
    """`key: value` lines kept as written (indented lines continue the value before); the
    field holding line `bad` (0-based, where YAML stopped) is the one named, else every
    field whose value YAML cannot read alone."""
    meta: dict[str, Any] = {}
    starts: list[tuple[int, str]] = []
    key = None
    for i, line in enumerate(lines):
        m = _KEY_LINE.match(line)
        if m:
            key = m.group(1)
            meta[key] = (m.group(2) or "").strip()
            starts.append((i, key))
        elif key is not None and line[:1] in (" ", "\t") and line.strip():
            meta[key] = f"{meta[key]} {line.strip()}".strip()
    named = []
    if bad is not None:
        at = [k for i, k in starts if i <= bad]
        named = at[-1:] if at else []
    if not named:
        for k, v in meta.items():
            try:
                yaml.load(f"{k}: {v}", Loader=LOADER)  # noqa: S506
            except yaml.YAMLError:
                named.append(k)
    for k, v in list(meta.items()):
        if k not in named:
            try:
                meta[k] = yaml.load(f"{k}: {v}", Loader=LOADER)[k]  # noqa: S506
            except (yaml.YAMLError, TypeError, KeyError):
                named.append(k)
    return {k: (str(v) if isinstance(v, str) else v) for k, v in meta.items()}, named or ["(unreadable)"]


def junk(text: str) -> str | None:
    """Why a block's text is not a memory, or None (the kinds `blocks` skips)."""
    t = text.strip()
    if len(t) > MAX_TEXT_CHARS:  # an inline image, pasted data: no fact holds it
        return "overlong"
    if not t or not any(ch.isalnum() for ch in t):
        return "marker"
    if t.startswith("<!--"):
        return "html comment"  # still a comment (`blocks` cuts them out: `uncommented`)
    lines = [ln for ln in t.split("\n") if ln.strip()]
    if any(_TABLE_LINE.match(ln) or _TABLE_RULE.match(ln) and "|" in ln for ln in lines):
        return "table"
    if all(_TAG_LINE.match(ln) for ln in lines):
        return "prompt tag"
    if all(_POINTER.fullmatch(word) for word in t.split()):
        return "import"  # `@AGENTS.md` alone: a pointer, the file it names is read as itself
    return None


def label(text: str) -> bool:
    """A one-line paragraph that only names what follows it ("**Next Steps:**", "技术栈：");
    its words counted as CJK is written, without spaces (base/cjk.py `word_count`)."""
    t = text.strip()
    return bool(_LABEL.match(t)) and (t.startswith("**") or word_count(t.rstrip(":：")) <= LABEL_WORDS)


def indent_of(line: str) -> tuple[int, int]:
    """The columns of a line's leading white space (a tab to the next multiple of four) and
    the characters they take."""
    col = 0
    for i, ch in enumerate(line):
        if ch == " ":
            col += 1
        elif ch == "\t":
            col += 4 - col % 4
        else:
            return col, i
    return col, len(line)


class Code:
    """Which lines are code, as CommonMark reads fenced and indented code in and out of list
    items.

    A list item's content starts at the column after its marker and the spaces after it (one
    to four; one when more, or when nothing follows the marker); a line as indented as that
    is inside the item, and so is a line less indented that continues a paragraph (a lazy
    line); any other less indented line ends the item. Tabs count to the next multiple of
    four columns. A fence opens at up to three columns past the content column of the
    innermost item holding it (or of the page's margin): in `  * **Example**:` then
    `    ```python`, the fence is the nested item's. It closes at a line of the same
    character, at least as long, up to three columns past that same column and nothing after
    it, or where its item ends (or at the end of the note).

    Indented code (CommonMark 4.4): a line four or more columns past that same content column
    (at the margin: four columns in), unless it carries on a paragraph (indented code never
    interrupts one: after a paragraph's line, with no blank line between, such a line is the
    paragraph's, in a list item or lazily). So `- item`, a blank line, then `    more` is the
    item's paragraph (two columns past its content column), and `Run:`, a blank line, then
    `    npm test` is code. It runs over blank lines to the next line less indented; the
    first line after it may be a paragraph's. An item whose marker is followed by five or
    more columns begins with indented code (its content column one past the marker)."""

    def __init__(self) -> None:
        self.items: list[int] = []  # the content columns of the list items open, outermost first
        self.fence: tuple[str, int, int] | None = None  # character, length, column
        self.text = False  # the line before continues a paragraph (a lazy line may follow)

    def reset(self) -> None:
        """The lines from here are read as a note of their own (a note kept under a bullet)."""
        self.items, self.text = [], False

    def _base(self, col: int, bare: str) -> int:
        """The content column `bare` (at column `col`) is read against: the innermost list
        item still open, once the items it ends are closed (a lazy line ends none)."""
        if not (self.text and not _BLOCK_START.match(bare)):  # not a lazy line
            while self.items and self.items[-1] > col:
                self.items.pop()
        return self.items[-1] if self.items else 0

    def indented(self, line: str) -> bool:
        """Whether `line` is indented code (nothing is changed: `line` reads it)."""
        col, at = indent_of(line)
        if self.fence is not None or at == len(line) or self.text:
            return False
        base = next((c for c in reversed(self.items) if c <= col), 0)
        return col - base >= 4

    def line(self, line: str) -> str | None:
        """What line `line` is: "open" (a fence opening), "close" (its closing fence),
        "code" (inside a fence), "indented" (indented code), or None (anything else)."""
        col, at = indent_of(line)
        bare = line[at:]
        if self.fence is not None:
            char, length, base = self.fence
            if bare and col < base:  # the list item holding the fence ended: so did the fence
                self.fence = None
            else:
                closing = _FENCE_CLOSING.match(bare) if col - base <= 3 else None
                if closing and closing.group(1)[0] == char and len(closing.group(1)) >= length:
                    self.fence = None
                    return "close"
                return "code"
        if not bare:
            self.text = False
            return None
        base = self._base(col, bare)
        if col - base > 3:  # carries on a paragraph, or indented code
            return None if self.text else "indented"
        opening = _FENCE_OPENING.match(bare)
        if opening:
            run = opening.group(1) or opening.group(2)
            self.fence, self.text = (run[0], len(run), base), False
            return "open"
        self.text = not (_HEADING.match(bare) or _RULE.match(bare))
        if (marker := _LIST_MARKER.match(bare)) and not _RULE.match(bare):
            after = bare[marker.end() :]
            end = col + marker.end()  # the column past the marker; a tab after it counts from there
            gap = indent_of(" " * end + after)[0] - end if after.strip() else 1
            self.items.append(end + (gap if gap <= 4 else 1))
            if gap > 4:  # the item begins with indented code
                self.text = False
                return "indented"
            self.text = bool(after.strip()) and self.text
        return None


def blocks(body: str, offset: int = 0, skipped: dict[str, int] | None = None) -> list[Block]:
    """The body's blocks (see the module docstring); `skipped` counts what was passed over."""
    reader = _BlockReader({} if skipped is None else skipped, body.split("\n"), offset)
    for n, line in enumerate(reader.lines, start=offset + 1):
        reader.feed(n, line)
    reader.close()
    reader.settle(introduces=False)
    return reader.out


class _BlockReader:
    """A body read line by line into blocks: the block being gathered, the heading it is
    under, and whether the line is inside a code fence or an HTML comment."""

    def __init__(self, skipped: dict[str, int], lines: list[str], offset: int) -> None:
        self.out: list[Block] = []
        self.skipped = skipped
        self.lines, self.offset = lines, offset  # the body's lines, and the lines before them
        self.until = 0  # the last line of front matter pasted mid-file, passed over
        self.current: list[str] | None = None
        self.kind, self.start, self.last = "", 0, 0
        self.section: str | None = None
        self.code = Code()
        self.comment = False
        self.indent = 0  # inside a bullet holding a note: the indent its lines are read without
        self.label: Block | None = None  # a label paragraph, until what follows it is known

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1

    def close(self) -> None:
        """The block gathered so far ends: kept unless it is junk (counted); a label waits
        for what follows it (`settle`)."""
        if self.current is not None and (text := "\n".join(self.current).strip()):
            why = junk(text)
            if why is not None:
                self.skip(why)
            else:
                block = Block(
                    self.start, self.section, text, self.kind == "bullet", max(self.last, self.start)
                )
                if self.kind == "paragraph" and label(text):
                    self.settle(introduces=False)
                    self.label = block
                else:
                    self.out.append(block)
        self.current = None

    def settle(self, introduces: bool) -> None:
        """What follows a waiting label is known: a list, code or a table it `introduces`
        (then it only names them: counted, not a fact), or anything else (a fact)."""
        if self.label is not None:
            if introduces:
                self.skip("label")
            else:
                self.out.append(self.label)
            self.label = None

    def feed(self, n: int, line: str) -> None:
        """Line `n` of the note."""
        if n <= self.until:
            return
        rest = self.uncommented(n, line)
        if rest is None:
            return
        if self.indent:
            if rest.startswith(" " * self.indent):
                rest = rest[self.indent :]
            elif rest.strip():  # less indented: the bullet's note ended
                self.indent = 0
                self.code.reset()
        if (
            self.kind == "bullet"
            and self.current is not None
            and (nested := _NESTED_HEADING.match(rest))
            and not self.code.indented(rest)  # `      # install` in an item's indented code
        ):
            self.indent += len(nested.group(1))
            rest = rest[len(nested.group(1)) :]
            self.code.reset()
        code = self.code.line(rest)
        if code in ("open", "indented"):  # code ends the block before it; a label names it
            self.close()
            self.settle(introduces=True)
        elif code is not None:
            return
        elif heading := _HEADING.match(rest):
            self.close()
            self.settle(introduces=False)
            self.section = heading.group(1) or None
        elif _RULE.match(rest):
            self.close()
            self.settle(introduces=False)
            if rest.strip() == "---" and (end := self.pasted_front(n)):
                self.until = end
                self.skip("front matter")
        elif _TABLE_LINE.match(rest) or ("|" in rest and _TABLE_RULE.match(rest)):
            self.close()
            self.settle(introduces=True)
            self.skip("table")
        elif _TAG_LINE.match(rest):
            self.close()
            self.settle(introduces=False)
            self.skip("prompt tag")
        else:
            self.text(n, rest)

    def pasted_front(self, n: int) -> int | None:
        """The line of the closing `---` (or `...`) when the `---` at line `n` opens front
        matter pasted mid-file: `key: value` lines (a value's indented lines and list items
        with them), no blank line; else None (a thematic break)."""
        i = n - self.offset  # the index of the line after line n
        if i >= len(self.lines) or not _KEY_LINE.match(self.lines[i]):
            return None
        for j in range(i + 1, len(self.lines)):
            if _FENCE_CLOSE.match(self.lines[j]):
                return j + self.offset + 1
            if not (_KEY_LINE.match(self.lines[j]) or _FRONT_MORE.match(self.lines[j])):
                return None
        return None

    def uncommented(self, n: int, line: str) -> str | None:
        """Line `n` with HTML comments cut out (see the module docstring: one left open runs
        on to the lines after); None when nothing of it is left to read."""
        block = True  # whether a comment opening the line starts an HTML block
        if self.comment:
            if "-->" not in line:
                return None
            self.comment, block = False, False
            line = line.split("-->", 1)[1]
            if not line.strip():
                return None
        if self.code.fence is None and "<!--" in line and not self.code.indented(self.outdented(line)):
            raw = line
            line, tail = comments_cut(raw)
            if tail is None or (block and _COMMENT_BLOCK.match(raw) and "-->" in raw):
                pass  # all closed, or an HTML block that ends on its first line
            elif (block and _COMMENT_BLOCK.match(raw)) or self.closes_in_paragraph(n):
                self.comment = True
                self.skip("html comment")
            else:
                line += tail  # never closed in its paragraph: CommonMark reads `<!--` as text
            if not line.strip():
                if self.comment or self.kind == "paragraph":
                    self.close()
                return None
        return line

    def outdented(self, line: str) -> str:
        """`line` as `feed` reads it inside a bullet holding a note (its indent taken off)."""
        return line[self.indent :] if self.indent and line.startswith(" " * self.indent) else line

    def closes_in_paragraph(self, n: int) -> bool:
        """Whether a `-->` comes after line `n` before a blank line (the paragraph's end)."""
        for later in self.lines[n - self.offset :]:
            if not later.strip():
                return False
            if "-->" in later:
                return True
        return False

    def text(self, n: int, line: str) -> None:
        """A line of text: a bullet opens a block, a blank line ends a paragraph, an
        indented line (or any, in a paragraph) continues the block, another opens one."""
        if bullet := _BULLET.match(line):
            self.close()
            self.settle(introduces=True)
            self.current, self.kind, self.start, self.last = [bullet.group(1)], "bullet", n, n
        elif not line.strip():
            if self.kind == "paragraph":
                self.close()
            elif self.current is not None:
                self.current.append("")
        elif self.current is not None and (self.kind == "paragraph" or line[:1] in (" ", "\t")):
            self.current.append(line.strip())
            self.last = n
        else:
            self.close()
            self.settle(introduces=False)
            self.current, self.kind, self.start, self.last = [line.strip()], "paragraph", n, n


def comments_cut(line: str) -> tuple[str, str | None]:
    """The line with its HTML comments (`<!--` to the first `-->`) cut out, none inside a
    code span (a backtick run up to the next run of as many; an unmatched run is text), and
    the rest of the line from a `<!--` left open on it (None when none is)."""
    kept, at, pos = [], 0, 0
    while (mark := _COMMENT_OR_CODE.search(line, pos)) is not None:
        if mark.group().startswith("`"):
            run = len(mark.group())
            close = re.compile(rf"(?<!`)`{{{run}}}(?!`)").search(line, mark.end())
            pos = close.end() if close is not None else mark.end()
            continue
        kept.append(line[at : mark.start()])
        end = line.find("-->", mark.start() + 2)  # `<!-->` and `<!--->` are comments too
        if end == -1:
            return "".join(kept), line[mark.start() :]
        at = pos = end + 3
    kept.append(line[at:])
    return "".join(kept), None


def norm(text: str) -> str:
    """A text as compared between versions: white space runs as one space."""
    return " ".join(text.split())


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def similarity(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    size = len(wa) + len(wb)
    dice = 2 * len(wa & wb) / size if size else 0.0
    if dice >= EDIT_SIMILARITY or dice < EDIT_SIMILARITY / 2:
        return dice
    sm = SequenceMatcher(None, a.lower(), b.lower(), autojunk=False)
    if sm.real_quick_ratio() < EDIT_SIMILARITY or sm.quick_ratio() < EDIT_SIMILARITY:
        return dice
    return max(dice, sm.ratio())


def pair_edits(
    new: Sequence[tuple[str | None, str]],
    old: Sequence[tuple[str | None, str]],
    renamed: dict[str | None, str | None] | None = None,
    hunks: tuple[Sequence[int], Sequence[int]] | None = None,
) -> list[tuple[int, int]]:
    """(new index, old index) of the edits among the (section, text) blocks a change added
    and removed in one note: alike (EDIT_SIMILARITY), most alike first (under the same
    heading first among equals), one to one. With `hunks` (the change each block falls in,
    as git's line diff shows them: linediff) only blocks of one change pair, whatever
    heading they are under: a bullet edited and moved under another heading in one place
    of the note is that bullet edited. Without, only blocks under the same heading pair, or
    under a heading the change renamed (`renamed`: old heading -> new) when they are more
    alike still (RENAMED_SIMILARITY)."""
    renamed = renamed or {}
    index: dict[str, list[int]] = {}
    for j, (_, text) in enumerate(old):
        for w in _words(text):
            index.setdefault(w, []).append(j)
    scored = []
    for i, (section, text) in enumerate(new):
        candidates: set[int] = set()
        for w in _words(text):
            candidates.update(index.get(w, ()))
        for j in candidates:
            least = _least(section, old[j][0], renamed, None if hunks is None else hunks[0][i] == hunks[1][j])
            if least is None:
                continue
            s = similarity(text, old[j][1])
            if s >= least:
                scored.append((-s, old[j][0] != section, i, j))
    pairs, done_new, done_old = [], set(), set()
    for _, _, i, j in sorted(scored):
        if i not in done_new and j not in done_old:
            pairs.append((i, j))
            done_new.add(i)
            done_old.add(j)
    return pairs


def _least(
    section: str | None, was: str | None, renamed: dict[str | None, str | None], one_change: bool | None
) -> float | None:
    """How alike an added block under `section` and a removed one under `was` must be to
    be one block edited; None when they cannot be (`one_change`: whether the line diff
    puts them in one change, None when there is no line diff)."""
    if one_change is not None:
        return EDIT_SIMILARITY if one_change else None
    if was == section:
        return EDIT_SIMILARITY
    if renamed.get(was, was) == section:
        return RENAMED_SIMILARITY
    return None


def region(block: Block, regions: Sequence[tuple[int, int, int, int]], *, new: bool) -> int:
    """The change (index in `regions`) a block falls in, else the nearest: a removed block
    on the old side, an added one on the new."""
    lo, hi = block.line - 1, max(block.end, block.line) - 1  # 0-based, inclusive
    best, far = -1, None
    for k, (i1, i2, j1, j2) in enumerate(regions):
        a, b = (j1, j2) if new else (i1, i2)
        b = max(b, a + 1) - 1  # an empty side (lines only added or removed) sits at its start
        d = 0 if lo <= b and hi >= a else min(abs(lo - b), abs(hi - a))
        if far is None or d < far:
            best, far = k, d
    return best


def sections_renamed(old: Sequence[str | None], new: Sequence[str | None]) -> dict[str | None, str | None]:
    """Old heading -> new heading, for the headings an edit renamed: the two notes'
    headings in order, aligned (difflib); where a run of old headings was replaced by a run
    of new ones, they are paired in order."""
    a = list(dict.fromkeys(old))
    b = list(dict.fromkeys(new))
    out: dict[str | None, str | None] = {}
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "replace":
            for x, y in zip(a[i1:i2], b[j1:j2], strict=False):
                out[x] = y
    return out


def imports(text: str) -> list[str]:
    """The `@path` imports of a CLAUDE.md-like text, outside code blocks and spans, in
    order, each once."""
    found: list[str] = []
    code = Code()
    for line in text.split("\n"):
        if code.line(line) is not None:
            continue
        for m in _IMPORT.finditer(_CODE_SPAN.sub(" ", line)):
            path = m.group(1).rstrip(".")
            if path not in found:
                found.append(path)
    return found


def resolve_import(path: str, importer: PurePosixPath, inside: Path) -> Path | None:
    """The file an import names, relative to the importing file (`importer`, relative to
    `inside`), or None when it leaves `inside` (an absolute or home path, `..` out, a link
    out) or is no file."""
    if path.startswith(("~", "/")):
        return None
    target = (inside / importer.parent / path).resolve()
    root = inside.resolve()
    if not target.is_relative_to(root) or not target.is_file():
        return None
    return target


IMPORT_DEPTH = 5  # Claude Code and Gemini CLI follow imports five hops deep


def followed_imports(root: Path, files: list[tuple[Path, str]], left_out: list[str]) -> list[str]:
    """The files `files` ((path, its path relative to `root`)) import (`@path`), and theirs,
    IMPORT_DEPTH hops deep, relative to `root`, in the order found, each once: Markdown
    inside `root` only; an import leaving it, naming no file there or not Markdown is named
    in `left_out`, never read."""
    have = {path.resolve() for path, _ in files}
    out: list[str] = []
    wave = list(files)
    for _ in range(IMPORT_DEPTH):
        following: list[tuple[Path, str]] = []
        for path, rel in wave:
            try:
                text = path.read_bytes().decode("utf-8", "replace")
            except OSError:
                continue
            for named in imports(text):
                target = resolve_import(named, PurePosixPath(rel), root)
                if target is None or target.suffix.lower() != ".md":
                    why = "not Markdown" if target is not None else "outside the folder or no such file"
                    left_out.append(f"{rel}: @{clean(named)} {why}; not read")
                    continue
                if target not in have:
                    have.add(target)
                    following.append((target, target.relative_to(root.resolve()).as_posix()))
        out += [rel for _, rel in following]
        wave = following
    return out


@dataclass
class Version:
    """One version of a record, as a replay of a note's states finds it."""

    record: str
    version: int
    block: Block
    at: float | None
    commit: Any
    meta: dict[str, Any]
    supersedes: int | None  # the version of the same record it replaces


@dataclass
class Replay:
    """What replaying notes found, over all the notes replayed into it."""

    versions: list[Version] = field(default_factory=list)
    deleted: dict[tuple[str, int], float | None] = field(default_factory=dict)  # (record, version) -> when
    used: set[str] = field(default_factory=set)
    skipped: dict[str, int] = field(default_factory=dict)  # junk passed over, by kind
    loose: dict[str, list[str]] = field(default_factory=dict)  # note -> fields read as written


@dataclass(frozen=True)
class Places:
    """Where git's own diff put the hunks of a note's committed states: the blob of each
    state (in order; the states past them, such as the work tree's, have none) and git's
    hunks per pair of blobs. A change not found there is placed by linediff."""

    blobs: Sequence[str | None]
    hunks: Mapping[tuple[str, str], list[tuple[int, int, int, int]]]

    def of(self, k: int) -> list[tuple[int, int, int, int]] | None:
        """git's hunks of the change into state k, None when unknown."""
        if not 0 < k < len(self.blobs):
            return None
        before, after = self.blobs[k - 1], self.blobs[k]
        return (self.hunks.get((before, after)) or None) if before and after else None


def replay(
    rel: str,
    states: Sequence[tuple[Any, float | None, str | None]],
    into: Replay,
    *,
    whole: bool = False,
    keep: Callable[[Block], bool] | None = None,
    places: Places | None = None,
) -> bool:
    """Walk one note's states (commit, instant, text; None text: the note is absent or not a
    text, such as a link), oldest first, adding its versions and deletions to `into`; whether
    the note as it stands gives a fact.
    `whole`: the note's body is one record (a topic file), not one per block;
    `keep`: which blocks are read (all when None; claude-code reads only the bullets of
    auto memory, and no index pointer); `places`: git's own hunks, where known."""
    alive: list[Version] = []
    junk_now: dict[str, int] = {}
    where: dict[int, Block] = {}  # id of an alive version -> its block in the last state
    before: list[str] = []
    for step, (commit, at, raw) in enumerate(states):
        lines = text_of(raw).split("\n") if raw is not None else []
        # git counts lines by "\n" alone; a text read otherwise (a lone "\r") is placed here
        gits = (
            places.of(step)
            if places is not None and raw is not None and "\r" not in raw.replace("\r\n", "")
            else None
        )
        parsed, meta, junk_read = _state_blocks(rel, raw, into, whole=whole, keep=keep)
        if junk_read is not None:
            junk_now = junk_read
        kept, pool = _unchanged(parsed, alive, where)
        fresh = [i for i, v in enumerate(kept) if v is None]
        if whole:
            pairs = [(0, 0)] if fresh and pool else []
        else:
            pairs = _edits(parsed, fresh, pool, alive, where, gits or linediff.changes(before, lines))
        paired = {fresh[u]: pool[v] for u, v in pairs}
        now: list[Version] = []
        for i, b in enumerate(parsed):
            same = kept[i]
            if same is None:
                same = _new_version(rel, b, paired.get(i), at, commit, meta, into, whole)
                where[id(same)] = b
            now.append(same)
        gone = set(map(id, paired.values()))
        for v in pool:
            if id(v) not in gone:
                into.deleted[(v.record, v.version)] = at
        alive, before = now, lines
        where = {id(v): where[id(v)] for v in alive}
    for v in alive:  # a text unchanged since an earlier state: its line where it stands now
        v.block = replace(v.block, line=where[id(v)].line, end=where[id(v)].end)
    for k, n in junk_now.items():  # what the note skips as it stands now
        into.skipped[k] = into.skipped.get(k, 0) + n
    return bool(alive)


def _state_blocks(
    rel: str, raw: str | None, into: Replay, *, whole: bool, keep: Callable[[Block], bool] | None
) -> tuple[list[Block], dict[str, Any], dict[str, int] | None]:
    """One state's blocks, its front matter, and the junk its blocks passed over (None
    when none were read: the note absent, or read whole)."""
    if raw is None:
        return [], {}, None
    fm = front(text_of(raw))
    if fm.loose:
        into.loose[rel] = fm.loose
    if whole:
        body = fm.body.strip()
        return ([Block(fm.offset + 1, None, body)] if body else []), fm.meta, None
    junk_read: dict[str, int] = {}
    parsed = blocks(fm.body, fm.offset, junk_read)
    if keep is not None:
        parsed = [b for b in parsed if keep(b)]
    return parsed, fm.meta, junk_read


def _unchanged(
    parsed: list[Block], alive: list[Version], where: dict[int, Block]
) -> tuple[list[Version | None], list[Version]]:
    """(for each block, the alive version whose text it still is, else None; the alive
    versions no block still is). `where` learns the block each kept version is now."""
    pool = list(alive)
    kept: list[Version | None] = []
    for b in parsed:
        key = norm(b.text)
        same = next((v for v in pool if norm(v.block.text) == key), None)
        if same is not None:
            pool.remove(same)
            where[id(same)] = b
        kept.append(same)
    return kept, pool


def _edits(
    parsed: list[Block],
    fresh: list[int],
    pool: list[Version],
    alive: list[Version],
    where: dict[int, Block],
    regions: Sequence[tuple[int, int, int, int]],
) -> list[tuple[int, int]]:
    """(index in `fresh`, index in `pool`) of the blocks a change edited: pair_edits, with
    the headings it renamed and the places of the note it changed (`regions`: git's hunks,
    or linediff's)."""
    moved = sections_renamed([where[id(v)].section for v in alive], [b.section for b in parsed])
    return pair_edits(
        [(parsed[i].section, parsed[i].text) for i in fresh],
        [(where[id(v)].section, v.block.text) for v in pool],
        moved,
        hunks=(
            [region(parsed[i], regions, new=True) for i in fresh],
            [region(where[id(v)], regions, new=False) for v in pool],
        ),
    )


def _new_version(
    rel: str,
    b: Block,
    old: Version | None,
    at: float | None,
    commit: Any,
    meta: dict[str, Any],
    into: Replay,
    whole: bool,
) -> Version:
    """A block's text new in this state: the next version of `old` (the text it edited),
    else a new record; added to `into`."""
    if old is not None:
        v = Version(old.record, old.version + 1, b, at, commit, meta, old.version)
    else:
        v = Version(record(rel, b.text, into.used, whole=whole), 1, b, at, commit, meta, None)
    into.versions.append(v)
    return v


@dataclass(frozen=True)
class Held:
    """The store's facts of a source, as a replay of its notes asks after them: built once
    per read (`of`), asked once per note replayed."""

    known: Sequence[KnownFact]
    texts: dict[str, str]  # id -> its text, white space made one space
    ids: dict[tuple[str, int, str], str]  # (record, version, that text) -> id
    deleted: frozenset[str]  # the ids flagged deleted

    @classmethod
    def of(cls, known: Sequence[KnownFact] | None) -> Held:
        known = known or ()
        texts = {k.id: norm(k.text) for k in known}
        return cls(
            known,
            texts,
            {(k.record, k.version, texts[k.id]): k.id for k in known},
            frozenset(k.id for k in known if k.deleted),
        )

    def store_ids(self, system: str, found: Replay) -> dict[tuple[str, int], str]:
        """The store id of each version a replay found, by (record, version):
        `system:record@n` (fact_id), unless the store already holds that id with another
        text. A version nobody committed is numbered after the last commit, so the work
        tree's next text of the same bullet, before any commit, gets that number again: it
        is another fact. Such a version gets its own id (`@n~` and a hash of its text), and a
        version the store holds with the same text keeps the store's id, whatever it is
        (committed as it was synced: the same fact)."""
        out: dict[tuple[str, int], str] = {}
        for v in found.versions:
            text = norm(v.block.text)
            fid = self.ids.get((v.record, v.version, text))
            if fid is None:
                fid = fact_id(system, v.record, v.version)
                if self.texts.get(fid, text) != text:
                    fid += "~" + hashlib.blake2b(text.encode(), digest_size=4).hexdigest()
            out[(v.record, v.version)] = fid
        return out

    def again(self, found: Replay, ids: dict[tuple[str, int], str]) -> set[str]:
        """The store's facts flagged deleted that the replay ends with (a bullet removed
        from the work tree and put back before a commit: the same record, the same version)."""
        replaced = {(v.record, v.supersedes) for v in found.versions if v.supersedes}
        last = {ids[(v.record, v.version)] for v in found.versions} - {
            ids[key] for key in replaced | found.deleted.keys()
        }
        return set(last & self.deleted)

    def link_unsaved(self, facts: Sequence[Any], unsaved: Callable[[KnownFact], bool]) -> None:
        """Each fact read from the work tree (`unsaved` says so of a fact, as of the store's)
        that is new to the store supersedes its record's version nobody committed that
        nothing supersedes yet: an edit edited again before a commit is version n+1 of the
        first edit (v1 <- v2 <- v3), as commits would make it. One that supersedes a version
        the store numbered so (that chain committed since, git numbering it lower) is
        numbered after it too: never two versions of a record with one number."""
        open_heads: dict[str, KnownFact] = {}
        for k in self.known:
            if k.head and k.id not in self.deleted and unsaved(k):
                open_heads[k.record] = k
        by_id = {k.id: k for k in self.known}
        for f in facts:
            if f.id in self.texts or not unsaved(f):
                continue
            before = open_heads.get(str((f.provenance or {}).get("x-source-id")))
            if before is None and f.supersedes in by_id:
                before = by_id[f.supersedes]
                if before.version < int((f.provenance or {}).get("x-source-version") or 0):
                    continue
            if before is not None:
                next_of(f, before)

    def unsaved_gone(self, ids: set[str], unsaved: Callable[[KnownFact], bool]) -> set[str]:
        """The store's facts a sync read from a work tree, never committed (`unsaved`: of
        this folder, dated by the file), that nothing supersedes and the work tree no longer
        holds (`ids`: the versions replayed now and those they supersede): the edit undone.
        Nothing else says they are gone: git's history never had them."""
        return {
            k.id for k in self.known if k.head and k.id not in self.deleted and k.id not in ids and unsaved(k)
        }


def now_committed(
    facts: Sequence[Any],
    known: Sequence[KnownFact],
    unsaved: Callable[[Any], bool],
    refreshed: Sequence[str] = (),
) -> list[Evidence]:
    """The store's facts a sync read from a work tree before anyone committed them (`unsaved`
    says so of a fact, as of the store's) that this read gives as committed: the same text
    under the same id, now in a commit. For each, the provenance a first import would give
    it (its commit, author, time; the version number stays the store's, the chain a sync
    built) and its tier (`human`: a person committed it), as the source's `Evidence`: the
    sync writes the provenance as the source's record and a tier raised as the source's
    audited, undoable `accept` (core/ingest/adapters/sync.py), so an undone raise stays undone.
    Of any other fact the store holds, the `refreshed` keys this read gives otherwise: where
    its text stands now (`x-<system>-line`: lines above it changed) and what the file was
    when read (`-stamp`, `-last-commit`), so a file unchanged since is not read again; a
    key this read no longer gives is removed (a key an older release wrote)."""
    held = {k.id: k for k in known if not k.deleted}
    out = []
    for f in facts:
        k = held.get(f.id)
        if k is None:
            continue
        now = f.provenance or {}
        if not unsaved(k) or unsaved(f):
            out.extend(_moved_keys(f.id, now, k.provenance, refreshed))
            continue
        keys = sorted((set(now) | set(k.provenance)) - {"x-source-version"})
        out.append(
            Evidence(
                f.id,
                0,
                [],
                {key: now.get(key) for key in keys},
                {key: k.provenance.get(key) for key in keys},
                tier="human" if f.tier == "human" else None,
            )
        )
    return out


def gone_read(
    facts: Sequence[Any],
    found: Replay,
    known: Sequence[KnownFact],
    refreshed: Sequence[str],
    note_of: Callable[[str], str] = lambda record: record.rsplit("#", 1)[0],
) -> list[Evidence]:
    """Of each note a replay finds gone (every version it lists deleted), the store's facts
    already flagged deleted: the `refreshed` keys this read gives otherwise. `now_committed`
    refreshes the facts still standing; a note gone keeps its last read on all of its
    facts, so a sync knows it need not be replayed again (gitkept)."""
    standing = {note_of(v.record) for v in found.versions if (v.record, v.version) not in found.deleted}
    given = {f.id: f.provenance or {} for f in facts}
    out = []
    for k in known:
        now = given.get(k.id)
        if now is None or not k.deleted or note_of(k.record) in standing:
            continue
        out.extend(_moved_keys(k.id, now, k.provenance, refreshed))
    return out


def _moved_keys(
    fid: str, now: dict[str, Any], was: dict[str, Any], refreshed: Sequence[str]
) -> list[Evidence]:
    """The source's record of the `refreshed` keys this read gives otherwise than the store
    holds (none when all agree): provenance only, no count or time."""
    moved = [key for key in refreshed if now.get(key) != was.get(key)]
    if not moved:
        return []
    return [Evidence(fid, 0, [], {key: now.get(key) for key in moved}, {key: was.get(key) for key in moved})]


def next_of(fact: Any, before: KnownFact) -> None:
    """Make `fact` (a ParsedFact read from the work tree) the next version of `before`, the
    store's version of its record nobody committed: it supersedes it, numbered after it."""
    fact.supersedes = before.id
    if fact.provenance is not None:
        fact.provenance["x-source-version"] = before.version + 1


def record(rel: str, text: str, used: set[str], *, whole: bool = False) -> str:
    """A new record's id: the note's path (a whole note), else `<path>#<hash of its first
    text>`, `-2` and on for a repeat."""
    base = rec = rel if whole else f"{rel}#{hashlib.blake2b(text.encode(), digest_size=6).hexdigest()}"
    n = 2
    while rec in used:
        rec, n = f"{base}-{n}", n + 1
    used.add(rec)
    return rec


# Where agents keep memory besides a folder's Markdown (the files and folders real
# repositories keep it in, as benchmarks/build_real_corpus.py counts them): Claude Code's
# `.claude/` (not its commands, agents, skills, hooks: prompts), GitHub Copilot's
# instructions, Cursor's rules (`.mdc` and `.md`, a subfolder's own `.cursor/rules/` too),
# Cline's, Windsurf's, Roo Code's and Kilo Code's rules files (`.roorules`, and a mode's
# `.roorules-code`, `.clinerules-code`, `.kilocoderules-code`), the rules folders
# (RULES_FOLDERS: Roo Code's and Kilo Code's `rules/` and a mode's `rules-code/`, Markdown
# or text, at any depth below; Windsurf's `rules/`; Kiro's `steering/`), OpenHands' always
# loaded `.openhands/microagents/repo.md` (its keyword microagents are prompts, as skills
# are); an agent's named file (NAMED) and a memory bank (BANKS) in any folder, a hidden
# one too (`.taskmaster/CLAUDE.md`, `.ai-agents/memory-bank/`). A rules folder's front
# matter (Windsurf's `trigger:`, Kiro's `inclusion:`) is read as Cursor's is: not a fact.
_CLAUDE_PROMPTS = {"commands", "agents", "skills", "output-styles", "hooks", "plugins"}
RULES_FILES = (".cursorrules", ".windsurfrules", ".clinerules", ".roorules", ".kilocoderules")
MODE_RULES_FILE = re.compile(r"^\.(?:roo|cline|kilocode)rules-[^/]+$")  # a mode's: `.roorules-code`
_MODES_RULES = re.compile(r"^rules(?:-[^/]+)?$")  # `rules/`, and a mode's `rules-code/`
RULES_FOLDERS: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {
    ".roo": (_MODES_RULES, (".md", ".txt")),
    ".kilocode": (_MODES_RULES, (".md", ".txt")),
    ".windsurf": (re.compile(r"^rules$"), (".md",)),
    ".kiro": (re.compile(r"^steering$"), (".md",)),
}
NAMED = frozenset(
    {"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENT.md", "GEMINI.md", "CRUSH.md", "MEMORY.md"}
)
BANKS = frozenset({"memory-bank", "memory_bank", ".memory-bank", "cline_docs"})
# Hidden folders of version control, environments, caches and build output: never walked,
# never memory (a `.venv/.../AGENTS.md` is a package's, not the project's).
NOT_WALKED = frozenset(
    {
        ".git", ".hg", ".svn", ".jj",
        ".venv", ".tox", ".nox", ".direnv", ".eggs", ".conda",
        ".cache", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis",
        ".next", ".nuxt", ".svelte-kit", ".angular", ".expo", ".docusaurus", ".vercel", ".netlify",
        ".turbo", ".parcel-cache", ".yarn", ".pnpm-store", ".npm", ".gradle", ".m2", ".cargo",
        ".rustup", ".bundle", ".dart_tool", ".pub-cache", ".terraform", ".serverless", ".output",
    }
)  # fmt: skip


# Trash folders hold notes someone deleted (Obsidian's vault `.trash`, a drive's `.Trash-1000`,
# macOS's `.Trashes`): never live memory, in a work tree, its history or a plain folder.
TRASH = re.compile(r"^\.(?:trash|Trash(?:-\d+)?|Trashes)$")
TRASHED = "a trash folder (notes someone deleted); not read"


def _prompt(dirs: list[str]) -> bool:
    """Whether a file in these folders is a prompt, not memory: `.claude/commands/` and the
    like, and a hidden folder's `skills/` (`.agents/skills/`), at any depth."""
    return any(
        d.startswith(".")
        and i + 1 < len(dirs)
        and (dirs[i + 1] == "skills" or d == ".claude" and dirs[i + 1] in _CLAUDE_PROMPTS)
        for i, d in enumerate(dirs)
    )


def memory_path(rel: str) -> bool:
    """Whether a path below the folder read (POSIX) is a memory file: a Markdown file with
    no hidden part; an agent's named file (NAMED) or a memory bank's Markdown (BANKS) in any
    folder; a file of the hidden places agents keep memory in, at any depth (the last
    hidden part of the path decides). Never one in a dependency folder (`node_modules`...),
    in NOT_WALKED (`.git`, `.venv`...) or a prompt (`.claude/commands/`, `.agents/skills/`)."""
    parts = rel.split("/")
    dirs, name = parts[:-1], parts[-1]
    if dependency_folder(rel) is not None or any(p in NOT_WALKED for p in parts) or _prompt(dirs):
        return False
    if any(TRASH.match(d) for d in dirs):
        return False
    hidden = [i for i, p in enumerate(parts) if p.startswith(".")]
    if not hidden:
        return name.endswith(".md")
    if name in NAMED or (name.endswith(".md") and any(d in BANKS for d in dirs)):
        return True
    return _in_hidden_place(parts[hidden[-1] :])


def _in_hidden_place(parts: list[str]) -> bool:
    """Whether a path from its last hidden part on (`.roo/rules-code/style.md`) is a file
    of the places agents keep memory in (memory_path)."""
    head, rest, name = parts[0], parts[1:], parts[-1]
    if head in RULES_FILES:
        return not rest or (head == ".clinerules" and name.endswith(".md"))
    if MODE_RULES_FILE.match(head):
        return not rest
    if head in RULES_FOLDERS:
        folder, suffixes = RULES_FOLDERS[head]
        return len(rest) >= 2 and bool(folder.match(rest[0])) and name.endswith(suffixes)
    if head == ".openhands":
        return rest == ["microagents", "repo.md"]
    if head == ".claude":
        return bool(rest) and rest[0] not in _CLAUDE_PROMPTS and name.endswith(".md")
    if head == ".github":
        return rest == ["copilot-instructions.md"] or (
            len(rest) >= 2 and rest[0] == "instructions" and name.endswith(".md")
        )
    if head == ".cursor":
        return cursor_rule("/".join(parts))
    return False


def unread_rule(rel: str) -> bool:
    """Whether a path is a file of an agent's rules folder (RULES_FOLDERS:
    `.roo/rules-issue-fixer/1_workflow.xml`) that is not read for its suffix: Roo Code reads
    every file there, so `left out` names it (a hidden file, `.DS_Store`, is no rule)."""
    parts = rel.split("/")
    hidden = [i for i, p in enumerate(parts) if p.startswith(".")]
    if not hidden or parts[-1].startswith(".") or memory_path(rel) or _prompt(parts[:-1]):
        return False
    head, rest = parts[hidden[-1]], parts[hidden[-1] + 1 :]
    if head not in RULES_FOLDERS or len(rest) < 2 or not RULES_FOLDERS[head][0].match(rest[0]):
        return False
    return dependency_folder(rel) is None and not any(p in NOT_WALKED for p in parts)


def unread_rules_line(names: list[str]) -> str:
    """The `left out` line naming the files of agents' rules folders not read, the first ten."""
    shown = ", ".join(clean(n) for n in sorted(names)[:10])
    shown += f" and {len(names) - 10} more" if len(names) > 10 else ""
    return (
        f"{counted(len(names), 'file')} of agents' rules folders not Markdown or text"
        f" (.md, .txt), not read: {shown}"
    )


def cursor_rule(rel: str) -> bool:
    """Whether a path is one of Cursor's project rules: `.cursor/rules/**` ending `.mdc` or
    `.md`, the project's own or a subfolder's (`docs/.cursor/rules/`), in no other hidden
    folder below `.cursor/rules/`, none in a dependency folder or NOT_WALKED."""
    parts = rel.split("/")
    at = next((i for i in range(len(parts) - 2) if parts[i] == ".cursor" and parts[i + 1] == "rules"), None)
    if at is None or not rel.endswith((".md", ".mdc")):
        return False
    if any(p.startswith(".") for p in parts[at + 2 :]) or any(p.startswith(".") for p in parts[:at]):
        return False
    return dependency_folder(rel) is None and not any(p in NOT_WALKED for p in parts)


_PROBES = ("AGENTS.md", "x.md", "x.mdc", "rules/x.mdc")  # what a linked folder could hold
ANOTHER_CHECKOUT = "another git checkout (a worktree, a clone or a submodule)"


def listing(folder: str | Path, rel: str = "", left_out: list[str] | None = None) -> list[os.DirEntry[str]]:
    """A folder's entries; none when it cannot be listed, and then, unless it is gone (a
    race with its removal), a line in `left_out` naming it (`rel`, the path below the
    folder read): one its reader may not open (another user's, mode 700) is not read, and
    what it gave before is kept as it was (`out_of_reach`), never flagged deleted."""
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        if left_out is not None:
            left_out.append(unlisted(rel.rstrip("/") or ".", exc))
        return []


_MEMORY_SUFFIXES = (".md", ".mdc", ".txt")


def _named_as_memory(name: str) -> bool:
    """Whether a file of this name could be memory (`memory_path` decides by its place)."""
    return name.endswith(_MEMORY_SUFFIXES) or (
        name.startswith(".") and (name in RULES_FILES or bool(MODE_RULES_FILE.match(name)))
    )


class _Here(NamedTuple):
    """A folder the walk of `memory_files` enters, and what its path says once for all its
    entries (each entry's own checks stay `memory_path`'s, `unread_rule`'s, `_prompt`'s)."""

    path: str  # as os.scandir gives it (the folder read joined with the names below)
    prefix: str  # the path below the folder read, POSIX, ending in "/" ("" for the folder read)
    last: str  # its last part ("" for the folder read): `_prompt` of a subfolder looks at it
    rules: bool  # its last hidden part is an agent's rules folder (`.roo`): `unread_rule` may hold

    def below(self, name: str, path: str) -> _Here:
        """Its subfolder `name`, at `path`."""
        rules = name in RULES_FOLDERS if name.startswith(".") else self.rules
        return _Here(path, f"{self.prefix}{name}/", name, rules)

    def prompts(self, name: str) -> bool:
        """Whether its subfolder `name` is a prompts folder (`_prompt`: the walk never enters
        one, so only the pair this folder's last part and `name` can make one)."""
        return self.last.startswith(".") and (
            name == "skills" or self.last == ".claude" and name in _CLAUDE_PROMPTS
        )


def memory_files(
    folder: Path, wanted: Callable[[str], bool] = memory_path, enter: Callable[[str], bool] | None = None
) -> tuple[list[Path], list[str]]:
    """The files below `folder` that are `wanted` (memory_path: every memory file, hidden
    places at any depth included), sorted, and a line for each link leaving the folder where
    such a file could be (never read), each dependency folder (named, not walked), each
    link to nothing and each file that is not a regular one. One walk of the tree: it never
    enters NOT_WALKED (`.git`, `.venv`, `.cache`, `.next`...), a dependency folder, a
    prompts folder, a linked folder (a linked folder inside is read where it is), another
    git checkout below (a folder holding `.git`: Claude Code's `.claude/worktrees/<name>/`,
    a `.worktrees/` checkout, a clone or a submodule, whose memory is another branch's or
    another repository's; named) or a folder `enter` refuses (a reader that reads only some
    places: it knows where they can be). Each folder is listed once (os.scandir: the kind
    of each entry comes with the listing, no stat but for a link), and what a folder's path
    says (`_Here`) is worked out once for all its entries."""
    root = folder.resolve()
    found: list[Path] = []
    left_out: list[str] = []
    unread: list[str] = []  # files of a rules folder not read (`unread_rule`)
    every = wanted is memory_path  # the files of rules folders not read are named
    stack = [_Here(os.fspath(folder), "", "", False)]
    while stack:
        here = stack.pop()
        prefix = here.prefix
        entries = listing(here.path, prefix, left_out)
        if prefix and any(e.name == ".git" for e in entries):
            left_out.append(f"{prefix[:-1]}: {ANOTHER_CHECKOUT}; not read")
            continue
        for entry in entries:
            name = entry.name
            if name in NOT_WALKED:
                continue
            if entry.is_symlink():  # a linked folder inside is read where it is
                if _leaving(entry, prefix + name, root, wanted, left_out) or entry.is_dir():
                    continue
            elif entry.is_dir():
                _folder(here, entry, enter, stack, left_out)
                continue
            if _named_as_memory(name) and wanted(prefix + name):
                _take_file(entry, prefix + name, found, left_out)
            elif every and here.rules and unread_rule(prefix + name):
                unread.append(prefix + name)
    if unread:
        left_out.append(unread_rules_line(unread))
    return sorted(found), sorted(left_out)


def _leaving(
    entry: os.DirEntry[str], rel: str, root: Path, wanted: Callable[[str], bool], left_out: list[str]
) -> bool:
    """Whether a link met by `memory_files` leaves the folder read (`root`): never read, and
    named where a wanted file could be."""
    if Path(entry.path).resolve().is_relative_to(root):
        return False
    if wanted(rel) or (entry.is_dir() and any(wanted(f"{rel}/{p}") for p in _PROBES)):
        left_out.append(f"{rel}: a link leaving the folder; not read")
    return True


def _folder(
    here: _Here,
    entry: os.DirEntry[str],
    enter: Callable[[str], bool] | None,
    stack: list[_Here],
    left_out: list[str],
) -> None:
    """A folder (not a link) met by `memory_files` in `here`: walked (on `stack`), or named
    (a dependency folder, a trash folder), or passed over (a prompts folder, one `enter`
    refuses)."""
    name = entry.name
    rel = here.prefix + name
    if here.prompts(name) or (enter is not None and not enter(rel)):
        return
    if name in DEPENDENCY_FOLDERS:
        left_out.append(not_read(rel))
    elif name.startswith(".") and TRASH.match(name):
        left_out.append(f"{rel}: {TRASHED}")
    else:
        stack.append(here.below(name, entry.path))


def _take_file(entry: os.DirEntry[str], rel: str, found: list[Path], left_out: list[str]) -> None:
    """A memory file met by `memory_files`: found when a regular file, else named."""
    if entry.is_file():
        found.append(Path(entry.path))
    elif not os.path.exists(entry.path):
        left_out.append(f"{rel}: a link to nothing; not read")
    else:  # a FIFO, a socket, a device: reading one could wait for ever
        left_out.append(f"{rel}: {NOT_REGULAR}")  # its facts kept (`out_of_reach`)


def told(found: Replay) -> list[str]:
    """The `left out` lines of a replay: fields read as written, and junk passed over."""
    out = [
        f"{note}: front matter is not strict YAML; {', '.join(fields)} kept as written"
        for note, fields in sorted(found.loose.items())
    ]
    return out + skipped_lines(found.skipped)


def skipped_lines(skipped: Mapping[str, int]) -> list[str]:
    """The `left out` lines of the junk `blocks` passed over, by kind."""
    return [
        f"{counted(n, _KINDS.get(kind, kind))}{_ASIDES.get(kind, '')} not read as facts"
        for kind, n in sorted(skipped.items())
        if n
    ]


_KINDS = {
    "html comment": "HTML comment",
    "table": "table row",
    "prompt tag": "prompt tag line",
    "marker": "marker line",
    "label": "label line",  # "Next steps:" before a list, code or a table
    "import": "import line",  # `@AGENTS.md` alone: a pointer, not a fact
    "overlong": "block",  # and _ASIDES says why
    "front matter": "mid-file front matter block",  # a copied file's metadata
}
# `![diagram](data:image/png;base64,...)`: past what a fact may hold (base/limits.py)
_ASIDES = {"overlong": f" longer than {MAX_TEXT_CHARS:,} characters (an inline image, pasted data)"}
