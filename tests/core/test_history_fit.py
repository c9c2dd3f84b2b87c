"""The history fit on generated histories whose truth is known (SPEC 14): survival that
follows other constants is adopted and recovered, survival that follows the defaults keeps
them, and a store too small fits nothing."""

from __future__ import annotations

import numpy as np
import pytest

from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.backtest import history, history_report
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.fit import Inputs, replay
from synapse_tui.core.trust.history_fit import fit_history
from tests.core.history_stores import DEFAULTS, OTHER, generate


def _fresh(values, B):
    return 1.0 / (1.0 + np.exp(-(B - values["freshness.b0"]) / values["freshness.scale"]))


def _report(tmp_path, truth, **kw):
    src, now = generate(tmp_path / "h.jsonl", truth, **kw)
    with Store.open(tmp_path / "h.db", create=True) as store:
        import_facts(store, parse_file(src), str(src))
        memory = Memory(store, Config(), now)
        h = history(memory, 30)
        report, fit = history_report(memory, 30)
    return h, report, fit


@pytest.fixture(scope="module")
def other(tmp_path_factory):
    return _report(tmp_path_factory.mktemp("other"), OTHER)


def test_the_samples_replay_the_as_of_trust(other):
    h, report, _ = other
    inp = Inputs(h.B, h.r, h.s, h.k, h.tier)
    assert np.allclose(replay(DEFAULTS, inp, Config()), h.trust, atol=1e-9)
    assert report["instants"] >= 20 and report["samples"] == len(h) > 5000
    assert report["survived"] + report["replaced"] == report["samples"]


def test_survival_under_other_constants_is_adopted_and_recovered(other):
    h, report, fit = other
    out = report["fit"]
    assert out["decision"] == "adopt", out["reason"]
    assert out["heldout_log_loss_fitted"] < out["heldout_log_loss_current"] - 0.001
    assert out["heldout_log_loss_fitted"] < out["heldout_log_loss_baseline"]
    assert out["heldout_blocks_won"] * 2 > out["heldout_blocks"]
    assert out["constants"] == out["proposed"]
    # freshness error against the truth falls, and B0 and s move toward it
    err_before = np.mean(np.abs(_fresh(DEFAULTS, h.B) - _fresh(OTHER, h.B)))
    err_after = np.mean(np.abs(_fresh(fit.proposed, h.B) - _fresh(OTHER, h.B)))
    assert err_after < err_before / 3, (err_before, err_after)
    for name in ("freshness.b0", "freshness.scale"):
        assert abs(fit.proposed[name] - OTHER[name]) < abs(DEFAULTS[name] - OTHER[name]) / 2, name


def test_survival_under_the_defaults_keeps_them(tmp_path):
    _, report, _ = _report(tmp_path, DEFAULTS)
    out = report["fit"]
    assert out["decision"] == "keep-current", out["reason"]
    assert out["constants"] == out["current"]
    assert "do not beat the current constants" in out["reason"] or "most held-out blocks" in out["reason"]


def test_a_store_too_small_fits_nothing(tmp_path):
    _, report, _ = _report(tmp_path, OTHER, days=60, start=20, arrivals=0.2)
    assert report["fit"]["decision"] == "too-few", report["fit"]["reason"]
    assert report["fit"]["constants"] == report["fit"]["current"]


def test_when_a_constant_rate_wins_it_says_age_tells_little_and_shows_the_ceiling():
    """Most lines survive whatever their age, and trust is capped by the gate and base rate:
    no freshness beats a constant rate, and facts differing only by age cannot be reordered."""
    rng = np.random.default_rng(3)
    instants = np.arange(20) * 15 * 86400.0
    per = 200
    n = len(instants) * per
    B = rng.uniform(-4, 0, n)
    inp = Inputs(B, np.zeros(n), np.zeros(n), np.zeros(n), np.ones(n, dtype=np.int64))
    y = (rng.random(n) < 0.95).astype(float)
    out = fit_history(inp, y, np.repeat(np.arange(20), per), instants, 30, Config()).to_json()
    assert out["decision"] == "keep-current"
    assert "a constant rate predicts better: age tells little here" in out["reason"]
    assert "cannot exceed 0.77" in out["reason"] and out["ceiling"] == pytest.approx(0.765)
    assert out["age_predicts"] is False and out["flatten"] == {"freshness.b0": -6.0, "freshness.scale": 0.5}
    assert any("on this memory, age does not predict revision" in note for note in out["notes"])
    assert out["ranking_fixed"] is True
    assert any("cannot change the ranking" in note for note in out["notes"])
