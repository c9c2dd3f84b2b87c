"""One sync is one undo step (issue 39's leftovers): its actions share one batch, and
undoing a batch that changed one fact twice (a source's corroborate, then its retract of
the same fields) gives the fact back exactly as it was; redo makes it again, in order."""

from __future__ import annotations

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.review.triage import RETRACT, Triage
from synapse_tui.core.store.db import Store

NOW = parse_time("2026-12-01T00:00:00Z")
FIELDS = ("corroborations", "contradictions", "reinforced_at", "tier")


def fields(store: Store, fid: str) -> dict:
    return {k: (store.review.fields(fid) or {})[k] for k in FIELDS}


def test_a_batch_changing_one_fact_twice_is_undone_newest_first(store_location):
    with Store.open(store_location) as store:
        triage = Triage(store, Clock(NOW), actor="source:openclaw")
        before = {fid: fields(store, fid) for fid in ("a", "e")}
        with store.transaction():
            first = triage.add_evidence_in({"a": (2, ["2026-11-01T00:00:00Z"]), "e": (1, [])})
            assert first is not None
            again = triage.add_counts_in(
                RETRACT, {"a": (-1, 0)}, {"a": ["2026-11-01T00:00:00Z"]}, batch=first.batch
            )
            assert again is not None and again.batch == first.batch
            accepted = triage.accept_in(["a"], batch=first.batch)
            assert accepted is not None and accepted.batch == first.batch
        synced = {fid: fields(store, fid) for fid in ("a", "e")}
        assert synced["a"]["corroborations"] == before["a"]["corroborations"] + 1
        assert synced["a"]["tier"] == "human"

        undone = triage.undo()  # one step takes all three actions back
        assert undone.action == "undo corroborate+retract+accept"
        assert {fid: fields(store, fid) for fid in ("a", "e")} == before
        # told in the batch's order (written newest first)
        assert [c.fact_id for c in undone.changes] == ["a", "e", "a", "a"]

        triage.redo()
        assert {fid: fields(store, fid) for fid in ("a", "e")} == synced
        triage.undo()
        assert {fid: fields(store, fid) for fid in ("a", "e")} == before
