"""A scored view of a store: what the CLI prints and the browser shows.

Loading reads the store once; rescoring for another `now` (the browser's "as of") reuses
the arrays and the supersession depths. Loading and `explain` each read one snapshot of
the store (`Store.snapshot`), so a writer in another process never makes them fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields, replace
from typing import Any

import numpy as np

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.graph.read import GRAPH_INFO, graph_info_of
from synapse_tui.core.store.api import Store
from synapse_tui.core.store.db import FactRecord
from synapse_tui.core.store.ops import DataVersion, Detail, Inputs, Op
from synapse_tui.core.trust.kinds import read_kinds, with_kinds
from synapse_tui.core.trust.row import row_json, score_json
from synapse_tui.core.trust.score import (
    CAUTION_DELETED,
    FLAG_DELETED,
    GUIDANCE,
    GUIDANCE_ADVICE,
    HUMAN,
    SIG_VALID,
    SIGNED,
    FactArrays,
    Scores,
    kind_constants,
    review_due,
    score,
    supersession_depth,
)

_SCORE_ARRAYS = tuple(f.name for f in fields(Scores) if f.name != "now")


class Memory:
    """Ids, inputs and scores of every fact of a store at one instant."""

    scores: Scores
    # the second score buffer a refresh writes into (`ready_spare`), and the positions
    # in it that are behind `scores`
    _spare: Scores | None
    _stale: np.ndarray

    def __init__(self, store: Store, config: Config, now: float) -> None:
        self.store = store
        self.config = config
        self.reload(now)

    def reload(self, now: float | None = None) -> None:
        with self.store.snapshot():
            self.ids, self.arrays = self.store.load(self.config)
            self.arrays = with_kinds(self.store, self.arrays, self.config)  # constants per kind
            self.version = self.store.data_version()
        self._index: tuple[list[str], dict[str, int]] | None = None
        self.k = supersession_depth(self.arrays.supersedes)
        self._supersessors: dict[int, set[int]] | None = None
        self.rescore(self.scores.now if now is None else now)

    @property
    def index(self) -> dict[str, int]:
        """Position by fact id, built on first use: at a million facts it takes longer than
        the load, and neither the first page nor `score --json` needs it. Kept beside the
        ids it was built from, so a reload in another thread never pairs new ids with an
        old index."""
        ids, built = self.ids, self._index
        if built is None or built[0] is not ids:
            built = self._index = (ids, dict(zip(ids, range(len(ids)), strict=True)))
        return built[1]

    def refresh(
        self, fact_ids: list[str], now: float | None = None, inputs: dict[int, Inputs] | None = None
    ) -> np.ndarray:
        """Re-read a few facts after a write (triage) and rescore only what it changed.

        Rescored: the facts themselves and the facts whose supersession depth their new
        `supersedes` changes (down each chain, stopping where a depth holds). Returns the
        positions whose score changed, ascending, so a view can patch rows and counts.
        Nothing proportional to the store is copied: changed event lists go to
        `arrays.moved`, and the scores are double-buffered: the `Scores` object from before
        the call stays as it was (a caller may compare before and after) until the
        following refresh reuses its arrays. The second buffer is allocated by the first
        refresh after a load or a full rescore (one copy of the score arrays, then none).

        `now`, when the clock moved since the last full rescore: the changed facts are
        scored at it, so an action's own new events are never "in the future"
        (`clock_skew`), and `scores.now` becomes it; every other fact keeps its score for the
        earlier instant (`mixed` says so) until `rescore` brings them all to one. At a
        million facts a full rescore costs about 0.1 s, more than a keypress may.

        `inputs`: the facts' `Store.fact_inputs`, when the caller read them already.
        """
        rows = self.store.fact_inputs(fact_ids, self.config) if inputs is None else inputs
        a = self.arrays
        retargeted: list[int] = []
        for i, (_, r, s, declared, sig_state, trusted, o1, sup, deleted, events) in rows.items():
            a.r[i], a.s[i], a.declared[i], a.sig_state[i] = r, s, declared, sig_state
            a.sig_trusted[i], a.o1_count[i] = trusted, o1
            if a.deleted is not None:
                a.deleted[i] = deleted
            if sup != a.supersedes[i]:
                retargeted += self._retarget(i, sup)
            old = a.events_of(i)
            if len(events) != len(old) or not np.array_equal(events, old):
                a.moved[i] = events
                a.created[i] = events[0]
        touched = set(rows) | self._redepth(retargeted)
        idx = np.fromiter(sorted(touched), dtype=np.int64, count=len(touched))
        return self._patch_scores(idx, self.scores.now if now is None else now)

    def score_at(self, positions: np.ndarray, now: float) -> None:
        """Score just these facts at `now` (inputs unchanged), so an answer about them is of
        the instant it is made; the others keep their instant until a full `rescore`."""
        idx = np.unique(np.asarray(positions, dtype=np.int64))
        if idx.size and (now != self.scores.now or self.mixed):
            self._patch_scores(idx, now)

    def _retarget(self, i: int, target: int) -> list[int]:
        """Point fact i at `target`; the facts whose set of supersessors changed."""
        sup_of = self._supersessor_map()
        old = int(self.arrays.supersedes[i])
        if old >= 0:
            sup_of[old].discard(i)
        if target >= 0:
            sup_of.setdefault(target, set()).add(i)
        self.arrays.supersedes[i] = target
        return [t for t in (old, target) if t >= 0]

    def _supersessor_map(self) -> dict[int, set[int]]:
        """Who supersedes each fact; built on the first change of a `supersedes`."""
        if self._supersessors is None:
            sup = self.arrays.supersedes
            named = np.flatnonzero(sup >= 0)
            self._supersessors = {}
            for src, dst in zip(named.tolist(), sup[named].tolist(), strict=True):
                self._supersessors.setdefault(dst, set()).add(src)
        return self._supersessors

    def _redepth(self, starts: list[int]) -> set[int]:
        """Recompute depths down the chains from `starts` (SPEC 2.3); the facts that moved.

        A depth depends only on the fact's supersessors, so a change flows down its
        `supersedes` chain and stops at the first fact whose depth holds.
        """
        sup_of, k, sup = self._supersessor_map(), self.k, self.arrays.supersedes
        changed: set[int] = set()
        for j in starts:
            for _ in range(len(k)):
                kids = sup_of.get(j)
                depth = 1 + min(int(k[c]) for c in kids) if kids else 0
                if depth == k[j]:
                    break
                k[j] = depth
                changed.add(j)
                j = int(sup[j])
                if j < 0:
                    break
        return changed

    def _patch_scores(self, idx: np.ndarray, now: float) -> np.ndarray:
        cur = self.scores
        if idx.size == 0:  # none of the ids is in the store any more
            return idx
        sub = score(self.arrays.rows(idx), self.config, now, self.k[idx])
        target, stale = self.ready_spare(), self._stale
        moved = np.zeros(idx.size, dtype=bool)
        for name in _SCORE_ARRAYS:
            out, now_vals, new = getattr(target, name), getattr(cur, name), getattr(sub, name)
            out[stale] = now_vals[stale]
            out[idx] = new
            moved |= new != now_vals[idx]
        if now != cur.now:
            self.mixed = True  # the facts not patched keep the earlier instant's scores
        if now != target.now:  # the spare buffer was last current at another instant
            target = replace(target, now=now)
        self._spare, self._stale, self.scores = cur, idx, target
        return idx[moved]

    def rescore(self, now: float, spare: bool = False) -> None:
        """Score every fact at `now`; `spare`: and `ready_spare`."""
        self.arrays = self.arrays.compacted()
        if self.config.freshness.kind and self.arrays.kind is None:  # kinds configured since the load
            with self.store.snapshot():
                self.arrays = with_kinds(self.store, self.arrays, self.config)
        self.scores = score(self.arrays, self.config, now, self.k.copy())
        self.mixed = False  # every fact is scored at scores.now
        self._spare = None
        self._stale = np.empty(0, np.int64)
        if spare:
            self.ready_spare()

    def ready_spare(self) -> Scores:
        """The second score buffer a refresh writes into, allocated if it is missing. A
        worker calls it ahead of the first action, which otherwise pays for it (about 0.1 s
        at a million facts)."""
        if self._spare is None:
            self._spare = replace(self.scores, **{f: getattr(self.scores, f).copy() for f in _SCORE_ARRAYS})
            self._stale = np.empty(0, np.int64)
        return self._spare

    def __len__(self) -> int:
        return len(self.ids)

    def row(self, i: int) -> dict[str, Any]:
        """The `score --json` object of fact i (SPEC 6), full floats."""
        return row_json(self.ids[i], self.scores, i)

    def rows(self, positions: np.ndarray | None = None) -> list[dict[str, Any]]:
        """The `score` objects of `positions` (default: every fact); `score --json` asks
        for a chunk at a time."""
        at = np.arange(len(self.ids)) if positions is None else np.asarray(positions, dtype=np.int64)
        return score_json(self.ids, self.scores, at)

    def what_if(self, i: int) -> dict[str, float]:
        """Trust after each triage move, so the detail view can say what would help."""
        now = self.scores.now
        a = self.arrays
        o1 = int(a.o1_count[i])

        def trust_of(**changes: Any) -> float:
            one: FactArrays = a.take(i, **changes)
            return float(score(one, self.config, now, self.k[i : i + 1]).trust[0])

        reinforce = {"o1_count": o1 + 1} if o1 else {"extra_events": [now]}
        moves = {
            "corroborate": trust_of(r=int(a.r[i]) + 1, **reinforce),
            "verify": trust_of(**reinforce),
            "contradict": trust_of(s=int(a.s[i]) + 1),
        }
        if a.declared[i] == 0 and not (a.sig_trusted[i] and a.sig_state[i] == SIG_VALID):
            moves["accept"] = trust_of(declared=HUMAN)
        if self.scores.tier[i] != SIGNED and self.config.trust.signers:  # no trusted key: no way to sign
            moves["sign"] = trust_of(sig_state=SIG_VALID, sig_trusted=True)
        return moves

    def review_due(self, i: int) -> str:
        return format_time(review_due(self.arrays, i, self.config))

    def older(self, i: int) -> list[str]:
        """The versions fact i replaces, transitively, newest first."""
        older: list[str] = []
        j = int(self.arrays.supersedes[i])
        while j >= 0 and len(older) < len(self.ids):
            older.append(self.ids[j])
            j = int(self.arrays.supersedes[j])
        return older

    def explain(self, fact_id: str) -> dict[str, Any] | None:
        """The `show --json` object: every score field plus the record and its history.

        Scores and record come from one state of the store. When another process has
        written since this view was loaded, the fact is explained from a fresh load of the
        current snapshot, leaving this view (which other readers share) as it is until
        its owner reloads."""
        with self.store.snapshot():
            # the check and what the fact is explained with asked together: the detail is
            # what this view explains with, unless another process wrote (then a fresh load
            # reads its own)
            version, *read = self.store.batch([DataVersion(), *self.explain_reads(fact_id)])
            if version != self.version:
                return Memory(self.store, self.config, self.scores.now).explained(fact_id)
            return self.explained(fact_id, read)

    def explain_reads(self, fact_id: str) -> list[Op[Any]]:
        """What `explained` explains a fact with beside this view's scores, as reads to ask
        with others (`Store.batch`): how the graph was built and the fact's detail."""
        return [GRAPH_INFO, Detail(fact_id)]

    def explained(self, fact_id: str, read: list[Any] | None = None) -> dict[str, Any] | None:
        """`explain` from this view's scores and `read`, the answers of `explain_reads` asked
        in the state these scores are of (None: asked now)."""
        meta, detail = self.store.batch(self.explain_reads(fact_id)) if read is None else read
        graph = graph_info_of(meta)
        rec: FactRecord | None = detail.record
        if rec is None:
            return None
        i = rec.pos
        out = self.row(i)
        a, sc = self.arrays, self.scores
        out.update(
            {
                "text": rec.text,
                "created_at": rec.created_at,
                "declared_tier": rec.tier,
                "corroborations": rec.corroborations,
                "contradictions": rec.contradictions,
                "base_rate": float(sc.base_rate[i]),
                "prior_weight": self.config.confidence.prior_weight,
                "freshness_form": "o1" if a.o1_count[i] else "exact",
                "freshness_constants": kind_constants(a, i, self.config),  # SPEC 14: which B0, s
                "age_days": float(sc.age_days[i]),
                "supersedes": rec.supersedes,
                "supersedes_known": rec.supersedes is None or int(a.supersedes[i]) >= 0,
                "superseded_by": detail.superseded_by,
                "chain_older": self.older(i),
                "entities": rec.entities,
                "embedding": detail.embedding,
                "graph": graph.to_json(),
                "note": rec.note,
                # SPEC 4: a line's unknown keys are kept verbatim as provenance (the store keeps
                # them apart, `extra`, so `export` writes them back where they stood)
                "provenance": {**rec.extra, **(rec.provenance or {})} or None,
                "source": _source_info(rec.provenance),
                "signature": rec.signature,
                "signature_check": _sig_check(rec, sc, i),
                "review_due": self.review_due(i),
                "review_overdue": bool(sc.freshness[i] < self.config.review.threshold),
                "what_if": self.what_if(i),
                "guidance_advice": GUIDANCE_ADVICE[GUIDANCE[sc.guidance[i]]],
                "history": [
                    {
                        "seq": h.seq,
                        "at": h.at,
                        "action": h.action,
                        "actor": h.actor,
                        "before": h.before,
                        "after": h.after,
                        "undoes": h.undoes,
                        "score_before": h.score_before,
                    }
                    for h in detail.history
                ],
            }
        )
        if sc.flags[i] & FLAG_DELETED:
            out["caution"] = CAUTION_DELETED  # SPEC 10: the guidance alone says go corroborate
        if a.o1_count[i]:
            out["reinforcement_count"] = int(a.o1_count[i])
        else:
            out["reinforced_at"] = rec.reinforced_at or []
        return out


