"""Claude Code (SPEC 9): its auto memory and its CLAUDE.md files, Markdown on the user's disk.

What Claude Code keeps (its memory documentation, and users' own folders):

- Auto memory, written by Claude: `~/.claude/projects/<project>/memory/`, where `<project>`
  is the project's path with `/` turned into `-`. `MEMORY.md` is the index loaded into every
  session: pointer lines (`- [Title](topic.md) - hook`) to topic files, and in older folders
  the memories themselves as bullets. A topic file carries front matter (`name`,
  `description`, `type`: user / feedback / project / reference; some write `type` under
  `metadata`) over its body.
- Instructions, written by a person: `~/.claude/CLAUDE.md` and `~/.claude/rules/*.md` for
  every project; a project's `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md` and
  `.claude/rules/**/*.md` (`--project DIR`), and the `CLAUDE.md` and `CLAUDE.local.md` of
  its subfolders, which Claude Code loads when it works in them (`loads`).

Mapping. A topic file with front matter is one fact: its body the text (the description when
the body is empty), its name the title and entity. A person's instructions are read as
git-notes reads a note (markdown_memory.blocks): one fact per top-level bullet (nested lines
belong to it) and per paragraph, under its heading; a paragraph that only imports
(`@AGENTS.md`) is not one. Other auto memory gives one fact per top-level bullet, less an
index's pointer lines (`_keeper`). The current text and the replayed history read alike.
Instructions are tier `human` (a person wrote that file), auto memory `auto`.

Ids. A topic file is the record `<path under the root>`; a block is `<path>#<hash of its
text>` (`-2` for a repeat in one file). Each fact records the root it was read from
(`x-claude-code-root`): a root compares only with its own facts.

History in git. A file committed in a git work tree is replayed commit by commit as
git-notes replays a note (markdown_memory.replay: same blocks, same pairing, the same ids
at every read), each version dated from its commit; an edited block is linked once, to
the text it replaced. A CLAUDE.md that links to a file inside the folder is read as that
file, and as itself for the history it had as a file (its blocks deleted when it became a
link); a project's `@path` imports are read too (`mm.IMPORT_DEPTH` hops, inside the folder only).
A sync replays only the files a commit or an edit changed since the last sync (gitkept: each
fact records its file as read and the readers' rules, the reader's record the HEAD each root
was read at); the others stay as they are. What no fact can say of a file, that it gave none
(headings, front matter or imports only) and what it left out, the reader's record keeps
too (mditems.Found, as the Markdown readers keep theirs), in git and outside: such a file
unchanged is not read again, and `left out` still says what an unchanged file left out.

Outside git, Claude Code keeps only the current text, so this reader takes `known`: a
topic file whose body changed is the next version of its record and supersedes it, and so
is an edited block (paired under the same heading by likeness, markdown_memory.pair_edits);
any other block gone is deleted, and so is every fact of a file gone. Front matter that is
not strict YAML, or a field that is a list or mapping, is read leniently: the text stays and
`left out` names the field.

Times. The files record none. In a git work tree a committed line dates from the commit
that wrote it (a topic file from the last commit that changed it), its author and commit in
provenance; otherwise from the file's modification time, and `x-claude-code-time` says which
("git commit", or "file modified; creation unknown").
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import frontmatter
import yaml

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import (
    NOT_REGULAR,
    KnownFact,
    Snapshot,
    errors_at,
    every,
    fact_id,
    files_inside,
    gitkept,
    gitlog,
    naming_left_out,
    out_of_reach,
    own_key,
    require_folder,
    source_provenance,
    top_files,
)
from synapse_tui.core.ingest.adapters import markdown_memory as mm
from synapse_tui.core.ingest.adapters.git_notes import NOT_NAMEABLE, nameable, not_utf8_said, shown_name
from synapse_tui.core.ingest.adapters.mditems import (
    Found,
    as_read,
    file_stamp,
    file_text,
    read_utf8,
    said_nul,
)
from synapse_tui.core.ingest.interchange import ParsedFact, Progress, parse_line

SYSTEM = "claude-code"
EXPECTED = "a ~/.claude folder (projects/*/memory/*.md, CLAUDE.md)"
PROJECT_EXPECTED = "a project folder holding CLAUDE.md, CLAUDE.local.md or .claude/rules/*.md"
ROOT = own_key(SYSTEM, "root")
FILE_KEY = own_key(SYSTEM, "file")
STAMP = own_key(SYSTEM, "stamp")
SECTION = own_key(SYSTEM, "section")
FROM_GIT = "git commit"
FROM_MTIME = "file modified; creation unknown"
# what a fact read from git records of how its file was read (gitkept), and what an
# earlier release recorded too (HEAD and the rules: now the reader's record and the
# stamp), removed from each fact once its file is read again
READ_AS = (STAMP, own_key(SYSTEM, "head"), own_key(SYSTEM, "rules"))

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: 10,000 files in a second
_SPLIT = frontmatter.YAMLHandler()  # python-frontmatter's own `---` fences
# a key and a value YAML would read as that same text: no quote, flow, alias, tag, block
# scalar or comment, and nothing it would read as a number, boolean, date or null
_PLAIN = re.compile(
    r"^([A-Za-z_][A-Za-z0-9_-]*):[ \t]+(?![-?:,\[\]{}#&*!|>'\"%@`]|(?:true|false|yes|no|on|off|null|~)\s*$"
    r"|[-+.]?\d)((?:(?![ \t]#|: ).)+)$",
    re.IGNORECASE,
)
_POINTER = re.compile(r"^\[[^\]]*\]\(([^)\s]+\.md)\)")
_IMPORTS_ONLY = re.compile(r"^(?:@\S+\s*)+$")


def default_source() -> Path:
    return Path.home() / ".claude"


@dataclass
class _Item:
    """One fact as read from a file, before versions are decided."""

    record: str
    text: str
    line: int
    section: str | None = None
    own: dict[str, Any] = field(default_factory=dict)


@dataclass
class _File:
    path: Path
    rel: str  # record prefix: the path under its root, POSIX
    root: Path
    note: str
    tier: str
    file: str  # the path under its root, POSIX
    items: list[_Item] = field(default_factory=list)
    whole: bool = False  # a topic file: one fact
    stamp: str = ""  # size and modification time: unchanged since the last sync when equal
    mtime: float = 0.0
    kept: list[str] = field(default_factory=list)  # records found unchanged, not read again
    unread: bool = False  # unchanged since the last sync (its facts, or the record): not read again
    loose: list[str] = field(default_factory=list)  # front matter fields left out
    skipped: dict[str, int] = field(default_factory=dict)  # junk passed over, by kind (mm.blocks)


def read(
    source: Path | None,
    *,
    project: Path | None = None,
    known: list[KnownFact] | None = None,
    progress: Progress | None = None,
    whole: bool = False,
    read_before: dict[str, Any] | None = None,
) -> Snapshot:
    """Auto memory and instructions under `source` (a ~/.claude-like root; None with only
    `project`), plus a project's instructions with `project`; see the module docstring.
    A file in git as it was synced is not replayed again (gitkept: `read_before`, the
    reader's record, says the HEAD each root was read at; None: no record is kept and
    every file is replayed), unless `whole`."""
    roots, files, left_out, locate = _gather(source, project)
    heads = _heads(known, roots)
    junk: dict[str, int] = {}
    held = mm.Held.of(known)
    before = None if whole else read_before
    found = {r: Found([], set(), set(), set(), {}, left_out, _recorded(before, r)) for r in roots}
    history = _history(roots, files, left_out, locate, junk, held, found, before)
    history_facts, history_deleted, history_records, files, back = (
        history.facts,
        history.deleted,
        history.records,
        history.rest,
        history.back,
    )
    resolved = {r: str(r.resolve()) for r in roots}
    kept = _read_changed(files, heads, resolved, found, progress)
    for f in files:
        for kind, n in f.skipped.items():
            junk[kind] = junk.get(kind, 0) + n
    _say_skipped(junk, files, found, left_out)
    times = _Times(roots, files, left_out)
    blocks: dict[str, list[KnownFact]] = {}
    for r, k in heads.items():
        if "#" in r:
            blocks.setdefault(r.rsplit("#", 1)[0], []).append(k)
    facts, seen = history_facts, {r for f in files for r in f.kept} | history_records
    for f in files:
        for item, version, supersedes in _versions(f, heads, blocks):
            seen.add(item.record)
            facts.append(_fact(f, item, version, supersedes, times))
    _keep_out_of_reach(heads, seen, kept)
    deleted = {k.id for r, k in heads.items() if r not in seen and not k.deleted} | set(history_deleted)
    mine, time_key = set(resolved.values()), own_key(SYSTEM, "time")

    def unsaved(k: Any) -> bool:  # a replayed file's text never committed (a fact, or the store's)
        prov = k.provenance or {}
        record = prov.get("x-source-id")
        return record in history_records and prov.get(ROOT) in mine and prov.get(time_key) == FROM_MTIME

    held.link_unsaved(facts, unsaved)  # an uncommitted edit edited again: its next version
    # a replayed file's text never committed, gone from it since (not superseded)
    deleted |= held.unsaved_gone(
        {f.id for f in facts} | {f.supersedes for f in facts if f.supersedes} | history.kept, unsaved
    )
    stamped = {k: at for k, at in history_deleted.items() if at is not None}
    return Snapshot(
        SYSTEM,
        ", ".join(str(r) for r in roots),
        facts,
        deleted,
        sorted(left_out),
        kept=kept | history.kept,
        deleted_at=stamped,
        restored=back,
        # a text unchanged since: its line where it stands now, the file as read this time
        # (and the history it was read from, on a file gone too: gitkept)
        evidence=mm.now_committed(facts, held.known, unsaved, (own_key(SYSTEM, "line"), *READ_AS))
        + mm.gone_read(history_facts, history.found, held.known, READ_AS),
        # the HEAD each root in git now stands read at (gitkept), and of each file what no
        # fact says: that it gave none, what it left out (mditems.Found)
        read_record=None
        if read_before is None
        else {resolved[r]: {**found[r].record, **history.record.get(resolved[r], {})} for r in roots},
    )


def _recorded(read_before: dict[str, Any] | None, root: Path) -> dict[str, Any]:
    """The reader's record of the files of `root` it read at the last sync."""
    files = (read_before or {}).get(str(root.resolve()))
    return files if isinstance(files, dict) else {}


