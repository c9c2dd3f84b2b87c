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
from synapse_tui.core.ingest.adapters.markdown_memory import front

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
    left_out: list[str] = field(default_factory=list)  # front matter read leniently, named

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


def parse_note(path: Path, folder: Path, text: str) -> Note:
    """One note of `text` (the file's, as the Markdown readers read it: mditems.file_text,
    line ends made one as python-frontmatter does, so lines stay countable); a file whose
    time cannot be read raises InputError naming it."""
    rel = path.relative_to(folder).as_posix()
    try:
        mtime = path.stat().st_mtime
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None
    skipped = text[: len(text) - len(text.lstrip())].count("\n")  # python-frontmatter strips these
    left_out: list[str] = []
    try:
        meta, body = frontmatter.parse(text)
        start = text.rfind(body) if body else -1
        offset = text.count("\n", 0, start) if start >= 0 else 0
    except (yaml.YAMLError, ValueError) as exc:
        # not strict YAML (`title: Notes: 2026` ...): read line by line as the Markdown
        # readers do, each field kept as written and named (SPEC 9), never refusing the import
        fm = front(text[len(text) - len(text.lstrip()) :])
        meta, body, offset = fm.meta, fm.body, skipped + fm.offset
        fields = ", ".join(fm.loose) if fm.loose else "(unreadable)"
        left_out.append(
            f"{rel}:{_yaml_line(exc, skipped)}: front matter is not strict YAML; {fields} kept as written"
        )
    title = _string(meta.get("title"), text, rel, left_out) or path.stem
    permalink = meta.get("permalink")
    permalink = permalink if isinstance(permalink, str) else None
    created = _front_time(meta, "created", text, rel, left_out)
    modified = _front_time(meta, "modified", text, rel, left_out)
    first = mtime if created is None else created
    note = Note(rel, permalink or None, title, first, max(first, mtime if modified is None else modified))
    note.left_out = left_out
    note.dated = created is not None or modified is not None
    _scan(note, body, offset)
    return note


_SCALARS = (str, int, float, bool, date)


def _yaml_line(exc: Exception, skipped: int) -> int:
    """The file's line where YAML stopped reading the front matter (its first, else)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return skipped + mark.line + 1 if mark is not None else skipped + 1


def _string(value: Any, text: str, rel: str, left_out: list[str]) -> str | None:
    """A title: text, or a list of plain values joined. Anything nested is left out (named)
    before it is turned into text: YAML aliases make a few lines of front matter stand for
    a string of gigabytes (`a1: [*a0, *a0, ...]` nine levels deep)."""
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, _SCALARS) for v in value):
        return ", ".join(str(v) for v in value).strip() or None
    if not isinstance(value, _SCALARS):
        left_out.append(
            f"{rel}:{_key_line(text, 'title') or 1}: front matter 'title' is {_kind(value)}, not text;"
            " the file's name used"
        )
        return None
    return str(value).strip() or None


def _kind(value: Any) -> str:
    return "a nested list" if isinstance(value, list) else f"a {type(value).__name__}"


def _key_line(text: str, key: str) -> int | None:
    return next((i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith(f"{key}:")), None)


def _front_time(meta: dict, key: str, text: str, rel: str, left_out: list[str]) -> float | None:
    """A front matter time; as Basic Memory reads it, a date or naive time is local wall-clock.
    None when absent, or when it is no time (then named: the file's time is used)."""
    value = meta.get(key)
    if value is None:
        return None
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
        left_out.append(
            f"{rel}:{_key_line(text, key) or 1}: front matter '{key}' is not an ISO 8601 date or time"
            f" ({got}); the file's time used"
        )
        return None
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
