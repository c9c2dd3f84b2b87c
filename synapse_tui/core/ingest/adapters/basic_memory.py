"""Basic Memory (SPEC 9): a folder of Markdown notes, each observation line a fact.

Basic Memory keeps only the current text of its notes, so this reader is given `known`
(the facts already imported from it) to tell an unchanged observation, an edited one and a
removed one apart. What it decides, and why:

- Ids. A new observation is the record `<note>#<hash of category and text>` (`-2`, `-3`
  for a repeat in one note, or when that record was used before), so two reads of an
  unchanged folder give the same ids. An observation whose text is the current text of a
  record of its note keeps that record's id, wherever it moved in the note.
- Edits. Observations that vanished from a note and new ones of the same note are paired
  by category and position first: when as many observations of one category vanished as
  appeared, they are paired in note order (a `[decision]` rewritten in other words is still
  that decision). The rest are paired by text similarity (Dice coefficient of their words
  >= EDIT_SIMILARITY, best first); when the only change left is one observation gone and
  one new, they are paired whatever the texts. The new text becomes the next version of
  the record and supersedes the old one. A vanished observation left unpaired, and every
  fact of a note that is gone, are reported in `deleted`.
- Folders. Each fact records the folder it was read from (`x-basic-memory-folder`, the
  resolved path): a sync compares the folder only with its own facts, so two folders
  (two Basic Memory projects) synced into one store never delete each other's facts.
- Times. A note's `created` / `modified` front matter (a date or naive time is local
  wall-clock time, as Basic Memory reads it), else, in a git work tree, its first and last
  commits (when the file is committed as it is), else the file's mtime, in UTC. Observations
  of a note seen for the first time date from its creation; anything that appeared in a
  note already imported (new observations, new versions) from its last modification.
- Entities. The note is what its observations are about: each carries the note's title,
  its own `[[links]]`, then every link and relation target of the note.
- Supersession. `supersedes [[B]]` / `replaces [[B]]` in note A: each current fact of B
  that nothing supersedes yet is superseded by one new fact of A, paired by category
  first, then in note order. Facts already imported are never changed, so a relation
  added after A was imported links nothing (`left_out` says so; `synapse-tui supersede`
  can). A link that would close a supersession cycle is skipped and reported.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synapse_tui.core.base.chain import leads_to
from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import (
    KnownFact,
    Snapshot,
    errors_at,
    every,
    fact_id,
    files_inside,
    gitlog,
    own_key,
    require_folder,
    source_provenance,
)
from synapse_tui.core.ingest.adapters.basic_memory_notes import Note, Observation, parse_note
from synapse_tui.core.ingest.adapters.git_notes import NOT_NAMEABLE, nameable, shown_name
from synapse_tui.core.ingest.adapters.mditems import file_text
from synapse_tui.core.ingest.interchange import ParsedFact, Progress, parse_line

SYSTEM = "basic-memory"
EXPECTED = "a Basic Memory folder of Markdown notes (default ~/basic-memory)"
EDIT_SIMILARITY = 0.5
SUPERSEDING = ("supersedes", "replaces")
FOLDER = own_key(SYSTEM, "folder")
CATEGORY = own_key(SYSTEM, "category")
FILE = own_key(SYSTEM, "file")


def default_source() -> Path:
    """Where Basic Memory keeps its default project."""
    return Path.home() / "basic-memory"


@dataclass
class _Entry:
    """One observation as a fact: reused from the store, or new."""

    obs: Observation
    id: str
    record: str
    version: int
    new: bool
    supersedes: str | None = None
    at: float = 0.0


def read(source: Path, *, known: list[KnownFact] | None = None, progress: Progress | None = None) -> Snapshot:
    """The folder as it stands, mapped onto interchange facts (see the module docstring).

    `progress(notes read, notes)` is called as the notes are parsed, the slow part."""
    folder = Path(source).expanduser()
    notes, left_out, unread = _notes(folder, progress)
    _git_times(folder, notes, left_out)
    root = str(folder.resolve())
    known = known or []
    current: dict[str, KnownFact] = {}
    for k in (k for k in known if k.provenance.get(FOLDER) == root):  # this folder's facts only
        if k.record not in current or k.version > current[k.record].version:
            current[k.record] = k
    pools: dict[str, list[KnownFact]] = defaultdict(list)
    for k in current.values():
        if not k.deleted and k.note is not None:
            pools[k.note].append(k)
    used_records = {k.record for k in known}
    used_ids = {k.id for k in known}
    entries: dict[str, list[_Entry]] = {}
    deleted: set[str] = set()
    for note in notes:
        entries[note.file], gone = _match(note, pools.pop(note.key, []), used_records, used_ids)
        deleted |= gone
    deleted |= {k.id for pool in pools.values() for k in pool}  # notes no longer in the folder
    deleted -= {k.id for k in current.values() if k.provenance.get(FILE) in unread}  # kept as they were
    heads = {k.id: k.head for k in known}
    left_out += _supersessions(notes, entries, heads)
    empty = sum(not note.observations for note in notes)
    if empty:
        left_out.append(f"{empty} of {len(notes)} notes hold no observations (prose is not a fact)")
    facts = [_fact(folder, root, note, e) for note in notes for e in entries[note.file]]
    return Snapshot(SYSTEM, str(folder), facts, deleted, left_out)


def _git_times(folder: Path, notes: list[Note], left_out: list[str]) -> None:
    """A note whose front matter gives no time, in a git work tree and committed as it is,
    dates from its first commit (created) and its last (modified) instead of its mtime."""
    undated = [n for n in notes if not n.dated]
    tree = gitlog.open_or_left_out(folder, left_out) if undated else None
    if tree is None:
        return
    history = tree.history()
    rels = {id(n): (Path(tree.inside) / n.file).as_posix() for n in undated}
    dirty = tree.changed(rels.values())
    for note in undated:
        rel = rels[id(note)]
        if history.get(rel) and rel not in dirty:
            note.created, note.modified = history[rel][0][0].at, history[rel][-1][0].at
    left_out += tree.left_out


def _notes(folder: Path, progress: Progress | None) -> tuple[list[Note], list[str], set[str]]:
    """The notes read, what was left out, and the notes not read (not UTF-8): each named
    with its line, the others read."""
    name = str(folder)
    require_folder(folder, EXPECTED)
    paths, left_out = files_inside(folder, ".md")
    if not paths:
        raise InputError(f"holds no Markdown notes (*.md); expected {EXPECTED}", file=name)
    notes, report, unread = [], every(progress, 200), set()
    for i, path in enumerate(paths, start=1):
        rel = path.relative_to(folder).as_posix()
        text = file_text(path, left_out, shown_name(rel))
        if text is None:
            unread.add(rel)
            report(i, len(paths))
            continue
        note = parse_note(path, folder, text)
        if nameable(note.file) and nameable(note.key):
            notes.append(note)
            left_out += note.left_out  # front matter read leniently
        else:  # a record id, and the file in provenance, must be visible text
            left_out.append(f"{shown_name(note.file)}: {NOT_NAMEABLE}; not read")
        report(i, len(paths))
    seen: dict[str, str] = {}
    for note in notes:
        if note.key in seen:
            raise InputError(
                f"permalink {note.key!r} is also the permalink of {seen[note.key]}; each note needs its own",
                file=str(folder / note.file),
                field="permalink",
            )
        seen[note.key] = note.file
    return notes, left_out, unread


def _record(note: Note, obs: Observation, used: set[str]) -> str:
    digest = hashlib.blake2b(f"{obs.category or ''}\x1f{obs.content}".encode(), digest_size=6).hexdigest()
    base = record = f"{note.key}#{digest}"
    n = 2
    while record in used:
        record, n = f"{base}-{n}", n + 1
    used.add(record)
    return record


def _match(
    note: Note, pool: list[KnownFact], used_records: set[str], used_ids: set[str]
) -> tuple[list[_Entry], set[str]]:
    """Each observation of `note` as an entry, and the ids of the note's vanished facts."""
    first_seen = not pool
    pool = list(pool)
    entries: list[_Entry | None] = []
    for obs in note.observations:
        k = next((k for k in pool if k.text == obs.content), None)
        if k is not None:
            pool.remove(k)
            entries.append(_Entry(obs, k.id, k.record, k.version, new=False))
        else:
            entries.append(None)
    fresh = [i for i, e in enumerate(entries) if e is None]
    pairs = _pair_edits([note.observations[i] for i in fresh], pool)
    paired_known = set()
    for u, v in pairs:
        old = pool[v]
        version = old.version + 1
        while fact_id(SYSTEM, old.record, version) in used_ids:
            version += 1
        fid = fact_id(SYSTEM, old.record, version)
        used_ids.add(fid)
        obs = note.observations[fresh[u]]
        entries[fresh[u]] = _Entry(obs, fid, old.record, version, True, old.id, note.modified)
        paired_known.add(v)
    for i in fresh:
        if entries[i] is None:
            obs = note.observations[i]
            record = _record(note, obs, used_records)
            at = note.created if first_seen else note.modified
            entries[i] = _Entry(obs, fact_id(SYSTEM, record), record, 1, True, at=at)
    filled = [e for e in entries if e is not None]  # every one, by now
    for e in filled:
        if not e.new:
            e.at = note.created if e.version == 1 else note.modified
    gone = {k.id for v, k in enumerate(pool) if v not in paired_known}
    return filled, gone