# the kind of junk (`_File.skipped`) an index's pointer lines are counted under, said on a line
# of its own
POINTERS = "index pointer"


def _say_skipped(
    junk: dict[str, int], files: list[_File], found: dict[Path, Found], left_out: list[str]
) -> None:
    """The `left out` lines of what the files passed over, those read now and those the
    reader's record says of the files not read again: junk (HTML comments, table rows...),
    index pointer lines, and the auto memory files that gave no fact."""
    pointers = junk.pop(POINTERS, 0)
    left_out += mm.skipped_lines(junk)
    if pointers:
        left_out.append(f"{pointers} index lines point to topic files (each topic file is read as itself)")
    prose = [
        f.file
        for f in files
        if f.tier == "auto"
        and (found[f.root].record.get(f.rel) or {}).get("empty")
        and not f.skipped.get(POINTERS)
    ]
    if prose:
        left_out.append(
            f"{len(prose)} of {len(files)} files hold no front matter and no bullets"
            f" (prose in auto memory is not read): {', '.join(sorted(prose))}"
        )


def _keep_out_of_reach(heads: dict[str, KnownFact], seen: set[str], kept: set[str]) -> None:
    """The store's facts of a file the walk did not find because a folder on its way may
    not be opened (named in `left out` by the walk): unread, not gone, kept as they were."""
    for record, k in heads.items():
        prov = k.provenance or {}
        root, file = prov.get(ROOT), prov.get(FILE_KEY)
        if record in seen or k.deleted or not isinstance(root, str) or not isinstance(file, str):
            continue
        if out_of_reach(Path(root) / file):
            seen.add(record)
            kept.add(k.id)


