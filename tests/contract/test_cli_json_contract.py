"""SPEC 6, statement by statement, through the command line on a real SQLite store: every
subcommand takes `--json` and `--now`; `show --json` is `score --json`'s row plus the fact's
fields; `review_due` is when freshness crosses `review.threshold`; `history` oldest first;
`calibrate` proposes B0 = median(B) and s = IQR / (2 ln 3) over heads; `export` carries
triage; the query language's `prov:KEY=VALUE`, typos and words."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.cli_run import refused, run
from tests.helpers import NOW, json_lines, write_jsonl

FACTS = [
    {
        "id": "h1",
        "text": "the staging database listens on port 5433",
        "created_at": "2026-09-01T00:00:00Z",
        "reinforced_at": ["2026-10-01T00:00:00Z"],
        "provenance": {"x-mem0-user-id": "alice"},
    },
    {
        "id": "h2",
        "text": "the billing service deploys on Tuesdays",
        "created_at": "2026-06-01T00:00:00Z",
        "provenance": {"x-mem0-user-id": "bob"},
    },
    {
        "id": "h3",
        "text": "backups run nightly at 02:00",
        "created_at": "2026-11-20T00:00:00Z",
        "corroborations": 2,
    },
    {"id": "h4", "text": "the wiki lives on the intranet", "created_at": "2025-12-01T00:00:00Z"},
    {
        "id": "h5",
        "text": "Maria leads the payments team",
        "created_at": "2026-03-01T00:00:00Z",
        "tier": "human",
    },
    {
        "id": "old",
        "text": "backups run nightly at 01:00",
        "created_at": "2026-01-01T00:00:00Z",
    },
]
FACTS[2]["supersedes"] = "old"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", FACTS), "--db", path)
    return path


def _show(db, fid, *args):
    return json.loads(run("show", db, fid, "--json", "--now", NOW, *args).stdout)


def test_every_subcommand_of_section_6_takes_json_and_now(db, tmp_path):
    later = "2027-01-01T00:00:00Z"
    again = tmp_path / "again.db"
    src = write_jsonl(tmp_path / "g.jsonl", FACTS)
    for args in (
        ("import", src, "--db", again),
        ("score", db),
        ("show", db, "h1"),
        ("edges", db),
        ("neighbours", db, "h1"),
        ("calibrate", db),
        ("export", db),
        ("sample",),
    ):
        out = run(*args, "--json", "--now", later).stdout
        lines = [json.loads(line) for line in out.splitlines() if line.strip()]  # JSON, every line
        assert all(isinstance(o, dict) for o in lines), args
        assert "--now" in refused(*args, "--json", "--now", "later"), args  # --now is read, not ignored


def test_score_has_one_object_per_fact_with_the_contract_fields(db):
    rows = json_lines(run("score", db, "--json", "--now", NOW).stdout)
    assert sorted(r["id"] for r in rows) == sorted(f["id"] for f in FACTS)
    for r in rows:
        for key in ("trust", "confidence", "freshness", "supersession", "gate", "b", "d", "u", "B"):
            assert isinstance(r[key], float), (key, r[key])
        assert isinstance(r["k"], int) and r["band"] in {"very low", "low", "moderate", "high", "very high"}
        assert r["guidance"] in {"disputed", "uncertain", "supported"} and r["tier"] in {
            "auto",
            "human",
            "signed",
        }
        assert isinstance(r["flags"], list) and all(isinstance(f, str) for f in r["flags"])
        assert r["trust"] == pytest.approx(r["confidence"] * r["freshness"] * r["supersession"] * r["gate"])
    by_id = {r["id"]: r for r in rows}
    assert by_id["old"]["k"] == 1 and by_id["h5"]["tier"] == "human"


def test_show_is_scores_row_plus_the_facts_fields_and_history_oldest_first(db):
    run("verify", db, "h1", "--now", "2026-11-01T00:00:00Z")
    run("corroborate", db, "h1", "--now", "2026-11-15T00:00:00Z")
    row = {r["id"]: r for r in json_lines(run("score", db, "--json", "--now", NOW).stdout)}["h1"]
    info = _show(db, "h1")
    assert {k: info[k] for k in row} == row  # every field of `score`, the same values
    for key in ("text", "created_at", "corroborations", "contradictions", "reinforced_at", "supersedes"):
        assert key in info, key
    for key in ("superseded_by", "entities", "note", "provenance", "review_due", "history"):
        assert key in info, key
    assert info["reinforced_at"] == ["2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z", "2026-11-15T00:00:00Z"]
    assert [(h["action"], h["at"]) for h in info["history"]] == [
        ("verify", "2026-11-01T00:00:00Z"),
        ("corroborate", "2026-11-15T00:00:00Z"),
    ]
    assert info["provenance"] == {"x-mem0-user-id": "alice"}
    assert _show(db, "old")["superseded_by"] == ["h3"] and _show(db, "h3")["supersedes"] == "old"


def test_review_due_is_when_freshness_crosses_the_threshold(db):
    info = _show(db, "h3")
    due = info["review_due"]
    just_before = json.loads(run("show", db, "h3", "--json", "--now", due).stdout)
    assert just_before["freshness"] == pytest.approx(0.5, abs=1e-3)
    assert info["freshness"] > 0.5
    # with another threshold in the config, the date moves
    cfg = db.parent / "m.synapse.toml"
    cfg.write_text("[review]\nthreshold = 0.7\n")
    earlier = _show(db, "h3")["review_due"]
    assert earlier < due
    assert json.loads(run("show", db, "h3", "--json", "--now", earlier).stdout)["freshness"] == pytest.approx(
        0.7, abs=1e-3
    )


def test_calibrate_proposes_the_median_and_the_spread_of_b_over_heads(db):
    rows = json_lines(run("score", db, "--json", "--now", NOW).stdout)
    B = np.array([r["B"] for r in rows if r["k"] == 0])
    data = json.loads(run("calibrate", db, "--json", "--now", NOW).stdout)
    assert data["heads"] == len(B) == 5
    assert data["proposed_b0"] == pytest.approx(float(np.median(B)))
    q1, q3 = np.percentile(B, [25, 75])
    assert data["proposed_scale"] == pytest.approx((q3 - q1) / (2 * math.log(3)))
    assert sum(data["ages"]["counts"]) == len(rows) and data["activations"]["counts"]


def test_calibrate_keeps_the_current_scale_when_the_spread_is_zero(tmp_path):
    same = [{"id": f"s{i}", "text": f"fact {i}", "created_at": "2026-10-01T00:00:00Z"} for i in range(4)]
    db = tmp_path / "same.db"
    run("import", write_jsonl(tmp_path / "s.jsonl", same), "--db", db)
    (tmp_path / "same.synapse.toml").write_text("[freshness]\nscale = 1.3\n")
    data = json.loads(run("calibrate", db, "--json", "--now", NOW).stdout)
    assert data["proposed_scale"] == 1.3


def test_export_carries_triage_and_round_trips(db, tmp_path):
    run("corroborate", db, "h2", "--now", "2026-11-30T00:00:00Z")
    run("contradict", db, "h4", "--now", "2026-11-30T00:00:00Z")
    run("accept", db, "h2", "--now", "2026-11-30T00:00:00Z")
    out = {o["id"]: o for o in json_lines(run("export", db, "--json").stdout)}
    assert out["h2"]["corroborations"] == 1 and out["h2"]["tier"] == "human"
    assert "2026-11-30T00:00:00Z" in out["h2"]["reinforced_at"]
    assert out["h4"]["contradictions"] == 1
    back = tmp_path / "back.db"
    run("import", write_jsonl(tmp_path / "e.jsonl", list(out.values())), "--db", back)
    assert (
        run("score", back, "--json", "--now", NOW).stdout == run("score", db, "--json", "--now", NOW).stdout
    )


def _where(db, query) -> list[str]:
    return [r["id"] for r in json_lines(run("score", db, "--json", "--now", NOW, "--where", query).stdout)]


def test_prov_filter_keeps_the_facts_whose_provenance_key_equals_the_value(db):
    assert _where(db, "prov:x-mem0-user-id=alice") == ["h1"]
    assert _where(db, "prov:x-mem0-user-id=carol") == []
    assert _where(db, "-prov:x-mem0-user-id=alice") == sorted(f["id"] for f in FACTS if f["id"] != "h1")


def test_a_filter_shaped_token_with_no_such_field_is_refused_with_a_hint(db):
    said = run("score", db, "--json", "--where", "trsut<0.3", code=2)
    assert said.stdout == "" and "Traceback" not in said.stderr
    assert said.stderr.startswith("error: unknown field 'trsut' (did you mean 'trust'?)")


def test_every_other_token_is_a_word_and_any_word_may_match(db):
    # a question as an agent asks it: punctuation and all; no fact holds every word
    found = _where(db, "which port does the staging database listen on?")
    assert found and found[0] == "h1"
    assert _where(db, "3:30 backups") and "h3" in _where(db, "3:30 backups")  # `3:30` is no field: a word
    assert _where(db, "tier:human") == ["h5"]  # a filter restricts
    assert _where(db, "tier:human payments") == ["h5"] and _where(db, "tier:human backups") == []


def test_every_command_takes_json_and_now_the_browser_and_the_server_now():
    from synapse_tui.cli import main

    for name, command in main.commands.items():
        options = {o for p in command.params for o in getattr(p, "opts", [])}
        if name == "open":  # the browser: nothing to print
            continue
        assert "--now" in options, name
        if name != "mcp":  # the server speaks JSON-RPC whatever it is asked
            assert "--json" in options, name


def test_copy_and_sync_take_json_and_now(db, tmp_path):
    dest = tmp_path / "copy.db"
    copied = json.loads(run("copy", db, dest, "--json", "--now", NOW).stdout)
    assert copied["facts"] == len(FACTS) and copied["to"] == str(dest) and copied["rows"] >= len(FACTS)
    assert run("export", dest).stdout == run("export", db).stdout
    assert "--now" in refused("copy", db, tmp_path / "other.db", "--now", "later")
    assert not (tmp_path / "other.db").exists()
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Notes\n\n- the build runs on Linux\n")
    synced = tmp_path / "synced.db"
    run("import", "--from", "markdown", notes, "--db", synced)
    out = run("sync", synced, "--json", "--now", NOW).stdout
    assert [json.loads(line)["unchanged"] for line in out.splitlines()] == [1]
    assert "--now" in refused("sync", synced, "--now", "later")


def test_a_lines_unknown_keys_are_kept_verbatim_as_provenance(tmp_path):
    """SPEC 4: `show` (JSON and text) lists a line's unknown keys with its provenance,
    `prov:KEY=VALUE` finds them, and `export` writes them back as they stood."""
    line = {
        "id": "u1",
        "text": "deploys run on Tuesdays",
        "created_at": "2026-10-01T00:00:00Z",
        "x-ai-model": "m1",
        "ticket": {"n": 7},
        "provenance": {"x-mem0-user-id": "alice"},
    }
    db = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", [line]), "--db", db)
    shown = json.loads(run("show", db, "u1", "--json", "--now", NOW).stdout)
    assert shown["provenance"] == {"x-ai-model": "m1", "ticket": {"n": 7}, "x-mem0-user-id": "alice"}
    text = run("show", db, "u1", "--now", NOW).stdout
    assert "x-ai-model: m1" in text and 'ticket: {"n": 7}' in text
    assert [
        r["id"] for r in json_lines(run("score", db, "--where", "prov:x-ai-model=m1", "--json").stdout)
    ] == ["u1"]
    exported = json_lines(run("export", db).stdout)[0]
    assert exported["x-ai-model"] == "m1" and exported["ticket"] == {"n": 7}
    assert exported["provenance"] == {"x-mem0-user-id": "alice"}
