"""Sources an attacker wrote: a Qdrant folder whose pickles run code, a note linked out of
its folder, front matter that expands to gigabytes. Each is read without harm or refused."""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import basic_memory, mem0, mem0_vectors
from tests.core.mem0_files import ev, story, write_history


@pytest.fixture(autouse=True)
def _no_home_mem0(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


class _Opens:
    """What an attacker pickles: loading it would call open(path, "w")."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def qdrant_folder(folder: Path, blobs: list[bytes], collection: str = "mem0") -> Path:
    """Qdrant's local layout (qdrant_client/local/persistence.py), rows written by hand."""
    storage = folder / "collection" / collection
    storage.mkdir(parents=True)
    config = {"vectors": {"size": 3, "distance": "Cosine"}}
    (folder / "meta.json").write_text(json.dumps({"collections": {collection: config}, "aliases": {}}))
    conn = sqlite3.connect(storage / "storage.sqlite")
    conn.execute("CREATE TABLE points (id TEXT PRIMARY KEY, point BLOB)")
    conn.executemany("INSERT INTO points VALUES (?, ?)", [(str(i), b) for i, b in enumerate(blobs)])
    conn.commit()
    conn.close()
    return folder


def real_qdrant_folder(folder: Path) -> tuple[Path, str]:
    qc = pytest.importorskip("qdrant_client")
    from qdrant_client.models import Distance, PointStruct, VectorParams

    client = qc.QdrantClient(path=str(folder))
    client.create_collection("mem0", vectors_config=VectorParams(size=3, distance=Distance.COSINE))
    dog = str(uuid.uuid5(uuid.NAMESPACE_URL, "dog"))
    client.upsert("mem0", [PointStruct(id=dog, vector=[1, 0, 0], payload={"data": "v1", "user_id": "a"})])
    client.upsert(
        "mem0", [PointStruct(id=dog, vector=[0, 1, 0], payload={"data": "Rex", "user_id": "alice"})]
    )
    client.close()
    return folder, dog


@pytest.mark.parametrize("nested", [False, True])
def test_a_pickle_that_runs_code_is_refused_and_never_run(tmp_path, nested):
    pwned = tmp_path / "PWNED"
    attack = _Opens(pwned)
    blob = pickle.dumps({"id": "x", "payload": {"data": attack}} if nested else attack)
    folder = qdrant_folder(tmp_path / "qdrant", [blob])
    history = write_history(tmp_path / "history.db", story())
    with pytest.raises(
        InputError, match=r"refused, it names (builtins|io)\.open, which is not a Qdrant point"
    ) as err:
        mem0.read(history, vectors=folder)
    assert not pwned.exists()
    assert "\n" not in str(err.value) and "storage.sqlite" in str(err.value)


def test_the_real_format_is_read_without_qdrant_client(tmp_path, monkeypatch):
    folder, dog = real_qdrant_folder(tmp_path / "qdrant")
    monkeypatch.setitem(sys.modules, "qdrant_client", None)  # importing it would fail
    history = write_history(tmp_path / "history.db", [ev(dog, "ADD", "Rex", created="2025-01-01T00:00:00Z")])
    fact = mem0.read(history, vectors=folder).facts[0]
    assert fact.note == "alice" and np.allclose(fact.embedding, [0, 1, 0])  # the latest write


def test_mem0s_default_tmp_qdrant_is_never_read_unless_named(tmp_path, monkeypatch):
    """Anyone can create /tmp/qdrant: an import that did not name it must not touch it."""
    pwned = tmp_path / "PWNED"
    folder = qdrant_folder(tmp_path / "tmp-qdrant", [pickle.dumps(_Opens(pwned))])
    assert mem0_vectors.default_location(tmp_path / "history.db", typescript=False) is None
    monkeypatch.chdir(folder.parent)
    snap = mem0.read(write_history(tmp_path / "history.db", story()))
    assert len(snap.facts) == 4 and not pwned.exists()
    assert any(
        "--vectors DIR; mem0's default /tmp/qdrant is read only when named" in ln for ln in snap.left_out
    )


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a folder away"
)
def test_a_vector_store_owned_by_another_user_is_refused(tmp_path):
    folder, _ = real_qdrant_folder(tmp_path / "qdrant")
    os.chown(folder, 12345, 12345)
    with pytest.raises(InputError, match=r"owned by another user \(uid 12345\)"):
        mem0.read(write_history(tmp_path / "history.db", story()), vectors=folder)