def _gather(
    source: Path | None, project: Path | None
) -> tuple[list[Path], list[_File], list[str], dict[Path, _Locate]]:
    """(the roots read, their files, what was left out, how each root names a file of its
    history gone from the work tree): the home root's files, the project's, less those
    whose record id would not be visible text."""
    files: list[_File] = []
    left_out: list[str] = []
    roots: list[Path] = []
    locate: dict[Path, _Locate] = {}
    for folder, find, gone in ((source, _home_files, _home_file), (project, _project_files, _project_file)):
        if folder is None:
            continue
        root = Path(folder).expanduser()
        roots.append(root)
        locate[root] = gone(root)
        found, skipped = find(root)
        files += found
        left_out += skipped
    if not roots:
        raise InputError(f"nothing to read; expected {EXPECTED}", file=str(default_source()))
    odd = [f for f in files if not nameable(f.rel)]  # a record id must be visible text
    left_out += [f"{shown_name(f.file)}: {NOT_NAMEABLE}; not read" for f in odd]
    return roots, [f for f in files if nameable(f.rel)], left_out, locate


_Locate = Callable[[str], "_File | None"]


def _home_file(root: Path) -> _Locate:
    """The _File a path under a ~/.claude-like root (POSIX) would be read as: auto memory,
    the user's CLAUDE.md and rules; None for any other file."""

    def locate(rel: str) -> _File | None:
        parts = rel.split("/")
        if not rel.endswith(".md") or any(p.startswith(".") for p in parts):
            return None
        if len(parts) >= 4 and parts[0] == "projects" and parts[2] == "memory":
            return _File(root / rel, rel, root, parts[1], "auto", rel)
        if rel == "CLAUDE.md" or (len(parts) >= 2 and parts[0] == "rules"):
            return _File(root / rel, rel, root, "user", "human", rel)
        return None

    return locate


def _project_file(folder: Path) -> _Locate:
    """The _File a path under a project folder (POSIX) would be read as: its CLAUDE.md,
    .claude/CLAUDE.md, CLAUDE.local.md and .claude/rules, and the CLAUDE.md and
    CLAUDE.local.md of its subfolders; None for any other file."""
    note = str(folder.resolve()).replace("/", "-")  # as Claude Code names a project

    def locate(rel: str) -> _File | None:
        return _File(folder / rel, f"{note}/{rel}", folder, note, "human", rel) if loads(rel) else None

    return locate


def loads(rel: str) -> bool:
    """Whether Claude Code loads a project's file at this path (POSIX, under the project):
    CLAUDE.md and CLAUDE.local.md there or in a subfolder (a hidden one too, `.taskmaster/`,
    `.github/workflows/`: Claude Code loads a subtree's CLAUDE.md when it reads a file there;
    never below `.claude/`, NOT_WALKED, markdown_memory.NOT_WALKED or a prompts folder),
    .claude/CLAUDE.md, .claude/rules/**/*.md."""
    parts = rel.split("/")
    if rel == ".claude/CLAUDE.md":
        return True
    if parts[:2] == [".claude", "rules"]:
        return len(parts) > 2 and rel.endswith(".md") and not any(p.startswith(".") for p in parts[2:])
    return parts[-1] in NESTED and not any(_not_walked(p) for p in parts[:-1]) and mm.memory_path(rel)


def _heads(known: list[KnownFact] | None, roots: list[Path]) -> dict[str, KnownFact]:
    """Record -> its latest version in the store, among the facts read from these roots."""
    mine = {str(r.resolve()) for r in roots}
    heads: dict[str, KnownFact] = {}
    for k in known or []:
        if k.provenance.get(ROOT) in mine and (k.record not in heads or k.version > heads[k.record].version):
            heads[k.record] = k
    return heads


