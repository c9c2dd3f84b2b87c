"""Triage: audited transactions, exact undo that survives a restart, refusals."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.location import is_server, locate
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage, TriageError, export_audit
from synapse_tui.core.store.db import Store
from tests.helpers import trusted_config
from tests.store_state import mark

NOW = parse_time("2026-12-01T00:00:00Z")


@pytest.fixture
def opened(store_location):
    store = Store.open(store_location)
    yield store, Memory(store, trusted_config(), NOW), Triage(store, Clock(NOW), actor="tester")
    store.close()


def snapshot(memory: Memory) -> list[dict]:
    return memory.rows()


def test_corroborate_raises_trust_and_is_audited(opened):
    store, memory, triage = opened
    before = memory.row(memory.index["e"])
    out = triage.apply("corroborate", ["e"])
    memory.refresh(out.fact_ids)
    after = memory.row(memory.index["e"])
    assert after["confidence"] > before["confidence"] and after["freshness"] > before["freshness"]
    info = memory.explain("e")
    assert info["corroborations"] == 1 and info["reinforced_at"] == ["2026-12-01T00:00:00Z"]
    assert [(h["action"], h["actor"], h["at"]) for h in info["history"]] == [
        ("corroborate", "tester", "2026-12-01T00:00:00Z")
    ]
    assert info["history"][0]["before"] == {"corroborations": 0, "reinforced_at": None}


def test_refresh_equals_a_full_reload(opened):
    store, memory, triage = opened
    for action, ids in (("verify", ["a", "b"]), ("contradict", ["c"]), ("accept", ["d", "e"])):
        memory.refresh(triage.apply(action, ids).fact_ids)
    fresh = Memory(store, trusted_config(), NOW)
    assert snapshot(memory) == snapshot(fresh)
    assert np.array_equal(memory.arrays.compacted().events, fresh.arrays.events)
    # the O(1) fact stayed in its form: verify incremented n
    assert memory.explain("b")["reinforcement_count"] == 4


def test_undo_is_exact_repeatable_and_survives_a_restart(opened, store_location):
    store, memory, triage = opened
    original = snapshot(memory)
    triage.apply("corroborate", ["a"])
    triage.apply("verify", ["a", "c", "e"])  # bulk: one batch
    store.close()
    with Store.open(store_location) as again:  # a new process would see the same audit log
        t2 = Triage(again, Clock(NOW), actor="tester")
        undone = t2.undo()
        assert undone.action == "undo verify" and sorted(undone.fact_ids) == ["a", "c", "e"]
        t2.undo()
        assert snapshot(Memory(again, trusted_config(), NOW)) == original
        with pytest.raises(TriageError, match="nothing to undo"):
            t2.undo()
        t2.redo()
        redone = Memory(again, trusted_config(), NOW).explain("a")
        assert redone["corroborations"] == 4
        actions = [e["action"] for e in export_audit(again)]
        assert actions == [
            "corroborate",
            "verify",
            "verify",
            "verify",
            "undo",
            "undo",
            "undo",
            "undo",
            "redo",
        ]


def test_redo_chain_breaks_after_a_new_action(opened):
    _, _, triage = opened
    triage.apply("contradict", ["a"])
    triage.undo()
    triage.apply("accept", ["e"])
    with pytest.raises(TriageError, match="nothing to redo"):
        triage.redo()


def test_supersede_sets_the_chain_and_refuses_a_cycle(opened):
    store, memory, triage = opened
    out = triage.apply("supersede", ["c"], target="d")
    memory.refresh(out.fact_ids)
    assert memory.row(memory.index["c"])["k"] == 1 and memory.explain("c")["superseded_by"] == ["d"]
    with pytest.raises(TriageError, match="cycle"):
        triage.apply("supersede", ["d"], target="c")
    with pytest.raises(TriageError, match="already supersedes"):
        triage.apply("supersede", ["e"], target="b")  # b already names a
    triage.undo()
    memory.reload()
    assert memory.row(memory.index["c"])["k"] == 0


def test_accept_only_moves_auto(opened):
    _, _, triage = opened
    with pytest.raises(TriageError, match="nothing to change"):
        triage.apply("accept", ["b"])  # already human


def test_read_only_store_refuses_triage(store_location):
    before = mark(store_location)
    with Store.open(store_location, readonly=True) as store:
        with pytest.raises(TriageError) as refused:
            Triage(store, Clock(NOW)).apply("verify", ["a"])
    assert str(refused.value) == f"{locate(store_location).shown}: opened read-only: triage cannot change it"
    assert mark(store_location) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write a 0400 file")
def test_unwritable_file_opens_read_only(store_path):
    os.chmod(store_path, stat.S_IRUSR)
    try:
        with Store.open(store_path) as store:
            assert store.readonly
    finally:
        os.chmod(store_path, stat.S_IRUSR | stat.S_IWUSR)


def test_killed_writer_leaves_a_consistent_store(store_location):
    """Kill a process in the middle of many triage transactions; the store stays whole and
    every applied change has its audit entry (and nothing else changed)."""
    script = textwrap.dedent(f"""
        import sys
        from synapse_tui.core.base.clock import Clock
        from synapse_tui.core.store.db import Store
        from synapse_tui.core.review.triage import Triage
        store = Store.open({store_location!r})
        t = Triage(store, Clock({NOW}), actor="killer")
        print("ready", flush=True)
        while True:
            t.apply("corroborate", ["a", "c"])
            t.apply("contradict", ["e"])
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"ready"
    with Store.open(store_location, readonly=True) as watch:
        deadline = time.monotonic() + 30
        while len(list(export_audit(watch))) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)  # kill it mid-stream, once it has written a few transactions
    proc.kill()
    proc.wait()
    if not is_server(store_location):
        assert sqlite3.connect(store_location).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with Store.open(store_location, readonly=True) as store:
        entries = list(export_audit(store))
        r_a, r_c = (store.review.fields(i)["corroborations"] for i in ("a", "c"))
        s_e = store.review.fields("e")["contradictions"]
    n_corr = len({e["batch"] for e in entries if e["action"] == "corroborate"})
    n_contra = sum(e["action"] == "contradict" for e in entries)
    assert n_corr > 0
    assert r_a - 3 == n_corr and r_c == n_corr and s_e - 4 == n_contra
    assert n_contra in (n_corr, n_corr - 1)
