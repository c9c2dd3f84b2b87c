"""`embed` on a server writes the model's vectors into the server's store and builds, then
extends, the neighbour graph there: afterwards `edges`, `neighbours` and `score --json`
answer byte for byte as on the file the store was copied from, after the same embed; its
messages and refusals are the file's, with the server's location in place of the path and
never its password (issue 25).

The model is all-MiniLM-L6-v2 where the [embed] extra is installed (as in
tests/cli/test_embed.py); everywhere, also a deterministic stand-in for the encoder
(tests/core/graph_stores.fake_model, as test_hostile_integrity_cli.py uses it), since what
differs on a server is the store's side of embed, not the model's."""

from __future__ import annotations

import json
import sys

import pytest

from synapse_tui.core.graph import embed as embedder
from synapse_tui.core.store.db import Store
from tests.core.graph_stores import fake_model
from tests.helpers import NOW, json_lines, run, write_jsonl

pytestmark = pytest.mark.postgres

PAIRS = [
    "The cat sat on the mat",
    "A cat is sitting on a mat",
    "Quarterly revenue grew by ten percent",
    "Sales rose ten percent this quarter",
]


def facts(texts: list[str], prefix: str = "f", day: str = "01") -> list[dict]:
    return [
        {"id": f"{prefix}{i}", "text": t, "created_at": f"2026-01-{day}T00:00:00Z"}
        for i, t in enumerate(texts)
    ]


@pytest.fixture(params=["stand-in", "all-MiniLM-L6-v2"])
def model(request, monkeypatch) -> str:
    if request.param == "stand-in":
        monkeypatch.setattr(embedder, "missing_extra", lambda: None)
        monkeypatch.setattr(embedder, "encode", fake_model)
    else:
        for name in embedder.EXTRA:
            pytest.importorskip(name)
    return request.param


def file_and_server(tmp_path, new_database, objs: list[dict]) -> tuple[str, str, str]:
    """A file holding `objs`, and its copy on a new database: the file, the server's URL
    with a password in it (the test server trusts its socket), and the URL as shown."""
    db = tmp_path / "memory.db"
    run("import", write_jsonl(tmp_path / "facts.jsonl", objs), "--db", db)
    url = new_database()
    run("copy", db, url)
    return str(db), url.replace("postgres:@", "postgres:hunter2@"), url.replace("postgres:@", "postgres@")


def same(file, server, *args) -> str:
    on_file, on_server = run(*args[:1], file, *args[1:]), run(*args[:1], server, *args[1:])
    assert on_server.stdout == on_file.stdout and on_server.stderr == on_file.stderr
    return on_file.stdout


def graph_answers(file, server, ids) -> list[str]:
    out = [same(file, server, "edges", "--json", "--lexical"), same(file, server, "edges")]
    out += [same(file, server, "neighbours", fid, "--json") for fid in ids]
    out.append(same(file, server, "score", "--json", "--now", NOW))
    return out


def embed_both(file, server, shown, *args) -> str:
    """embed on both: the same answer, but for where; the file's answer returned."""
    on_file, on_server = run("embed", file, *args), run("embed", server, *args)
    assert "hunter2" not in on_server.output
    assert on_server.stdout.replace(shown, file) == on_file.stdout and on_server.stderr == on_file.stderr
    return on_file.stdout


def test_embed_on_a_server_writes_what_it_writes_on_a_file(model, tmp_path, new_database):
    texts = PAIRS + [f"fact {i} on topic {i % 9}" for i in range(60)]
    file, server, shown = file_and_server(tmp_path, new_database, facts(texts))
    ids = ["f0", "f2", "f10", "f63"]
    before = graph_answers(file, server, ids)

    out = json.loads(embed_both(file, server, shown, "--json"))
    assert out == {
        "db": file,
        "model": "all-MiniLM-L6-v2",
        "dim": 384,
        "embedded": 64,
        "replaced_lexical": 64,
        "graph_updated": True,
    }
    after = graph_answers(file, server, ids)
    assert after[0] != before[0]  # the graph is the model's now, on both
    with Store.open(server, readonly=True) as store:
        assert store.meta(embedder.META_KEY) == "all-MiniLM-L6-v2"
    semantic = json.loads(after[2])["semantic"]
    assert semantic and not any(n["lexical"] for n in semantic)
    if model != "stand-in":
        assert semantic[0]["id"] == "f1"  # the paraphrase is the nearest, by meaning

    assert "already has a model embedding; nothing to do" in embed_both(file, server, shown)

    more = facts(["Cats like mats", "Revenue went up this quarter", "fact 99 on topic 3"], "g", "02")
    more_file = write_jsonl(tmp_path / "more.jsonl", more)
    run("import", more_file, "--db", file)
    run("import", more_file, "--db", server)
    assert embed_both(file, server, shown).startswith(f"embedded 3 facts of {file} with all-MiniLM-L6-v2")
    extended = graph_answers(file, server, ids + ["g0", "g1", "g2"])
    assert json_lines(extended[0]) != json_lines(after[0])  # the new facts joined the graph


def test_a_store_of_another_models_space_is_refused_alike(model, tmp_path, new_database):
    with_vectors = [f | {"embedding": [1.0, 0.5, 0.25]} for f in facts(PAIRS)]
    file, server, shown = file_and_server(tmp_path, new_database, with_vectors)
    more_file = write_jsonl(tmp_path / "more.jsonl", facts(["No vector here"], "n", "02"))
    run("import", more_file, "--db", file)
    run("import", more_file, "--db", server)
    exported = same(file, server, "export")
    on_file, on_server = run("embed", file, ok=False), run("embed", server, ok=False)
    assert on_file.exit_code == on_server.exit_code == 2 and on_server.stdout == ""
    (line,) = on_server.stderr.splitlines()
    assert line == on_file.stderr.strip().replace(file, shown)
    assert "4 embeddings of dimension 3" in line and "mix two spaces" in line and "hunter2" not in line
    assert same(file, server, "export") == exported  # nothing written on either


def test_without_the_extra_a_server_is_told_what_a_file_is(tmp_path, new_database, monkeypatch):
    file, server, _ = file_and_server(tmp_path, new_database, facts(PAIRS))
    monkeypatch.setitem(sys.modules, "torch", None)  # as on a machine without the extra
    on_file, on_server = run("embed", file, ok=False), run("embed", server, ok=False)
    assert on_server.exit_code == on_file.exit_code == 2
    assert on_server.stderr == on_file.stderr
    assert on_server.stderr.startswith("error: embed needs the [embed] extra")