def _read_changed(
    files: list[_File],
    heads: dict[str, KnownFact],
    resolved: dict[Path, str],
    found: dict[Path, Found],
    progress: Progress | None,
) -> set[str]:
    """Parse each file changed since the last sync (its size and modification time not
    those the store recorded, on its facts or, of a file that gave none, in the reader's
    record: mditems.as_read); the ids of the facts of those unchanged, not read again,
    whose record says again what they left out."""
    by_file: dict[tuple[Any, Any], list[KnownFact]] = {}
    for k in heads.values():
        by_file.setdefault((k.provenance.get(ROOT), k.provenance.get(FILE_KEY)), []).append(k)
    report, kept = every(progress, 200), set()
    for i, f in enumerate(files, start=1):
        report(i, len(files))
        f.stamp, f.mtime = file_stamp(f.path)
        alive = [k for k in by_file.get((resolved[f.root], f.file), ()) if not k.deleted]
        record = found[f.root]
        note = record.recalled(f, f.stamp)
        if as_read(alive, STAMP, f.stamp, note, record.noted_before(f)):
            kept |= {k.id for k in alive}  # as it was at the last sync: not read again
            f.kept, f.unread = [k.record for k in alive], True
            if note is not None:
                record.carry(f, note)
            continue
        lines: list[str] = []
        text = file_text(f.path, lines, f.file)
        if text is None:  # one unreadable file: named, its facts kept as they were
            record.left_out += lines
            kept |= {k.id for k in alive}
            f.kept, f.unread = [k.record for k in alive], True
            continue
        if index := _parse(f, text):  # an index's pointer lines are said on a line of their own
            f.skipped[POINTERS] = index
        _say_loose(f, lines)
        record.left_out += lines
        record.note(f, f.stamp, "", not f.items, lines)
    return kept


def _say_loose(f: _File, left_out: list[str]) -> None:
    if f.loose:
        left_out.append(
            f"{f.file}: front matter not read as YAML; {', '.join(f.loose)} kept as written or left out"
        )


@dataclass
class _Replayed:
    """What replaying the files committed in git gave: their facts, the ids their history
    deleted (and when), their records, the files left to read as they stand (not in git, or
    never committed), the store's facts flagged deleted that they hold again; and of the
    files kept as they were synced (gitkept), the facts a replay would list; the HEAD each
    root was read at, for the reader's record."""

    facts: list[ParsedFact] = field(default_factory=list)
    deleted: dict[str, float | None] = field(default_factory=dict)
    records: set[str] = field(default_factory=set)
    rest: list[_File] = field(default_factory=list)
    back: set[str] = field(default_factory=set)
    kept: set[str] = field(default_factory=set)
    record: dict[str, Any] = field(default_factory=dict)
    found: mm.Replay = field(default_factory=mm.Replay)  # every version replayed, for gone_read


def _history(
    roots: list[Path],
    files: list[_File],
    left_out: list[str],
    locate: dict[Path, _Locate],
    junk: dict[str, int],
    held: mm.Held,
    found: dict[Path, Found],
    read_before: dict[str, Any] | None = None,
) -> _Replayed:
    """The files committed in a git work tree, replayed commit by commit as git-notes
    replays a note (markdown_memory.replay), those gone from the work tree too (their
    blocks deleted); a file as it was synced (gitkept, at the HEAD `read_before` says),
    or that the reader's record (`found`) says gave no fact as it stands and no commit
    since changed, is not replayed again: what its record says it left out is said."""
    out = _Replayed()
    trees: dict[Path, Any] = {}
    for root in roots:
        trees[root] = gitlog.open_or_left_out(root, left_out)  # else read as it stands
    kept: dict[Path, set[str]] = {}  # paths from the top: as synced (gitkept)
    quiet: dict[Path, set[str]] = {}  # paths from the top: giving no fact, as recorded
    histories: dict[Path, dict[str, Any]] = {}
    for root, tree in trees.items():
        if tree is not None:
            ours = [f for g in files if g.root == root for f in _as_read(g)]
            histories[root], kept[root], quiet[root] = _judged(
                root, tree, ours, held, found[root], read_before, out
            )
    done: set[tuple[Path, str]] = set()
    for g in files + _gone_files(trees, histories, locate):
        for f in _as_read(g):
            tree = trees.get(f.root)
            rel = _own_rel(tree, f.path) if tree is not None else None
            key = (f.root, rel or str(f.path.parent.resolve() / f.path.name))
            if key in done:
                continue
            done.add(key)
            states = histories.get(f.root, {}).get(rel or "", [])
            if rel in kept.get(f.root, ()) or states and rel in quiet[f.root]:
                _carried(f, found[f.root], junk)  # as it was synced: what it gave stands (out.kept)
                continue
            if tree is None or rel is None or not states:
                if not f.path.is_symlink():  # a link without a history of its own: its target is read
                    out.rest.append(f)
                continue
            _replay_one(f, tree, rel, states, left_out, junk, held, out, found[f.root])
    _carried_gone(kept, trees, locate, found, junk, done)
    return out


def _carried_gone(
    kept: dict[Path, set[str]],
    trees: dict[Path, Any],
    locate: dict[Path, _Locate],
    found: dict[Path, Found],
    junk: dict[str, int],
    done: set[tuple[Path, str]],
) -> None:
    """The files gone from the work tree that are as synced (gitkept; paths from the top
    in `kept`): what the reader's record says they left out (their history), said again."""
    for root, paths in kept.items():
        inside = trees[root].inside
        for path in sorted(paths):
            rel = path if inside == "." else path.removeprefix(inside + "/")
            if (root, path) not in done and (gone := locate[root](rel)) is not None:
                _carried(gone, found[root], junk)


