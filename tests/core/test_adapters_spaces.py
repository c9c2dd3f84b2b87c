"""One store, one embedding space (SPEC 9), kept by `sync_snapshot` for every adapter.

The first embeddings into a store set its space (`meta` `embed.model`, as `embed` records
its model); embeddings of another space are dropped, never mixed, even at one dimension.
"""

from __future__ import annotations

import pytest

from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import InputError, SynapseError
from synapse_tui.core.graph import embed as embedder
from synapse_tui.core.ingest.adapters import graphiti, known_facts, mem0
from synapse_tui.core.ingest.adapters.sync import sync_snapshot
from synapse_tui.core.ingest.interchange import import_facts, parse_line
from synapse_tui.core.store.db import Store
from tests.core.graphiti_files import ALICE, EDGES, GLOBEX, dump, edge
from tests.core.mem0_files import ev, write_history, write_ts_vectors


def facts_file(*objs: dict) -> list:
    """Facts as an interchange file gives them."""
    return [
        parse_line({"created_at": "2025-01-01T00:00:00Z", **o}, lambda f, m: InputError(m, field=f), n)
        for n, o in enumerate(objs, start=1)
    ]


def model_embeddings(store: Store) -> int:
    return store._conn.execute("SELECT count(*) FROM embeddings WHERE kind = 'model'").fetchone()[0]


def sync_graphiti(store: Store, folder):
    return sync_snapshot(store, graphiti.read(folder, known=known_facts(store, "graphiti")), Config())


def mem0_three_dims(tmp_path):
    """A mem0 history with the TypeScript SDK's vectors beside it, of dimension 3 like the dump's."""
    (tmp_path / "mem0").mkdir()
    history = write_history(
        tmp_path / "mem0" / "history.db",
        [ev("m-1", "ADD", "Alice drinks tea", created="2025-03-01T09:00:00Z")],
        "ts",
    )
    write_ts_vectors(
        tmp_path / "mem0" / "vector_store.db", {"m-1": ([1.0, 0.0, 0.0], {"data": "Alice drinks tea"})}
    )
    return history


@pytest.fixture
def store(new_store):
    """An empty store on this test's backend (a file, a server: `tests/backends.py`)."""
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def test_the_first_embeddings_set_the_space_and_the_same_space_adds_to_it(tmp_path, store):
    folder = dump(tmp_path / "g")
    assert sync_graphiti(store, folder).left_out == graphiti.read(folder).left_out
    assert embedder.recorded_space(store) == "graphiti" and model_embeddings(store) == 3
    later = [
        *EDGES,
        edge(
            "e-more", "Alice visits Globex", ALICE, GLOBEX, "2025-06-01T00:00:00Z", fact_embedding=[0, 1, 0]
        ),
    ]
    result = sync_graphiti(store, dump(folder, edges=later))
    assert result.added == 1 and model_embeddings(store) == 4
    assert not any("not carried over" in line for line in result.left_out)


def test_another_systems_embeddings_of_the_same_dimension_are_dropped_and_said(tmp_path, store):
    sync_graphiti(store, dump(tmp_path / "g"))
    snap = mem0.read(mem0_three_dims(tmp_path))
    assert snap.space == "mem0:vector_store" and snap.facts[0].embedding is not None
    result = sync_snapshot(store, snap, Config())
    assert result.added == 1 and model_embeddings(store) == 3  # the mem0 fact came, its vector did not
    assert store.record("mem0:m-1").text == "Alice drinks tea"
    assert [line for line in result.left_out if "not carried over" in line] == [
        "1 embedding of mem0:vector_store not carried over: the store's 3 embeddings are those of"
        " graphiti, and one store never mixes two spaces (the facts are imported; a store of their"
        " own keeps them)"
    ]
    assert embedder.recorded_space(store) == "graphiti"


def test_a_store_embedded_by_embed_keeps_its_model(tmp_path, store):
    """The state `synapse-tui embed` leaves: model embeddings and the model's name in meta."""
    facts = facts_file(*({"id": f"f{i}", "text": f"fact {i}", "embedding": [1.0, i, 0.5]} for i in range(3)))
    import_facts(store, facts, "facts.jsonl", after_insert=lambda conn, _: embedder.record_model(conn))
    result = sync_graphiti(store, dump(tmp_path / "g"))
    assert result.added == 3 and model_embeddings(store) == 3
    assert any(
        "3 embeddings of graphiti not carried over" in line and embedder.MODEL in line
        for line in result.left_out
    )


def test_embeddings_whose_model_nobody_recorded_are_not_joined(tmp_path, store):
    facts = facts_file({"id": "f1", "text": "from a file", "embedding": [1.0, 0.0, 0.0]})
    import_facts(store, facts, "facts.jsonl")  # an interchange file names no model
    result = sync_graphiti(store, dump(tmp_path / "g"))
    assert model_embeddings(store) == 1
    assert any("of a model it did not record" in line for line in result.left_out)


def test_embed_refuses_a_store_whose_space_an_adapter_set(tmp_path, store):
    sync_graphiti(store, dump(tmp_path / "g"))
    with pytest.raises(SynapseError, match=r"from graphiti \(the space `import --from` recorded\)"):
        embedder.check_space(store)


def test_a_dump_without_embeddings_leaves_the_space_unset(tmp_path, store):
    plain = [{**e, "fact_embedding": None} for e in EDGES]
    sync_graphiti(store, dump(tmp_path / "g", edges=plain))
    assert embedder.recorded_space(store) is None
    sync_snapshot(store, mem0.read(mem0_three_dims(tmp_path)), Config())  # the first embeddings: mem0's
    assert embedder.recorded_space(store) == "mem0:vector_store" and model_embeddings(store) == 1


def test_an_interchange_file_cannot_add_embeddings_to_a_recorded_space(tmp_path, store):
    sync_graphiti(store, dump(tmp_path / "g"))
    before = model_embeddings(store)
    file = facts_file({"id": "x-1", "text": "an embedded fact", "embedding": [0.0, 1.0, 0.0]})
    with pytest.raises(InputError) as refused:
        import_facts(store, file, "more.jsonl")
    assert refused.value.field == "embedding" and "graphiti" in str(refused.value)
    assert model_embeddings(store) == before and store.record("x-1") is None
    # without embeddings the same facts are welcome
    import_facts(store, facts_file({"id": "x-1", "text": "an embedded fact"}), "more.jsonl")
    assert store.record("x-1") is not None
