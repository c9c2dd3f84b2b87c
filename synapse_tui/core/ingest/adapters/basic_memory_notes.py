"""Basic Memory's Markdown, read the way Basic Memory reads it.

Basic Memory (basicmachines-co/basic-memory, `markdown/plugins.py` and `entity_parser.py`)
parses each note with python-frontmatter and markdown-it: an inline token outside a
blockquote that starts with `[category] ` (not a task box, a timecode or a lone link), or
that holds a `#hashtag`, is an observation `[category] content #tag (context)`; a list item
`relation_type [[Target]] (context)` is a relation, and any other `[[link]]` is a
`links_to` relation. The same libraries are used here, so a note means the same thing to
both programs; only the parsing is here, the mapping onto facts is in `basic_memory`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import frontmatter
import yaml
from markdown_it import MarkdownIt

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.limits import brief

_MD = MarkdownIt()  # CommonMark, as Basic Memory builds it
_CATEGORY = re.compile(r"^\[([^\[\]()]+)\]\s+(.+)", re.DOTALL)
_TIMECODE = re.compile(
    r"^\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?(?:\s+-\s+\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?)?$"
)
_LINKS_TO_DIRECTIVE = re.compile(r"\s+#bm:links_to\s*$")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)


@dataclass
class Observation:
    line: int  # 1-based, in the file
    category: str | None
    content: str  # the fact's text: tags kept, (context) removed, as Basic Memory stores it
    tags: list[str]
    context: str | None
    links: list[str]  # [[link]] targets inside the observation


@dataclass
class Note:
    file: str  # path relative to the folder, POSIX
    permalink: str | None
    title: str
    created: float  # epoch seconds: front matter `created`, else the file's mtime
    modified: float  # front matter `modified`, else the file's mtime
    dated: bool = False  # the front matter gave `created` or `modified` (else git may, issue 24)
    observations: list[Observation] = field(default_factory=list)
    relations: list[tuple[str, str]] = field(default_factory=list)  # explicit (type, target)
    links: list[str] = field(default_factory=list)  # every link and relation target, in order

    @property
    def key(self) -> str:
        """The note of its facts: the permalink, else the path."""
        return self.permalink or self.file


def link_target(raw: str) -> str:
    """`[[Note#Heading|Alias]]` names the note `Note`; `project::note` is `project/note`."""
    target = raw.split("|", 1)[0].split("#", 1)[0].strip()
    if "::" in target:
        project, rest = target.split("::", 1)
        target = f"{project}/{rest.lstrip('/')}"
    return target


def _inline_links(content: str) -> list[str]:
    """Outermost `[[...]]` targets, skipping escaped brackets and inline code."""
    masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), content)
    found, start = [], 0
    while (start := masked.find("[[", start)) != -1:
        if start and masked[start - 1] == "\\":
            start += 2
            continue
        depth, pos, end = 1, start + 2, -1
        while pos < len(masked):
            pair = masked[pos : pos + 2]
            if pair in ("[[", "]]"):
                depth += 1 if pair == "[[" else -1
                if depth == 0:
                    end = pos
                    break
                pos += 2
            else:
                pos += 1
        if end == -1:
            break
        target = link_target(content[start + 2 : end])
        if target:
            found.append(target)
        start = end + 2
    return found


def _relation(content: str) -> tuple[str, str] | None:
    """`type [[Target]] (context)` or `"two words" [[Target]]`; None for prose with a link."""
    before, sep, rest = content.partition("[[")
    label = before.strip()
    if not sep or not label:
        return None
    if label[0] in "'\"" and label.endswith(label[0]) and len(label) > 1:
        label = label[1:-1].strip()
    elif any(ch.isspace() for ch in label):
        return None
    target, sep, after = rest.partition("]]")
    after = after.strip()
    if not label or not sep or (after and not _one_paren_group(after)):
        return None
    target = link_target(target)
    return (label, target) if target else None


def _one_paren_group(text: str) -> bool:
    if not text.startswith("("):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return i == len(text) - 1
    return False


def _observation(content: str) -> tuple[str | None, str, list[str], str | None] | None:
    """(category, content, tags, context) of an observation line, None when it is not one."""
    content = _LINKS_TO_DIRECTIVE.sub("", content.strip()).strip()
    if not content or content[:3] in ("[ ]", "[x]", "[-]"):
        return None
    if re.match(r"^\[.*?\]\(.*?\)$", content) or re.match(r"^\[\[.*?\]\]$", content):
        return None
    match = _CATEGORY.match(content)
    if match and (_TIMECODE.match(match.group(1).strip()) or _task_marker(match.group(1).strip())):
        match = None
    if not match and not any(part.startswith("#") for part in content.split()):
        return None
    category = None
    if match:
        category, content = match.group(1).strip(), match.group(2).strip()
    elif empty := re.match(r"^\[\]\s+(.+)", content, re.DOTALL):
        content = empty.group(1).strip()
    context = None
    if content.endswith(")") and (start := content.rfind("(")) != -1:
        context, content = content[start + 1 : -1].strip(), content[:start].strip()
    tags = [t for part in content.split() if part.startswith("#") for t in part.split("#") if t]
    return (category, content, tags, context) if content else None


def _task_marker(category: str) -> bool:
    return len(category) == 1 and (category in "xX" or not category.isalnum())


class NotUTF8(InputError):
    """A note that is not UTF-8: the import names it and reads the others."""


def parse_note(path: Path, folder: Path) -> Note:
    """One note; a file that cannot be read as a note raises InputError naming file and line."""
    rel = path.relative_to(folder).as_posix()
    name = str(path)
    try:
        raw = path.read_bytes()
        mtime = path.stat().st_mtime
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=name) from None
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff").replace("\x00", "")
        text = text.replace("\r\n", "\n").replace(
            "\r", "\n"
        )  # as python-frontmatter does: lines stay countable
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise NotUTF8("not valid UTF-8; expected a Markdown note", file=name, line=line) from None
    skipped = text[: len(text) - len(text.lstrip())].count("\n")  # python-frontmatter strips these
    try:
        meta, body = frontmatter.parse(text)
    except yaml.YAMLError as exc:
        mark, begun = getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)
        line = skipped + mark.line + 1 if mark is not None else skipped + 1
        why = " ".join(p for p in (getattr(exc, "problem", None), getattr(exc, "context", None)) if p)
        if begun is not None and skipped + begun.line + 1 != line:
            why += f" that starts on line {skipped + begun.line + 1}"
        raise InputError(f"front matter is not valid YAML ({why or exc})", file=name, line=line) from None
    except ValueError as exc:  # python-frontmatter's JSON handler
        raise InputError(f"front matter cannot be read ({exc})", file=name, line=skipped + 1) from None
    start = text.rfind(body) if body else -1
    offset = text.count("\n", 0, start) if start >= 0 else 0
    title = _string(meta.get("title"), text, name) or path.stem
    permalink = meta.get("permalink")
    permalink = permalink if isinstance(permalink, str) else None
    created = _front_time(meta, "created", mtime, text, name)
    modified = max(created, _front_time(meta, "modified", mtime, text, name))
    note = Note(rel, permalink or None, title, created, modified)
    note.dated = meta.get("created") is not None or meta.get("modified") is not None
    _scan(note, body, offset)
    return note


_SCALARS = (str, int, float, bool, date)


def _string(value: Any, text: str, name: str) -> str | None:
    """A title: text, or a list of plain values joined. Anything nested is refused before it
    is turned into text: YAML aliases make a few lines of front matter stand for a string of
    gigabytes (`a1: [*a0, *a0, ...]` nine levels deep)."""
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, _SCALARS) for v in value):
        return ", ".join(str(v) for v in value).strip() or None
    if not isinstance(value, _SCALARS):
        raise InputError(
            f"front matter 'title' must be text or a list of plain values, not {_kind(value)}",
            file=name,
            line=_key_line(text, "title"),
            field="title",
        )
    return str(value).strip() or None


def _kind(value: Any) -> str:
    return "a nested list" if isinstance(value, list) else f"a {type(value).__name__}"


def _key_line(text: str, key: str) -> int | None:
    return next((i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith(f"{key}:")), None)


def _front_time(meta: dict, key: str, fallback: float, text: str, name: str) -> float:
    """A front matter time; as Basic Memory reads it, a date or naive time is local wall-clock."""
    value = meta.get(key)
    if value is None:
        return fallback
    if isinstance(value, date) and not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            value = None
    if not isinstance(value, datetime):
        raw = meta.get(key)
        got = brief(raw) if isinstance(raw, _SCALARS) else _kind(raw)
        raise InputError(
            f"front matter '{key}' must be an ISO 8601 date or time, got {got}",
            file=name,
            line=_key_line(text, key),
            field=key,
        )
    return (value.astimezone() if value.tzinfo is None else value).timestamp()


def _scan(note: Note, body: str, offset: int) -> None:
    in_item, quote = False, 0
    for token in _MD.parse(body):
        if token.type == "blockquote_open":
            quote += 1
        elif token.type == "blockquote_close":
            quote -= 1
        elif token.type == "list_item_open":
            in_item = True
        elif token.type == "list_item_close":
            in_item = False
        if token.type != "inline":
            continue
        content = token.content
        line = offset + (token.map[0] if token.map else 0) + 1
        relation = _relation(content) if in_item and "#bm:links_to" not in content else None
        links = [relation[1]] if relation else _inline_links(_LINKS_TO_DIRECTIVE.sub("", content))
        if relation:
            note.relations.append(relation)
        note.links.extend(links)
        parsed = _observation(content) if quote == 0 else None
        if parsed:
            category, text, tags, context = parsed
            own = [] if relation else links
            note.observations.append(Observation(line, category, text, tags, context, own))
