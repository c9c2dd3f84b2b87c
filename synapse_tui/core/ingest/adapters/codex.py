"""OpenAI Codex CLI (SPEC 9, turn 4): `--from codex [DIR]`, DIR default `~/.codex/memories`.

What Codex keeps (openai/codex: the phase-2 agent's instructions for the files,
codex-rs/memories/write/templates/memories/consolidation.md, and before it
codex-rs/core/templates/memories/consolidation.md; codex-rs/core/src/memories/storage.rs,
which writes the rollout summaries). The folder is a git repository Codex manages.

- `MEMORY.md`, the handbook the consolidation agent writes, in one of two shapes:
  - current: blocks `# Task Group: <name>` with `scope:` and `applies_to: cwd=<path>;
    reuse_rule=...` lines, then `## Task <n>: <task, outcome>` sections (each with
    `### rollout_summary_files`, bullets `- rollout_summaries/<file>.md (cwd=...,
    rollout_path=..., updated_at=..., thread_id=...)`, and `### keywords`), then the
    block's knowledge as bullets under `## User preferences`, `## Reusable knowledge` and
    `## Failures and how to do differently`, each ending in the tasks it rests on
    (`[Task 1][Task 2]`);
  - earlier: blocks of a YAML header between `---` lines (`rollout_summary_files:`, a
    list of `<file>.md (<annotation naming cwd=... and updated_at=...>)`, `description:`,
    `keywords:`) over bullets.
- `memory_summary.md`: a first line `v1` (current), `## User Profile` (prose), `## User
  preferences` and `## General Tips` (bullets), `## What's in Memory` (an index of
  MEMORY.md: topics and keywords, not memories).
- `rollout_summaries/<name>.md`: one per session, a header of `thread_id:`, `updated_at:`,
  `rollout_path:`, `cwd:` (and `git_branch:`) over a recap: the evidence MEMORY.md cites.
- `raw_memories.md` (phase 1's merged input), `skills/` (procedures) and `extensions/`:
  not memories.

Mapping. Each bullet (and paragraph) of a block's knowledge is a fact, tier `auto` (an
agent wrote it), its block in provenance (`x-codex-task-group`, `-scope`, `-cwd`,
`-keywords`, `-rollout-summary-files`, `-tasks`; earlier: `-description`). The sessions
it rests on (its tasks' rollouts; earlier, its block's) are its evidence: each one's
`updated_at` (from the annotation, else from that summary file's own header) is a
reinforcement, the earliest its `created_at` (`x-codex-time` says "updated_at of the
cited rollouts") and the latest an edited version's. A fact citing none is dated by the
file's modification time (in git, by the commit). Task references (`[Task 1]`) are not
part of a fact's text: renumbered tasks are no edit. Nothing more is counted: Codex
records no corroboration, contradiction or review. `memory_summary.md`'s profile,
preferences and tips are facts too, dated by that file; its index is not.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import KnownFact, Snapshot, require_folder, top_files
from synapse_tui.core.ingest.adapters.mdfolder import read_docs
from synapse_tui.core.ingest.adapters.mditems import Doc, Item, markdown_items
from synapse_tui.core.ingest.adapters.mdtext import plain, when
from synapse_tui.core.ingest.interchange import Progress

SYSTEM = "codex"
EXPECTED = "a ~/.codex/memories folder (MEMORY.md, memory_summary.md, rollout_summaries/)"
# a project's AGENTS.md, which Codex loads as instructions, is plain Markdown
PROJECT_HINT = "a project's AGENTS.md is read with --from markdown DIR (in git, with its history)"
FROM_ROLLOUTS = "updated_at of the cited rollouts"
FROM_LATEST = "updated_at of the latest cited rollout"
INDEX = "What's in Memory"

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CITED = re.compile(r"^\s*-\s*<?(\S+?\.md)>?\s*(?:\((.*)\))?\s*$")
_FIELD = re.compile(r"\b(cwd|updated_at)=([^,;)]+)")
_GROUP = re.compile(r"^# Task Group:[ \t]*(.*?)[ \t]*$", re.M)
_TASK = re.compile(r"^Task (\d+)\b")
_REFS = re.compile(r"(?:\s*\[Task (\d+)\])+\s*$")
_REF = re.compile(r"\[Task (\d+)\]")
_FIELD_CWD = re.compile(r"\bcwd=([^;,)]+)")
_HEADER_LINE = re.compile(r"^([a-z_]+):[ \t]*(.*)$")
_YAML_SIGNS = frozenset("'\"[]{}&*!|>%@`#")


def default_source() -> Path:
    return Path.home() / ".codex" / "memories"


def read(
    source: Path | None,
    *,
    known: list[KnownFact] | None = None,
    read_before: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> Snapshot:
    """The memories folder's MEMORY.md and memory_summary.md, their evidence cited."""
    root = require_folder(source if source is not None else default_source(), EXPECTED)
    names = ("MEMORY.md", "memory_summary.md")
    left_out: list[str] = []
    parsers = dict(zip(names, (_handbook(root), _summary), strict=True))

    def locate(rel: str) -> Doc | None:
        parse = parsers.get(rel)
        return None if parse is None else Doc(root / rel, rel, rel.removesuffix(".md"), parse)

    docs = [
        Doc(p, p.name, p.name.removesuffix(".md"), parsers[p.name]) for p in top_files(root, names, left_out)
    ]
    if (root / "skills").is_dir():
        left_out.append("skills/: procedures, not memories; not read")
    present = any((root / n).is_file() for n in names) or (root / "rollout_summaries").is_dir()
    hint = f"; {PROJECT_HINT}" if (root / "AGENTS.md").is_file() else ""
    refusal = InputError(
        f"holds no MEMORY.md, memory_summary.md or rollout_summaries/; expected {EXPECTED}{hint}",
        file=str(root),
    )
    return read_docs(
        SYSTEM,
        root,
        docs,
        known,
        left_out,
        progress,
        locate=locate,
        refusal=None if present else refusal,
        read_before=read_before,
    )


