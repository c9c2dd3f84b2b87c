"""The built-in lexical embedder for facts that came without an embedding.

Hashed character n-grams (3, 4 and 5 bytes of the UTF-8 of the case-folded,
whitespace-collapsed text, padded with a space so word starts and ends count), signed
feature hashing into DIM buckets, sublinear term frequency, L2-normalised. It is a pure
function of one text: nothing is fitted on the corpus (no IDF, no learned projection), so
a fact's vector never changes when others are added, which keeps the incremental graph
update exact. Its vectors live in their own kNN space ('lexical'), never mixed with model
embeddings.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from synapse_tui.core.graph import normalise

DIM = 256
VERSION = f"lexical-ngram{DIM}/1"  # part of the graph's fingerprint: bump on any change
NGRAMS = (3, 4, 5)
_BITS = DIM.bit_length() - 1
_MIX = np.uint64(0x9E3779B97F4A7C15)
_BATCH = 4096


def _normalised(text: str) -> bytes:
    return (" " + " ".join(text.casefold().split()) + " ").encode("utf-8")


def _hashes(buf: np.ndarray, n: int) -> np.ndarray:
    """A 64-bit hash of each n-byte window of buf (FNV-style, then a multiplicative mix)."""
    h = np.full(buf.size - n + 1, 0xCBF29CE484222325, dtype=np.uint64)
    for off in range(n):
        h = (h ^ buf[off : buf.size - n + 1 + off]) * np.uint64(0x100000001B3)
    h ^= np.uint64(n)
    h = h * _MIX
    return h ^ (h >> np.uint64(29))


def embed_texts(texts: Sequence[str]) -> np.ndarray:
    """(len(texts), DIM) float32 unit vectors; deterministic across runs and machines."""
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for b0 in range(0, len(texts), _BATCH):
        out[b0 : b0 + _BATCH] = _embed_batch(texts[b0 : b0 + _BATCH])
    return out


def _embed_batch(texts: Sequence[str]) -> np.ndarray:
    parts = [_normalised(t) for t in texts]
    lengths = np.fromiter((len(p) for p in parts), dtype=np.int64, count=len(parts))
    ends = np.cumsum(lengths)
    buf = np.frombuffer(b"".join(parts), dtype=np.uint8).astype(np.uint64)
    doc_of = np.repeat(np.arange(len(parts), dtype=np.int64), lengths)
    acc = np.zeros(len(parts) * DIM, dtype=np.float64)
    for n in NGRAMS:
        if buf.size < n:
            continue
        h = _hashes(buf, n)
        start = np.arange(h.size)
        doc = doc_of[: h.size]
        inside = start + n <= ends[doc]
        h, doc = h[inside], doc[inside]
        bucket = (h >> np.uint64(64 - _BITS)).astype(np.int64)
        sign = np.where((h & np.uint64(1)) == 1, 1.0, -1.0)
        acc += np.bincount(doc * DIM + bucket, weights=sign, minlength=acc.size)
    tf = acc.reshape(len(parts), DIM)
    tf = np.sign(tf) * np.log1p(np.abs(tf))
    empty = ~np.any(tf, axis=1)
    if empty.any():  # no n-gram survived (tiny text, or signs cancelled): one fixed bucket
        for i in np.flatnonzero(empty):
            tf[i, int(_hashes(np.frombuffer(parts[i] * 5, np.uint8).astype(np.uint64), 5)[0] % DIM)] = 1.0
    return normalise(tf)
