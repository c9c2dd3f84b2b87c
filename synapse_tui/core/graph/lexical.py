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

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from synapse_tui.core.graph.edges import normalise

# 256 buckets, not 128. On the 3,461 sample facts (exact kNN, k = 10), against the same
# n-grams hashed collision-free (65,536 buckets) and against the all-MiniLM-L6-v2 kNN:
#   DIM   kNN recall vs collision-free   kNN overlap with MiniLM
#   128   0.795                          0.548
#   256   0.848                          0.562
#   512   0.881                          0.564
# 128 would cut the 100k lexical kNN by about 40% (it is matmul-bound) but loses 5 points
# of recall to bucket collisions; 512 doubles the cost for little. 256 is the knee.
DIM = 256
VERSION = f"lexical-ngram{DIM}/1"  # part of the graph's fingerprint: bump on any change
NGRAMS = (3, 4, 5)
_BITS = DIM.bit_length() - 1
_MIX = np.uint64(0x9E3779B97F4A7C15)
_THREADS = min(2, os.cpu_count() or 1)
_BATCH = 512  # texts at a time: their (512, DIM) float64 steps stay in cache (4096: twice the time)


def _normalised(text: str) -> bytes:
    return (" " + " ".join(text.casefold().split()) + " ").encode("utf-8")


def _hashes(buf: np.ndarray, n: int) -> np.ndarray:
    """A 64-bit hash of each n-byte window of buf."""
    return _window_hashes(buf, (n,))[0]


def _window_hashes(buf: np.ndarray, sizes: Sequence[int]) -> list[np.ndarray]:
    """For each n of `sizes`, a 64-bit hash of each n-byte window of buf: FNV-style over
    the window's bytes, then a multiplicative mix. One running FNV state serves every size
    (the state of a window's first n bytes is one step from that of its first n - 1)."""
    out = []
    state = np.full(buf.size, 0xCBF29CE484222325, dtype=np.uint64)
    for j in range(max(sizes, default=0)):
        if buf.size <= j:
            break
        state = state[: buf.size - j] ^ buf[j:]
        state *= np.uint64(0x100000001B3)
        if j + 1 in sizes:
            h = state ^ np.uint64(j + 1)
            h *= _MIX
            h ^= h >> np.uint64(29)
            out.append(h)
    return out


def embed_texts(texts: Sequence[str]) -> np.ndarray:
    """(len(texts), DIM) float32 unit vectors; deterministic across runs and machines.

    Batches are independent, so two threads share them: numpy lets go of the GIL inside
    its loops."""
    out = np.empty((len(texts), DIM), dtype=np.float32)

    def fill(b0: int) -> None:
        out[b0 : b0 + _BATCH] = _embed_batch(texts[b0 : b0 + _BATCH])

    starts = range(0, len(texts), _BATCH)
    if len(starts) > 1 and _THREADS > 1:
        with ThreadPoolExecutor(_THREADS) as pool:
            for _ in pool.map(fill, starts):
                pass
    else:
        for b0 in starts:
            fill(b0)
    return out


def _embed_batch(texts: Sequence[str]) -> np.ndarray:
    parts = [_normalised(t) for t in texts]
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    buf = np.frombuffer(b"".join(parts), dtype=np.uint8).astype(np.uint64)
    doc_of = np.repeat(np.arange(len(parts), dtype=np.int64), lengths)
    room = np.repeat(np.cumsum(lengths), lengths) - np.arange(buf.size)  # bytes left in the text
    slots = []
    for n, h in zip(NGRAMS, _window_hashes(buf, NGRAMS), strict=False):  # sizes longer than buf: none
        inside = np.flatnonzero(room[: h.size] >= n)
        h = h[inside]
        # (text, bucket, sign) as one integer: counting them is exact integer arithmetic,
        # so the signed sums are the same bits as adding +-1.0 one by one
        slots.append(
            ((doc_of[inside] << _BITS) | (h >> np.uint64(64 - _BITS)).astype(np.int64)) << 1
            | (h & 1).astype(np.int64)
        )
    counts = (
        np.bincount(np.concatenate(slots), minlength=2 * len(parts) * DIM)
        if slots
        else np.zeros(2 * len(parts) * DIM, np.int64)
    )
    counts = counts.reshape(len(parts), DIM, 2)
    signed = counts[:, :, 1] - counts[:, :, 0]
    top = int(np.abs(signed).max(initial=0))
    v = np.arange(-top, top + 1, dtype=np.float64)
    tf = (np.sign(v) * np.log1p(np.abs(v)))[signed + top]  # sublinear tf, signed
    empty = ~np.any(tf, axis=1)
    if empty.any():  # no n-gram survived (tiny text, or signs cancelled): one fixed bucket
        for i in np.flatnonzero(empty):
            tf[i, int(_hashes(np.frombuffer(parts[i] * 5, np.uint8).astype(np.uint64), 5)[0] % DIM)] = 1.0
    return normalise(tf)