def _judged(
    root: Path,
    tree: gitlog.Folder,
    files: list[_File],
    held: mm.Held,
    found: Found,
    read_before: dict[str, Any] | None,
    out: _Replayed,
) -> tuple[dict[str, Any], set[str], set[str]]:
    """Of a root in git (its `files` as read: `_as_read`), the histories to replay, the
    files as synced (gitkept: their facts, counted in `out`, stand) and those giving no
    fact as recorded (`_quiet`), paths from the top; the HEAD it is read at in `out.record`."""
    resolved = str(root.resolve())
    out.record[resolved] = gitkept.folder_entry(tree)
    mine = [k for k in held.known if k.provenance.get(ROOT) == resolved]
    then = gitkept.recorded_head(read_before, resolved)
    judged = gitkept.as_synced(SYSTEM, tree, mine, _path_of(tree, root), then)
    quiet = _quiet(tree, files, mine, found, judged, then)
    if judged is None:
        return tree.history(), set(), quiet
    ours = {rel for f in files if (rel := _own_rel(tree, f.path)) is not None}
    history = tree.history(only=(ours | judged.replay | judged.changed) - judged.paths)
    out.kept |= judged.ids
    out.records |= {k.record for k in mine if k.id in judged.ids}
    return history, judged.paths, quiet


def _quiet(
    tree: gitlog.Folder,
    files: list[_File],
    mine: list[KnownFact],
    found: Found,
    judged: gitkept.Kept | None,
    then: str | None,
) -> set[str]:
    """Of a root's `files` (as read: `_as_read`), those (paths from the top) the reader's
    record says gave no fact as they stand (their stamp), that the store holds no fact of
    and no commit since the HEAD the last sync read at (`then`) changed: a replay would
    give none again (a file the store holds facts of, gitkept judges)."""
    if not found.before:
        return set()
    changed = judged.changed if judged is not None else tree.since(then) if then and tree.head_sha() else None
    if changed is None:
        return set()
    held = {k.provenance.get(FILE_KEY) for k in mine}
    out = set()
    for f in files:
        rel = _own_rel(tree, f.path)
        if rel is None or rel in changed or f.file in held:
            continue
        note = found.recalled(f, gitkept.stamp(f.path))
        if note is not None and note.get("empty") is True:
            out.add(rel)
    return out


def _carried(f: _File, found: Found, junk: dict[str, int]) -> None:
    """A file not replayed again: what the reader's record says it left out, said again."""
    note = found.recalled(f, gitkept.stamp(f.path))
    if note is not None:
        found.carry(f, note)
        for kind, n in f.skipped.items():
            junk[kind] = junk.get(kind, 0) + n


def _path_of(tree: gitlog.Folder, root: Path) -> Callable[[KnownFact], str | None]:
    """A fact's file as a path from the top of the work tree (gitkept groups by it)."""

    def path_of(k: KnownFact) -> str | None:
        file = k.provenance.get(FILE_KEY)
        return _own_rel(tree, root / file) if isinstance(file, str) else None

    return path_of


def _replay_one(
    f: _File,
    tree: gitlog.Folder,
    rel: str,
    states: list[Any],
    left_out: list[str],
    junk: dict[str, int],
    held: mm.Held,
    out: _Replayed,
    record: Found,
) -> None:
    """One committed file replayed into `out`; what no fact says of it (that it gave
    none, what it left out) noted in the reader's `record`."""
    lines: list[str] = []
    found, whole, empty = _replay_file(f, tree, rel, states, lines)
    now_bad = bool(states) and states[-1][1] in tree.not_utf8
    lines += not_utf8_said(f.file, states, tree.not_utf8, now_bad)
    lines += tree.binary_left_out(f.file, states)
    _say_loose(f, lines)
    left_out += lines
    f.skipped = dict(found.skipped)
    record.note(f, f.stamp, "", empty, lines)
    for kind, n in found.skipped.items():
        junk[kind] = junk.get(kind, 0) + n
    ids = held.store_ids(SYSTEM, found)
    for v in found.versions:
        out.records.add(v.record)
        out.facts.append(_replayed(f, v, whole, ids))
    out.found.versions += found.versions
    out.found.deleted.update(found.deleted)
    out.deleted.update({ids[key]: at for key, at in found.deleted.items()})
    out.back |= held.again(found, ids)
    out.records |= {r for r, _ in found.deleted}


def _gone_files(
    trees: dict[Path, Any], histories: dict[Path, dict[str, Any]], locate: dict[Path, _Locate]
) -> list[_File]:
    """The files a root's git history holds that are gone from its work tree (removed in a
    commit, or not yet), as the root would read them."""
    out = []
    for root, history in histories.items():
        inside = trees[root].inside
        for path in sorted(history):
            rel = path if inside == "." else path.removeprefix(inside + "/")
            if rel == path and inside != "." or (root / rel).exists() or (root / rel).is_symlink():
                continue
            f = locate[root](rel)
            if f is not None and nameable(f.rel):
                out.append(f)
    return out


def _as_read(f: _File) -> list[_File]:
    """A file as it is read: itself; a link to another file inside its root (CLAUDE.md ->
    AGENTS.md) is read as itself too (the history it had as a file, its blocks deleted
    when it became a link) and as its target, read with its own history."""
    if f.path.is_symlink() and f.path.resolve().is_relative_to(f.root.resolve()) and f.rel.endswith(f.file):
        target = f.path.resolve().relative_to(f.root.resolve()).as_posix()
        prefix = f.rel[: len(f.rel) - len(f.file)]
        return [f, _File(f.root / target, prefix + target, f.root, f.note, f.tier, target)]
    return [f]


def _own_rel(tree: gitlog.Folder, path: Path) -> str | None:
    """A file's path in the repository, itself when it is a link (not its target)."""
    try:
        return (path.parent.resolve() / path.name).relative_to(tree.top).as_posix()
    except ValueError:  # outside the work tree
        return None


