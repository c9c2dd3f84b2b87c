"""SPEC 14, statement by statement, through the command line on a real SQLite store whose
history is written out here: instants every horizon/2 days from the first with 30 live facts
to now minus the horizon (default 90 days); each sample a fact alive then, its p the trust
`score --as-of` gives then, its outcome what happened within the horizon; the JSON's keys and
decisions; the same bytes in any process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from synapse_tui.core.base.clock import format_time, parse_time
from tests.cli_run import run
from tests.helpers import json_lines, write_jsonl

DAY = 86400.0
T0 = parse_time("2025-01-01T00:00:00Z")
NOW = format_time(T0 + 200 * DAY)


def _at(day: float) -> str:
    return format_time(T0 + day * DAY)


def _history() -> list[dict]:
    """60 facts, one a day from T0; f0..f19 replaced on days 40..59 (10 + 2i days... each by
    its own g_i); f20..f24 deleted at their source on day 100."""
    facts = [
        {"id": f"f{i:02d}", "text": f"fact {i} about subject {i}", "created_at": _at(i)} for i in range(60)
    ]
    for i in range(20):
        facts.append(
            {
                "id": f"g{i:02d}",
                "text": f"fact {i} revised",
                "created_at": _at(40 + i),
                "supersedes": f"f{i:02d}",
            }
        )
    for i in range(20, 25):
        facts[i]["deleted"] = _at(100)
    return facts


FACTS = _history()


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "h.db"
    run("import", write_jsonl(tmp_path / "h.jsonl", FACTS), "--db", path)
    return path


def _report(db, *args) -> dict:
    return json.loads(run("calibrate", db, "--backtest", "--fit", "--json", "--now", NOW, *args).stdout)


def _alive(day: float) -> list[dict]:
    """The facts alive at `day` as SPEC 11.4 says: created by then, a head then, not deleted."""
    created = {f["id"]: parse_time(f["created_at"]) for f in FACTS}
    t = T0 + day * DAY
    replaced = {f["supersedes"] for f in FACTS if "supersedes" in f and created[f["id"]] <= t}
    return [
        f
        for f in FACTS
        if created[f["id"]] <= t
        and f["id"] not in replaced
        and not ("deleted" in f and parse_time(f["deleted"]) <= t)
    ]


def _outcome(fact: dict, day: float, horizon: float) -> str:
    lo, hi = T0 + day * DAY, T0 + (day + horizon) * DAY
    by = [parse_time(f["created_at"]) for f in FACTS if f.get("supersedes") == fact["id"]]
    if any(lo < t <= hi for t in by):
        return "replaced"
    if "deleted" in fact and lo < parse_time(fact["deleted"]) <= hi:
        return "deleted"
    return "survived"


@pytest.mark.parametrize("horizon", [None, 30])
def test_instants_run_every_half_horizon_from_the_first_with_30_live_facts(db, horizon):
    data = _report(db, *(["--horizon", str(horizon)] if horizon else []))
    h = horizon or 90  # the default horizon
    assert data["horizon_days"] == h
    first = parse_time(data["first_instant"])
    assert first == T0 + 29 * DAY  # f29 made 30 live facts (none had ended yet)
    assert len(_alive(28.9)) == 29 and len(_alive(29)) == 30
    step = h / 2
    expected = [29 + step * j for j in range(1000) if 29 + step * j <= 200 - h]
    assert data["instants"] == len(expected)
    assert parse_time(data["last_instant"]) == T0 + expected[-1] * DAY
    # a sample per fact alive at each instant, and what became of it within the horizon
    samples = [(d, f) for d in expected for f in _alive(d)]
    assert data["samples"] == len(samples)
    outcomes = [_outcome(f, d, h) for d, f in samples]
    for key in ("replaced", "deleted", "survived"):
        assert data[key] == outcomes.count(key), key
    assert data["contradicted"] == 0
    assert sum(b["n"] for b in data["bins"]) == len(samples)
    assert sum(b["holds"] for b in data["bins"]) == outcomes.count("survived")


def test_p_is_the_trust_score_as_of_gives_at_the_instant(db):
    data = _report(db, "--horizon", "30")
    total = 0.0
    first = parse_time(data["first_instant"])
    for j in range(data["instants"]):
        at = format_time(first + j * 15 * DAY)
        rows = json_lines(run("score", db, "--json", "--as-of", at, "--now", NOW).stdout)
        alive = {f["id"] for f in _alive((first - T0) / DAY + j * 15)}
        total += sum(r["trust"] for r in rows if r["id"] in alive)
    assert sum(b["mean_trust"] * b["n"] for b in data["bins"] if b["n"]) == pytest.approx(total, rel=1e-9)


def test_the_fit_object_has_the_contract_keys_and_a_decision(db):
    fit = _report(db, "--horizon", "30")["fit"]
    for key in ("decision", "constants", "heldout_log_loss_current", "heldout_log_loss_fitted"):
        assert key in fit, key
    assert "heldout_log_loss_baseline" in fit
    assert fit["decision"] in {"adopt", "keep-current", "too-few"}
    if fit["decision"] != "adopt":
        assert fit["constants"] == fit["current"]


def test_a_store_with_fewer_than_30_live_facts_has_no_instant_and_fits_nothing(tmp_path):
    db = tmp_path / "small.db"
    run("import", write_jsonl(tmp_path / "s.jsonl", FACTS[:29]), "--db", db)
    data = _report(db)
    assert data["instants"] == 0 and data["samples"] == 0 and data["first_instant"] is None
    assert data["fit"]["decision"] == "too-few"


def test_write_with_nothing_adopted_writes_nothing(db, tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[review]\nthreshold = 0.5\n")
    out = run(
        "calibrate", db, "--backtest", "--fit", "--horizon", "30", "--now", NOW, "--write", "--config", config
    ).stdout
    if _report(db, "--horizon", "30", "--config", config)["fit"]["decision"] != "adopt":
        assert "nothing written" in out and config.read_text() == "[review]\nthreshold = 0.5\n"


def test_the_same_store_gives_the_same_bytes_in_any_process(db):
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "SYNAPSE_NOW": NOW}
    outs = set()
    for seed in ("0", "7"):
        outs.add(
            subprocess.run(
                [sys.executable, "-c", "from synapse_tui.cli import main; main()", "calibrate", str(db)]
                + ["--backtest", "--fit", "--horizon", "30", "--json"],
                capture_output=True,
                text=True,
                env={**env, "PYTHONHASHSEED": seed},
                check=True,
            ).stdout
        )
    assert len(outs) == 1
    assert outs == {
        run("calibrate", db, "--backtest", "--fit", "--horizon", "30", "--json", "--now", NOW).stdout
    }


def test_show_says_which_constants_scored_a_fact(db, tmp_path):
    shown = json.loads(run("show", db, "f30", "--json", "--now", NOW).stdout)
    assert shown["freshness_constants"] == {"kind": None, "b0": -1.7, "scale": 1.0, "from": "global"}
    config = tmp_path / "c.toml"
    config.write_text("[freshness]\nb0 = -2.5\nscale = 0.7\n")
    shown = json.loads(run("show", db, "f30", "--json", "--now", NOW, "--config", config).stdout)
    assert shown["freshness_constants"] == {"kind": None, "b0": -2.5, "scale": 0.7, "from": "global"}
    assert "B0=-2.5 s=0.7" in run("show", db, "f30", "--now", NOW, "--config", config).stdout


def test_a_live_contradiction_in_the_window_is_contradicted_and_an_undone_one_is_not(db):
    before = _report(db, "--horizon", "30")
    run("contradict", db, "f30", "--now", _at(120))
    run("contradict", db, "f31", "--now", _at(121))
    run("undo", db, "--now", _at(122))  # f31's contradiction taken back: not live
    after = _report(db, "--horizon", "30")
    first = (parse_time(after["first_instant"]) - T0) / DAY
    windows = [
        first + 15 * j for j in range(after["instants"]) if first + 15 * j < 120 <= first + 15 * j + 30
    ]
    assert len(windows) == 2  # the instants whose horizon holds day 120
    assert after["contradicted"] == len(windows) and after["samples"] == before["samples"]
    assert after["survived"] == before["survived"] - len(windows)


def test_show_says_a_kinds_own_constants_scored_its_fact(tmp_path):
    facts = [
        {
            "id": "rule",
            "text": "always run the linter",
            "created_at": "2026-10-01T00:00:00Z",
            "provenance": {"x-source": "mem0", "x-mem0-type": "rule"},
        },
        {"id": "plain", "text": "the linter is ruff", "created_at": "2026-10-01T00:00:00Z"},
    ]
    db = tmp_path / "k.db"
    run("import", write_jsonl(tmp_path / "k.jsonl", facts), "--db", db)
    config = tmp_path / "k.toml"
    config.write_text("[freshness.kind.rule]\nb0 = -3.0\nscale = 0.8\n")
    now = "2026-12-01T00:00:00Z"

    def shown(fid: str) -> dict:
        return json.loads(run("show", db, fid, "--json", "--now", now, "--config", config).stdout)

    assert shown("rule")["freshness_constants"] == {"kind": "rule", "b0": -3.0, "scale": 0.8, "from": "kind"}
    assert shown("plain")["freshness_constants"]["from"] == "global"
    assert shown("rule")["freshness"] > shown("plain")["freshness"]  # same age, its own constants
    assert "(kind rule: its own)" in run("show", db, "rule", "--now", now, "--config", config).stdout
