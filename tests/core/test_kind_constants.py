"""Freshness constants per kind of fact (SPEC 14): what a kind is, how the config holds a
kind's own B0 and s, that they score its facts (and only them), and the history fit that
finds them on a generated history whose two kinds follow different constants."""

from __future__ import annotations

import json

import numpy as np
import pytest

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.config import Config, load_config, write_config
from synapse_tui.core.base.errors import ConfigError
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.backtest import fact_kinds, history, history_report
from synapse_tui.core.review.memory import Memory, stream_rows
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.kinds import kind_of
from tests.cli_run import run
from tests.core.history_stores import DEFAULTS, generate

FEEDBACK = DEFAULTS | {"freshness.b0": -2.6, "freshness.scale": 0.5}  # lives long
PROJECT = DEFAULTS | {"freshness.b0": -0.8, "freshness.scale": 1.5}  # rewritten soon


def _fresh(b0, scale, B):
    return 1.0 / (1.0 + np.exp(-(B - b0) / scale))


def test_a_kind_is_what_the_adapter_recorded():
    assert kind_of({"x-source": "claude-code", "x-claude-code-type": "Feedback"}) == "feedback"
    assert kind_of({"x-source": "mem0", "x-mem0-memory-type": "procedural memory"}) == "procedural-memory"
    assert kind_of({"x-source": "git-notes", "x-git-notes-file": "CLAUDE.md"}) == "instruction"
    assert kind_of({"x-source": "git-notes", "x-git-notes-file": "web/AGENTS.md"}) == "instruction"
    assert kind_of({"x-source": "git-notes", "x-git-notes-file": ".cursor/rules/style.mdc"}) == "rule"
    assert kind_of({"x-source": "claude-code", "x-claude-code-file": ".claude/rules/tests.md"}) == "rule"
    assert kind_of({"x-source": "git-notes", "x-git-notes-file": "memory-bank/progress.md"}) == "note"
    assert kind_of({"x-source": "git-notes", "x-git-notes-file": "docs/readme.md"}) is None
    assert kind_of({"x-source": "claude-code", "x-claude-code-type": "../../[evil]\x1b"}) == "evil"
    assert kind_of(None) is None and kind_of({"x-claude-code-type": "user"}) is None


def _facts(tmp_path):
    """Three facts a year old, one event each: a feedback, a project note, one of no kind."""
    rows = [
        ("fb", {"x-source": "claude-code", "x-claude-code-type": "feedback"}),
        ("pj", {"x-source": "claude-code", "x-claude-code-type": "project"}),
        ("none", None),
    ]
    src = tmp_path / "f.jsonl"
    with src.open("w", encoding="utf-8") as out:
        for fid, prov in rows:
            obj = {"id": fid, "text": f"fact {fid}", "created_at": "2025-06-01T00:00:00Z"}
            if prov:
                obj["provenance"] = prov
            out.write(json.dumps(obj) + "\n")
    db = tmp_path / "m.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    return db


NOW = 1_780_000_000.0  # 2026-05-28


def test_a_kinds_constants_score_its_facts_and_only_them(tmp_path):
    db = _facts(tmp_path)
    cfg = tmp_path / "m.synapse.toml"
    cfg.write_text("[freshness.kind.feedback]\nb0 = -4.0\nscale = 0.5\n", encoding="utf-8")
    config = load_config(cfg)
    with Store.open(db) as store:
        plain = Memory(store, Config(), NOW)
        kinded = Memory(store, config, NOW)
        fb, pj, none = (plain.index[x] for x in ("fb", "pj", "none"))
        B = plain.scores.B
        assert kinded.scores.freshness[fb] == pytest.approx(_fresh(-4.0, 0.5, B[fb]))
        assert kinded.scores.freshness[fb] > 0.85 > 0.3 > plain.scores.freshness[fb]
        for i in (pj, none):  # no constants of their own: the global ones, bit for bit
            assert kinded.scores.trust[i] == plain.scores.trust[i]
        assert kinded.review_due(fb) > plain.review_due(fb)
        streamed = [row for chunk in stream_rows(store, config, NOW, 2) for row in chunk]
        assert streamed == kinded.rows()  # `score --json` streams the same scores
        shown = kinded.explain("fb")["freshness_constants"]
        assert shown == {"kind": "feedback", "b0": -4.0, "scale": 0.5, "from": "kind"}
        assert kinded.explain("pj")["freshness_constants"]["from"] == "global"
    text = run("show", db, "fb", "--now", format_time(NOW), env={"COLUMNS": "200"}).stdout  # unwrapped
    assert "B0=-4 s=0.5 (kind feedback: its own)" in text
    text = run("show", db, "pj", "--now", format_time(NOW), env={"COLUMNS": "200"}).stdout
    assert "B0=-1.7 s=1 (kind project: the global ones)" in text


