"""`synapse-tui embed`: its refusals everywhere, the real model where the [embed] extra is."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from synapse_tui.cli import main
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.graph import embed as embedder
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl

TEXTS = [
    "The cat sat on the mat",
    "A cat is sitting on a mat",
    "Quarterly revenue grew by ten percent",
    "Sales rose ten percent this quarter",
]


def run(*args, code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output + result.stderr
    return result


def make_db(tmp_path, texts=TEXTS, embedding=None, name="memory.db"):
    facts = [
        {"id": f"f{i}", "text": t, "created_at": "2026-01-01T00:00:00Z"}
        | ({"embedding": embedding} if embedding else {})
        for i, t in enumerate(texts)
    ]
    db = tmp_path / name
    run("import", write_jsonl(tmp_path / f"{name}.jsonl", facts), "--db", db)
    return db


def model_rows(db) -> int:
    with Store.open(db, readonly=True) as store:
        return store._conn.execute("SELECT count(*) FROM embeddings WHERE kind = 'model'").fetchone()[0]


def test_without_the_extra_one_error_line_names_the_pip_command(tmp_path, monkeypatch):
    db = make_db(tmp_path)
    before = db.read_bytes()
    monkeypatch.setitem(sys.modules, "torch", None)  # as on a machine without the extra
    result = run("embed", db, code=2)
    assert (
        result.stderr
        == 'error: embed needs the [embed] extra (torch is not installed): pip install "synapse-tui[embed]"\n'
    )
    assert result.stdout == "" and db.read_bytes() == before


def test_a_store_with_another_models_embeddings_is_refused(tmp_path):
    db = make_db(tmp_path, embedding=[1.0, 0.5, 0.25])  # came with the facts: a 3-d model
    with Store.open(db) as store, pytest.raises(SynapseError) as exc:
        embedder.check_space(store)
    assert "4 embeddings of dimension 3" in str(exc.value) and "mix two spaces" in str(exc.value)
    with Store.open(make_db(tmp_path, name="plain.db")) as store:
        embedder.check_space(store)  # lexical embeddings only: nothing to mix


def test_the_browser_and_the_cli_never_import_torch():
    code = (
        "import sys, synapse_tui.cli, synapse_tui.ui.app, synapse_tui.core.graph.embed\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in ('torch', 'sentence_transformers'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.fixture
def extra():
    for name in embedder.EXTRA:
        pytest.importorskip(name)


def test_embed_computes_real_sentence_embeddings_once(tmp_path, extra):
    db = make_db(tmp_path)
    assert model_rows(db) == 0
    out = json.loads(run("embed", db, "--json").stdout)
    assert out == {
        "db": str(db),
        "model": "all-MiniLM-L6-v2",
        "dim": 384,
        "embedded": 4,
        "replaced_lexical": 4,
    }
    with Store.open(db, readonly=True) as store:
        dims = {
            len(v) // 4 for (v,) in store._conn.execute("SELECT vec FROM embeddings WHERE kind = 'model'")
        }
        assert dims == {384}
        model = store._conn.execute("SELECT value FROM meta WHERE key = 'embed.model'").fetchone()[0]
        assert json.loads(model) == "all-MiniLM-L6-v2"
    nbrs = json.loads(run("neighbours", db, "f0", "--json").stdout)
    assert nbrs["semantic"][0]["id"] == "f1"  # the paraphrase is the nearest, by meaning
    edges = [
        json.loads(line) for line in run("edges", db, "--kind", "semantic", "--json").stdout.splitlines()
    ]
    assert {(e["a"], e["b"]) for e in edges} >= {("f0", "f1"), ("f2", "f3")}
    assert "nothing to do" in run("embed", db).stdout  # a second run has nothing to do
    more = write_jsonl(
        tmp_path / "more.jsonl",
        [{"id": "f9", "text": "Cats like mats", "created_at": "2026-01-02T00:00:00Z"}],
    )
    run("import", more, "--db", db)
    assert "embedded 1 fact of" in run("embed", db).stdout
    assert model_rows(db) == 5


def test_embed_refuses_a_store_of_another_model_before_computing(tmp_path, extra):
    db = make_db(tmp_path, embedding=[0.1] * 384)  # right dimension, unknown model
    more = write_jsonl(
        tmp_path / "more.jsonl", [{"id": "new", "text": "No vector", "created_at": "2026-01-02T00:00:00Z"}]
    )
    run("import", more, "--db", db)
    before = db.read_bytes()
    result = run("embed", db, code=2)
    assert result.stderr.startswith("error: ") and "did not record" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and db.read_bytes() == before


def test_the_bundled_sample_is_recorded_as_this_models_space(tmp_path):
    from synapse_tui.core.ingest.sample import bundled

    if not (bundled() / "embeddings.f16.npy").exists():
        pytest.skip("the sample's embeddings are not computed")
    path = run("sample").stdout.strip()
    with Store.open(path) as store:
        embedder.check_space(store)  # all-MiniLM-L6-v2, as sample_db/embed.py made them: accepted
        assert embedder.embed_store(store, Config()).embedded == 0  # every fact has one already


def test_a_read_only_store_is_refused_before_any_work(tmp_path):
    db = make_db(tmp_path)
    with Store.open(db, readonly=True) as store, pytest.raises(SynapseError, match="read-only"):
        embedder.embed_store(store, Config())
