"""The MCP memory server's JSON Lines file, as it writes it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from synapse_tui.core.base.clock import parse_time

ENTITIES = [
    {"name": "Alice", "entityType": "person", "observations": ["Speaks French", "Prefers morning meetings"]},
    {"name": "Acme", "entityType": "organization", "observations": ["Builds rockets"]},
    {"name": "Lyon", "entityType": "city", "observations": []},
]
RELATIONS = [{"from": "Alice", "to": "Acme", "relationType": "works_at"}]


def save(path: Path, entities=ENTITIES, relations=RELATIONS, mtime="2026-05-01T08:00:00Z") -> Path:
    """As the server's saveGraph writes the file: no trailing newline."""
    lines = [json.dumps({"type": "entity", **e}) for e in entities]
    lines += [json.dumps({"type": "relation", **r}) for r in relations]
    path.write_text("\n".join(lines), encoding="utf-8")
    os.utime(path, (parse_time(mtime),) * 2)
    return path