def test_a_world_writable_vector_store_is_refused(tmp_path):
    folder = qdrant_folder(tmp_path / "qdrant", [])
    folder.chmod(0o777)
    with pytest.raises(InputError, match=r"anyone may write to it"):
        mem0.read(write_history(tmp_path / "history.db", story()), vectors=folder)


def test_a_collection_name_cannot_lead_out_of_the_folder(tmp_path):
    elsewhere = qdrant_folder(tmp_path / "elsewhere", [pickle.dumps(_Opens(tmp_path / "PWNED"))], "c")
    folder = qdrant_folder(tmp_path / "qdrant", [])
    (folder / "meta.json").write_text(json.dumps({"collections": {"../../elsewhere/collection/c": {}}}))
    assert (folder / "collection" / "../../elsewhere/collection/c" / "storage.sqlite").is_file()
    with pytest.raises(InputError, match="points outside the folder"):
        mem0.read(write_history(tmp_path / "history.db", story()), vectors=folder)
    assert elsewhere.is_dir() and not (tmp_path / "PWNED").exists()


# -- Basic Memory ------------------------------------------------------------------------


NOTE = "---\ntitle: {title}\n---\n\n## Observations\n- [fact] {text}\n"


def test_notes_linked_out_of_the_folder_are_skipped_and_named(tmp_path):
    notes, outside = tmp_path / "notes", tmp_path / "outside"
    notes.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text(NOTE.format(title="Secret", text="the root password is hunter2"))
    (outside / "more").mkdir()
    (outside / "more" / "keys.md").write_text(NOTE.format(title="Keys", text="an API key"))
    (notes / "own.md").write_text(NOTE.format(title="Own", text="Maria owns the Payments API"))
    (notes / "leak.md").symlink_to(outside / "secret.md")
    (notes / "dir").symlink_to(outside / "more")
    snap = basic_memory.read(notes)
    texts = {f.text for f in snap.facts}
    assert texts == {"Maria owns the Payments API"}
    assert "leak.md: a link leaving the folder; not read" in snap.left_out
    assert "dir: a link leaving the folder; not read" in snap.left_out


def test_a_link_inside_the_folder_is_read(tmp_path):
    notes = tmp_path / "notes"
    (notes / "real").mkdir(parents=True)
    (notes / "real" / "a.md").write_text(NOTE.format(title="A", text="PKCE for auth"))
    (notes / "b.md").symlink_to("real/a.md")
    snap = basic_memory.read(notes)
    assert [f.text for f in snap.facts] == ["PKCE for auth", "PKCE for auth"]  # a.md and b.md
    assert not any("leaving" in line for line in snap.left_out)


def test_a_yaml_alias_bomb_is_left_out_in_bounded_time(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    (notes / "bomb.md").write_text("---\n" + "\n".join(levels) + "\ntitle: *a8\n---\n\n- [fact] boom\n")
    started = time.monotonic()
    snap = basic_memory.read(notes)  # the title never turned into text: the file's name used
    assert time.monotonic() - started < 5
    assert [f.text for f in snap.facts] == ["boom"]
    assert (
        "bomb.md:11: front matter 'title' is a nested list, not text; the file's name used" in snap.left_out
    )


@pytest.mark.parametrize("title", ["[Payments, API]", "Payments API", "2025"])
def test_plain_titles_and_lists_of_them_are_read(tmp_path, title):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "n.md").write_text(NOTE.format(title=title, text="Maria owns it"))
    assert [f.text for f in basic_memory.read(notes).facts] == ["Maria owns it"]
