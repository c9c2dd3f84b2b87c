"""`suggest` and `dismiss` as a person uses them (SPEC 13): best first, the same bytes each
time, a flag but no change of trust, a dismissal that survives a new process and `undo`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.cli_run import refused, run
from tests.helpers import NOW, json_lines, write_jsonl

FACTS = [
    {"id": "a1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "a2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
    {"id": "b1", "text": "the project uses Postgres", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {"id": "b2", "text": "Postgres runs on port 5433", "created_at": "2025-02-01T00:00:00Z", "note": "ops"},
    {
        "id": "c1",
        "text": "the API rate limit is 600 requests per minute",
        "created_at": "2025-01-01T00:00:00Z",
        "note": "api",
    },
    {
        "id": "c2",
        "text": "the API rate limit is now 900 requests per minute",
        "created_at": "2025-04-01T00:00:00Z",
        "note": "api",
    },
]


def _store(tmp_path, new_store) -> str:
    db = new_store("s")
    run("import", write_jsonl(tmp_path / "f.jsonl", FACTS), "--db", db)
    return db


def _suggested(db) -> list[tuple[str, str]]:
    return [(s["fact"], s["by"]) for s in json_lines(run("suggest", db, "--json", "--now", NOW).stdout)]


def test_suggest_lists_the_replaced_facts_best_first_the_same_bytes_each_time(tmp_path, new_store):
    db = _store(tmp_path, new_store)
    first = run("suggest", db, "--json", "--kind", "replaced", "--now", NOW).stdout
    assert first == run("suggest", db, "--json", "--now", NOW).stdout
    lines = json_lines(first)
    assert [(s["fact"], s["by"]) for s in lines] == [("c1", "c2"), ("a1", "a2")]
    assert list(lines[0]) == ["kind", "fact", "by", "score", "why"]
    assert lines[0]["score"] >= lines[1]["score"]
    assert ("b1", "b2") not in _suggested(db)  # same subject, not a replacement
    assert len(json_lines(run("suggest", db, "--json", "--limit", "1", "--now", NOW).stdout)) == 1
    # read by a person (or cut): one suggestion a line, score, fact, the other and why a tab apart
    rows = [line.split("\t") for line in run("suggest", db, "--now", NOW).stdout.splitlines()]
    assert [r[:3] for r in rows] == [[f"{s['score']:.2f}", s["fact"], f"by {s['by']}"] for s in lines]
    assert [r[3] for r in rows] == [s["why"] for s in lines]


def test_a_suggestion_flags_the_fact_but_never_moves_its_trust(tmp_path, new_store):
    db = _store(tmp_path, new_store)
    rows = {r["id"]: r for r in json_lines(run("score", db, "--json", "--now", NOW).stdout)}
    assert rows["c1"]["flags"] == ["suggested_replaced"] and rows["c2"]["flags"] == []
    assert rows["c1"]["supersession"] == 1.0 and rows["c1"]["k"] == 0
    assert rows["c1"]["trust"] == rows["b1"]["trust"]  # same inputs, same trust: the flag is not a factor
    flagged = json_lines(run("score", db, "--json", "--where", "is:suggested", "--now", NOW).stdout)
    assert sorted(r["id"] for r in flagged) == ["a1", "c1"]
    shown = json.loads(run("show", db, "c1", "--json", "--now", NOW).stdout)
    assert "suggested_replaced" in shown["flags"]


def test_a_dismissal_is_audited_remembered_by_a_new_process_and_undone(tmp_path, new_store):
    db = _store(tmp_path, new_store)
    run("dismiss", db, "c1", "c2", "--now", NOW)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from synapse_tui.cli import main; main()",
            "suggest",
            str(db),
            "--json",
            "--now",
            NOW,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert [(s["fact"], s["by"]) for s in json_lines(out)] == [("a1", "a2")]
    history = json.loads(run("show", db, "c1", "--json", "--now", NOW).stdout)["history"]
    assert history[-1]["action"] == "dismiss" and history[-1]["actor"].startswith("user:")
    assert (
        "suggested_replaced" not in json.loads(run("show", db, "c1", "--json", "--now", NOW).stdout)["flags"]
    )
    run("undo", db, "--now", NOW)
    assert ("c1", "c2") in _suggested(db)


def test_dismiss_without_the_other_takes_the_standing_one_and_accept_ends_it(tmp_path, new_store):
    db = _store(tmp_path, new_store)
    run("dismiss", db, "a1", "--now", NOW)
    assert ("a1", "a2") not in _suggested(db)
    run("supersede", db, "c1", "c2", "--now", NOW)  # accepting: the existing supersede
    assert _suggested(db) == []


def test_dismiss_refuses_unknown_ids_and_a_fact_with_nothing_suggested(tmp_path, new_store):
    db = _store(tmp_path, new_store)
    assert "no fact with id 'zz'" in refused("dismiss", db, "zz", "c2")
    assert "no fact with id 'zz'" in refused("dismiss", db, "c1", "zz")
    assert "nothing to dismiss" in refused("dismiss", db, "b1")
    assert _suggested(db) == [("c1", "c2"), ("a1", "a2")]


def test_the_kept_suggestions_follow_every_change_of_the_store(tmp_path, monkeypatch):
    from synapse_tui.core.review import suggestions

    monkeypatch.setattr(suggestions, "CACHE_MIN_FACTS", 0)  # keep them beside even this small store
    db = tmp_path / "s.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", FACTS), "--db", db)
    assert _suggested(db) == [("c1", "c2"), ("a1", "a2")]
    assert (tmp_path / "s.db.synapse.suggest").exists()
    run("dismiss", db, "c1", "c2", "--now", NOW)
    assert _suggested(db) == [("a1", "a2")]
    more = [
        {
            "id": "b3",
            "text": "the project uses Postgres 16 now",
            "created_at": "2025-05-01T00:00:00Z",
            "note": "ops",
        }
    ]
    run("import", write_jsonl(tmp_path / "g.jsonl", more), "--db", db)
    assert ("b1", "b3") in _suggested(db)
    rows = {r["id"]: r for r in json_lines(run("score", db, "--json", "--now", NOW).stdout)}
    assert rows["b1"]["flags"] == ["suggested_replaced"] and rows["c1"]["flags"] == []
