"""Partial rescore after triage (`Memory.refresh`) equals a full reload, whatever the actions."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.memory import _SCORE_ARRAYS, Memory
from synapse_tui.core.review.triage import Triage, TriageError
from synapse_tui.core.store.db import Store
from tests.core.chains import NOW, N, chain_facts
from tests.helpers import write_jsonl

MOVES = st.one_of(
    st.tuples(
        st.sampled_from(["corroborate", "contradict", "verify", "accept"]),
        st.lists(st.integers(0, N - 1), min_size=1, max_size=3),
        st.none(),
    ),
    st.tuples(
        st.just("supersede"), st.lists(st.integers(0, N - 1), min_size=1, max_size=1), st.integers(0, N - 1)
    ),
    st.tuples(st.sampled_from(["undo", "redo"]), st.just([]), st.none()),
)


def assert_same_scores(memory: Memory, fresh: Memory) -> None:
    for name in _SCORE_ARRAYS:
        assert np.array_equal(getattr(memory.scores, name), getattr(fresh.scores, name)), name
    assert np.array_equal(memory.k, fresh.k)
    assert np.array_equal(memory.arrays.supersedes, fresh.arrays.supersedes)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MOVES, min_size=1, max_size=12))
def test_partial_rescore_equals_full_rescore(moves):
    with tempfile.TemporaryDirectory() as tmp:
        src = write_jsonl(Path(tmp) / "facts.jsonl", chain_facts())
        with Store.open(Path(tmp) / "m.db", create=True) as store:
            import_facts(store, parse_file(src), str(src))
            config = Config()
            memory = Memory(store, config, NOW)
            for step, (action, picks, target) in enumerate(moves):
                triage = Triage(store, Clock(NOW - 3600 + 60 * step), actor="prop")
                try:
                    if action == "undo":
                        out = triage.undo()
                    elif action == "redo":
                        out = triage.redo()
                    else:
                        ids = [f"f{p:02d}" for p in picks]
                        out = triage.apply(action, ids, None if target is None else f"f{target:02d}")
                except TriageError:
                    continue
                before = {name: getattr(memory.scores, name).copy() for name in _SCORE_ARRAYS}
                held = memory.scores  # what the caller saw before: must not change under it
                changed = memory.refresh(out.fact_ids)
                for name in _SCORE_ARRAYS:
                    assert np.array_equal(getattr(held, name), before[name]), name
                fresh = Memory(store, config, NOW)
                assert_same_scores(memory, fresh)
                differs = np.zeros(N, dtype=bool)
                for name in _SCORE_ARRAYS:
                    differs |= before[name] != getattr(fresh.scores, name)
                assert changed.tolist() == np.flatnonzero(differs).tolist()
            memory.rescore(NOW)  # a full rescore after partial ones folds the moved events back
            assert_same_scores(memory, Memory(store, config, NOW))