def test_with_no_kinds_configured_the_score_is_sections_2_arithmetic(tmp_path):
    db = _facts(tmp_path)
    cfg = tmp_path / "m.synapse.toml"
    cfg.write_text("[freshness.kind.nothing-has-it]\nb0 = -4.0\nscale = 0.5\n", encoding="utf-8")
    with Store.open(db) as store:
        plain, kinded = Memory(store, Config(), NOW), Memory(store, load_config(cfg), NOW)
        assert kinded.rows() == plain.rows()
        assert plain.arrays.kind is None  # nothing read when the config holds no kind
        assert plain.explain("fb")["freshness_constants"] == {
            "kind": None,
            "b0": -1.7,
            "scale": 1.0,
            "from": "global",
        }


def test_the_config_holds_kinds_and_refuses_a_bad_one_in_one_line(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("# mine\n[freshness]\nb0 = -2.0\n", encoding="utf-8")
    config = load_config(cfg).with_values("freshness", kind=(("project", -0.8, 1.5), ("user", -3.0, 0.7)))
    write_config(config, cfg)
    again = load_config(cfg)
    assert again.freshness.kind == (("project", -0.8, 1.5), ("user", -3.0, 0.7))
    assert again.freshness.b0 == -2.0 and cfg.read_text(encoding="utf-8").startswith("# mine\n")
    write_config(again.with_values("freshness", kind=(("user", -2.5, 0.7),)), cfg)
    assert load_config(cfg).freshness.kind == (("user", -2.5, 0.7),)
    assert "project" not in cfg.read_text(encoding="utf-8")
    for body, says in (
        ("[freshness.kind.user]\nb0 = -2.0\n", "expected exactly b0 and scale"),
        ("[freshness.kind.user]\nb0 = -2.0\nscale = 0\n", "[freshness.kind.user] scale must lie in (0, 100]"),
        ('[freshness.kind."Bad Name"]\nb0 = -2.0\nscale = 1\n', "a kind's name is lower case"),
        ("[freshness.kind.user]\nb0 = 'x'\nscale = 1\n", "expected a number"),
    ):
        cfg.write_text(body, encoding="utf-8")
        with pytest.raises(ConfigError) as err:
            load_config(cfg)
        assert says in str(err.value) and str(cfg) in str(err.value) and "\n" not in str(err.value)


def _two_kinds(folder, kinds, seed=1):
    src, now = generate(folder / "h.jsonl", None, kinds=kinds, arrivals=4.0, seed=seed)
    db = folder / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    return db, now


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    db, now = _two_kinds(tmp_path_factory.mktemp("two"), {"feedback": FEEDBACK, "project": PROJECT})
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, Config(), now)
        h = history(memory, 30)
        report, fit = history_report(memory, 30)
    return db, now, h, report, fit


def test_two_kinds_with_different_lives_are_each_recovered(two):
    _, _, h, report, fit = two
    kinds = report["fit"]["kinds"]
    by = {k["kind"]: k for k in kinds["kinds"]}
    assert set(by) == {"feedback", "project"} and kinds["without_kind"] == 0
    for name in ("feedback", "project"):
        k = by[name]
        assert k["decision"] == "adopt" and k["from"] == "kind", k["reason"]
        assert k["heldout_log_loss_fitted"] < k["heldout_log_loss_current"] - 0.001
        assert k["heldout_blocks_won"] * 2 > k["heldout_blocks"]
    with Store.open(two[0], readonly=True) as store:
        kind, names = fact_kinds(Memory(store, Config(), two[1]))
    sample_kind = kind[h.position]
    g = report["fit"]["constants"]
    for name, truth in (("feedback", FEEDBACK), ("project", PROJECT)):
        # over this kind's samples, its freshness error against the truth falls by more than
        # half from the global fit's, and its B0 lands near the truth's
        B = h.B[sample_kind == names.index(name)]
        want = _fresh(truth["freshness.b0"], truth["freshness.scale"], B)
        own = by[name]["proposed"]
        err_global = np.mean(np.abs(_fresh(g["freshness.b0"], g["freshness.scale"], B) - want))
        err_own = np.mean(np.abs(_fresh(own["freshness.b0"], own["freshness.scale"], B) - want))
        assert err_own < err_global / 2, (name, err_global, err_own)
        assert abs(own["freshness.b0"] - truth["freshness.b0"]) < 0.4, (name, own)
    # the shared constants fitted with the kinds' own stay near the truth's base rates
    shared = kinds["shared"]
    assert abs(shared["confidence.base_rate_auto"] - 0.6) < 0.05
    assert abs(shared["confidence.base_rate_human"] - 0.85) < 0.05
    assert kinds["heldout_log_loss_per_kind"] < kinds["heldout_log_loss_global"] - 0.01


def test_two_kinds_with_the_same_life_keep_the_global_constants(tmp_path):
    db, now = _two_kinds(tmp_path, {"feedback": FEEDBACK, "project": FEEDBACK}, seed=2)
    with Store.open(db, readonly=True) as store:
        report, fit = history_report(Memory(store, Config(), now), 30)
    kinds = report["fit"]["kinds"]["kinds"]
    assert [k["decision"] for k in kinds] == ["keep-current", "keep-current"], [k["reason"] for k in kinds]
    assert all("is scored with the global constants" in k["reason"] for k in kinds)
    assert fit.adopted_kinds == []


