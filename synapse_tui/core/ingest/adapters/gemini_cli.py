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

The search down P is bounded as Gemini CLI bounds it (`_searched`): when it loads every
GEMINI.md up front (`loadServerHierarchicalMemory`, the only way before JIT context
loading, which v0.40 made the default and v0.44 the only way), its breadth-first search
(bfsFileSearch.ts) reads at most `context.discoveryMaxDirs` folders (settings.json,
default 200), P itself the first, each folder's subfolders in the order Node lists them
(libuv sorts names by their bytes). A GEMINI.md in a folder past that is one Gemini never
loads: named in `left out`, not read.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pathspec

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import KnownFact, Snapshot, require_folder, top_files
from synapse_tui.core.ingest.adapters import markdown_memory as mm
from synapse_tui.core.ingest.adapters.git_notes import shown_name
from synapse_tui.core.ingest.adapters.mdfolder import merged, read_docs
from synapse_tui.core.ingest.adapters.mditems import Doc, Item, markdown_items
from synapse_tui.core.ingest.adapters.mdtext import front_matter
from synapse_tui.core.ingest.interchange import Progress

SYSTEM = "gemini-cli"
FILE = "GEMINI.md"
SECTION = "Gemini Added Memories"
EXPECTED = "a ~/.gemini folder holding GEMINI.md"
PROJECT_EXPECTED = "a project folder holding GEMINI.md"
SKIPPED = frozenset({"__pycache__"})  # besides markdown_memory's NOT_WALKED and dependency folders
GEMINI_IGNORE = ".geminiignore"  # what Gemini CLI leaves out of its memory discovery
_H2 = re.compile(r"^##[ \t]+(.*?)[ \t#]*$")
_IMPORTS_ONLY = re.compile(r"^(?:@\S+\s*)+$")  # a paragraph that only imports
MAX_DIRS = 200  # Gemini CLI's `context.discoveryMaxDirs` default: folders its search reads
SETTINGS = "settings.json"  # Gemini CLI's settings: DIR's (the user's), P's `.gemini/` (the project's)
NAMED = 10  # files past the bound named one by one; the rest counted


def default_source() -> Path:
    return Path.home() / ".gemini"


def read(
    source: Path | None,
    *,
    project: Path | None = None,
    known: list[KnownFact] | None = None,
    read_before: dict[str, Any] | None = None,
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
            read_docs(
                SYSTEM,
                root,
                docs,
                known,
                left_out,
                progress,
                locate=_home_doc(root),
                refusal=refusal,
                read_before=read_before,
            )
        )
    if project is not None:
        folder = require_folder(project, PROJECT_EXPECTED)
        ignored, left_out = _geminiignore(folder)
        bound = _max_dirs(source, folder, left_out)
        searched = _searched(folder, ignored, bound)
        paths, skipped = _context_files(folder, ignored, bound, searched)
        left_out += skipped
        note = str(folder.resolve()).replace("/", "-")

        def locate(rel: str) -> Doc | None:
            parts = rel.split("/")
            if parts[-1] != FILE or not mm.memory_path(rel) or any(p in SKIPPED for p in parts[:-1]):
                return None
            if rel != FILE and (ignored(rel) or _past(folder, rel, searched)):
                return None  # a file git knows that Gemini's search leaves out now
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
                read_before=read_before,
            )
        )
    if not snaps:
        raise InputError(f"nothing to read; expected {EXPECTED}", file=str(default_source()))
    return merged(SYSTEM, snaps)


def _context_files(
    folder: Path,
    ignored: Callable[[str], bool] | None = None,
    bound: int = MAX_DIRS,
    searched: set[str] | None = None,
) -> tuple[list[Path], list[str]]:
    """Every GEMINI.md below a project, as Gemini CLI's memory discovery looks for them
    (memoryDiscovery.ts, bfsFileSearch.ts): hidden folders entered too (`.gemini/GEMINI.md`),
    what the project's `.geminiignore` lists apart (Gemini's default for memory files:
    `.gitignore` is not read), links not followed, only in the first `bound` folders its
    search reads (`_searched`; those past it named). Narrower than Gemini where a folder is
    never a project's memory (markdown_memory.memory_files): version control, environments
    and caches (`.git`, `.venv`), installed packages (named), another checkout below
    (named), SKIPPED. `ignored`: the project's `.geminiignore` (_geminiignore), read here
    when not given; `searched`: what `_searched` gives for it, found here when not given."""
    left_out: list[str] = []
    if ignored is None:
        ignored, left_out = _geminiignore(folder)
    listed = ignored

    def enter(rel: str) -> bool:
        return rel.rpartition("/")[2] not in SKIPPED and not listed(rel + "/")

    def wanted(rel: str) -> bool:
        if rel == FILE:  # found by Gemini's search up from the folder, which lists nothing out
            return True
        return rel.rpartition("/")[2] == FILE and mm.memory_path(rel) and not listed(rel)

    found, skipped = mm.memory_files(folder, wanted, enter=enter)
    if searched is None:
        searched = _searched(folder, listed, bound)
    past = [p for p in found if _past(folder, p.relative_to(folder).as_posix(), searched)]
    return [p for p in found if p not in past], left_out + skipped + _past_lines(folder, past, bound)


