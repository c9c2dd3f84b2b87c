"""Triage from the command line (SPEC 8): every verb, its audit, and refusals that change nothing."""

from __future__ import annotations

import os

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.review.triage import Action, Triage, default_actor
from synapse_tui.core.store.db import Store
from tests.helpers import json_lines, run

SCORE_BEFORE_KEYS = {
    "trust",
    "band",
    "confidence",
    "freshness",
    "supersession",
    "gate",
    "r",
    "s",
    "declared_tier",
    "tier",
    "reinforcement_count",
    "last_reinforced_at",
    "k",
}


def show(db, fid):
    return json_lines(run("show", db, fid, "--json").stdout)[0]


def state(db) -> tuple[str, str]:
    """What a user can read back: the facts and the audit log."""
    return run("export", db).stdout, run("export", db, "--audit").stdout


def test_every_verb_changes_its_fact_and_prints_the_new_trust(db):
    before = show(db, "e")
    out = run("corroborate", db, "e").stdout.strip()
    after = show(db, "e")
    assert after["corroborations"] == before["corroborations"] + 1
    assert after["reinforced_at"] == ["2026-12-01T00:00:00Z"]  # a reinforcement now (--now/SYNAPSE_NOW)
    assert out.startswith(f"corroborate e: trust {before['trust']:.2f} -> {after['trust']:.2f}")
    assert f"({before['band']} -> {after['band']})" in out

    run("contradict", db, "e")
    assert show(db, "e")["contradictions"] == before["contradictions"] + 1
    run("verify", db, "e", "--now", "2026-12-02T00:00:00Z")
    assert show(db, "e")["reinforced_at"] == ["2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z"]
    assert show(db, "e")["declared_tier"] == "auto"
    later = ("--now", "2026-12-02T00:00:00Z")  # history is written in order: not before the verify
    run("accept", db, "e", *later)
    assert show(db, "e")["declared_tier"] == "human"

    history = show(db, "e")["history"]
    assert [h["action"] for h in history] == ["corroborate", "contradict", "verify", "accept"]
    assert history[2]["at"] == "2026-12-02T00:00:00Z"

    assert show(db, "c")["k"] == 0
    out = run("supersede", db, "c", "d", *later).stdout
    assert out.startswith("supersede c by d: trust") and "k 0 -> 1" in out
    assert show(db, "c")["superseded_by"] == ["d"] and show(db, "d")["supersedes"] == "c"
    assert show(db, "c")["history"][-1]["action"] == "supersede"


def test_json_output_is_the_object_of_show(db):
    printed = json_lines(run("verify", db, "b", "--json").stdout)
    assert printed == [show(db, "b")]
    assert printed[0]["reinforcement_count"] == 4  # the O(1) form stays O(1): n + 1
    superseded = json_lines(run("supersede", db, "c", "d", "--json").stdout)
    assert [o["id"] for o in superseded] == ["c"] and superseded[0]["superseded_by"] == ["d"]


@pytest.mark.parametrize(
    "args, message",
    [
        (("corroborate", "{db}", "nope"), "no fact with id 'nope'"),
        (("contradict", "{db}", "nope"), "no fact with id 'nope'"),
        (("verify", "{db}", "nope"), "no fact with id 'nope'"),
        (("accept", "{db}", "b"), "nothing to change (already human)"),
        (("supersede", "{db}", "b", "a"), "supersession cycle"),  # b already supersedes a
        (("supersede", "{db}", "nope", "a"), "no fact with id 'nope'"),
        (("supersede", "{db}", "c", "c"), "cannot supersede itself"),
        (("undo", "{db}"), "nothing to undo"),
        (("verify", "{db}", "a", "--now", "soon"), "not an RFC 3339 timestamp"),
    ],
)
def test_a_refusal_is_one_error_line_and_changes_nothing(db, args, message):
    before, db_bytes = state(db), db.read_bytes()
    result = run(*(a.format(db=db) for a in args), ok=False)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.output and result.stdout == ""
    assert state(db) == before and db.read_bytes() == db_bytes


def test_a_missing_store_is_refused_and_not_created(tmp_path):
    missing = tmp_path / "nothing.db"
    result = run("corroborate", missing, "a", ok=False)
    assert result.exit_code == 2 and "no such database" in result.stderr and not missing.exists()


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can write a 0444 file")
def test_a_read_only_store_is_refused(db):
    before = state(db)
    db.chmod(0o444)
    try:
        result = run("corroborate", db, "a", ok=False)
    finally:
        db.chmod(0o644)
    assert result.exit_code == 2 and "read-only" in result.stderr
    assert state(db) == before


def test_undo_takes_back_the_last_action_whoever_made_it_and_says_what(db, monkeypatch):
    run("contradict", db, "a")
    with Store.open(db) as store:  # an agent acts after the person
        Triage(store, Clock(parse_time("2026-12-01T06:00:00Z")), "agent:scout").apply(
            Action.CORROBORATE, ["e"]
        )
    e_before_undo = show(db, "e")
    monkeypatch.setenv("SYNAPSE_NOW", "2026-12-01T07:00:00Z")  # after the agent: history is in order

    out = run("undo", db).stdout.strip()
    assert out.startswith("undid corroborate e (by agent:scout at 2026-12-01T06:00:00Z): trust ")
    e = show(db, "e")
    assert e["corroborations"] == 0 and e["trust"] < e_before_undo["trust"]
    assert e["history"][-1]["action"] == "undo" and e["history"][-1]["actor"] == default_actor()

    out = run("undo", db).stdout
    assert out.startswith(f"undid contradict a (by {default_actor()} at 2026-12-01T00:00:00Z)")
    assert show(db, "a")["contradictions"] == 0
    result = run("undo", db, ok=False)
    assert result.exit_code == 2 and "nothing to undo" in result.stderr


def test_history_and_audit_export_carry_the_actor_and_the_score_before(db):
    row_before = {r["id"]: r for r in json_lines(run("score", db, "--json").stdout)}["a"]
    run("corroborate", db, "a")
    entry = show(db, "a")["history"][-1]
    assert entry["actor"] == default_actor() and entry["actor"].startswith("user:")
    assert {"at", "action", "actor", "score_before"} <= set(entry)
    sb = entry["score_before"]
    assert SCORE_BEFORE_KEYS <= set(sb)
    for key in ("trust", "band", "confidence", "freshness", "supersession", "gate", "k", "tier"):
        assert (
            sb[key] == pytest.approx(row_before[key])
            if isinstance(sb[key], float)
            else sb[key] == row_before[key]
        )
    assert (sb["r"], sb["s"], sb["declared_tier"], sb["k"]) == (3, 0, "auto", 1)  # a is superseded by b
    assert sb["reinforcement_count"] == 2 and sb["last_reinforced_at"] == "2026-11-20T10:00:00Z"

    run("undo", db)
    audit = json_lines(run("export", db, "--audit").stdout)
    assert [(d["action"], d["actor"]) for d in audit] == [
        ("corroborate", default_actor()),
        ("undo", default_actor()),
    ]
    assert audit[0]["score_before"] == sb
    # the undo's score_before is the score after the corroboration, just before it was undone
    assert audit[1]["score_before"]["r"] == 4 and audit[1]["score_before"]["trust"] > sb["trust"]