def stream_rows(
    store: Store, config: Config, now: float, size: int, limit: int = 0
) -> Iterator[list[dict[str, Any]]]:
    """The `score` objects of the first `limit` facts (0: all) in store order, `size` at a
    time: the same objects as `Memory(store, config, now).rows()`, each chunk scored as
    soon as its facts are read (`Store.load_chunks`), so the first comes early and memory
    holds one chunk. Nothing the stream does not print is built (no id index, no sort)."""
    if limit:
        size = min(size, limit)
    with store.snapshot():
        supersedes, chunks = store.load_chunks(config, size)
        k = supersession_depth(supersedes)
        kinds = read_kinds(store, len(supersedes)) if config.freshness.kind else None
        done = 0
        for ids, arrays in chunks:
            if limit and done + len(ids) > limit:
                ids, arrays = ids[: limit - done], arrays.span(0, limit - done)
            arrays = with_kinds(store, arrays, config, done, kinds)
            sc = score(arrays, config, now, k[done : done + len(ids)])
            yield score_json(ids, sc, np.arange(len(ids)))
            done += len(ids)
            if limit and done >= limit:
                return


def _sig_check(rec: FactRecord, sc: Scores, i: int) -> str:
    flags = sc.flag_names(i)
    if "signature_invalid" in flags:
        return "missing" if rec.signature is None else "does not verify"
    if "signature_untrusted" in flags:
        return "valid, but the key is not a trusted signer"
    if sc.tier[i] == SIGNED:
        return "valid, trusted signer"
    return "none"


def _source_info(provenance: Any) -> Any:
    """`adapters.provenance.source_info`, imported when first needed (the adapters package
    loads the import machinery, which the browser's first paint does not need)."""
    from synapse_tui.core.base.provenance import source_info

    return source_info(provenance)
