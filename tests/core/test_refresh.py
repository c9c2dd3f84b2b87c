"""Partial rescore after triage (`Memory.refresh`) equals a full reload, whatever the actions,
on a file and on a server."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
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


@pytest.fixture
def chain_store(new_store, tmp_path):
    """`chain_store()`: a new store of the chain facts on the test's backend, one per example."""
    src = write_jsonl(tmp_path / "facts.jsonl", chain_facts())
    numbers = itertools.count()

    def make() -> str:
        location = new_store(f"m{next(numbers)}")
        with Store.open(location, create=True) as store:
            import_facts(store, parse_file(src), str(src))
        return location

    return make


def test_partial_rescore_equals_full_rescore(chain_store, backend):
    # a store on a server costs a schema and its tables (0.2 s): fewer examples there, where
    # what is checked is the load and the refresh over the server's rows, not the arithmetic
    @settings(
        max_examples=40 if backend == "file" else 12,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(st.lists(MOVES, min_size=1, max_size=12))
    def check(moves):
        with Store.open(chain_store()) as store:
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

    check()
