"""`calibrate --verdicts`, `--write` and `--backtest` as a user runs them (SPEC 11)."""

from __future__ import annotations

import json
import stat

import pytest
from click.testing import CliRunner

from synapse_tui.cli import main
from synapse_tui.core.base.clock import Clock, format_time, parse_time
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl
from tests.verdict_stores import DAY, T0, verdicts_store


def run(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, env=env)


def refused(result, *needles):
    assert result.exit_code == 2, (result.exit_code, result.output, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    return verdicts_store(tmp_path_factory.mktemp("judged"))


def test_verdicts_json_is_the_contract_and_the_fit_wins(judged):
    result = run("calibrate", judged, "--verdicts", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["verdicts"], data["holds"], data["wrong"], data["replaced"], data["skipped"]) == (
        120,
        60,
        60,
        0,
        0,
    )
    assert data["actors"] == "people" and len(data["bins"]) == 10
    fit = data["fit"]
    assert set(fit) == {
        "decision", "reason", "fitted", "current", "proposed",
        "heldout_log_loss_current", "heldout_log_loss_fitted", "heldout_log_loss_baseline",
    }  # fmt: skip
    assert fit["decision"] == "adopt", fit["reason"]
    assert fit["heldout_log_loss_fitted"] < fit["heldout_log_loss_current"] - 0.001
    assert fit["current"]["freshness.b0"] == -1.7
    assert "confidence.base_rate_human" in fit["fitted"] and "supersession.gamma" not in fit["fitted"]


def test_the_table_for_a_person(judged):
    out = run("calibrate", judged, "--verdicts").stdout
    assert "VERDICTS  120 by people: 60 holds, 60 wrong, 0 replaced" in out
    assert "FIT  adopt" in out and "held-out log loss" in out and "--write adopts them" in out
    assert "by effective tier" in out


def test_write_adopts_only_the_fitted_lines(tmp_path):
    db = verdicts_store(tmp_path, pairs=40)
    cfg = tmp_path / "memory.synapse.toml"
    cfg.write_text("# mine\n[freshness]\ndecay = 0.5  # keep\n\n[review]\nthreshold = 0.4\n")
    before = run("score", db, "--json").stdout
    result = run("calibrate", db, "--verdicts", "--write")
    assert result.exit_code == 0 and "wrote freshness.b0" in result.stdout
    text = cfg.read_text()
    assert text.startswith("# mine\n[freshness]\ndecay = 0.5  # keep\n") and "threshold = 0.4" in text
    # 80 verdicts: the ladder's second rung fits B0 and s only
    assert "b0 = " in text and "scale = " in text and "base_rate" not in text and "gamma" not in text
    assert run("score", db, "--json").stdout != before  # every fact now scored by the new constants
    # the new constants are now the current ones: nothing more to win
    again = json.loads(run("calibrate", db, "--verdicts", "--json").stdout)
    assert again["fit"]["current"]["freshness.b0"] != -1.7


def test_an_agent_is_told_which_constants_score_and_whether_they_were_fitted(tmp_path):
    from synapse_tui.core.agent import Recall
    from synapse_tui.core.base.config import load_config

    db = verdicts_store(tmp_path, pairs=40)
    cfg = tmp_path / "memory.synapse.toml"

    def told() -> tuple[dict, dict]:
        with Store.open(db) as store:
            recall = Recall(store, load_config(cfg), Clock(T0 + 100 * DAY))
            return recall.search("")["constants"], recall.show("new000")["constants"]

    found, shown = told()
    assert found == shown and found["fitted"] is False and found["values"]["freshness.b0"] == -1.7
    assert run("calibrate", db, "--verdicts", "--write").exit_code == 0
    found, shown = told()
    assert found["fitted"] is True and found["verdicts"] == 80
    assert found["fitted_names"] == ["freshness.b0", "freshness.scale"]
    assert found["values"]["freshness.b0"] == load_config(cfg).freshness.b0
    cfg.write_text("[freshness]\nb0 = -2.0\n")
    assert told()[0]["fitted"] is False  # a person changed b0 since: no longer what was fitted


def test_write_with_too_few_verdicts_says_why_and_writes_nothing(tmp_path):
    db = verdicts_store(tmp_path, pairs=5)
    result = run("calibrate", db, "--verdicts", "--write")
    assert result.exit_code == 0
    assert "nothing written: the decision is too-few" in result.stdout
    assert not (tmp_path / "memory.synapse.toml").exists()


def test_no_verdicts_still_shows_the_table(tmp_path):
    src = write_jsonl(tmp_path / "f.jsonl", [{"id": "a", "text": "t", "created_at": "2026-01-01T00:00:00Z"}])
    db = tmp_path / "m.db"
    run("import", src, "--db", db)
    data = json.loads(run("calibrate", db, "--verdicts", "--json").stdout)
    assert data["verdicts"] == 0 and data["log_loss"] is None and data["auc"] is None
    assert data["fit"]["decision"] == "too-few"
    assert "no verdicts yet" in run("calibrate", db, "--verdicts").stdout


def test_write_on_a_read_only_config_is_refused(tmp_path):
    db = verdicts_store(tmp_path, pairs=40)
    cfg = tmp_path / "memory.synapse.toml"
    cfg.write_text("[review]\nthreshold = 0.4\n")
    cfg.chmod(stat.S_IRUSR)
    refused(run("calibrate", db, "--verdicts", "--write"), "read-only", "nothing written")
    assert cfg.read_text() == "[review]\nthreshold = 0.4\n"


def test_write_on_a_read_only_store_is_refused(tmp_path):
    db = verdicts_store(tmp_path, pairs=40)
    db.chmod(stat.S_IRUSR | stat.S_IRGRP)
    refused(run("calibrate", db, "--verdicts", "--write"), "read-only", "nothing written")
    assert not (tmp_path / "memory.synapse.toml").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--verdicts", "--since", "yesterday"], "--since"),
        (["--verdicts", "--actors", "robots"], "--actors"),
        (["--backtest", "--at", "2026-06-01T00:00:00Z"], "--backtest needs --at T and --horizon DAYS"),
        (["--backtest", "--at", "2026-06-01T00:00:00Z", "--horizon", "0"], "--horizon"),
        (["--verdicts", "--backtest"], "one at a time"),
        (["--since", "2026-06-01T00:00:00Z"], "go with --verdicts"),
        (["--backtest", "--at", "2030-01-01T00:00:00Z", "--horizon", "30"], "after now"),
    ],
)
def test_bad_options_are_one_error_line(judged, args, needle):
    refused(run("calibrate", judged, *args), needle)


