"""Markdown kept in git (SPEC 9): any folder of notes in a git work tree, Letta Code's MemFS
included, read with its history.

Facts. A note's body is read as Markdown blocks: each top-level bullet (its nested lines
with it) and each paragraph is a fact, under its heading; code blocks are not read. Front
matter (`description`, `read_only`, as Letta Code's MemFS writes `system/*.md`) goes to
provenance, and a committed `read_only: true` block is tier `human` (a person locked it);
not committed yet, it is no one's lock.

History. Every commit that changed a note (`git log`, oldest first; a rename is a removal
and an addition) is replayed: a block whose text is unchanged keeps its record; when a
commit removes as many blocks of a note as it adds, they are paired in note order and each
new text is the next version of its record, superseding the one before; other new blocks
are new records (a removed and an added block whose words are at least half shared are
paired too), and other removed blocks are deleted at that commit's instant. A
version's `created_at` is its commit's author time, in UTC, its author and commit in
provenance. Changes not committed yet come last, dated from the file's modification time
(`x-git-notes-time` says "file modified; not committed").

Who. An author whose email matches an agent pattern (default `*@letta.com`: Letta Code
commits as `<agent-id>@letta.com`; `agents=` or SYNAPSE_GIT_AGENTS, comma-separated globs,
change it) is an agent: tier `auto`. Anyone else is a person: tier `human`. Text nobody has
committed yet has no known author: tier `auto`.

Records are `<note path>#<hash of the first text>`; each fact records its folder
(`x-git-notes-folder`), so two folders never delete each other's facts. The history is
replayed whole on every read, so the same repository gives the same ids and times.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import frontmatter
import yaml

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.textsafe import clean, first_unsafe
from synapse_tui.core.ingest.adapters import (
    Snapshot,
    errors_at,
    every,
    fact_id,
    files_inside,
    gitlog,
    require_folder,
    source_provenance,
)
from synapse_tui.core.ingest.interchange import ParsedFact, Progress, parse_line

SYSTEM = "git-notes"
EXPECTED = "a folder of Markdown notes in a git work tree"
AGENTS = "*@letta.com"
EDIT_SIMILARITY = 0.5  # as Basic Memory's reader pairs an edited observation
FROM_GIT = "git commit"
FROM_MTIME = "file modified; not committed"

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SPLIT = frontmatter.YAMLHandler()
_BULLET = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^[ ]{0,3}(```|~~~)")
_RULE = re.compile(r"^[ ]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$")


@dataclass
class Block:
    line: int
    section: str | None
    text: str


@dataclass
class _Version:
    record: str
    version: int
    block: Block
    at: float
    commit: gitlog.Commit | None
    meta: dict[str, Any]
    supersedes: str | None


def read(source: Path, *, agents: str | None = None, progress: Progress | None = None) -> Snapshot:
    """The folder's notes with their whole history (see the module docstring)."""
    folder = Path(source).expanduser()
    require_folder(folder, EXPECTED)
    tree = gitlog.open_folder(folder)
    if tree is None:
        raise InputError(
            f"is not in a git work tree (or git is not installed); expected {EXPECTED}", file=str(folder)
        )
    top = tree.top
    patterns = [
        p.strip() for p in (agents or os.environ.get("SYNAPSE_GIT_AGENTS") or AGENTS).split(",") if p.strip()
    ]
    current, left_out = files_inside(folder, ".md")
    inside = Path(tree.inside)
    history = tree.history(".md")
    paths = sorted(
        path
        for path in set(history) | {(inside / p.relative_to(folder)).as_posix() for p in current}
        if not any(part.startswith(".") for part in Path(path).relative_to(inside).parts)
        and not (top / path).is_symlink()  # a link's target is read only through files_inside
    )
    odd = [p for p in paths if not nameable(p)]
    left_out += [f"{shown_name(p)}: {NOT_NAMEABLE}; not read" for p in odd]
    paths = [p for p in paths if p not in odd]
    dirty = tree.changed(paths)
    texts = iter(tree.texts(blob for path in paths for _, blob in history.get(path, [])))
    versions: list[_Version] = []
    deleted: dict[str, float | None] = {}
    used: set[str] = set()
    report = every(progress, 50)
    here = {p.resolve() for p in current}
    for n, path in enumerate(paths, start=1):
        states: list[tuple[gitlog.Commit | None, float | None, str | None]] = [
            (c, c.at, next(texts)) for c, _ in history.get(path, [])
        ]
        file = top / path
        if file.resolve() in here and (path in dirty or path not in history):
            states.append((None, file.stat().st_mtime, _read(file)))
        elif file.resolve() not in here and states and states[-1][2] is not None:
            states.append((None, None, None))  # gone from the work tree, removal not committed
        _replay(Path(path).relative_to(inside).as_posix(), file, states, versions, deleted, used)
        report(n, len(paths))
    root = str(folder.resolve())
    facts = [_fact(folder, root, v, patterns) for v in versions]
    if not facts and not current:
        raise InputError(f"holds no Markdown notes (*.md); expected {EXPECTED}", file=str(folder))
    stamped = {k: v for k, v in deleted.items() if v is not None}
    left_out += tree.left_out
    return Snapshot(SYSTEM, str(folder), facts, set(deleted), left_out, deleted_at=stamped)