def test_a_kind_with_too_little_history_falls_back_to_the_global_constants(tmp_path):
    """A few facts of a rare kind among many of another: it is not fitted, and says so."""
    src, now = generate(tmp_path / "h.jsonl", None, kinds={"feedback": FEEDBACK}, arrivals=2.0)
    lines = src.read_text(encoding="utf-8").splitlines()
    for i in range(0, 12):  # a dozen facts become `reference`
        obj = json.loads(lines[i])
        obj["provenance"]["x-claude-code-type"] = "reference"
        lines[i] = json.dumps(obj)
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Store.open(tmp_path / "m.db", create=True) as store:
        import_facts(store, parse_file(src), str(src))
        report, _ = history_report(Memory(store, Config(), now), 30)
    by = {k["kind"]: k for k in report["fit"]["kinds"]["kinds"]}
    rare = by["reference"]
    assert rare["decision"] == "too-few" and rare["from"] == "global"
    assert "a kind's own B0 and s need 100 samples" in rare["reason"]
    assert "is scored with the global constants" in rare["reason"]
    assert rare["constants"] == {
        k: report["fit"]["constants"][k] for k in ("freshness.b0", "freshness.scale")
    }


def test_write_stores_each_kinds_constants_and_an_agent_is_told_they_were_fitted(two, tmp_path):
    from synapse_tui.core.agent import Recall
    from synapse_tui.core.base.clock import Clock

    db, now, *_ = two
    copy = tmp_path / "memory.db"
    copy.write_bytes(db.read_bytes())
    at = format_time(now)
    out = run("calibrate", copy, "--backtest", "--fit", "--horizon", "30", "--now", at, "--write")
    assert "freshness.kind.feedback.b0" in out.stdout and "KINDS" in out.stdout
    cfg = load_config(tmp_path / "memory.synapse.toml")
    assert [k[0] for k in cfg.freshness.kind] == ["feedback", "project"]
    with Store.open(copy) as store:
        told = Recall(store, cfg, Clock(now)).show("f0")
    assert told["constants"]["fitted"] is True and told["constants"]["fitted_to"] == "history"
    assert "freshness.kind.project.scale" in told["constants"]["fitted_names"]
    assert told["freshness_constants"]["from"] == "kind"


def test_a_global_history_fit_written_is_reported_as_fitted(tmp_path):
    """`calibrate --backtest --fit --write` leaves the record MCP's `fitted` reads, as a
    verdict fit does; a person's later change to the config unmarks it."""
    from synapse_tui.core.agent import Recall
    from synapse_tui.core.base.clock import Clock
    from tests.core.history_stores import OTHER

    src, now = generate(tmp_path / "h.jsonl", OTHER)
    db = tmp_path / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    cfg = tmp_path / "memory.synapse.toml"

    def told() -> dict:
        with Store.open(db) as store:
            return Recall(store, load_config(cfg), Clock(now)).search("")["constants"]

    assert told()["fitted"] is False
    out = run("calibrate", db, "--backtest", "--fit", "--horizon", "30", "--now", format_time(now), "--write")
    assert "wrote freshness.b0, freshness.scale" in out.stdout
    found = told()
    assert found["fitted"] is True and found["fitted_to"] == "history" and found["samples"] > 5000
    assert {"freshness.b0", "freshness.scale"} <= set(found["fitted_names"])
    cfg.write_text(cfg.read_text(encoding="utf-8").replace("b0 = ", "b0 = -1.0 #"), encoding="utf-8")
    assert told()["fitted"] is False


def test_an_action_logs_the_score_the_kinds_constants_gave(tmp_path):
    """The audit's `score_before` (what a verdict fit replays) is the score shown, a kind's
    own constants included."""
    db = _facts(tmp_path)
    (tmp_path / "m.synapse.toml").write_text("[freshness.kind.feedback]\nb0 = -4.0\nscale = 0.5\n")
    at = format_time(NOW)
    before = json.loads(run("show", db, "fb", "--now", at, "--json").stdout)
    run("corroborate", db, "fb", "--now", at)
    after = json.loads(run("show", db, "fb", "--now", at, "--json").stdout)
    logged = after["history"][-1]["score_before"]
    assert logged["trust"] == before["trust"] and logged["freshness"] == before["freshness"] > 0.85


def test_the_verdict_fit_leaves_out_facts_a_kinds_own_constants_score(tmp_path):
    """A verdict on a fact of a kind with its own B0 and s is not replayed with the global
    ones (SPEC 11.3's replay would not equal the score logged): left out, and said."""
    db = _facts(tmp_path)
    (tmp_path / "m.synapse.toml").write_text("[freshness.kind.feedback]\nb0 = -4.0\nscale = 0.5\n")
    at = format_time(NOW)
    for fid in ("fb", "pj"):
        run("corroborate", db, fid, "--now", at)
    data = json.loads(run("calibrate", db, "--verdicts", "--json").stdout)
    assert data["verdicts"] == 2
    assert (
        "1 verdicts on facts of kinds with their own freshness constants are left out"
        in data["fit"]["reason"]
    )
