"""Markdown files as items, and items as versioned facts: the part of mdfolder's readers
(codex, gemini-cli, openclaw, cursor, markdown) that one file's text goes through.

A reader lists its files (`Doc`) and says how one file's text becomes `Item`s; `versions`
decides each item's record and version against the store's (or the last replayed
state's) facts of that file, and `to_fact` makes it an interchange fact. See mdfolder for
records, versions and times.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import (
    KnownFact,
    errors_at,
    fact_id,
    gitkept,
    gitlog,
    own_key,
    source_provenance,
)
from synapse_tui.core.ingest.adapters.markdown_memory import blocks, norm, text_of
from synapse_tui.core.ingest.interchange import ParsedFact, parse_line

FROM_MTIME = "file modified; creation unknown"
FROM_NAME = "date in the file name"
FROM_GIT = "git commit"
EDIT_SIMILARITY = 0.5  # as Basic Memory's and git-notes' readers pair an edit

_HASHED = re.compile(r"#[0-9a-f]{12}(?:-\d+)?$")


def stamped_by(stamp: Any) -> str:
    """The readers' rules a stamp was written by (gitkept.RULES, a digest of their code,
    part of every file's stamp: a file stamped by other rules, older code or a stamp naming
    none, is read once more and what it no longer gives is flagged deleted by the usual
    sync path); "" for a stamp naming none."""
    parts = str(stamp).split(":")
    return parts[2] if len(parts) == 3 else ""


@dataclass
class Item:
    """One fact as a reader found it in a file, before its version is decided."""

    text: str
    line: int
    section: str | None = None
    key: str | None = None  # the source's own id for it; None: a hash of its text
    tier: str = "auto"
    at: float | None = None  # when the source says it was first written (epoch seconds)
    how: str | None = None  # where that time came from, for x-<system>-time
    # when the source says this text was written, for a later version of a record (a
    # claim's updatedAt; a Codex block's latest session); None: when the change was made
    revised: float | None = None
    revised_how: str | None = None
    # the commit that wrote it, where git's history is replayed
    committed: gitlog.Commit | None = None
    own: dict[str, Any] = field(default_factory=dict)  # x-<system>-<field> values
    corroborations: int = 0
    contradictions: int = 0
    reinforced_at: list[float] = field(default_factory=list)  # re-asserted at (those after `at`)
    replaces: str | None = None  # the key of an item of the same file the source says this replaces
    entities: list[str] = field(default_factory=list)
    note: str | None = None  # its unit of co-occurrence when not the whole file (a Codex block)


@dataclass
class Doc:
    """One file of a source: where it is, what it is called there, and how it is read."""

    path: Path
    rel: str  # its path under the root, POSIX: the record prefix and x-<system>-file
    note: str
    parse: Callable[[str, Doc], list[Item]]
    left_out: list[str] = field(default_factory=list)  # what parse set aside, one line each
    skipped: dict[str, int] = field(default_factory=dict)  # junk its Markdown held, by kind (`blocks`)


class Noted(Protocol):
    """A file as the reader's record (`Found`) knows it: its path under the root (the
    record's key) and the junk its Markdown held, by kind. A Doc; Claude Code's files too."""

    rel: str
    skipped: dict[str, int]


@dataclass
class Found:
    """What reading a root adds up to, for the Snapshot read_docs builds: facts, the records
    seen, the ids kept unchanged, those deleted (and when), what was left out."""

    facts: list[ParsedFact]
    seen: set[str]
    kept: set[str]
    deleted: set[str]
    deleted_at: dict[str, float]
    left_out: list[str]
    # file -> its record at the last sync, and as this read leaves it (`note`): what no
    # fact's provenance can carry (a file that gave no fact; what a file left out)
    before: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)

    def recalled(self, doc: Noted, stamp: str, last: str = "") -> dict[str, Any] | None:
        """The file's record at the last sync, when it was read as it stands now (its
        stamp, and in git its last commit, `last`); else None."""
        note = self.before.get(doc.rel)
        if isinstance(note, dict) and note.get("stamp") == stamp and note.get("commit", "") == last:
            return note
        return None

    def noted_before(self, doc: Noted) -> bool:
        return doc.rel in self.before

    def note(
        self, doc: Noted, stamp: str, last: str, empty: bool, lines: list[str], stray: list[str] | None = None
    ) -> None:
        """Record what a file read now gave that no fact says: that it gave none (`empty`),
        the `left out` lines of it (`lines`) and the junk its Markdown held (`doc.skipped`),
        and in git the store's facts of it a replay does not list (`stray`: of commits a
        rewritten history dropped), as read at `stamp` (in git, at its last commit `last`);
        nothing when there is none."""
        skipped = {kind: n for kind, n in doc.skipped.items() if n}
        if empty or lines or skipped or stray:
            note: dict[str, Any] = {"stamp": stamp, "empty": empty, "left_out": lines, "skipped": skipped}
            if last:
                note["commit"] = last
            if stray:
                note["stray"] = stray
            self.record[doc.rel] = note

    def carry(self, doc: Noted, note: dict[str, Any]) -> None:
        """A file not read again: what its record says it gave, as if it were read."""
        lines = note.get("left_out")
        self.left_out += [line for line in lines if isinstance(line, str)] if isinstance(lines, list) else []
        skipped = note.get("skipped")
        doc.skipped = (
            {str(k): n for k, n in skipped.items() if isinstance(n, int)} if isinstance(skipped, dict) else {}
        )
        self.record[doc.rel] = note


def as_read(
    alive: list[KnownFact], stamp_key: str, stamp: str, note: dict[str, Any] | None, noted: bool
) -> bool:
    """Whether a file is as the last sync read it: each of its facts in the store carries
    its stamp now (and the reader's record of it, if it kept one, too), or it gave no fact
    and the record says so at this stamp."""
    if alive:
        return all(k.provenance.get(stamp_key) == stamp for k in alive) and (note is not None or not noted)
    return note is not None and note.get("empty") is True


def markdown_items(
    body: str, offset: int, *, skipped: dict[str, int] | None = None, **common: Any
) -> list[Item]:
    """Each top-level bullet and paragraph of a Markdown body, under its heading (read as
    git-notes reads a note), as items sharing `common` fields; `skipped` counts the junk
    passed over, by kind."""
    own = common.pop("own", {})
    return [Item(b.text, b.line, b.section, own=dict(own), **common) for b in blocks(body, offset, skipped)]


def versions(
    system: str, prefix: str, doc: Doc, items: list[Item], known: list[KnownFact], heads: dict[str, KnownFact]
) -> list[tuple[str, Item, int, str | None]]:
    """(record, item, version, id it supersedes) for each item of one file."""
    counts: dict[str, int] = {}
    records: list[str] = []
    for item in items:
        base = item.key if item.key is not None else _digest(item.text)
        counts[base] = counts.get(base, 0) + 1
        records.append(f"{prefix}{doc.rel}#{base}" + ("" if counts[base] == 1 else f"-{counts[base]}"))
    present = set(records)
    section_key = own_key(system, "section")
    # an edited item: a new hashed record and a vanished one of the same section, paired
    by_section: dict[Any, tuple[list[int], list[KnownFact]]] = {}
    for i, (record, item) in enumerate(zip(records, items, strict=True)):
        if item.key is None and record not in heads:
            by_section.setdefault(item.section, ([], []))[0].append(i)
    for k in known:
        if not k.deleted and k.record not in present and k.provenance.get(section_key) in by_section:
            if _HASHED.search(k.record):  # an item the source names is never re-paired
                by_section[k.provenance.get(section_key)][1].append(k)
    for fresh, gone in by_section.values():
        if gone:
            for u, v in pair_similar([items[i].text for i in fresh], [k.text for k in gone]):
                records[fresh[u]] = gone[v].record
    out: list[tuple[str, Item, int, str | None]] = []
    ids: dict[str, str] = {}
    for record, item in zip(records, items, strict=True):
        head = heads.get(record)
        if head is None:
            version, supersedes = 1, None
        elif norm(head.text) == norm(item.text) and not head.deleted:
            version, supersedes = head.version, None  # the same text, or only re-wrapped
        else:  # edited, or written again after it was deleted
            version, supersedes = head.version + 1, head.id
        ids[item.key or record] = fact_id(system, record, version)
        out.append((record, item, version, supersedes))
    # what the source itself says an item replaced, where that is not its own earlier text
    return [
        (record, item, version, supersedes or (ids.get(item.replaces) if item.replaces else None))
        for record, item, version, supersedes in out
    ]


def pair_similar(new: list[str], old: list[str]) -> list[tuple[int, int]]:
    """(new index, old index) pairs of texts one section gained and lost: one to one, by
    the Dice coefficient of their words, at least EDIT_SIMILARITY, best first. How many
    were added and removed plays no part: equal counts are no evidence of an edit."""
    bags_new, bags_old = [Counter(t.split()) for t in new], [Counter(t.split()) for t in old]
    scored = []
    for i, a in enumerate(bags_new):
        for j, b in enumerate(bags_old):
            size = a.total() + b.total()
            if size and (dice := 2 * (a & b).total() / size) >= EDIT_SIMILARITY:
                scored.append((-dice, i, j))
    pairs, done_new, done_old = [], set(), set()
    for _, i, j in sorted(scored):
        if i not in done_new and j not in done_old:
            pairs.append((i, j))
            done_new.add(i)
            done_old.add(j)
    return pairs


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def to_fact(
    system: str,
    root: str,
    doc: Doc,
    record: str,
    item: Item,
    version: int,
    supersedes: str | None,
    stamp: str,
    mtime: float,
) -> ParsedFact:
    if version == 1 and item.at is not None:
        at, how = item.at, item.how
    elif version > 1 and item.revised is not None:
        at, how = item.revised, item.revised_how
    elif item.committed is not None:
        at, how = item.committed.at, FROM_GIT
    else:  # the change was made by the time the file was last modified
        at, how = mtime, FROM_MTIME
    provenance = source_provenance(
        system,
        record,
        version,
        root=root,
        file=doc.rel,
        line=item.line,
        section=item.section,
        time=how,
        stamp=stamp,
        **item.own,
    )
    obj: dict[str, Any] = {
        "id": fact_id(system, record, version),
        "text": item.text,
        "created_at": format_time(at),
        "tier": item.tier,
        "note": item.note or doc.note,
        "provenance": provenance,
    }
    if item.corroborations:
        obj["corroborations"] = item.corroborations
    if item.contradictions:
        obj["contradictions"] = item.contradictions
    later = sorted(t for t in item.reinforced_at if t > at)  # after creation, as Graphiti's episodes
    if later:
        obj["reinforced_at"] = [format_time(t) for t in later]
    entities = item.entities or ([item.section] if item.section else [])
    if entities:
        obj["entities"] = entities
    if supersedes:
        obj["supersedes"] = supersedes
    return parse_line(obj, errors_at(doc.path, item.line), item.line)


def file_stamp(path: Path) -> tuple[str, float]:
    """(`<size>:<mtime in ns>:<gitkept.RULES>`, mtime): a file whose stamp is the one its facts
    carry is unchanged since the last sync, read by the same rules."""
    try:
        st = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None
    return f"{st.st_size}:{st.st_mtime_ns}:{gitkept.RULES}", st.st_mtime


def utf8_text(path: Path) -> tuple[str | None, int]:
    """The file's text as the notes read it (markdown_memory.text_of), and 0; or None and
    the line where it stops being UTF-8. InputError when it cannot be read."""
    text, bad, _ = read_utf8(path)
    return text, bad


def read_utf8(path: Path) -> tuple[str | None, int, list[int]]:
    """utf8_text's answer, and the lines holding a NUL character (text_of drops them: a
    reader names them in `left out`, said_nul)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, raw[: exc.start].count(b"\n") + 1, []
    nul = nul_lines(decoded) if "\x00" in decoded else []
    return text_of(decoded), 0, nul