def _pair_edits(new: list[Observation], old: list[KnownFact]) -> list[tuple[int, int]]:
    """(new index, old index) pairs of the observations that appeared and vanished in a note:
    by category and position, then by similarity, then a note's only change."""
    pairs: list[tuple[int, int]] = []
    by_category: dict[str | None, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for i, obs in enumerate(new):
        by_category[obs.category][0].append(i)
    for j, k in sorted(enumerate(old), key=lambda jk: _line(jk[1])):
        by_category[k.provenance.get(CATEGORY)][1].append(j)
    for news, olds in by_category.values():
        if len(news) == len(olds):  # as many of this category vanished as appeared: in order
            pairs += zip(news, olds, strict=True)
    rest_new = [i for i in range(len(new)) if i not in {u for u, _ in pairs}]
    rest_old = [j for j in range(len(old)) if j not in {v for _, v in pairs}]
    similar = _pair_similar([new[i].content for i in rest_new], [old[j].text for j in rest_old])
    pairs += [(rest_new[u], rest_old[v]) for u, v in similar]
    if len(new) == len(old) == 1 and not pairs:  # the one line of the note that changed
        pairs.append((0, 0))
    return pairs


def _line(k: KnownFact) -> int:
    line = k.provenance.get(own_key(SYSTEM, "line"))
    return line if isinstance(line, int) else 0


def _pair_similar(new: list[str], old: list[str]) -> list[tuple[int, int]]:
    """(new index, old index) pairs, most similar first.

    Similarity is the Dice coefficient of the two texts' words (shared words, counted with
    repeats, over the mean length): order-blind, but linear in the words, so rewriting a
    note of hundreds of lines stays around a second.
    """
    bags_new, bags_old = [Counter(a.split()) for a in new], [Counter(b.split()) for b in old]
    sizes_old = [b.total() for b in bags_old]
    scored = []
    for i, bag in enumerate(bags_new):
        size = bag.total()
        for j, other in enumerate(bags_old):
            if size + sizes_old[j]:
                dice = 2 * (bag & other).total() / (size + sizes_old[j])
                if dice >= EDIT_SIMILARITY:
                    scored.append((-dice, i, j))
    scored.sort()
    pairs, done_new, done_old = [], set(), set()
    for _, i, j in scored:
        if i not in done_new and j not in done_old:
            pairs.append((i, j))
            done_new.add(i)
            done_old.add(j)
    return pairs


def _resolver(notes: list[Note]) -> dict[str, Note]:
    """Link text to note, as Basic Memory resolves `[[...]]`: permalink, path, then title."""
    index: dict[str, Note] = {}
    for key_of in (
        lambda n: n.title,
        lambda n: (n.permalink or "").partition("/")[2],  # without the project (`main/`)
        lambda n: n.file.removesuffix(".md"),
        lambda n: n.file,
        lambda n: n.permalink,
    ):
        for note in reversed(notes):  # the first note in path order wins a shared title
            key = key_of(note)
            if key:
                index[key.casefold()] = note
    return index


def _supersessions(notes: list[Note], entries: dict[str, list[_Entry]], heads: dict[str, bool]) -> list[str]:
    """Link the facts of notes joined by `supersedes` / `replaces`; what could not be linked."""
    resolve = _resolver(notes)
    taken: set[str] = set()  # facts this snapshot already supersedes
    chain = {e.id: e.supersedes for es in entries.values() for e in es if e.new}
    left_out: list[str] = []
    for note in notes:
        for rtype, target in note.relations:
            if rtype.casefold() not in SUPERSEDING:
                continue
            where = f"{note.file}: '{rtype} [[{target}]]'"
            old = resolve.get(target.casefold())
            if old is None or old is note:
                left_out.append(f"{where} names no other note in the folder; nothing linked")
                continue
            newer = [e for e in entries[note.file] if e.new and e.supersedes is None]
            older = [e for e in entries[old.file] if heads.get(e.id, True) and e.id not in taken]
            pairs = _pair_by_category(newer, older)
            cyclic = 0
            for n, o in pairs:
                if leads_to(o.id, n.id, chain.get):  # within this snapshot
                    cyclic += 1
                    continue
                n.supersedes = chain[n.id] = o.id
                taken.add(o.id)
            unlinked = len(older) - len(pairs) + cyclic
            if unlinked and not newer:
                left_out.append(
                    f"{where}: {note.file}'s observations were imported before; imported facts are"
                    f" never changed, so {unlinked} fact(s) of {old.file} stay unlinked"
                    " (`synapse-tui supersede` links them)"
                )
            elif unlinked:
                left_out.append(
                    f"{where}: {unlinked} fact(s) of {old.file} have no new counterpart in"
                    f" {note.file}{' or would close a cycle' if cyclic else ''}; left unlinked"
                )
    return left_out


def _pair_by_category(newer: list[_Entry], older: list[_Entry]) -> list[tuple[_Entry, _Entry]]:
    free = list(newer)
    pairs, rest = [], []
    for o in older:
        n = next((n for n in free if n.obs.category == o.obs.category), None)
        if n is None:
            rest.append(o)
        else:
            free.remove(n)
            pairs.append((n, o))
    pairs += list(zip(free, rest, strict=False))
    return pairs


def _entities(note: Note, obs: Observation) -> list[str]:
    names, seen = [], set()
    for name in [note.title, *obs.links, *note.links]:
        key = name.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            names.append(name.strip())
    return names


def _fact(folder: Path, root: str, note: Note, e: _Entry) -> ParsedFact:
    obs = e.obs
    provenance = source_provenance(
        SYSTEM,
        e.record,
        e.version,
        folder=root,
        file=note.file,
        line=obs.line,
        title=note.title,
        permalink=note.permalink,
        category=obs.category,
        tags=obs.tags or None,
        context=obs.context,
    )
    obj: dict[str, Any] = {
        "id": e.id,
        "text": obs.content,
        "created_at": format_time(e.at),
        "note": note.key,
        "entities": _entities(note, obs),
        "provenance": provenance,
    }
    if e.supersedes:
        obj["supersedes"] = e.supersedes
    return parse_line(obj, errors_at(folder / note.file, obs.line), obs.line)
