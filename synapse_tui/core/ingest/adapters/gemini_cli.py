"""Gemini CLI (SPEC 9, turn 4): `--from gemini-cli [DIR] [--project P]`.

What Gemini CLI keeps (google-gemini/gemini-cli, packages/core/src/tools/memoryTool.ts and
docs/tools/memory.md): the global context file `~/.gemini/GEMINI.md`, Markdown a person
writes, into which the agent's `save_memory` tool appends each fact as one line
`- <fact>` (newlines collapsed, angle brackets blanked) under the heading
`## Gemini Added Memories`, creating the heading when it is missing; that section runs to
the next `## ` heading. With scope `project` the tool appends such lines to the project's
memory index, `~/.gemini/tmp/<project>/memory/MEMORY.md` (Storage.getProjectMemoryDir).
A project's `GEMINI.md` files (its root and folders below) are instructions a person
writes.

Mapping. Each top-level bullet and paragraph is a fact under its heading: those in the
`## Gemini Added Memories` section and in a project's memory index are tier `auto` (the
agent wrote them), the rest of `GEMINI.md` and every project GEMINI.md tier `human`. The files record no time: a fact is
dated by its file's modification time, an edit found at the next sync is the next
version. DIR (default `~/.gemini`) and P are two roots: records and notes from P begin
with P's path, its `/` turned into `-`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import KnownFact, Snapshot, require_folder
from synapse_tui.core.ingest.adapters import markdown_memory as mm
from synapse_tui.core.ingest.adapters.mdfolder import merged, read_docs
from synapse_tui.core.ingest.adapters.mditems import Doc, Item, markdown_items
from synapse_tui.core.ingest.adapters.mdtext import front_matter
from synapse_tui.core.ingest.interchange import Progress

SYSTEM = "gemini-cli"
FILE = "GEMINI.md"
SECTION = "Gemini Added Memories"
EXPECTED = "a ~/.gemini folder holding GEMINI.md"
PROJECT_EXPECTED = "a project folder holding GEMINI.md"
SKIPPED = frozenset({"node_modules", "__pycache__"})  # installed packages' files are not the project's
_H2 = re.compile(r"^##[ \t]+(.*?)[ \t#]*$")
_IMPORTS_ONLY = re.compile(r"^(?:@\S+\s*)+$")  # a paragraph that only imports


def default_source() -> Path:
    return Path.home() / ".gemini"


def read(
    source: Path | None,
    *,
    project: Path | None = None,
    known: list[KnownFact] | None = None,
    progress: Progress | None = None,
) -> Snapshot:
    """`GEMINI.md` of DIR, and with `project` that project's GEMINI.md files."""
    snaps: list[Snapshot] = []
    if source is not None:
        root = require_folder(source, EXPECTED)
        docs, left_out = _home_docs(root)
        docs += _imported(root, docs[:1], lambda rel: Doc(root / rel, rel, "user", _project), left_out)
        refusal = InputError(f"holds no {FILE}; expected {EXPECTED}", file=str(root))
        snaps.append(
            read_docs(SYSTEM, root, docs, known, left_out, progress, locate=_home_doc(root), refusal=refusal)
        )
    if project is not None:
        folder = require_folder(project, PROJECT_EXPECTED)
        paths, left_out = _context_files(folder)
        note = str(folder.resolve()).replace("/", "-")

        def locate(rel: str) -> Doc | None:
            parts = rel.split("/")
            if parts[-1] != FILE or any(p.startswith(".") or p in SKIPPED for p in parts[:-1]):
                return None
            return Doc(folder / rel, rel, f"{note}/{rel}", _project)  # each file its own note

        docs = [d for d in (locate(p.relative_to(folder).as_posix()) for p in paths) if d is not None]
        docs += _imported(
            folder, docs, lambda rel: Doc(folder / rel, rel, f"{note}/{rel}", _project), left_out
        )
        snaps.append(
            read_docs(
                SYSTEM,
                folder,
                docs,
                known,
                left_out,
                progress,
                prefix=f"{note}/",
                locate=locate,
                refusal=InputError(f"holds no {FILE}; expected {PROJECT_EXPECTED}", file=str(folder)),
            )
        )
    if not snaps:
        raise InputError(f"nothing to read; expected {EXPECTED}", file=str(default_source()))
    return merged(SYSTEM, snaps)


