"""Verdicts from the audit, the reliability table, the fit and the backtest (SPEC 11), on a
file and on a server."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.backtest import backtest
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.review.verdicts import read_verdicts, verdict_report
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust import reliability as rel
from synapse_tui.core.trust.fit import Inputs, current_constants, fit, folds, ladder, replay
from tests.helpers import write_jsonl

T0 = parse_time("2026-07-01T00:00:00Z")
DAY = 86400.0


def make_store(location, tmp_path, n=60):
    facts = [
        {"id": f"f{i:03d}", "text": f"fact {i}", "created_at": f"2026-0{1 + i % 6}-0{1 + i % 9}T00:00:00Z"}
        for i in range(n)
    ]
    src = write_jsonl(tmp_path / "f.jsonl", facts)
    with Store.open(location, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    return location


def act(store, day, action, ids, actor="user:alice", target=None):
    return Triage(store, Clock(T0 + day * DAY), actor=actor, config=Config()).apply(action, ids, target)


@pytest.fixture
def judged(new_store, tmp_path):
    """Verdicts of every kind, and the entries that are not verdicts."""
    db = make_store(new_store("m"), tmp_path)
    with Store.open(db) as store:
        act(store, 1, "verify", ["f000", "f001"])  # a bulk: two verdicts
        act(store, 2, "corroborate", ["f002"])
        act(store, 3, "accept", ["f003"])
        act(store, 4, "contradict", ["f004"])
        act(store, 5, "supersede", ["f005"], target="f006")  # one verdict: f005 replaced
        act(store, 6, "verify", ["f007"], actor="agent:bot")
        act(store, 7, "corroborate", ["f008"], actor="source:mem0")
        act(store, 8, "contradict", ["f009"])
        Triage(store, Clock(T0 + 8.5 * DAY), actor="user:alice").undo()  # f009's is taken back
        act(store, 9, "contradict", ["f010"])
        tr = Triage(store, Clock(T0 + 9.5 * DAY), actor="user:alice")
        tr.undo()
        tr.redo()  # f010's is live again
    return db


def test_which_entries_are_verdicts_and_what_each_says(judged):
    with Store.open(judged, readonly=True) as store:
        v = read_verdicts(store)
        assert v.fact_ids == ["f000", "f001", "f002", "f003", "f004", "f005", "f010"]
        assert [rel.KINDS[k] for k in v.kind] == ["holds"] * 4 + ["wrong", "replaced", "wrong"]
        assert v.skipped == 0
        assert read_verdicts(store, "agents").fact_ids == ["f007"]
        assert read_verdicts(store, "all").fact_ids == v.fact_ids[:6] + ["f007", "f010"]
        assert "f003" not in read_verdicts(store, no_accept=True).fact_ids
        assert read_verdicts(store, since=T0 + 4 * DAY).fact_ids == ["f004", "f005", "f010"]
        # the prediction is the trust the fact had just before
        history = {h.fact_id: h for h in store.history("f004")}
        assert v.p[4] == history["f004"].score_before["trust"]


def test_an_entry_without_a_logged_score_is_skipped_and_counted(judged):
    with Store.open(judged) as store:
        store._conn.execute("UPDATE audit SET score_before = NULL WHERE fact_id = 'f002'")
        v = read_verdicts(store)
    assert v.skipped == 1 and "f002" not in v.fact_ids


def test_replay_under_the_current_constants_is_the_logged_trust(judged):
    with Store.open(judged, readonly=True) as store:
        v = read_verdicts(store, "all")
    p = replay(current_constants(Config()), v.inputs, Config())
    assert np.max(np.abs(p - v.p)) < 1e-9


def test_wilson_interval_and_bins():
    lo, hi = rel.wilson(8, 10)
    assert lo == pytest.approx(0.4901624, abs=1e-6) and hi == pytest.approx(0.9433178, abs=1e-6)
    p = np.array([0.0, 0.19, 0.2, 0.5, 1.0, 0.999])
    kind = np.array([rel.WRONG, rel.HOLDS, rel.REPLACED, rel.HOLDS, rel.HOLDS, rel.WRONG])
    bins = rel.bins(p, kind)
    assert [b["n"] for b in bins] == [2, 1, 1, 0, 2]  # 5 bins under 100 verdicts; 1.0 in the last
    assert (bins[0]["lo"], bins[0]["hi"]) == (0.0, 0.2)
    assert bins[3]["rate"] is None and bins[3]["ci_low"] is None
    assert bins[4]["rate"] == 0.5 and bins[4]["mean_trust"] == pytest.approx(0.9995)
    assert len(rel.bins(np.linspace(0, 1, 100), np.zeros(100, int))) == 10
    # just below 9/10 is bin 8, though 0.8999999999999999 * 10 rounds to 9
    edge = rel.bins(np.r_[0.8999999999999999, np.full(99, 0.05)], np.zeros(100, int))
    assert edge[8]["n"] == 1 and edge[9]["n"] == 0


def test_log_loss_brier_baseline_and_auc_with_ties():
    p = np.array([0.9, 0.6, 0.6, 0.2])
    y = np.array([1.0, 1.0, 0.0, 0.0])
    assert rel.log_loss(p, y) == pytest.approx(
        -(math.log(0.9) + math.log(0.6) + math.log(0.4) + math.log(0.8)) / 4
    )
    assert rel.brier(p, y) == pytest.approx((0.01 + 0.16 + 0.36 + 0.04) / 4)
    assert rel.baseline_log_loss(y) == pytest.approx(math.log(2))
    assert rel.auc(p, y) == pytest.approx((1 + 1 + 0.5 + 1) / 4)  # one tie counts a half
    assert rel.auc(p, np.ones(4)) is None
    assert rel.log_loss(np.array([0.0]), np.array([1.0])) == pytest.approx(-math.log(1e-6))


def simulate(n, truth, seed=0):
    rng = np.random.default_rng(seed)
    inp = Inputs(
        B=rng.normal(-1.5, 1.5, n),
        r=rng.integers(0, 6, n).astype(float),
        s=rng.integers(0, 3, n).astype(float),
        k=(rng.random(n) < 0.2).astype(float),
        tier=rng.integers(0, 3, n),
    )
    y = (rng.random(n) < replay(truth, inp, Config())).astype(float)
    return inp, y


def test_the_fit_recovers_the_constants_that_made_the_verdicts():
    truth = current_constants(Config()) | {
        "freshness.b0": -0.5,
        "freshness.scale": 0.6,
        "confidence.prior_weight": 4.0,
        "confidence.base_rate_auto": 0.8,
        "supersession.gamma": 0.3,
    }
    inp, y = simulate(40_000, truth)
    result = fit(inp, y, Config())
    assert result.decision == "adopt"
    assert len(result.fitted) == 7
    for name, tol in (
        ("freshness.b0", 0.1),
        ("freshness.scale", 0.06),
        ("confidence.prior_weight", 0.6),
        ("confidence.base_rate_auto", 0.05),
        ("supersession.gamma", 0.04),
    ):
        assert result.proposed[name] == pytest.approx(truth[name], abs=tol), name
    assert result.heldout_log_loss_fitted < result.heldout_log_loss_current - 0.001
    assert result.heldout_log_loss_fitted < result.heldout_log_loss_baseline


def test_verdicts_made_by_the_current_constants_keep_them():
    inp, y = simulate(3_000, current_constants(Config()), seed=3)
    result = fit(inp, y, Config())
    assert result.decision == "keep-current"
    assert result.proposed["freshness.b0"] == pytest.approx(-1.7, abs=0.3)


def test_the_ladder():
    inp, y = simulate(29, current_constants(Config()))
    assert ladder(inp, y)[0] == []
    assert fit(inp, y, Config()).decision == "too-few"
    inp, y = simulate(60, current_constants(Config()))
    assert ladder(inp, y)[0] == ["freshness.b0", "freshness.scale"]
    inp, y = simulate(40, current_constants(Config()))
    assert ladder(inp, np.r_[np.ones(36), np.zeros(4)])[0] == []  # 4 misses: too few of one outcome
    inp, y = simulate(400, current_constants(Config()))
    inp = Inputs(inp.B, inp.r, inp.s, np.zeros(400), np.zeros(400, dtype=np.int64))  # all auto, no k
    assert ladder(inp, y)[0] == [
        "freshness.b0",
        "freshness.scale",
        "confidence.prior_weight",
        "confidence.base_rate_auto",
    ]


def test_folds_are_consecutive_and_the_first_ones_larger():
    blocks = folds(12)
    assert [len(b) for b in blocks] == [3, 3, 2, 2, 2]
    assert np.array_equal(np.concatenate(blocks), np.arange(12))


def test_report_shape_and_too_few(judged):
    with Store.open(judged, readonly=True) as store:
        report = verdict_report(store, Config()).to_json()
    assert list(report) == [
        "verdicts", "holds", "wrong", "replaced", "skipped", "actors", "bins", "log_loss", "brier",
        "baseline_log_loss", "auc", "by_feature", "fit",
    ]  # fmt: skip
    assert (report["verdicts"], report["holds"], report["wrong"], report["replaced"]) == (7, 4, 2, 1)
    assert report["fit"]["decision"] == "too-few" and "too few" in report["fit"]["reason"]
    assert report["fit"]["heldout_log_loss_fitted"] is None
    assert set(report["by_feature"]) == {"age_days", "reinforcements", "tier", "source"}
    assert sum(r["n"] for r in report["by_feature"]["tier"]) == 7
    assert report["by_feature"]["source"] == [
        {
            "key": "native",
            "n": 7,
            "holds": 4,
            "mean_trust": pytest.approx(np.mean(read_p(judged))),
            "rate": 4 / 7,
        }
    ]
    json.dumps(report)


def read_p(db):
    with Store.open(db, readonly=True) as store:
        return read_verdicts(store).p


def test_backtest_sorts_what_became_of_each_fact(new_store, tmp_path):
    facts = [
        {"id": "old", "text": "a", "created_at": "2026-01-01T00:00:00Z"},
        {"id": "kept", "text": "b", "created_at": "2026-01-01T00:00:00Z"},
        {"id": "wrong", "text": "c", "created_at": "2026-01-01T00:00:00Z"},
        {"id": "late", "text": "d", "created_at": "2026-01-20T00:00:00Z", "supersedes": "old"},
        {"id": "after", "text": "e", "created_at": "2026-03-01T00:00:00Z"},
    ]
    src = write_jsonl(tmp_path / "b.jsonl", facts)
    with Store.open(new_store("b"), create=True) as store:
        import_facts(store, parse_file(src), str(src))
        Triage(store, Clock(parse_time("2026-01-15T00:00:00Z")), actor="user:a").apply(
            "contradict", ["wrong"]
        )
        memory = Memory(store, Config(), parse_time("2026-12-01T00:00:00Z"))
        bt = backtest(memory, parse_time("2026-01-10T00:00:00Z"), 30)
        out = bt.to_json()
    assert (out["facts"], out["replaced"], out["contradicted"], out["survived"], out["deleted"]) == (
        3,
        1,
        1,
        1,
        0,
    )
    assert out["at"] == "2026-01-10T00:00:00Z" and out["horizon_days"] == 30
    assert sum(b["n"] for b in out["bins"]) == 3 and sum(b["holds"] for b in out["bins"]) == 1


def test_without_scipy_the_decision_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "scipy.optimize", None)  # import fails as if not installed
    inp, y = simulate(200, current_constants(Config()))
    result = fit(inp, y, Config())
    assert result.decision == "keep-current" and "pip install 'synapse-tui[fit]'" in result.reason
    assert result.proposed == result.current


def test_backtest_counts_a_fact_its_source_deleted_in_the_window(new_store, tmp_path):
    facts = [
        {"id": "gone", "text": "a", "created_at": "2026-01-01T00:00:00Z"},
        {"id": "gone-before", "text": "b", "created_at": "2026-01-01T00:00:00Z"},
        {"id": "stays", "text": "c", "created_at": "2026-01-01T00:00:00Z"},
    ]
    src = write_jsonl(tmp_path / "d.jsonl", facts)
    with Store.open(new_store("d"), create=True) as store:
        import_facts(store, parse_file(src), str(src))
        with store.transaction() as conn:  # as a sync records a deletion at its source
            conn.execute("UPDATE facts SET deleted = 1 WHERE id IN ('gone', 'gone-before')")
            for fid, when in (("gone", "2026-01-20T00:00:00Z"), ("gone-before", "2026-01-05T00:00:00Z")):
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    (f"deleted.at.{fid}", json.dumps(parse_time(when))),
                )
        memory = Memory(store, Config(), parse_time("2026-12-01T00:00:00Z"))
        out = backtest(memory, parse_time("2026-01-10T00:00:00Z"), 30).to_json()
    # gone-before was deleted by T: not alive then, not counted
    assert (out["facts"], out["deleted"], out["survived"]) == (2, 1, 1)
