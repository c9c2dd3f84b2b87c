"""Any folder of Markdown (SPEC 9, turn 4): `--from markdown DIR`.

In a git work tree the folder is read as `--from git-notes` reads it, its history replayed
(x-source `git-notes`: that stays the name of Markdown in git). Anywhere else (a zip of a
repository, a copy without its `.git`, a notes folder) the same files are read, found by
the same walk (markdown_memory.memory_files: every `*.md` outside hidden folders, agents'
named files and memory banks anywhere, `.claude/`, `.github/` instructions, Cursor's
rules...; a trash folder, Obsidian's `.trash` or a drive's, holds notes someone deleted:
named in `left out`, never live facts). The files hold only their current
text, read as the other Markdown sources are (mdfolder.py): each
top-level bullet and paragraph is a fact under its heading, tier `auto` (nobody is known
to have accepted it); an edit found at the next sync is the next version. When each text
was written: a date in the file's name (`2026-05-14.md`, `2026-05-14-standup.md`), else a
creation or update date in its front matter (`created`, `date`, `updated`, ...), else the
file's modification time; `x-markdown-time` says which.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import (
    KnownFact,
    Snapshot,
    git_notes,
    gitlog,
    require_folder,
)
from synapse_tui.core.ingest.adapters.markdown_memory import memory_files
from synapse_tui.core.ingest.adapters.mdfolder import read_docs
from synapse_tui.core.ingest.adapters.mditems import FROM_NAME, Doc, Item, markdown_items
from synapse_tui.core.ingest.adapters.mdtext import dated_name, front_date, front_matter, plain
from synapse_tui.core.ingest.interchange import Progress

SYSTEM = "markdown"
KNOWN_SYSTEMS = (SYSTEM, git_notes.SYSTEM)  # the store's facts `read` is given: a work tree's are git-notes'
NEEDS = "DIR (a folder of Markdown notes)"  # what `import --from` says when nothing is named
EXPECTED = "a folder of Markdown notes (*.md)"


def read(
    source: Path,
    *,
    known: list[KnownFact] | None = None,
    read_before: dict[str, Any] | None = None,
    agents: str | None = None,
    progress: Progress | None = None,
) -> Snapshot:
    """The folder's notes: with their history in git (as git-notes), else as they stand."""
    if source is None:
        raise InputError(f"--from markdown needs DIR; expected {EXPECTED}", file=".")
    folder = require_folder(source, EXPECTED)
    if gitlog.open_or_left_out(folder, []) is not None:  # else read_docs says why, once
        return git_notes.read(folder, known=known, agents=agents, progress=progress, read_before=read_before)
    paths, left_out = notes_of(folder)
    refusal = InputError(f"holds no Markdown notes (*.md); expected {EXPECTED}", file=str(folder))
    docs = []
    for path in paths:
        rel = path.relative_to(folder).as_posix()
        docs.append(Doc(path, rel, rel, parse))
    return read_docs(
        SYSTEM, folder, docs, known, left_out, progress, refusal=refusal, read_before=read_before
    )


def notes_of(folder: Path) -> tuple[list[Path], list[str]]:
    """The memory files below a folder outside git, found as a work tree's are
    (memory_files: trash folders named, never read), and the `left out` lines."""
    return memory_files(folder)


def parse(text: str, doc: Doc) -> list[Item]:
    meta, body, offset = front_matter(text, doc)
    at, how = None, None
    named = dated_name(doc.path.name)
    if named is not None:
        at, how = named, FROM_NAME
    elif (dated := front_date(meta)) is not None:
        at, how = dated
    own = {k: plain(meta.get(k)) for k in ("title", "description")}
    return markdown_items(
        body, offset, skipped=doc.skipped, at=at, how=how, own={k: v for k, v in own.items() if v is not None}
    )
