"""The bundled sample memory, built into a working copy outside the repository.

Browsing and triaging the sample must never modify the installed package or a checkout,
so the first use imports the bundled JSON Lines into the user's data directory.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import numpy as np

from synapse_tui.core.base.config import config_beside, load_config
from synapse_tui.core.graph.build import update_graph
from synapse_tui.core.graph.edges import normalise
from synapse_tui.core.graph.embed import record_model
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store

SAMPLE_NAME = "sample.db"


def data_dir() -> Path:
    """SYNAPSE_DATA_DIR, else the platform's user data directory."""
    env = os.environ.get("SYNAPSE_DATA_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("synapse-tui", appauthor=False))


def bundled() -> Path:
    return Path(str(resources.files("synapse_tui.sample_db")))


def _fingerprint(src: Path) -> str:
    h = hashlib.sha256()
    for name in ("facts.jsonl", "embeddings.f16.npy", "embeddings.sha256", "sample.synapse.toml"):
        if (src / name).exists():
            h.update((src / name).read_bytes())
    return h.hexdigest()


def _embeddings_match(src: Path) -> bool:
    """The embeddings were computed from exactly this facts.jsonl (else: lexical only)."""
    digest = src / "embeddings.sha256"
    if not digest.exists():
        return False
    expected = digest.read_text().split()[0]
    return hashlib.sha256((src / "facts.jsonl").read_bytes()).hexdigest() == expected


def ensure_sample(progress: Callable[[int, int], None] | None = None) -> Path:
    """Path of the working copy, (re)built when missing or when the bundle changed.

    Built under a temporary name and renamed into place, so an interrupted build never
    leaves a half-made sample where the browser would open it.
    """
    src = bundled()
    dest_dir = data_dir()
    db = dest_dir / SAMPLE_NAME
    stamp = dest_dir / "sample.fingerprint"
    fingerprint = _fingerprint(src)
    if db.exists() and stamp.exists() and stamp.read_text().strip() == fingerprint:
        return db
    dest_dir.mkdir(parents=True, exist_ok=True)
    tmp = dest_dir / (SAMPLE_NAME + ".building")
    for leftover in dest_dir.glob(SAMPLE_NAME + ".building*"):
        leftover.unlink()
    config = load_config(src / "sample.synapse.toml")
    facts = parse_file(src / "facts.jsonl")
    emb_path = src / "embeddings.f16.npy"
    embedded = False
    if emb_path.exists() and _embeddings_match(src):
        emb = normalise(np.load(emb_path))
        if len(emb) == len(facts):
            for fact, vec in zip(facts, emb, strict=True):
                fact.embedding = vec
            embedded = True

    def after_insert(store: Store, new: list[int]) -> None:
        update_graph(store, new, config)
        if embedded:  # made by sample_db/embed.py: `synapse-tui embed` may extend this space
            record_model(store)

    with Store.open(tmp, create=True) as store:
        import_facts(store, facts, str(src / "facts.jsonl"), progress=progress, after_insert=after_insert)
        store.checkpoint()
    shutil.copyfile(src / "sample.synapse.toml", config_beside(db))
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    os.replace(tmp, db)
    stamp.write_text(fingerprint + "\n")
    return db
