"""A store on a server answers the reading commands byte for byte as the file it was
copied from: `score --json`, filters, word search, `show --json`, `export`, `export --audit`,
`edges` and `neighbours` (issue 25, point 1). Two stores: the bundled sample, and a small one with an audit log,
supersessions, an undo and a graph."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import config_for
from synapse_tui.core.ingest.sample import ensure_sample
from synapse_tui.core.store.db import Store
from tests.helpers import NOW, json_lines, run, write_jsonl

pytestmark = pytest.mark.postgres

FILTERS = [
    "tier:auto",
    "trust<0.3",
    "-tier:human fresh>0.5",
    "is:superseded",
    "is:head",
    "is:signed",
    "junk:any",
    "band:high",
]
SAMPLE_FILTERS = ["prov:x-ai-agent=synapse-scribe/1.3", "note:note-2024-12-02-juniper-billing-standup"]
# word searches: one word, several (any of them, BM25 over the terms), words with filters
SAMPLE_WORDS = ["billing", "billing standup", "deploy rollback postgres", "-billing payments tier:auto"]
SMALL_WORDS = ["maria", "maria payments", "fact", "api the"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory, new_database):
    """The sample, copied to a file of this module's own and to a server."""
    folder = tmp_path_factory.mktemp("sample")
    path = shutil.copy(ensure_sample(), folder / "sample.db")
    config = shutil.copy(ensure_sample().with_name("sample.synapse.toml"), folder / "sample.synapse.toml")
    url = new_database()
    run("copy", path, url)
    return path, url, config


@pytest.fixture
def triaged(db, new_database):
    """A store with an audit log (an undone action too), a supersession and its graph."""
    run("corroborate", db, "e")
    run("accept", db, "e")
    run("contradict", db, "a")
    run("supersede", db, "c", "d")
    run("verify", db, "b")
    run("undo", db)
    url = new_database()
    run("copy", db, url)
    return db, url, db.with_name("memory.synapse.toml")


def same(file, server, *args) -> str:
    """Run one command on both, check the bytes agree, and return them."""
    on_file = run(*args[:1], file, *args[1:])
    on_server = run(*args[:1], server, *args[1:])
    assert on_server.stdout == on_file.stdout
    assert on_server.stderr == on_file.stderr
    return on_file.stdout


def commands(ids: list[str], filters: list[str], searches: list[str]) -> list[tuple[str, ...]]:
    out = [("score", "--json"), ("score",), ("score", "--sort", "-fresh", "--limit", "20")]
    out += [("export",), ("export", "--audit"), ("edges", "--json", "--lexical"), ("edges",)]
    out += [("neighbours", fid, "--json") for fid in ids] + [("neighbours", ids[0])]
    out += [("show", fid, "--json") for fid in ids]
    out += [("score", "--where", w, "--json") for w in filters + searches]
    out += [("score", "--where", w) for w in searches]  # relevance's order in the table
    return out


def check(file, server, config, ids, filters, searches) -> None:
    for args in commands(ids, filters, searches):
        if args[0] in ("export", "edges"):
            same(file, server, *args)
        else:
            same(file, server, *args, "--now", NOW, "--config", config)


def test_the_small_store_with_audit_and_graph_answers_alike(triaged):
    file, server, config = triaged
    audit = json_lines(same(file, server, "export", "--audit"))
    assert {e["action"] for e in audit} >= {"accept", "supersede", "undo"}
    check(file, server, config, ["a", "b", "c", "d", "e"], FILTERS, SMALL_WORDS)


@pytest.mark.slow  # every filter and word of the sample through the CLI on both: 30 s, 100 s loaded
def test_the_sample_answers_alike(sample):
    file, server, config = sample
    scored = json_lines(same(file, server, "score", "--json", "--now", NOW, "--config", config))
    assert len(scored) == 3461
    ids = [scored[i]["id"] for i in (0, 1, 1000, 3460)]
    check(file, server, config, ids, FILTERS + SAMPLE_FILTERS, SAMPLE_WORDS)


