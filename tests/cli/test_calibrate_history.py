"""`calibrate --backtest --fit` as a user runs it (SPEC 14): the JSON contract, text, and
`--write` storing adopted constants only."""

from __future__ import annotations

import json

import pytest

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.config import load_config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.history_stores import DEFAULTS, OTHER, generate


def _store(folder, truth):
    src, now = generate(folder / "h.jsonl", truth)
    db = folder / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    return db, format_time(now)


@pytest.fixture(scope="module")
def other(tmp_path_factory):
    return _store(tmp_path_factory.mktemp("other"), OTHER)


def test_json_is_the_contract(other):
    db, now = other
    data = json.loads(
        run("calibrate", db, "--backtest", "--fit", "--horizon", "30", "--now", now, "--json").stdout
    )
    assert isinstance(data["instants"], int) and data["instants"] >= 20
    assert isinstance(data["samples"], int) and data["samples"] > 5000
    fit = data["fit"]
    for key in (
        "decision",
        "reason",
        "fitted",
        "current",
        "proposed",
        "constants",
        "heldout_log_loss_current",
        "heldout_log_loss_fitted",
        "heldout_log_loss_baseline",
    ):
        assert key in fit, key
    assert fit["decision"] == "adopt"
    assert data["horizon_days"] == 30 and len(data["bins"]) == 10


def test_write_stores_adopted_constants_and_the_score_changes(other, tmp_path):
    db, now = other
    config = tmp_path / "c.toml"
    config.write_text("# mine\n[review]\nthreshold = 0.5\n", encoding="utf-8")
    before = json.loads(run("show", db, "f0", "--now", now, "--json", "--config", config).stdout)
    out = run(
        "calibrate", db, "--backtest", "--fit", "--horizon", "30", "--now", now, "--write", "--config", config
    )
    assert "wrote freshness.b0, freshness.scale" in out.stdout
    cfg = load_config(config)
    assert cfg.freshness.b0 < -2.0 and cfg.review.threshold == 0.5
    assert config.read_text(encoding="utf-8").startswith("# mine\n")
    after = json.loads(run("show", db, "f0", "--now", now, "--json", "--config", config).stdout)
    assert after["trust"] != before["trust"]


def test_write_refuses_when_not_adopted_and_changes_nothing(tmp_path):
    db, now = _store(tmp_path, DEFAULTS)
    config = tmp_path / "c.toml"
    config.write_text("[review]\nthreshold = 0.5\n", encoding="utf-8")
    text = config.read_text(encoding="utf-8")
    out = run(
        "calibrate", db, "--backtest", "--fit", "--horizon", "30", "--now", now, "--write", "--config", config
    )
    assert "nothing written: the decision is keep-current" in out.stdout
    assert config.read_text(encoding="utf-8") == text


def test_text_says_the_decision(other):
    db, now = other
    out = run("calibrate", db, "--backtest", "--fit", "--horizon", "30", "--now", now).stdout
    assert "HISTORY" in out and "FIT  adopt" in out and "held-out log loss" in out and "AUC" in out


def test_options_that_do_not_go_together_are_refused(other):
    db, _ = other
    assert "--fit goes with --backtest" in refused("calibrate", db, "--fit")
    assert "leave out --at" in refused("calibrate", db, "--backtest", "--fit", "--at", "2025-03-01T00:00:00Z")
    assert "--horizon" in refused("calibrate", db, "--backtest", "--fit", "--horizon", "0")
