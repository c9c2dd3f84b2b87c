"""The MCP memory server reader, on files in the shape its `saveGraph` writes: every entity
line (`{"type": "entity", "name", "entityType", "observations"}`), then every relation line
(`{"type": "relation", "from", "to", "relationType"}`), joined by newlines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.ingest.adapters import mcp_memory as mm
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.basic_memory_files import sync
from tests.core.mcp_memory_files import ENTITIES, RELATIONS, save
from tests.store_state import exists, mark


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    return save(tmp_path / "memory.jsonl")


def test_observations_become_facts_linked_by_relations(memory):
    snap = mm.read(memory)
    facts = {f.text: f for f in snap.facts}
    assert set(facts) == {"Speaks French", "Prefers morning meetings", "Builds rockets"}
    french = facts["Speaks French"]
    assert french.note == "Alice" and french.entities == ["Alice", "Acme"] and french.tier == "auto"
    assert facts["Builds rockets"].entities == ["Acme", "Alice"]
    assert french.created_at == "2026-05-01T08:00:00Z"
    prov = french.provenance
    assert prov["x-source"] == "mcp-memory" and prov["x-source-id"].startswith("Alice#")
    assert prov["x-mcp-memory-entity-type"] == "person" and prov["x-mcp-memory-relations"] == [
        "works_at Acme"
    ]
    assert prov["x-mcp-memory-time"] == "file modified; creation unknown"
    assert any("1 entities hold no observations" in line for line in snap.left_out)
    assert [f.id for f in mm.read(memory).facts] == [f.id for f in snap.facts]


def test_added_and_deleted_observations_sync(memory, new_store):
    location = new_store("m")
    with Store.open(location, create=True) as store:
        assert sync(store, mm.read(memory)).added == 3
        changed = [
            {**ENTITIES[0], "observations": ["Speaks French", "Moved to Lyon"]},
            ENTITIES[1],
        ]
        save(memory, changed, RELATIONS, mtime="2026-06-01T00:00:00Z")
        snap = mm.read(memory, known=known_facts(store, "mcp-memory"))
        result = sync(store, snap)
        assert (result.added, result.newly_deleted, result.unchanged) == (1, 1, 2)
        moved = next(f for f in snap.facts if f.text == "Moved to Lyon")
        assert moved.created_at == "2026-06-01T00:00:00Z"
        gone = {k.text for k in known_facts(store, "mcp-memory") if k.deleted}
        assert gone == {"Prefers morning meetings"}
        before = mark(location)
        sync(store, mm.read(memory, known=known_facts(store, "mcp-memory")))
        assert mark(location) == before


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"entities": []}\n', "must be 'entity' or 'relation'"),
        ("not json\n", "not JSON; expected the MCP memory server's memory.jsonl"),
        ('{"type": "entity", "name": "A", "observations": "x"}\n', "must be a list of strings"),
        ('{"type": "relation", "from": "A", "to": ""}\n', "must be a non-empty string"),
    ],
)
def test_a_file_that_is_not_the_servers_is_refused(tmp_path, text, expected):
    path = tmp_path / "memory.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match=expected) as err:
        mm.read(path)
    assert err.value.file == str(path) and err.value.line == 1


def test_cli_imports_and_refuses(memory, tmp_path, new_store):
    db = new_store("mm")
    out = json.loads(run("import", "--from", "mcp-memory", memory, "--db", db, "--json").stdout)
    assert (out["system"], out["added"]) == ("mcp-memory", 3)
    again = run("import", "--from", "mcp-memory", memory, "--db", db)
    assert "0 added, 0 newly deleted, 0 re-asserted, 3 unchanged" in again.stdout
    bad = tmp_path / "graph.json"
    bad.write_text('{"entities": [], "relations": []}')
    new = new_store("new")
    line = refused("import", "--from", "mcp-memory", bad, "--db", new)
    assert str(bad) in line and "expected the MCP memory server's memory.jsonl" in line
    assert not exists(new)


def test_line_and_paragraph_separators_inside_strings_are_text(tmp_path):
    """The server writes with JSON.stringify, which leaves U+2028, U+2029 and U+0085 raw in
    strings: the file stays one JSON value per line and is read as the server wrote it."""
    odd = ["Speaks French\u2028and Italian", "Para\u2029graph", "Next\x85line"]
    entities = [{"name": "Ali\u2028ce", "entityType": "person", "observations": odd}]
    path = tmp_path / "memory.jsonl"
    lines = [json.dumps({"type": "entity", **e}, ensure_ascii=False) for e in entities]
    path.write_text("\n".join(lines) + "\r\n", encoding="utf-8")
    snap = mm.read(path)
    assert sorted(f.text for f in snap.facts) == sorted(odd)
    db = tmp_path / "memory.db"
    run("import", "--from", "mcp-memory", path, "--db", db)
    texts = {json.loads(line)["text"] for line in run("export", db).stdout.splitlines()}
    assert texts == set(odd)
