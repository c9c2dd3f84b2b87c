"""Cursor's rules (SPEC 9, turn 4): `--from cursor --project P`.

What Cursor keeps, as its documentation and users' projects show it (the shape read from
Cursor's rules documentation, cursor.com/docs/context/rules, and `.mdc` files in public
repositories): the legacy `.cursorrules` at the project's root, plain text or Markdown,
and `.cursor/rules/**/*.mdc` (and `*.md`: a plain Markdown rule, front matter optional), the
project's own and a subfolder's (`docs/.cursor/rules/`: Cursor's nested rules, scoped to
that folder; markdown_memory.cursor_rule), each Markdown under front matter of three fields:
`description` (when the agent should fetch it), `globs` (the files it attaches to, a
comma-separated list, often not valid YAML: `globs: **/*.ts`) and `alwaysApply` (true or
false). The front matter is read line by line, as Cursor does, never as YAML.

A person writes rules: every fact is tier `human`. Each top-level bullet and paragraph of
a rule is a fact under its heading, the rule's front matter in provenance
(`x-cursor-description`, `x-cursor-globs`, `x-cursor-always-apply`). The files record no
time: a fact is dated by its file's modification time, an edit found at the next sync is
the next version of what it replaced; in a git work tree the rules' history is replayed
(mdfolder.py), each version dated by its commit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import KnownFact, Snapshot, require_folder, top_files
from synapse_tui.core.ingest.adapters.markdown_memory import cursor_rule, memory_files
from synapse_tui.core.ingest.adapters.mdfolder import read_docs
from synapse_tui.core.ingest.adapters.mditems import Doc, Item, markdown_items
from synapse_tui.core.ingest.adapters.mdtext import front_matter
from synapse_tui.core.ingest.interchange import Progress

SYSTEM = "cursor"
NEEDS = "--project P (the project whose rules to read)"  # what `import --from` says when nothing is named
EXPECTED = "a project folder holding .cursorrules or .cursor/rules/ (*.mdc, *.md)"


def read(
    source: Path | None,
    *,
    project: Path | None = None,
    known: list[KnownFact] | None = None,
    read_before: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> Snapshot:
    """A project's rules; the project is `--project P` (or SOURCE)."""
    named = project if project is not None else source
    if named is None:
        raise InputError(f"--from cursor needs --project P; expected {EXPECTED}", file=".")
    folder = require_folder(named, EXPECTED)
    docs: list[Doc] = []
    left_out: list[str] = []

    def locate(rel: str) -> Doc | None:
        if rel == ".cursorrules":
            return Doc(folder / rel, rel, rel, _legacy)
        if cursor_rule(rel):
            return Doc(folder / rel, rel, rel, _rule)
        return None

    docs += [Doc(p, p.name, p.name, _legacy) for p in top_files(folder, (".cursorrules",), left_out)]
    paths, skipped = memory_files(folder, cursor_rule, enter=_may_hold_rules)
    left_out += skipped
    for path in paths:
        rel = path.relative_to(folder).as_posix()
        docs.append(Doc(path, rel, rel, _rule))
    refusal = InputError(
        f"holds no .cursorrules and no .cursor/rules/ rules; expected {EXPECTED}", file=str(folder)
    )
    return read_docs(
        SYSTEM,
        folder,
        docs,
        known,
        left_out,
        progress,
        locate=locate,
        refusal=refusal,
        read_before=read_before,
    )


def _legacy(text: str, doc: Doc) -> list[Item]:
    return markdown_items(text, 0, skipped=doc.skipped, tier="human")


def _rule(text: str, doc: Doc) -> list[Item]:
    meta, body, offset = front_matter(text, doc, yaml_first=False)
    always = str(meta.get("alwaysApply", "")).strip().lower()
    own = {
        "description": str(meta.get("description") or "").strip() or None,
        "globs": str(meta.get("globs") or "").strip() or None,
        "always_apply": {"true": True, "false": False}.get(always),
    }
    return markdown_items(
        body, offset, skipped=doc.skipped, tier="human", own={k: v for k, v in own.items() if v is not None}
    )


def _may_hold_rules(rel: str) -> bool:
    """Whether a folder can hold Cursor's rules (markdown_memory.cursor_rule): a hidden one
    only if it is `.cursor`, the project's or a subfolder's."""
    return not any(p.startswith(".") and p != ".cursor" for p in rel.split("/"))
