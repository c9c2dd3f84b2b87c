"""The kind of a fact, for freshness constants per kind (SPEC 14).

A person's standing instructions, a rule file, an agent's notes and a source's typed
memories live different lives: an instruction stands for months, a project note is
rewritten within weeks. A kind is read from what the adapters record in provenance, first
rule that holds:

1. the source's own type of the record: `x-<source>-type` (Claude Code's user / feedback /
   project / reference), `x-<source>-memory-type` (mem0), `x-<source>-category`
   (Basic Memory's observation category), `x-<source>-entity-type` (the MCP memory server);
2. the role of the file it was read from (`x-<source>-file`): `rule` for a rules file
   (`.cursor/rules/`, `.claude/rules/`, `*.mdc`, `.cursorrules`, `.windsurfrules`,
   `.clinerules`, `.github/instructions/`; Roo Code's and Kilo Code's `.roo/rules/`,
   `.roo/rules-{mode}/`, `.roorules`, `.roorules-{mode}`, `.kilocode/...`, `.kilocoderules`;
   Windsurf's `.windsurf/rules/`; Kiro's `.kiro/steering/`), `instruction` for an agent's
   instruction file (CLAUDE.md, AGENTS.md, GEMINI.md, OpenHands'
   `.openhands/microagents/repo.md`, ...), `note` for a memory file (MEMORY.md,
   `memory-bank/`, a `memory/` folder);
3. none: the fact is scored with the global constants.

A kind's name is lower case, letters, digits, `-` and `_` (any other run of characters
becomes `-`, at most 40 characters), so it is a bare key of the config's
`[freshness.kind.NAME]`. Data is never code: a name is only ever compared and shown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

import numpy as np

NONE = -1  # the code of a fact without a kind
TYPE_FIELDS = ("type", "memory-type", "category", "entity-type")
MAX_NAME = 40
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")

_INSTRUCTION_FILES = frozenset(
    {
        "claude.md",
        "claude.local.md",
        "agents.md",
        "agent.md",
        "gemini.md",
        "crush.md",
        "copilot-instructions.md",
        "codex.md",
    }
)
_RULE_FILES = frozenset({".cursorrules", ".windsurfrules", ".clinerules", ".roorules", ".kilocoderules"})
_MODE_RULE_FILE = re.compile(r"^\.(?:roo|cline|kilocode)rules-.+$")  # a mode's: `.roorules-code`
# a tool's rules folder below its hidden folder, besides any `rules/` (Windsurf's too): Roo
# Code's and Kilo Code's mode rules (`.roo/rules-code/`), Kiro's steering files
_RULE_FOLDER = re.compile(r"/\.(?:roo|kilocode)/rules-[^/]+/|/\.kiro/steering/")


def kind_name(value: str) -> str | None:
    """`value` as a kind's name (lower case, `[a-z0-9_-]`), None when nothing is left."""
    name = re.sub(r"[^a-z0-9_]+", "-", value.strip().lower()).strip("-_")[:MAX_NAME].strip("-_")
    return name or None


def file_role(path: str) -> str | None:
    """`rule`, `instruction` or `note` for a memory file's path, None for any other."""
    p = PurePosixPath(path.replace("\\", "/").lower())
    parts = p.parts
    rooted = f"/{p.as_posix()}"
    if (
        p.name in _RULE_FILES
        or p.suffix == ".mdc"
        or "rules" in parts[:-1]
        or any(part in _RULE_FILES for part in parts[:-1])
        or "/.github/instructions/" in rooted
        or _MODE_RULE_FILE.match(p.name)
        or _RULE_FOLDER.search(rooted)
    ):
        return "rule"
    if p.name in _INSTRUCTION_FILES or rooted.endswith("/.openhands/microagents/repo.md"):
        return "instruction"
    if p.name == "memory.md" or "memory-bank" in parts[:-1] or "memory" in parts[:-1]:
        return "note"
    return None


def kind_of(provenance: Mapping[str, Any] | None) -> str | None:
    """The kind of a fact with this provenance (the module's rules), None for none."""
    if not isinstance(provenance, Mapping):
        return None
    source = provenance.get("x-source")
    if not isinstance(source, str) or not source:
        return None
    types = tuple(provenance.get(f"x-{source}-{field}") for field in TYPE_FIELDS)
    file = provenance.get(f"x-{source}-file")
    try:
        return _kind(types, file)
    except TypeError:  # a list or a mapping where a string was expected: not hashable
        return _kind.__wrapped__(types, file)


@lru_cache(maxsize=4096)
def _kind(types: tuple[Any, ...], file: Any) -> str | None:
    """`kind_of` from the source's type fields and file (a store holds a few distinct ones:
    each is worked out once)."""
    for value in types:
        if isinstance(value, str) and (name := kind_name(value)):
            return name
    return file_role(file) if isinstance(file, str) else None


def read_kinds(store: Any, n: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """Every fact's kind code (by position, `n` facts) and the kinds' names, read from the
    facts' provenance (`Store.own_fields`: the database reads and groups the few fields).
    Call it in the snapshot the facts were loaded from."""
    groups = [
        (pos, _kind(values[:-1], values[-1])) for pos, values in store.own_fields((*TYPE_FIELDS, "file"))
    ]
    names = tuple(sorted({name for _, name in groups if name is not None}))
    at = {name: j for j, name in enumerate(names)}
    out = np.full(n, NONE, dtype=np.int16)
    for pos, name in groups:
        if name is not None:
            pos = pos[(pos >= 0) & (pos < n)]
            out[pos] = at[name]
    return out, names


def with_kinds(store: Any, arrays: Any, config: Any, start: int = 0, read: Any = None) -> Any:
    """`arrays` (facts `start`.. of the store) carrying their kinds when `config` holds
    constants per kind (else as they are: nothing is read). `read`: `read_kinds`' answer for
    the whole store, when the caller has it (a stream of chunks reads it once)."""
    from dataclasses import replace

    if not config.freshness.kind:
        return arrays
    kind, names = read if read is not None else read_kinds(store, start + len(arrays))
    return replace(arrays, kind=kind[start : start + len(arrays)], kind_names=names)