def test_word_search_ranks_alike_at_the_store(sample):
    """The ranking the MCP server's `search` starts from: each term's rows and its BM25."""
    file, server, _ = sample
    terms = ["billing*", "standup*", "the*", "postgres*", "nothingmatches*"]
    with Store.open(file, readonly=True) as f, Store.open(server, readonly=True) as s:
        a, b = f.search_any(terms), s.search_any(terms)
        for x, y in zip((a.pos, a.relevance, a.matched), (b.pos, b.relevance, b.matched), strict=True):
            np.testing.assert_array_equal(x, y)
        assert all(np.array_equal(x, y) for x, y in zip(a.hits, b.hits, strict=True))
        for query in ("billing", "billing standup", "zzz"):
            for x, y in zip(f.search(query, 5), s.search(query, 5), strict=True):
                np.testing.assert_array_equal(x, y)


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")  # its names reader
def test_the_mcp_servers_search_answers_alike(sample):
    """The MCP tool `search` (Recall.search), over a store opened read-only on each."""
    file, server, config = sample
    cfg = config_for(file, config)
    with Store.open(file, readonly=True) as f, Store.open(server, readonly=True) as s:
        on_file, on_server = Recall(f, cfg, Clock.from_option(NOW)), Recall(s, cfg, Clock.from_option(NOW))
        for query in SAMPLE_WORDS + ["tier:auto", "what did we decide about the billing deploy"]:
            assert on_server.search(query, 20) == on_file.search(query, 20)


def test_the_load_is_the_same_arrays(sample):
    file, server, config = sample
    cfg = config_for(file, config)
    with Store.open(file, readonly=True) as f, Store.open(server, readonly=True) as s:
        (ids_f, arrays_f), (ids_s, arrays_s) = f.load(cfg), s.load(cfg)
        assert ids_f == ids_s
        for name in ("r", "s", "declared", "sig_state", "sig_trusted", "created", "events", "offsets"):
            np.testing.assert_array_equal(getattr(arrays_f, name), getattr(arrays_s, name))
        for name in ("o1_count", "supersedes", "deleted", "invalidated", "expired"):
            np.testing.assert_array_equal(getattr(arrays_f, name), getattr(arrays_s, name))


def test_a_fact_added_on_the_server_is_found_by_the_next_search(triaged):
    """The word index this process keeps follows appends (and anything else, by a rebuild)."""
    import psycopg

    _, server, _ = triaged
    with Store.open(server, readonly=True) as s:
        assert len(s.search("zebra")[0]) == 0
        with psycopg.connect(server) as conn:  # another writer
            conn.execute(
                "INSERT INTO facts (id, text, created_at, created_ts, r, s, events)"
                " VALUES ('z', 'a zebra crossing', 't', 0, 0, 0, '\\x0000000000000000')"
            )
        assert s.search("zebra")[0].tolist() == [5]
        assert s.search("maria")[0].tolist() == [0, 1]
        with psycopg.connect(server) as conn:  # not an append: the copy starts again
            conn.execute("DELETE FROM facts WHERE id = 'a'")
        assert s.search("maria")[0].tolist() == [1]
        assert s.search("zebra")[0].tolist() == [5]


def test_a_lines_unknown_keys_are_provenance_on_the_server_too(tmp_path, new_database):
    """SPEC 4: unknown keys are kept verbatim as provenance; `prov:` finds them on a server
    as in the file, and `show` lists them under provenance."""
    db = tmp_path / "m.db"
    lines = [
        {
            "id": "u1",
            "text": "deploys run on Tuesdays",
            "created_at": "2026-10-01T00:00:00Z",
            "x-ai-model": "m1",
        },
        {"id": "u2", "text": "deploys run on Fridays", "created_at": "2026-09-01T00:00:00Z"},
    ]
    run("import", write_jsonl(tmp_path / "f.jsonl", lines), "--db", db)
    url = new_database()
    run("copy", db, url)
    found = json_lines(same(db, url, "score", "--where", "prov:x-ai-model=m1", "--json", "--now", NOW))
    assert [r["id"] for r in found] == ["u1"]
    shown = json_lines(same(db, url, "show", "u1", "--json", "--now", NOW))[0]
    assert shown["provenance"] == {"x-ai-model": "m1"}