def _handbook(root: Path):
    """MEMORY.md's reader, which looks up cited rollout summaries under `root`."""
    cache: dict[str, dict[str, str]] = {}

    def parse(text: str, doc: Doc) -> list[Item]:
        if _GROUP.search(text):
            return _task_groups(text, root, cache, doc)
        items: list[Item] = []
        for header, body, offset, header_line in _blocks(text):
            meta = _header(header, doc, header_line)
            cited = _cited(meta.get("rollout_summary_files"), root, cache, doc)
            cwds = sorted({c["cwd"] for c in cited if c.get("cwd")})
            own: dict[str, Any] = {
                "description": plain(meta.get("description")),
                "keywords": _words(meta.get("keywords")),
                "cwd": ", ".join(cwds) or None,
                "rollout_summary_files": ", ".join(c["file"] for c in cited) or None,
                "block_line": header_line,
            }
            own = {k: v for k, v in own.items() if v is not None}
            # a block is its own unit of co-occurrence: the file's blocks are unrelated tasks
            note = f"MEMORY: {own['description']}" if isinstance(own.get("description"), str) else None
            for item in markdown_items(body, offset, skipped=doc.skipped):
                item.own = dict(own)
                item.note = note or f"MEMORY:{header_line}"
                if item.section is None and isinstance(own.get("description"), str):
                    item.section = own["description"]
                _dated(item, cited)
                items.append(item)
        return items

    return parse


def _task_groups(text: str, root: Path, cache: dict[str, dict[str, str]], doc: Doc) -> list[Item]:
    """The current MEMORY.md: each `# Task Group` block's knowledge bullets, each backed
    by the rollouts of the tasks it names (of all the block's tasks when it names none)."""
    items: list[Item] = []
    rollouts = _Rollouts(root, cache, doc)
    starts = [m.start() for m in _GROUP.finditer(text)]
    offset = text.count("\n", 0, starts[0])
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        block = text[start:end]
        group = _GROUP.match(block)
        name = group.group(1) if group else ""
        head = _group_head(block)
        tasks: dict[str, dict[str, Any]] = {}
        _task_lines(block, tasks)
        for item in _knowledge(block, offset):
            _back(item, name, head, tasks, rollouts)
            items.append(item)
        offset += block.count("\n")  # lines before the next block, counted once
    return items


@dataclass(frozen=True)
class _Rollouts:
    """Where cited rollout summaries are looked up: the memories folder, the headers read
    so far, the file whose `left_out` hears of trouble."""

    root: Path
    cache: dict[str, dict[str, str]]
    doc: Doc

    def cited(self, value: Any) -> list[dict[str, str]]:
        return _cited(value, self.root, self.cache, self.doc)