NOT_NAMEABLE = (
    "a file name that is not visible UTF-8 text (a control or invisible character, or bytes not UTF-8)"
)


def nameable(path: str) -> bool:
    """A name a record id can carry: visible text, valid UTF-8 (no control or invisible
    character, no byte the file system could not decode)."""
    return first_unsafe(path) is None and not any("\udc80" <= c <= "\udcff" for c in path)


def shown_name(path: str) -> str:
    """A file name as a left-out line shows it: undecodable bytes as `\\xe9`, controls as pictures."""
    return clean(path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None


def _replay(
    rel: str,
    file: Path,
    states: list[tuple[gitlog.Commit | None, float | None, str | None]],
    versions: list[_Version],
    deleted: dict[str, float | None],
    used: set[str],
) -> None:
    """Walk one note's states, oldest first, appending versions and deletions."""
    alive: list[_Version] = []  # each record's current version, in note order
    for commit, at, text in states:
        meta, blocks = parse(text or "", str(file)) if text is not None else ({}, [])
        pool = list(alive)
        kept: list[_Version | None] = []
        for b in blocks:
            same = next((v for v in pool if v.block.text == b.text), None)
            if same is not None:
                pool.remove(same)
            kept.append(same)
        fresh = [i for i, v in enumerate(kept) if v is None]
        paired = {
            fresh[u]: pool[v]
            for u, v in pair_edits([blocks[i].text for i in fresh], [v.block.text for v in pool])
        }
        now: list[_Version] = []
        for i, b in enumerate(blocks):
            if kept[i] is not None:
                now.append(kept[i])
                continue
            old = paired.get(i)
            if old is not None:
                v = _Version(
                    old.record, old.version + 1, b, at, commit, meta, fact_id(SYSTEM, old.record, old.version)
                )
            else:
                v = _Version(_record(rel, b.text, used), 1, b, at, commit, meta, None)
            versions.append(v)
            now.append(v)
        for v in pool:
            if v not in paired.values():
                deleted[fact_id(SYSTEM, v.record, v.version)] = at
        alive = now


def pair_edits(new: list[str], old: list[str]) -> list[tuple[int, int]]:
    """(new index, old index) pairs of the texts a change added and removed in one note:
    when as many were removed as added, in note order (a note rewritten line by line);
    else by the Dice coefficient of their words, at least EDIT_SIMILARITY, best first."""
    if len(new) == len(old):
        return list(zip(range(len(new)), range(len(old)), strict=True))
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


def _record(rel: str, text: str, used: set[str]) -> str:
    base = record = f"{rel}#{hashlib.blake2b(text.encode(), digest_size=6).hexdigest()}"
    n = 2
    while record in used:
        record, n = f"{base}-{n}", n + 1
    used.add(record)
    return record


def parse(text: str, name: str) -> tuple[dict[str, Any], list[Block]]:
    """(front matter, blocks) of one note's text."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    meta: Any = {}
    body, offset = text, 0
    if _SPLIT.detect(text):
        try:
            fm, body = _SPLIT.split(text)
            meta = yaml.load(fm, Loader=_LOADER) or {}  # noqa: S506  (a safe loader)
        except ValueError:
            meta, body = {}, text
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise InputError(
                f"front matter is not valid YAML ({getattr(exc, 'problem', None) or exc})",
                file=name,
                line=mark.line + 2 if mark is not None else 1,
            ) from None
        offset = text.count("\n", 0, text.find(body)) if body else 0
    if not isinstance(meta, dict):
        meta = {}
    return {k: meta[k] for k in ("description", "read_only", "label") if _plain(meta.get(k))}, blocks(
        body, offset
    )


def _plain(value: Any) -> bool:
    """Only plain values reach provenance: a nested value (a YAML alias bomb) never does."""
    return isinstance(value, (str, int, float, bool)) and value is not None


def blocks(body: str, offset: int = 0) -> list[Block]:
    """Each top-level bullet (with its nested lines) and each paragraph, under its heading."""
    out: list[Block] = []
    current: list[str] | None = None
    kind, start, section, fence = "", 0, None, False

    def close() -> None:
        nonlocal current
        if current is not None and (text := "\n".join(current).strip()):
            out.append(Block(start, section, text))
        current = None

    for n, line in enumerate(body.split("\n"), start=offset + 1):
        if _FENCE.match(line):
            close()
            fence = not fence
        elif fence:
            continue
        elif heading := _HEADING.match(line):
            close()
            section = heading.group(1) or None
        elif _RULE.match(line):
            close()
        elif bullet := _BULLET.match(line):
            close()
            current, kind, start = [bullet.group(1)], "bullet", n
        elif not line.strip():
            if kind == "paragraph":
                close()
            elif current is not None:
                current.append("")
        elif current is not None and (kind == "paragraph" or line[:1] in (" ", "\t")):
            current.append(line.strip())
        else:
            close()
            current, kind, start = [line.strip()], "paragraph", n
    close()
    return out


def _fact(folder: Path, root: str, v: _Version, patterns: list[str]) -> ParsedFact:
    commit = v.commit
    agent = commit is None or any(fnmatch.fnmatch(commit.email.lower(), p.lower()) for p in patterns)
    # a committed `read_only: true` is a lock a person set; text nobody committed is no one's
    tier = "human" if commit is not None and (v.meta.get("read_only") is True or not agent) else "auto"
    file = v.record.rsplit("#", 1)[0]
    provenance = source_provenance(
        SYSTEM,
        v.record,
        v.version,
        folder=root,
        file=file,
        line=v.block.line,
        section=v.block.section,
        description=v.meta.get("description"),
        read_only=v.meta.get("read_only"),
        author=commit.author if commit else None,
        commit=commit.sha if commit else None,
        agent=None if commit is None else agent,
        time=FROM_GIT if commit else FROM_MTIME,
    )
    obj: dict[str, Any] = {
        "id": fact_id(SYSTEM, v.record, v.version),
        "text": v.block.text,
        "created_at": format_time(v.at),
        "tier": tier,
        "note": file,
        "provenance": provenance,
    }
    if v.block.section:
        obj["entities"] = [v.block.section]
    if v.supersedes:
        obj["supersedes"] = v.supersedes
    return parse_line(obj, errors_at(folder / file, v.block.line), v.block.line)
