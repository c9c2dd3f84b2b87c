"""The MCP reference memory server (SPEC 9): its knowledge graph in one JSON Lines file.

The server (modelcontextprotocol/servers, `src/memory`) saves its whole graph on every
change, one object a line: `{"type": "entity", "name", "entityType", "observations": [str]}`
then `{"type": "relation", "from", "to", "relationType"}` (`MEMORY_FILE_PATH`, by default
`memory.jsonl`, `memory.json` in older releases). It keeps no times, no authors and no
versions: observations are only added or deleted, never edited.

Mapping. Each observation is a fact about its entity: the entity is its note and its first
entity, followed by the entities related to it (relations are entity links, not facts), and
its type goes to provenance. The record is `<entity>#<hash of the observation>`. A record
gone from the file is deleted; each fact records the file it came from
(`x-mcp-memory-file`), so two files never delete each other's facts. Times: the file's
modification time, the moment the server last saved (`x-mcp-memory-time`: "file modified;
creation unknown"), since the server records none.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.limits import brief
from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.ingest.adapters import (
    ErrorAt,
    KnownFact,
    Snapshot,
    errors_at,
    fact_id,
    own_key,
    source_provenance,
)
from synapse_tui.core.ingest.interchange import ParsedFact, parse_line

SYSTEM = "mcp-memory"
EXPECTED = "the MCP memory server's memory.jsonl (one entity or relation object a line)"
FILE = own_key(SYSTEM, "file")
FROM_MTIME = "file modified; creation unknown"


def read(source: Path, *, known: list[KnownFact] | None = None) -> Snapshot:
    """The graph as the server last saved it (see the module docstring)."""
    path = Path(source).expanduser()
    entities, relations = _load(path)
    own = str(path.resolve())
    at = format_time(path.stat().st_mtime)
    linked: dict[str, list[str]] = defaultdict(list)
    said: dict[str, list[str]] = defaultdict(list)  # "works_at Acme", for the entity it starts at
    for src, rtype, dst, _ in relations:
        said[src].append(f"{rtype} {dst}")
        for a, b in ((src, dst), (dst, src)):
            if b not in linked[a]:
                linked[a].append(b)
    facts: list[ParsedFact] = []
    for name, etype, observations, line in entities:
        counts: dict[str, int] = {}
        for text in observations:
            digest = hashlib.blake2b(text.encode(), digest_size=6).hexdigest()
            counts[digest] = counts.get(digest, 0) + 1
            # an id is visible text: a name's invisible characters (U+2028...) shown as such
            record = f"{clean(name)}#{digest}" + ("" if counts[digest] == 1 else f"-{counts[digest]}")
            obj: dict[str, Any] = {
                "id": fact_id(SYSTEM, record),
                "text": text,
                "created_at": at,
                "note": name,
                "entities": [name, *linked.get(name, [])],
                "provenance": source_provenance(
                    SYSTEM,
                    record,
                    file=own,
                    entity=name,
                    entity_type=etype,
                    relations=said.get(name),
                    time=FROM_MTIME,
                ),
            }
            facts.append(parse_line(obj, errors_at(path, line), line))
    present = {f.id for f in facts}
    deleted = {
        k.id for k in known or [] if k.provenance.get(FILE) == own and k.id not in present and not k.deleted
    }
    empty = sum(not obs for _, _, obs, _ in entities)
    left_out = [f"{empty} entities hold no observations (an entity alone is not a fact)"] if empty else []
    return Snapshot(SYSTEM, str(path), facts, deleted, left_out)


def _load(path: Path) -> tuple[list[tuple[str, str | None, list[str], int]], list[tuple[str, str, str, int]]]:
    name = str(path)
    if not path.is_file():
        what = "a folder, not a file" if path.is_dir() else "no such file"
        raise InputError(f"{what}; expected {EXPECTED}", file=name)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=name) from None
    except UnicodeDecodeError:
        raise InputError(f"not UTF-8 text; expected {EXPECTED}", file=name) from None
    entities, relations = [], []
    seen: dict[str, int] = {}  # entity name -> the line that holds it
    # lines end at "\n" only: JSON.stringify leaves U+2028, U+2029 and U+0085 raw inside
    # strings, where str.splitlines would break a line
    for n, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        err = errors_at(path, n)
        try:
            item = json.loads(raw)
        except ValueError:
            raise err(None, f"not JSON; expected {EXPECTED}") from None
        if not isinstance(item, dict) or item.get("type") not in ("entity", "relation"):
            got = brief(item.get("type")) if isinstance(item, dict) else brief(item)
            raise err("type", f"must be 'entity' or 'relation', got {got}; expected {EXPECTED}")
        if item["type"] == "entity":
            ename = _string(item, "name", err)
            obs = item.get("observations", [])
            if not isinstance(obs, list) or not all(isinstance(o, str) for o in obs):
                raise err("observations", f"must be a list of strings, got {brief(obs)}")
            etype = item.get("entityType") if isinstance(item.get("entityType"), str) else None
            if ename in seen:
                raise err("name", f"entity {brief(ename)} is also on line {seen[ename]}; each entity once")
            seen[ename] = n
            entities.append((ename, etype, [o for o in obs if o.strip()], n))
        else:
            relations.append(
                (_string(item, "from", err), _string(item, "relationType", err), _string(item, "to", err), n)
            )
    return entities, relations


def _string(item: dict, key: str, err: ErrorAt) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise err(key, f"must be a non-empty string, got {brief(value)}")
    return value