def _group_head(block: str) -> dict[str, str]:
    """A task group's `scope:` and `applies_to:` lines, which open the block."""
    head: dict[str, str] = {}
    for line in block.split("\n")[1:8]:
        match = _HEADER_LINE.match(line)
        if match is not None:
            head.setdefault(match.group(1), match.group(2).strip())
    return head


def _knowledge(block: str, offset: int) -> list[Item]:
    """A task group's knowledge bullets: a task's own lines say where its evidence is, and
    the block's scope lines what it covers; neither is a fact."""
    return [
        item
        for item in markdown_items(block, offset)
        if item.section
        and not item.section.startswith("Task Group:")
        and not _TASK.match(item.section)
        and item.section not in ("rollout_summary_files", "keywords")
    ]


def _back(
    item: Item, name: str, head: dict[str, str], tasks: dict[str, dict[str, Any]], rollouts: _Rollouts
) -> None:
    """Give a knowledge bullet its group, the tasks it names (its trailing `[Task N]`
    references cut from its text) and those tasks' rollouts: cwd, keywords and times."""
    refs = list(dict.fromkeys(_REF.findall(item.text)))
    trail = _REFS.search(item.text)
    if trail is not None and trail.start() > 0:
        item.text = item.text[: trail.start()].rstrip()
    chosen = [tasks[r] for r in refs if r in tasks] or list(tasks.values())
    cited = rollouts.cited([f for t in chosen for f in t["files"]])
    own = _group_own(name, head, chosen, cited, refs)
    item.own = {k: v for k, v in own.items() if v is not None}
    item.note = f"MEMORY: {name}"
    item.entities = [name] if name else []
    item.section = f"{name}: {item.section}" if name else item.section
    _dated(item, cited)


def _group_own(
    name: str,
    head: dict[str, str],
    chosen: list[dict[str, Any]],
    cited: list[dict[str, str]],
    refs: list[str],
) -> dict[str, Any]:
    """A knowledge bullet's own fields: its group, the group's scope, the cwd of its
    rollouts (and of the group's `applies_to`), its tasks' keywords, rollouts and numbers."""
    cwds = {c["cwd"] for c in cited if c.get("cwd")} | set(_FIELD_CWD.findall(head.get("applies_to", "")))
    return {
        "task_group": name or None,
        "scope": head.get("scope") or None,
        "cwd": ", ".join(sorted(cwds)) or None,
        "keywords": ", ".join(k for t in chosen for k in t["keywords"]) or None,
        "rollout_summary_files": ", ".join(c["file"] for c in cited) or None,
        "tasks": ", ".join(refs) or None,
    }


def _dated(item: Item, cited: list[dict[str, str]]) -> None:
    """First written after the first cited session; edited after the latest."""
    times = sorted(t for t in (when(c.get("updated_at")) for c in cited) if t is not None)
    if times:
        item.at, item.how, item.reinforced_at = times[0], FROM_ROLLOUTS, times[1:]
        item.revised, item.revised_how = times[-1], FROM_LATEST


def _task_lines(block: str, tasks: dict[str, dict[str, Any]]) -> None:
    """Fill each task's rollout files and keywords from its `###` subsections."""
    task: str | None = None
    part = ""
    for line in block.split("\n"):
        if line.startswith("## "):
            match = _TASK.match(line[3:].strip())
            task = match.group(1) if match else None
            part = ""
            if task is not None:
                tasks.setdefault(task, {"files": [], "keywords": []})
        elif line.startswith("### "):
            part = line[4:].strip()
        elif task is not None and line.lstrip().startswith("- "):
            value = line.strip()[2:].strip()
            if part == "rollout_summary_files":
                tasks[task]["files"].append(value)
            elif part == "keywords":
                tasks[task]["keywords"] += [k.strip() for k in value.split(",") if k.strip()]


def _blocks(text: str) -> list[tuple[str, str, int, int]]:
    """(header, body, lines before the body, header's first line) of each MEMORY.md block;
    text before the first header is a block without one."""
    lines = text.split("\n")
    out: list[tuple[str, str, int, int]] = []
    i, body_start, header, header_line = 0, 0, "", 0
    while i < len(lines):
        if lines[i].strip() == "---":
            close = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "---"), None)
            if close is not None and _looks_like_header(lines[i + 1 : close]):
                out.append((header, "\n".join(lines[body_start:i]), body_start, header_line))
                header, header_line = "\n".join(lines[i + 1 : close]), i + 1
                body_start = i = close + 1
                continue
        i += 1
    out.append((header, "\n".join(lines[body_start:]), body_start, header_line))
    return [b for b in out if b[1].strip()]