def _context_files(folder: Path) -> tuple[list[Path], list[str]]:
    """Every GEMINI.md below a project, as Gemini CLI looks for them: not in hidden folders
    nor in SKIPPED ones (installed packages), no link followed out of the project."""
    inside = folder.resolve()
    found: list[Path] = []
    left_out: list[str] = []
    for top, dirs, names in os.walk(folder):  # links to folders are not walked
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED)
        if FILE in names:
            path = Path(top) / FILE
            if path.resolve().is_relative_to(inside):
                found.append(path)
            else:
                left_out.append(f"{path.relative_to(folder).as_posix()}: a link leaving the folder; not read")
    return sorted(found), left_out


def _home_docs(root: Path) -> tuple[list[Doc], list[str]]:
    """GEMINI.md, and each project's memory index `tmp/<project>/memory/MEMORY.md` (where
    `save_memory` with scope project appends its `- <fact>` lines)."""
    docs: list[Doc] = []
    left_out: list[str] = []
    inside = root.resolve()
    path = root / FILE
    if path.is_file():
        if path.resolve().is_relative_to(inside):
            docs.append(Doc(path, FILE, "user", _global))
        else:
            left_out.append(f"{FILE}: a link leaving the folder; not read")
    tmp = root / "tmp"
    if tmp.is_dir() and not tmp.is_symlink():
        for project in sorted(tmp.iterdir()):
            index = project / "memory" / "MEMORY.md"
            if project.is_symlink() or not index.is_file():
                continue
            rel = index.relative_to(root).as_posix()
            if index.resolve().is_relative_to(inside):
                docs.append(Doc(index, rel, f"tmp/{project.name}", _project_memory))
            else:
                left_out.append(f"{rel}: a link leaving the folder; not read")
    return docs, left_out


def _home_doc(root: Path):
    """The Doc of a path under a ~/.gemini folder, for a file gone from it."""

    def locate(rel: str) -> Doc | None:
        if rel == FILE:
            return Doc(root / rel, rel, "user", _global)
        parts = rel.split("/")
        if len(parts) == 4 and parts[0] == "tmp" and parts[2:] == ["memory", "MEMORY.md"]:
            return Doc(root / rel, rel, f"tmp/{parts[1]}", _project_memory)
        return None

    return locate


def _project_memory(text: str, doc: Doc) -> list[Item]:
    items = markdown_items(text, 0, skipped=doc.skipped)  # the agent's own lines: tier auto
    for item in items:
        item.own["added_by"] = "save_memory"
    return items


def _global(text: str, doc: Doc) -> list[Item]:
    meta, body, offset = front_matter(text, doc)
    items = [
        i
        for i in markdown_items(body, offset, skipped=doc.skipped, tier="human")
        if not _IMPORTS_ONLY.match(i.text)
    ]
    agent = _agent_lines(body, offset)
    for item in items:
        if item.line in agent:
            item.tier = "auto"
            item.own["added_by"] = "save_memory"
    return items


def _agent_lines(body: str, offset: int) -> range:
    """The lines of the `## Gemini Added Memories` section, as memoryTool.ts finds it: from
    its heading to the next `## ` heading."""
    start = end = 0
    for n, line in enumerate(body.split("\n"), start=offset + 1):
        heading = _H2.match(line)
        if heading is None:
            continue
        if start and not end:
            end = n
        if heading.group(1) == SECTION and not start:
            start = n
    if not start:
        return range(0)
    return range(start, end or offset + body.count("\n") + 2)


def _project(text: str, doc: Doc) -> list[Item]:
    meta, body, offset = front_matter(text, doc)
    items = markdown_items(body, offset, skipped=doc.skipped, tier="human")
    return [i for i in items if not _IMPORTS_ONLY.match(i.text)]  # `@./AGENTS.md`: read as that file


def _imported(root: Path, docs: list[Doc], make: Callable[[str], Doc], left_out: list[str]) -> list[Doc]:
    """The files GEMINI.md files import (`@./path.md`, Gemini CLI's memory import
    processor, five levels deep as `mm.followed_imports` follows them), made by `make`."""
    return [make(rel) for rel in mm.followed_imports(root, [(d.path, d.rel) for d in docs], left_out)]
