"""The Graphiti reader, on dumps written here in the shapes graphiti-core 0.31 produces.

`EntityEdge.model_dump(mode="json")` gives uuid, group_id, source_node_uuid,
target_node_uuid, created_at ("2025-01-02T03:04:05.123456Z"; naive datetimes dump without
an offset), name, fact, fact_embedding, episodes, expired_at, valid_at, invalid_at,
reference_time, attributes. EntityNode adds name, labels, summary...; EpisodicNode adds
source, content, valid_at.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import graphiti, known_facts
from synapse_tui.core.ingest.adapters.sync import sync_snapshot
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from tests.core.graphiti_files import ACME, ALICE, BOB, EDGES, GLOBEX, dump, edge, facts_of, node


def sync(store: Store, snapshot):
    """The real sync, as `import --from` runs it."""
    return sync_snapshot(store, snapshot, Config())


def test_edges_become_facts_with_corroborations_reinforcements_and_entities(tmp_path):
    snap = graphiti.read(dump(tmp_path / "g"))
    facts = facts_of(snap)
    assert sorted(facts) == ["graphiti:e-bob", "graphiti:e-new", "graphiti:e-old"]
    old = facts["graphiti:e-old"]
    assert old.text == "Alice works at Acme"
    assert old.created_at == "2025-01-02T03:04:05.123456Z"
    assert old.r == 2 and old.s == 0 and old.tier == "auto"  # two episodes re-asserted it
    assert old.reinforced_at == ["2025-02-10T10:00:00Z", "2025-03-01T00:00:00Z"]  # offset converted
    assert old.entities == ["Alice", "Acme"]
    assert old.note == "user-1"
    assert old.provenance["x-source"] == "graphiti"
    assert old.provenance["x-source-id"] == "e-old" and old.provenance["x-source-version"] == 1
    assert old.provenance["x-graphiti-name"] == "WORKS_AT"
    assert old.provenance["x-graphiti-valid-at"] == "2025-01-01T00:00:00Z"  # naive read as UTC
    assert old.provenance["x-graphiti-invalid-at"] == "2025-05-01T00:00:00Z"
    assert old.provenance["x-graphiti-episodes"] == ["ep-1", "ep-2", "ep-3"]
    assert old.provenance["x-graphiti-source-description"] == "chat"  # the first episode's source
    bob = facts["graphiti:e-bob"]
    assert bob.created_at == "2025-01-31T23:00:00Z"  # +01:00 converted to UTC
    assert bob.r == 0 and bob.reinforced_at is None and bob.note == "user-2"
    assert facts["graphiti:e-new"].provenance["x-graphiti-attributes"] == {"role": "engineer"}
    assert snap.left_out == [] and snap.deleted == set()


def test_invalidated_edge_is_superseded_by_the_newer_edge_between_the_same_entities(tmp_path):
    facts = facts_of(graphiti.read(dump(tmp_path / "g")))
    assert facts["graphiti:e-new"].supersedes == "graphiti:e-old"
    assert facts["graphiti:e-old"].supersedes is None and facts["graphiti:e-bob"].supersedes is None


def test_embeddings_are_carried_over_normalised(tmp_path):
    facts = facts_of(graphiti.read(dump(tmp_path / "g")))
    assert np.allclose(facts["graphiti:e-new"].embedding, [0.6, 0.8, 0])
    assert np.allclose(facts["graphiti:e-bob"].embedding, [0, 0, 1])


def test_end_to_end_store_scores_and_a_second_sync_changes_nothing(tmp_path, new_store):
    folder = dump(tmp_path / "g")
    with Store.open(new_store("memory"), create=True) as store:
        sync(store, graphiti.read(folder, known=known_facts(store, "graphiti")))
        assert store.count() == 3
        assert store.superseded_by("graphiti:e-old") == ["graphiti:e-new"]
        assert store._conn.execute("SELECT count(*) FROM embeddings WHERE kind = 'model'").fetchone()[0] == 3
        memory = Memory(store, Config(), parse_time("2025-12-01T00:00:00Z"))
        old = memory.explain("graphiti:e-old")
        assert old["k"] == 1 and old["corroborations"] == 2 and len(old["reinforced_at"]) == 2
        assert old["entities"] == ["Alice", "Acme"]
        sync(store, graphiti.read(folder, known=known_facts(store, "graphiti")))
        assert store.count() == 3


def test_an_edge_gone_from_the_dump_is_deleted_within_the_dumped_groups_only(tmp_path, new_store):
    folder = dump(tmp_path / "g")
    with Store.open(new_store("memory"), create=True) as store:
        sync(store, graphiti.read(folder))
        dump(folder, edges=[EDGES[1]])  # group user-1 without e-old; user-2 not dumped at all
        snap = graphiti.read(folder, known=known_facts(store, "graphiti"))
        assert snap.deleted == {"graphiti:e-old"}
        sync(store, snap)
        flags = {k.id: k.deleted for k in known_facts(store, "graphiti")}
        assert flags == {"graphiti:e-old": True, "graphiti:e-new": False, "graphiti:e-bob": False}


def test_without_side_files_names_and_times_are_missing_not_invented(tmp_path):
    snap = graphiti.read(dump(tmp_path / "g", nodes=False, episodes=False))
    old = facts_of(snap)["graphiti:e-old"]
    assert old.r == 2 and old.reinforced_at is None and not old.reinforced_ts
    assert old.entities is None
    assert any("no nodes.jsonl" in line for line in snap.left_out)
    assert any("no episodes.jsonl: 2 re-assertion(s)" in line for line in snap.left_out)


def test_a_json_list_is_read_like_json_lines(tmp_path):
    lines = graphiti.read(dump(tmp_path / "a"))
    listed = graphiti.read(dump(tmp_path / "b", as_list=True))
    assert [(f.id, f.text, f.supersedes) for f in listed.facts] == [
        (f.id, f.text, f.supersedes) for f in lines.facts
    ]


@pytest.mark.parametrize(
    "setup, expected",
    [
        (lambda root: root / "missing", "no such folder"),
        (lambda root: (root / "f.jsonl").write_text("{}") and root / "f.jsonl", "is a file, not a folder"),
        (lambda root: (root / "empty").mkdir() or root / "empty", "holds no edges.jsonl"),
        (
            lambda root: (
                (root / "none").mkdir() or (root / "none" / "edges.jsonl").write_text("\n") and root / "none"
            ),
            "holds no edges",
        ),
    ],
)
def test_a_source_that_is_not_a_dump_is_refused(tmp_path, setup, expected):
    source = setup(tmp_path)
    with pytest.raises(InputError) as exc:
        graphiti.read(source)
    assert (
        expected in str(exc.value)
        and "EntityEdge" in str(exc.value)
        and exc.value.file.startswith(str(source))
    )


def test_json_of_another_shape_names_file_line_and_missing_field(tmp_path):
    folder = tmp_path / "g"
    folder.mkdir()
    mem0_like = {"id": "m1", "memory": "Alice likes tea", "created_at": "2025-01-01T00:00:00Z"}
    (folder / "edges.jsonl").write_text(json.dumps(EDGES[0]) + "\n" + json.dumps(mem0_like) + "\n")
    with pytest.raises(InputError) as exc:
        graphiti.read(folder)
    assert exc.value.file == str(folder / "edges.jsonl") and exc.value.line == 2 and exc.value.field == "uuid"
    assert "EntityEdge" in str(exc.value)


@pytest.mark.parametrize(
    "bad, field, reason",
    [
        ({"fact": ""}, "fact", "non-empty string"),
        ({"created_at": "yesterday"}, "created_at", "RFC 3339"),
        ({"invalid_at": "soon"}, "invalid_at", "RFC 3339"),
        ({"episodes": "ep-1"}, "episodes", "list of episode uuids"),
        ({"fact_embedding": [0.0, 0.0, 0.0]}, "fact_embedding", "zero vector"),
        ({"fact_embedding": [1.0, 2.0]}, "fact_embedding", "dimension 2, but line 1 has 3"),
        ({"uuid": "e-old"}, "uuid", "duplicate edge"),
    ],
)
def test_one_bad_edge_names_its_line_and_field(tmp_path, bad, field, reason):
    edges = [EDGES[0], {**EDGES[1], **bad}]
    with pytest.raises(InputError) as exc:
        graphiti.read(dump(tmp_path / "g", edges=edges))
    assert (exc.value.line, exc.value.field) == (2, field) and reason in str(exc.value)


def test_bad_side_files_name_their_line(tmp_path):
    folder = dump(tmp_path / "g")
    (folder / "nodes.jsonl").write_text(
        json.dumps(node(ALICE, "Alice")) + "\n" + json.dumps({"uuid": "x"}) + "\n"
    )
    with pytest.raises(InputError) as exc:
        graphiti.read(folder)
    assert (exc.value.file, exc.value.line, exc.value.field) == (str(folder / "nodes.jsonl"), 2, "name")
    (folder / "nodes.jsonl").unlink()
    (folder / "episodes.jsonl").write_text("not json\n")
    with pytest.raises(InputError, match="not valid JSON") as exc:
        graphiti.read(folder)
    assert exc.value.line == 1


def test_invalidation_across_pairs_is_followed_only_when_one_edge_fits(tmp_path):
    acme = edge(
        "e-acme",
        "Alice works at Acme",
        ALICE,
        ACME,
        "2025-01-01T00:00:00Z",
        valid_at="2025-01-01T00:00:00Z",
        invalid_at="2025-06-01T00:00:00Z",
        expired_at="2025-06-01T00:00:05Z",
    )
    globex = edge(
        "e-globex",
        "Alice works at Globex",
        ALICE,
        GLOBEX,
        "2025-06-01T00:00:04Z",
        valid_at="2025-06-01T00:00:00Z",
    )
    facts = facts_of(graphiti.read(dump(tmp_path / "one", edges=[acme, globex])))
    assert facts["graphiti:e-globex"].supersedes == "graphiti:e-acme"
    also = edge(
        "e-bob2", "Alice mentors Bob", ALICE, BOB, "2025-06-01T00:00:04Z", valid_at="2025-06-01T00:00:00Z"
    )
    snap = graphiti.read(dump(tmp_path / "two", edges=[acme, globex, also]))
    assert not any(f.supersedes for f in snap.facts)  # two fit: not guessed
    assert any("1 edge(s) marked invalid" in line for line in snap.left_out)


def test_progress_reports_the_edges_file_read(tmp_path):
    folder = dump(tmp_path / "g")
    calls = []
    graphiti.read(folder, progress=lambda done, total: calls.append((done, total)))
    size = (folder / "edges.jsonl").stat().st_size
    assert calls[-1] == (size, size)


def test_the_default_group_is_read_and_scopes_deletions_like_any_other(tmp_path, new_store):
    """Graphiti names its default group "" on Neo4j and Kuzu (helpers.get_default_group_id):
    a graph that never set a group id is read, its edges with no note."""
    default = [{**e, "group_id": ""} for e in EDGES[:2]]
    folder = dump(tmp_path / "g", edges=[*default, EDGES[2]])
    with Store.open(new_store("memory"), create=True) as store:
        sync(store, graphiti.read(folder))
        old = store.record("graphiti:e-old")
        assert old.note is None and old.provenance["x-graphiti-group-id"] == ""
        dump(folder, edges=[default[1]])  # the default group without e-old; user-2 not dumped
        snap = graphiti.read(folder, known=known_facts(store, "graphiti"))
        assert snap.deleted == {"graphiti:e-old"}