def _replay_file(
    f: _File, tree: Any, rel: str, states: list[Any], left_out: list[str]
) -> tuple[mm.Replay, bool, bool]:
    """A committed file's history replayed (its uncommitted text last, dated by the file;
    not UTF-8, it is named in `left_out` instead), whether it is a topic file (one fact)
    rather than blocks, and whether it gives no fact as it stands."""
    f.stamp = gitkept.stamp(f.path)  # the file as it stood before it was read (gitkept)
    states, texts = tree.without_binary(states, tree.texts(blob for _, blob in states))
    timeline: list[tuple[Any, float | None, str | None]] = [
        (c, c.at, t) for (c, _), t in zip(states, texts, strict=True)
    ]
    if f.path.is_symlink() or not f.path.exists():
        if (
            timeline and timeline[-1][2] is not None
        ):  # made a link, or gone from the work tree, not committed yet
            timeline.append((None, None, None))
    elif rel in tree.changed([rel]):
        f.mtime = file_stamp(f.path)[1]
        text, bad, nul = read_utf8(f.path)
        if text is None:  # its edit not read, named; its committed history still is
            left_out.append(f"{f.file}: not valid UTF-8 at line {bad}; its uncommitted edit not read")
        else:
            timeline.append((None, f.mtime, text))
            left_out += [said_nul(f.file, nul)] if nul else []
    last = next((t for _, _, t in reversed(timeline) if t is not None), "")
    fm, _, _, f.loose = _front(last, str(f.path))
    whole = (
        f.tier == "auto"
        and f.path.name != "MEMORY.md"
        and any(fm.get(k) for k in ("name", "description", "type"))
    )
    places = mm.Places([blob for _, blob in states], tree.hunks())
    found = mm.Replay()
    gives = mm.replay(f.rel, timeline, found, whole=whole, keep=None if whole else _keeper(f), places=places)
    return found, whole, bool(timeline) and timeline[-1][2] is not None and not gives


def _keeper(f: _File) -> Callable[[mm.Block], bool]:
    """Which blocks of a file read block by block are facts. A person's instructions:
    every bullet and paragraph, but for one that only imports (`@AGENTS.md`: the file it
    names is read as itself). Auto memory: its bullets, less an index's pointer lines."""
    if f.tier == "human":
        return lambda b: not _IMPORTS_ONLY.match(b.text)
    index = f.path.name == "MEMORY.md"
    return lambda b: b.bullet and not (index and _POINTER.match(b.text))


def _replayed(f: _File, v: mm.Version, whole: bool, ids: dict[tuple[str, int], str]) -> ParsedFact:
    commit = v.commit
    skipped: list[str] = []
    own = {k: _scalar(v.meta, k, skipped) for k in ("name", "description", "type")} if whole else {}
    provenance = source_provenance(
        SYSTEM,
        v.record,
        v.version,
        root=str(f.root.resolve()),
        file=f.file,
        line=v.block.line,
        section=v.block.section,
        name=own.get("name"),
        description=own.get("description"),
        type=own.get("type"),
        time=FROM_GIT if commit is not None else FROM_MTIME,
        stamp=f.stamp,
        author=commit.author if commit else None,
        commit=commit.sha if commit else None,
    )
    obj: dict[str, Any] = {
        "id": ids[(v.record, v.version)],
        "text": v.block.text,
        "created_at": format_time(v.at if v.at is not None else f.mtime),
        "tier": f.tier,
        "note": f.note,
        "provenance": provenance,
    }
    title = own.get("name") or v.block.section
    if title:
        obj["entities"] = [title]
    if v.supersedes:
        obj["supersedes"] = ids[(v.record, v.supersedes)]
    return parse_line(obj, errors_at(f.path, v.block.line), v.block.line)


def _home_files(root: Path) -> tuple[list[_File], list[str]]:
    require_folder(root, EXPECTED)
    if not (root / "projects").is_dir() and not (root / "CLAUDE.md").is_file():
        # an auto memory folder itself, kept where `autoMemoryDirectory` puts it (a
        # project's `.claude/memory/`, committed): its topic files are Markdown
        hint = (
            "; it holds MEMORY.md: an auto memory folder itself is read with --from markdown DIR"
            if (root / "MEMORY.md").is_file()
            else ""
        )
        raise InputError(f"holds neither projects/ nor CLAUDE.md; expected {EXPECTED}{hint}", file=str(root))
    files, left_out = [], []
    projects = root / "projects"
    if projects.is_dir() and not projects.resolve().is_relative_to(root.resolve()):
        left_out.append("projects: a link leaving the folder; not read")
    elif projects.is_dir():
        paths, skipped = files_inside(root / "projects", ".md")
        left_out += [f"projects/{line}" for line in skipped]
        prefix = len(str(root)) + 1  # files_inside joins names onto root: slicing is exact
        for path in paths:
            rel = str(path)[prefix:].replace(os.sep, "/")
            parts = rel.split("/")
            if len(parts) >= 4 and parts[2] == "memory":  # projects/<project>/memory/...
                files.append(_File(path, rel, root, parts[1], "auto", rel))
    for path in top_files(root, ("CLAUDE.md",), left_out):
        files.append(_File(path, path.name, root, "user", "human", path.name))
    files += _rules(root, root / "rules", "user", left_out)
    return files, left_out