def _looks_like_header(lines: list[str]) -> bool:
    """A block header opens with `key:` (a `---` rule between bullets does not)."""
    first = next((line for line in lines if line.strip()), "")
    return bool(_HEADER_LINE.match(first))


def _header(header: str, doc: Doc, line: int) -> dict[str, Any]:
    """A block's header: plain `key: text` and `  - item` lines read as they are (a tenth
    of YAML's time), anything else as YAML, and what YAML cannot read (an annotation with
    a `: ` in it) line by line, said in `left_out`."""
    if not header:
        return {}
    meta = _simple(header)
    if meta is not None:
        return meta
    try:
        meta = yaml.load(header, Loader=_LOADER)  # noqa: S506  (a safe loader)
        if isinstance(meta, dict):
            return meta
    except yaml.YAMLError:
        pass
    doc.left_out.append(f"MEMORY.md:{line}: block header is not strict YAML; read line by line")
    return _simple(header, lenient=True) or {}


def _simple(header: str, lenient: bool = False) -> dict[str, Any] | None:
    """`key: text` lines and `- item` lines below a bare `key:`; None (unless `lenient`)
    when a line is anything else or a value is one YAML would read otherwise."""
    meta: dict[str, Any] = {}
    current: str | None = None
    for raw in header.split("\n"):
        if not raw.strip():
            continue
        match = _HEADER_LINE.match(raw)
        if match:
            current, value = match.group(1), match.group(2).strip()
            if value[:1] in _YAML_SIGNS and not lenient:
                return None
            meta[current] = value or []
        elif current is not None and isinstance(meta.get(current), list) and raw.lstrip().startswith("- "):
            value = raw.strip()[2:].strip()
            if value[:1] in _YAML_SIGNS and not lenient:
                return None
            meta[current].append(value)
        elif not lenient:
            return None
    return meta


def _cited(value: Any, root: Path, cache: dict[str, dict[str, str]], doc: Doc) -> list[dict[str, str]]:
    """Each cited rollout summary: its file, cwd and updated_at (the annotation's, else the
    summary file's own header's)."""
    entries = value if isinstance(value, list) else []
    out = []
    for entry in entries:
        if not isinstance(entry, str):
            continue
        match = _CITED.match(f"- {entry.strip()}")
        if match is None:
            continue
        name, note = match.group(1), match.group(2) or ""
        fields = {k: v.strip() for k, v in _FIELD.findall(note)}
        if "updated_at" not in fields or "cwd" not in fields:
            own = _summary_header(root, name, cache)
            fields = {**{k: v for k, v in own.items() if k in ("cwd", "updated_at")}, **fields}
        out.append({"file": name, **fields})
    return out


def _summary_header(root: Path, name: str, cache: dict[str, dict[str, str]]) -> dict[str, str]:
    """A rollout summary's header lines (`thread_id:`, `updated_at:`, `cwd:`, ...); a
    summary that is a link is not followed."""
    if name in cache:
        return cache[name]
    path = root / "rollout_summaries" / Path(name).name
    fields: dict[str, str] = {}
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        fd = None
    if fd is not None:
        with os.fdopen(fd, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
        for line in head.split("\n"):
            match = _HEADER_LINE.match(line)
            if match is None:
                break
            fields[match.group(1)] = match.group(2).strip()
    cache[name] = fields
    return fields


def _words(value: Any) -> str | None:
    if isinstance(value, list):
        value = ", ".join(str(plain(v)) for v in value if plain(v) is not None)
    value = plain(value)
    return str(value) if value not in (None, "") else None


def _summary(text: str, doc: Doc) -> list[Item]:
    if text.startswith("v1\n"):  # the schema's version line, not a memory
        text = "\n" + text[3:]
    read = markdown_items(text, 0, skipped=doc.skipped)
    items = [i for i in read if i.section != INDEX]
    if len(items) < len(read):
        doc.left_out.append(
            f"memory_summary.md: the '{INDEX}' index points into MEMORY.md; not read as facts"
        )
    return items
