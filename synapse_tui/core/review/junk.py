"""Junk detectors: exact duplicates, near-duplicate clusters, unsupported claims.

Each returns groups (or lists) of fact ids, sorted, so the browser and the CLI can show
them and tests can compare them. Near-duplicates read the stored semantic edges, so the
graph must be built first (`graph.build.ensure_graph`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from synapse_tui.core.graph.read import semantic_pairs
from synapse_tui.core.store.db import Store


def normalised_text(text: str) -> str:
    return " ".join(text.split()).casefold()


def exact_duplicates(store: Store) -> list[tuple[str, ...]]:
    """Groups of facts whose text is equal after collapsing white space and case-folding."""
    groups: dict[str, list[str]] = {}
    for fid, text in store.id_texts():
        groups.setdefault(normalised_text(text), []).append(fid)
    return _duplicate_groups(groups)


def _duplicate_groups(by_text: dict[str, list[str]]) -> list[tuple[str, ...]]:
    """The ids sharing a normalised text, as sorted tuples, the groups sorted too."""
    return sorted(tuple(sorted(ids)) for ids in by_text.values() if len(ids) > 1)


@dataclass(frozen=True, eq=False)
class TextGroups:
    """The exact-duplicate groups of the facts `ids` names (by position), and the hash of
    each one's normalised text: a reload extends them by the facts appended since (a fact's
    id and text are never rewritten), reading only those texts and their twins'."""

    ids: list[str]
    hashes: np.ndarray  # int64 per position: hash(normalised_text), for this process only
    groups: list[tuple[str, ...]]  # as `exact_duplicates` returns them


def text_groups(
    store: Store, ids: list[str], index: dict[str, int], before: TextGroups | None = None
) -> TextGroups:
    """`exact_duplicates` of the facts `ids` names, from `before` when the store only grew
    since (its facts still first, in order); otherwise from every text."""
    old = 0 if before is None else len(before.ids)
    if before is None or old > len(ids) or (before.ids is not ids and ids[:old] != before.ids):
        return _all_text_groups(store, ids, index)
    if old == len(ids):
        return before if before.ids is ids else TextGroups(ids, before.hashes, before.groups)
    added = np.arange(old, len(ids))
    keys = [normalised_text(t) for t in store.texts(added)]
    fresh = np.fromiter((hash(k) for k in keys), dtype=np.int64, count=len(keys))
    hashes = np.concatenate([before.hashes, fresh])
    # every fact sharing a hash with an appended one (its group's members, and any collision)
    twins = np.flatnonzero(np.isin(before.hashes, fresh))
    regrouped: dict[str, list[str]] = {}
    for p, text in zip(twins.tolist(), store.texts(twins), strict=True):
        regrouped.setdefault(normalised_text(text), []).append(ids[p])
    for p, key in zip(added.tolist(), keys, strict=True):
        regrouped.setdefault(key, []).append(ids[p])
    touched = set(fresh.tolist())
    kept = [g for g in before.groups if int(hashes[index[g[0]]]) not in touched]
    return TextGroups(ids, hashes, sorted(kept + _duplicate_groups(regrouped)))


def _all_text_groups(store: Store, ids: list[str], index: dict[str, int]) -> TextGroups:
    hashes = np.zeros(len(ids), dtype=np.int64)
    groups: dict[str, list[str]] = {}
    for fid, text in store.id_texts():
        if (p := index.get(fid)) is None:  # added after `ids` was read: the next reload's
            continue
        key = normalised_text(text)
        hashes[p] = hash(key)
        groups.setdefault(key, []).append(fid)
    return TextGroups(ids, hashes, _duplicate_groups(groups))


def _components(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """Connected-component label of each of n nodes: the smallest node of its component.

    Vectorised hooking and pointer jumping (no Python loop per edge): each round hooks the
    larger root of every edge under the smaller one, then flattens every path. Labels only
    ever decrease, so no cycle can form, and a few rounds suffice at any size.
    """
    label = np.arange(n, dtype=np.int64)
    while True:
        la, lb = label[a], label[b]
        if np.array_equal(la, lb):
            return label
        np.minimum.at(label, np.maximum(la, lb), np.minimum(la, lb))
        while True:
            up = label[label]
            if np.array_equal(up, label):
                break
            label = up


def near_duplicate_clusters(store: Store, config: Any) -> list[tuple[str, ...]]:
    """Connected components of semantic edges with weight >= graph.near_duplicate_weight."""
    rows = semantic_pairs(store, config.graph.near_duplicate_weight)
    if not rows:
        return []
    ends = np.array(rows, dtype=np.int64)
    nodes, inv = np.unique(ends, return_inverse=True)
    inv = inv.reshape(ends.shape)
    label = _components(inv[:, 0], inv[:, 1], nodes.size)
    ids = store.ids_at([p - 1 for p in nodes.tolist()])
    groups: dict[int, list[str]] = {}
    for fid, lab in zip(ids, label.tolist(), strict=True):
        groups.setdefault(lab, []).append(fid)
    return sorted(tuple(sorted(v)) for v in groups.values())


def unsupported_mask(arrays: Any, config: Any, now: float) -> np.ndarray:
    """Facts declared `auto` with no corroboration, older than graph.unsupported_age_days,
    over a store's loaded arrays (per position): the browser re-checks just the facts a
    triage action touched with it."""
    cutoff = float(now) - float(config.graph.unsupported_age_days) * 86400.0
    return (arrays.declared == 0) & (arrays.r == 0) & (arrays.created < cutoff)