def _project_files(folder: Path) -> tuple[list[_File], list[str]]:
    require_folder(folder, PROJECT_EXPECTED)
    note = str(folder.resolve()).replace("/", "-")  # as Claude Code names a project
    left_out: list[str] = []
    names = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")

    def human(p: Path) -> _File:
        rel = p.relative_to(folder).as_posix()
        return _File(p, f"{note}/{rel}", folder, note, "human", rel)

    files = [human(p) for p in top_files(folder, names, left_out)]
    files += _rules(folder, folder / ".claude" / "rules", note, left_out, prefix=f"{note}/")
    files += [human(p) for p in _nested(folder, left_out)]
    if not files and not _in_history(folder):
        refusal = InputError(f"holds no CLAUDE.md; expected {PROJECT_EXPECTED}", file=str(folder))
        raise naming_left_out(refusal, left_out)
    files += _imported(folder, files, note, left_out)
    return files, left_out


def _in_history(folder: Path) -> bool:
    """Whether the git history of a project with none of its instruction files left holds
    one (`loads`): its history is read, those files deleted, the folder not refused."""
    tree = gitlog.open_or_left_out(folder, [])  # a repository git cannot read: refused as it stands
    if tree is None:
        return False
    prefix = "" if tree.inside == "." else tree.inside + "/"
    return any(path.startswith(prefix) and loads(path[len(prefix) :]) for path in tree.history())


NESTED = ("CLAUDE.md", "CLAUDE.local.md")  # in a subfolder: loaded when Claude works there
NOT_WALKED = {"node_modules", "vendor"}  # others' packages, never a project's own memory


def _not_walked(name: str) -> bool:
    """A folder whose CLAUDE.md is never a subtree's: others' packages, version control,
    environments and caches (markdown_memory.NOT_WALKED), and `.claude/` (what Claude Code
    loads there is .claude/CLAUDE.md and .claude/rules/, read as such)."""
    return name in NOT_WALKED or name in mm.NOT_WALKED or name == ".claude"


def _nested(folder: Path, left_out: list[str]) -> list[Path]:
    """The CLAUDE.md and CLAUDE.local.md files in the project's subfolders (Claude Code
    loads one when it works in that subtree), hidden ones included, `_not_walked`, prompts
    folders and other git checkouts below (a folder holding `.git`) apart; a link leaving the folder is named in `left_out`, never read; a
    linked folder is not walked."""
    root = folder.resolve()
    found: list[Path] = []
    stack = [(folder, "")]
    while stack:
        here, prefix = stack.pop()
        entries = mm.listing(here, prefix, left_out)
        if prefix and any(e.name == ".git" for e in entries):
            continue  # another checkout: a worktree in .worktrees/, a clone, a submodule
        for entry in entries:
            if _not_walked(entry.name):
                continue
            rel = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                if mm.memory_path(rel + "/CLAUDE.md"):  # not a prompts folder nor a package's
                    stack.append((Path(entry.path), rel + "/"))
            elif prefix and entry.name in NESTED and entry.is_file():
                path = Path(entry.path)
                if path.resolve().is_relative_to(root):
                    found.append(path)
                else:
                    left_out.append(f"{rel}: a link leaving the folder; not read")
            elif prefix and entry.name in NESTED and out_of_reach(Path(entry.path)):
                left_out.append(f"{rel}: {NOT_REGULAR}")  # its facts kept (`_keep_out_of_reach`)
    return sorted(found)


def _imported(folder: Path, files: list[_File], note: str, left_out: list[str]) -> list[_File]:
    """The files CLAUDE.md-like files import (`@path`), as Claude Code follows them
    (`mm.followed_imports`), each a person's file of the project."""
    found = mm.followed_imports(folder, [(f.path, f.file) for f in files], left_out)
    return [_File(folder / rel, f"{note}/{rel}", folder, note, "human", rel) for rel in found]


def _rules(root: Path, folder: Path, note: str, left_out: list[str], prefix: str = "") -> list[_File]:
    if not folder.is_dir():
        return []
    if not folder.resolve().is_relative_to(root.resolve()):
        left_out.append(f"{folder.relative_to(root).as_posix()}: a link leaving the folder; not read")
        return []
    paths, skipped = files_inside(folder, ".md")
    rel = folder.relative_to(root).as_posix()
    left_out += [f"{rel}/{line}" for line in skipped]
    return [
        _File(p, prefix + p.relative_to(root).as_posix(), root, note, "human", p.relative_to(root).as_posix())
        for p in paths
    ]


def _front(text: str, name: str) -> tuple[dict[str, Any], str, int, list[str]]:
    """(front matter, body, lines before the body, fields left out): plain `key: text`
    lines without YAML (the common case, fast), else YAML, else (not strict YAML) each
    `key: value` line kept as written and the fields YAML could not read named."""
    if not _SPLIT.detect(text):
        return {}, text, 0, []
    try:
        fm, body = _SPLIT.split(text)
    except ValueError:
        return {}, text, 0, []
    offset = text.count("\n", 0, text.find(body)) if body else 0
    meta = _plain_front(fm)
    if meta is not None:
        return meta, body, offset, []
    loose = mm.front(text)
    return loose.meta, loose.body, loose.offset, loose.loose


def _plain_front(fm: str) -> dict[str, str] | None:
    """Front matter of plain `key: text` lines, read without YAML (a tenth of the time:
    ten thousand topic files are mostly this); None when anything else is there, and YAML
    reads it."""
    meta: dict[str, str] = {}
    for line in fm.split("\n"):
        match = _PLAIN.match(line)
        if match is None:
            if line.strip():
                return None
            continue
        meta[match.group(1)] = match.group(2).strip()
    return meta