def _searched(folder: Path, ignored: Callable[[str], bool], bound: int) -> set[str]:
    """The folders (POSIX, under `folder`; "" itself) Gemini CLI's search for GEMINI.md
    reads (bfsFileSearch.ts): breadth first from `folder`, at most `bound` of them, each
    folder's subfolders queued in the order Node's `readdir` gives them (libuv sorts the
    names by their bytes), links never entered, a subfolder `.geminiignore` lists left
    out as Gemini asks it (as a file: `docs/` does not match the folder `docs`, only what is
    in it). Every folder it reads counts, those this reader never reads from included
    (`.git`, `node_modules`); one that cannot be listed counts and holds nothing."""
    queue, head = [""], 0
    searched: set[str] = set()
    while head < len(queue) and len(searched) < bound:
        here = queue[head]
        head += 1
        searched.add(here)
        entries = sorted(mm.listing(folder / here), key=lambda e: os.fsencode(e.name))
        for entry in entries:
            rel = f"{here}/{entry.name}" if here else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and not ignored(rel):
                queue.append(rel)
    return searched


def _past(folder: Path, rel: str, searched: set[str]) -> bool:
    """Whether a GEMINI.md (POSIX, under `folder`) is in a folder there that Gemini's search
    does not read (the folder's own is found by its search upwards, never bounded)."""
    parent = rel.rpartition("/")[0]
    return bool(parent) and parent not in searched and (folder / parent).is_dir()


def _past_lines(folder: Path, past: list[Path], bound: int) -> list[str]:
    """`left out` for the GEMINI.md files past the bound: each named (the first NAMED)."""
    if not past:
        return []
    why = f"past the {bound} folders Gemini CLI searches for {FILE} (context.discoveryMaxDirs); not read"
    names = [shown_name(p.relative_to(folder).as_posix()) for p in sorted(past)]
    lines = [f"{name}: {why}" for name in names[:NAMED]]
    if len(names) > NAMED:
        lines.append(f"{len(names) - NAMED} more {FILE} files {why}")
    return lines


def _max_dirs(home: Path | None, project: Path, left_out: list[str]) -> int:
    """`context.discoveryMaxDirs` as Gemini CLI merges its settings: the project's
    `.gemini/settings.json` over the user's (DIR's `settings.json`, when DIR is read), else
    MAX_DIRS. A settings file that cannot be read, or a value that is no whole number, is
    named in `left_out` and passed over."""
    bound = MAX_DIRS
    # the user's named in full: the project's `left out` lines are the project's paths
    places = [] if home is None else [(home, SETTINGS, shown_name(str(home / SETTINGS)))]
    places.append((project, f".gemini/{SETTINGS}", f".gemini/{SETTINGS}"))
    for root, rel, shown in places:
        value = _setting(root, rel, shown, left_out)
        if value is not None:
            bound = value
    return bound


def _setting(root: Path, rel: str, shown: str, left_out: list[str]) -> int | None:
    """`context.discoveryMaxDirs` of the settings file `rel` under `root` (JSON with
    comments, as Gemini reads it), None when it says nothing; `shown`: its name in
    `left_out`."""
    path = root / rel
    if not path.is_file():
        return None
    if not path.resolve().is_relative_to(root.resolve()):
        left_out.append(f"{shown}: a link leaving the folder; not read")
        return None
    try:
        data = json.loads(_without_comments(path.read_bytes().decode("utf-8")))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        left_out.append(f"{shown}: not JSON that can be read; its context.discoveryMaxDirs not used")
        return None
    context = data.get("context") if isinstance(data, dict) else None
    value = context.get("discoveryMaxDirs") if isinstance(context, dict) else None
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON's 300.0 is JavaScript's 300
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        left_out.append(f"{shown}: context.discoveryMaxDirs is not a whole number >= 0; not used")
        return None
    return value


def _without_comments(text: str) -> str:
    """JSON text with its `//` and `/* */` comments blanked (strings kept whole), as Gemini
    CLI strips them before parsing its settings."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            i = end + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            out.append(" ")
            i = n if end < 0 else end + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _geminiignore(folder: Path) -> tuple[Callable[[str], bool], list[str]]:
    """Whether a path (POSIX, below the project; a folder ends in `/`) is one the project's
    `.geminiignore` lists, in `.gitignore`'s syntax, and a `left out` line when the file
    cannot be read (then nothing is ignored, as Gemini CLI does with no file)."""
    path = folder / GEMINI_IGNORE
    if not path.is_file():
        return (lambda rel: False), []
    if not path.resolve().is_relative_to(folder.resolve()):
        return (lambda rel: False), [f"{GEMINI_IGNORE}: a link leaving the folder; not read"]
    try:
        lines = path.read_bytes().decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        why = "not valid UTF-8" if isinstance(exc, UnicodeDecodeError) else "cannot be read"
        return (lambda rel: False), [f"{GEMINI_IGNORE}: {why}; nothing ignored"]
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec.match_file, []


def _home_docs(root: Path) -> tuple[list[Doc], list[str]]:
    """GEMINI.md, and each project's memory index `tmp/<project>/memory/MEMORY.md` (where
    `save_memory` with scope project appends its `- <fact>` lines)."""
    left_out: list[str] = []
    docs = [Doc(path, FILE, "user", _global) for path in top_files(root, (FILE,), left_out)]
    inside = root.resolve()
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
