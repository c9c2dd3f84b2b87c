"""Adapters: read the memory another system already keeps, as interchange facts (SPEC 9).

Each adapter module exposes `read(source, **options) -> Snapshot`: the whole source as it
stands now, mapped onto SPEC 4, reading the source's own files and writing nothing there.
`sync.sync_snapshot` then makes the store agree with it: new facts are imported, facts the
source deleted get the flag `deleted`, and nothing done here by triage is touched. So a
snapshot must be deterministic: the same source gives the same fact ids, texts and times.

A reader that sees only the source's current state (Basic Memory's notes) is passed
`known`, the facts of its system already in the store, so it can link an edited record to
the version it replaces; readers whose source keeps history (mem0, Graphiti) ignore it.

Fact ids are `<system>:<source record id>` for a record's first version and
`<system>:<source record id>@<n>` for version n >= 2, so a record's versions sort together
and version n+1 names version n in `supersedes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..interchange import ParsedFact
from ..store import Store


@dataclass
class Snapshot:
    """What a source holds now, mapped onto interchange facts."""

    system: str  # "mem0", "basic-memory", "graphiti": the value of x-source
    source: str  # the file or folder read, for messages
    facts: list[ParsedFact]
    deleted: set[str] = field(default_factory=set)  # fact ids the source deleted
    left_out: list[str] = field(default_factory=list)  # what was not read, and why, one line each


def fact_id(system: str, record_id: str, version: int = 1) -> str:
    """The store id of version `version` of a source record."""
    return f"{system}:{record_id}" if version <= 1 else f"{system}:{record_id}@{version}"


@dataclass(frozen=True)
class KnownFact:
    """A fact of one source system already in the store."""

    id: str
    record: str  # x-source-id
    version: int  # x-source-version
    text: str
    note: str | None
    head: bool  # nothing in the store supersedes it
    deleted: bool


def known_facts(store: Store, system: str) -> list[KnownFact]:
    """Every fact in the store that came from `system`, in store order."""
    rows = store.conn.execute(
        "SELECT id, json_extract(provenance, '$.\"x-source-id\"'),"
        " coalesce(json_extract(provenance, '$.\"x-source-version\"'), 1), text, note,"
        " NOT EXISTS (SELECT 1 FROM facts f2 WHERE f2.supersedes = facts.id), deleted"
        " FROM facts WHERE json_extract(provenance, '$.\"x-source\"') = ? ORDER BY pos",
        (system,),
    )
    return [
        KnownFact(fid, str(record), int(version), text, note, bool(head), bool(deleted))
        for fid, record, version, text, note, head, deleted in rows
    ]