def nul_lines(text: str) -> list[int]:
    """The lines (from 1) of `text` holding a NUL character, each once."""
    return [n for n, line in enumerate(text.split("\n"), start=1) if "\x00" in line]


def said_nul(rel: str, lines: list[int]) -> str:
    """The `left out` line of a UTF-8 file holding NUL characters, which are dropped (the
    rest of the file is read): its name and the lines, as a file not UTF-8 is named."""
    shown = ", ".join(str(n) for n in lines[:5]) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
    what = (
        f"a NUL character (a byte 0) at line {shown}"
        if len(lines) == 1
        else f"NUL characters (bytes 0) at lines {shown}"
    )
    return f"{rel}: {what}; left out, the rest of the file read"


def file_text(path: Path, left_out: list[str], rel: str) -> str | None:
    """The file's text, or None (and a line in `left_out`) when it is not UTF-8; a NUL
    character in it is left out, and named in `left_out`."""
    text, bad, nul = read_utf8(path)
    if text is None:
        left_out.append(f"{rel}: not valid UTF-8 at line {bad}{_utf16(path)}; not read")
    elif nul:
        left_out.append(said_nul(rel, nul))
    return text


def _utf16(path: Path) -> str:
    """What to say of a file that begins with a UTF-16 byte order mark (Windows' Notepad
    saves so): the one thing its owner can do about it."""
    try:
        with path.open("rb") as fh:
            head = fh.read(2)
    except OSError:
        return ""
    return " (it is UTF-16: save it as UTF-8)" if head in (b"\xff\xfe", b"\xfe\xff") else ""