def _scalar(meta: dict[str, Any], key: str, skipped: list[str]) -> str | None:
    """A front matter field as text; a nested one (a list, a mapping: YAML aliases let a few
    lines stand for gigabytes once expanded) is never made text: it is left out, named."""
    value = meta.get(key)
    if key == "type" and value is None and isinstance(meta.get("metadata"), dict):
        value = meta["metadata"].get("type")
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        skipped.append(f"{key} ({'a list' if isinstance(value, list) else 'a mapping'}, not text)")
        return None
    return str(value).strip() or None


def _parse(f: _File, text: str) -> int:
    """Fill `f.items` from the file's `text`; the number of index pointer lines passed over."""
    meta, body, offset, f.loose = _front(text, str(f.path))
    own = {k: _scalar(meta, k, f.loose) for k in ("name", "description", "type")}
    if f.tier == "auto" and f.path.name != "MEMORY.md" and any(own.values()):
        f.whole = True
        said = body.strip() or own["description"]
        if said:
            f.items.append(_Item(f.rel, said, offset + 1, own=own))
        return 0
    pointers = 0
    counts: dict[str, int] = {}
    keep = _keeper(f)
    for b in mm.blocks(body, offset, f.skipped):
        if not keep(b):
            pointers += f.tier == "auto" and b.bullet
            continue
        digest = hashlib.blake2b(b.text.encode(), digest_size=6).hexdigest()
        counts[digest] = counts.get(digest, 0) + 1
        suffix = "" if counts[digest] == 1 else f"-{counts[digest]}"
        f.items.append(_Item(f"{f.rel}#{digest}{suffix}", b.text, b.line, b.section))
    return pointers


def _versions(f: _File, heads: dict[str, KnownFact], blocks: dict[str, list[KnownFact]]):
    """(item, version, id it supersedes) for each item of `f`; `blocks`: the heads of
    block records by file."""
    gone = [k for k in blocks.get(f.rel, ()) if not k.deleted]
    present = {i.record for i in f.items}
    vanished = [k for k in gone if k.record not in present]
    fresh = [i for i in f.items if i.record not in heads]
    if not f.whole:  # blocks edited in place, paired as git-notes pairs them
        for u, v in mm.pair_edits(
            [(i.section, i.text) for i in fresh], [(k.provenance.get(SECTION), k.text) for k in vanished]
        ):
            fresh[u].record = vanished[v].record
    for item in f.items:
        head = heads.get(item.record)
        if head is None:
            yield item, 1, None
        elif head.text == item.text:
            yield item, head.version, None
        else:
            yield item, head.version + 1, head.id


class _Times:
    """When each text was written: git where the file is committed, else its mtime."""

    def __init__(self, roots: list[Path], files: list[_File], left_out: list[str]) -> None:
        self.trees: dict[Path, tuple[gitlog.Folder, dict[str, gitlog.Commit], set[str]]] = {}
        for root in roots:
            tree = gitlog.open_or_left_out(root, left_out)  # else dated by the files
            if tree is not None:
                # files unchanged since the last sync (kept) need no time: not hashed again
                mine = [self._rel(tree, f.path) for f in files if f.root == root and not f.unread]
                self.trees[root] = (tree, tree.last_commits(), tree.changed(r for r in mine if r))
                left_out += tree.left_out
        self.blamed: dict[Path, list[gitlog.Commit | None]] = {}
        self.roots = {root: str(root.resolve()) for root in roots}

    @staticmethod
    def _rel(tree: gitlog.Folder, path: Path) -> str | None:
        try:
            return path.resolve().relative_to(tree.top).as_posix()
        except ValueError:  # a link to a file outside the work tree
            return None

    def root(self, root: Path) -> str:
        return self.roots[root]

    def of(self, f: _File, item: _Item) -> tuple[float, str, gitlog.Commit | None]:
        tree = self.trees.get(f.root)
        if tree is not None:
            folder, commits, dirty = tree
            rel = self._rel(folder, f.path)
            if rel is not None and rel in commits:
                if f.whole and rel not in dirty:
                    return commits[rel].at, FROM_GIT, commits[rel]
                if not f.whole:
                    if f.path not in self.blamed:
                        self.blamed[f.path] = folder.blame(rel)
                    lines = self.blamed[f.path]
                    commit = lines[item.line - 1] if item.line - 1 < len(lines) else None
                    if commit is not None:
                        return commit.at, FROM_GIT, commit
        return f.mtime, FROM_MTIME, None


def _fact(f: _File, item: _Item, version: int, supersedes: str | None, times: _Times) -> ParsedFact:
    at, how, commit = times.of(f, item)
    own = item.own
    provenance = source_provenance(
        SYSTEM,
        item.record,
        version,
        root=times.root(f.root),
        file=f.file,
        line=item.line,
        section=item.section,
        name=own.get("name"),
        description=own.get("description"),
        type=own.get("type"),
        time=how,
        stamp=f.stamp,
        author=commit.author if commit else None,
        commit=commit.sha if commit else None,
    )
    obj: dict[str, Any] = {
        "id": fact_id(SYSTEM, item.record, version),
        "text": item.text,
        "created_at": format_time(at),
        "tier": f.tier,
        "note": f.note,
        "provenance": provenance,
    }
    title = own.get("name") or item.section
    if title:
        obj["entities"] = [title]
    if supersedes:
        obj["supersedes"] = supersedes
    return parse_line(obj, errors_at(f.path, item.line), item.line)