def test_actors_and_since(judged):
    agents = json.loads(run("calibrate", judged, "--verdicts", "--actors", "agents", "--json").stdout)
    assert agents["verdicts"] == 0 and agents["actors"] == "agents"
    later = json.loads(
        run("calibrate", judged, "--verdicts", "--since", format_time(T0 + 50 * DAY), "--json").stdout
    )
    assert later["verdicts"] == 20


def test_backtest_json(judged):
    result = run(
        "calibrate", judged, "--backtest", "--at", format_time(T0 + 10 * DAY), "--horizon", "20", "--json"
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data) == [
        "at", "horizon_days", "facts", "replaced", "deleted", "contradicted", "survived", "bins", "log_loss", "auc",
    ]  # fmt: skip
    # alive at T: the 60 old facts and the recent ones made by then (days -2..10: 13)
    assert data["facts"] == 73
    assert data["contradicted"] == 20 and data["survived"] == 53
    assert data["auc"] > 0.5  # what was contradicted was scored lower
    assert (
        "BACKTEST"
        in run(
            "calibrate", judged, "--backtest", "--at", format_time(T0 + 10 * DAY), "--horizon", "20"
        ).stdout
    )


# --as-of: the store as it was, for scripts (SPEC 11.4)


@pytest.fixture
def history(tmp_path):
    facts = [
        {"id": "a", "text": "first", "created_at": "2026-01-01T00:00:00Z"},
        {"id": "b", "text": "second", "created_at": "2026-02-01T00:00:00Z"},
        {"id": "c", "text": "newer", "created_at": "2026-04-01T00:00:00Z"},
    ]
    src = write_jsonl(tmp_path / "h.jsonl", facts)
    db = tmp_path / "h.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
        Triage(store, Clock(parse_time("2026-03-01T00:00:00Z")), actor="user:ann").apply("corroborate", ["a"])
        Triage(store, Clock(parse_time("2026-05-01T00:00:00Z")), actor="user:ann").apply(
            "supersede", ["b"], "c"
        )
        Triage(store, Clock(parse_time("2026-05-02T00:00:00Z")), actor="user:ann").apply("contradict", ["a"])
    return db


def test_score_as_of_is_the_store_then(history):
    rows = [
        json.loads(x)
        for x in run("score", history, "--as-of", "2026-03-15T00:00:00Z", "--json").stdout.splitlines()
    ]
    assert [r["id"] for r in rows] == ["a", "b"]  # c was not made yet
    by_id = {r["id"]: r for r in rows}
    assert by_id["a"]["b"] > 0 and by_id["a"]["d"] == 0  # corroborated by then, not yet contradicted
    assert by_id["b"]["k"] == 0  # not yet superseded
    now_rows = {
        json.loads(x)["id"]: json.loads(x) for x in run("score", history, "--json").stdout.splitlines()
    }
    assert now_rows["b"]["k"] == 1 and now_rows["a"]["d"] > 0
    # the same instant as the browser's as-of view: facts scored at T
    table = run("score", history, "--as-of", "2026-03-15T00:00:00Z").stdout
    assert "newer" not in table and "first" in table


def test_show_as_of(history):
    info = json.loads(run("show", history, "a", "--as-of", "2026-03-15T00:00:00Z", "--json").stdout)
    assert (info["corroborations"], info["contradictions"]) == (1, 0)
    assert [h["action"] for h in info["history"]] == ["corroborate"]
    assert info["reinforced_at"] == ["2026-03-01T00:00:00Z"]
    b = json.loads(run("show", history, "b", "--as-of", "2026-04-15T00:00:00Z", "--json").stdout)
    assert b["superseded_by"] == [] and b["k"] == 0
    refused(run("show", history, "c", "--as-of", "2026-03-15T00:00:00Z"), "no fact with id 'c'", "as of")


def test_export_as_of(history):
    lines = [
        json.loads(x) for x in run("export", history, "--as-of", "2026-04-15T00:00:00Z").stdout.splitlines()
    ]
    assert [o["id"] for o in lines] == ["a", "b", "c"]
    assert "supersedes" not in lines[2]  # c named b only in May
    assert lines[0]["corroborations"] == 1 and lines[0]["contradictions"] == 0
    audit = [
        json.loads(x)
        for x in run("export", history, "--audit", "--as-of", "2026-04-15T00:00:00Z").stdout.splitlines()
    ]
    assert [e["action"] for e in audit] == ["corroborate"]


def test_as_of_bad_input(history):
    refused(run("score", history, "--as-of", "March"), "--as-of")
    refused(run("score", history, "--as-of", "2030-01-01T00:00:00Z"), "after now")
