"""The CLI contract of SPEC section 6, through click's runner on real files."""

from __future__ import annotations

import json

import pytest

from tests.helpers import json_lines, run, write_jsonl

SCORE_KEYS = {
    "id",
    "trust",
    "band",
    "confidence",
    "freshness",
    "supersession",
    "gate",
    "b",
    "d",
    "u",
    "guidance",
    "k",
    "B",
    "tier",
    "flags",
}


def test_score_json_has_every_field_with_full_floats(db):
    rows = json_lines(run("score", db, "--json").stdout)
    assert [r["id"] for r in rows] == ["a", "b", "c", "d", "e"]  # store order
    by_trust = json_lines(run("score", db, "--json", "--sort", "-trust").stdout)
    assert [r["trust"] for r in by_trust] == sorted((r["trust"] for r in rows), reverse=True)
    for row in rows:
        assert SCORE_KEYS <= set(row)
    by_id = {r["id"]: r for r in rows}
    assert by_id["c"]["tier"] == "signed"  # the config beside the store trusts KEY
    assert by_id["a"]["k"] == 1 and by_id["a"]["supersession"] == 0.5
    assert len(repr(by_id["a"]["trust"])) > 6  # a full float, not a rounded display value


def test_now_pins_the_clock(db):
    early = {
        r["id"]: r for r in json_lines(run("score", db, "--json", "--now", "2026-11-02T00:00:00Z").stdout)
    }
    late = {
        r["id"]: r for r in json_lines(run("score", db, "--json", "--now", "2027-11-02T00:00:00Z").stdout)
    }
    assert late["b"]["freshness"] < early["b"]["freshness"]
    bad = run("score", db, "--now", "tomorrow", ok=False)
    assert bad.exit_code != 0 and "--now" in bad.stderr and "Traceback" not in bad.output


def test_score_table_is_readable_and_filterable(db):
    out = run("score", db, "--where", "tier:signed").stdout
    assert "signed fact" in out and "forged fact" not in out and "1 fact\n" in out
    out = run("score", db, "--where", "maria", "--sort", "id").stdout
    assert out.index("Maria owns the Payments") < out.index("Maria owns the Billing")
    literal = run("score", db, "--where", "red").stdout
    assert "[red]not markup[/red]" in literal


def test_escape_sequences_in_fact_text_are_shown_not_interpreted(tmp_path):
    src = write_jsonl(
        tmp_path / "esc.jsonl",
        [{"id": "esc", "text": "raw \x1b[31mred\x1b[0m here", "created_at": "2026-11-01T00:00:00Z"}],
    )
    db = tmp_path / "esc.db"
    run("import", src, "--db", db)
    for out in (run("show", db, "esc").stdout, run("score", db).stdout):
        assert "\x1b" not in out and "\u241b[31mred" in out


def test_filter_typo_points_at_the_token(db):
    result = run("score", db, "--where", "maria trsut<0.3", ok=False)
    assert result.exit_code == 2
    assert "unknown field 'trsut'" in result.stderr and "did you mean 'trust'" in result.stderr
    assert "      ^^^^^^^^^" in result.stderr


def test_show_explains_a_fact(db):
    info = json.loads(run("show", db, "b", "--json").stdout)
    assert SCORE_KEYS <= set(info)
    for key in (
        "text",
        "created_at",
        "corroborations",
        "contradictions",
        "supersedes",
        "superseded_by",
        "entities",
        "note",
        "provenance",
        "review_due",
        "history",
    ):
        assert key in info
    assert info["reinforcement_count"] == 3 and info["freshness_form"] == "o1"
    assert info["supersedes"] == "a" and info["history"] == []
    older = json.loads(run("show", db, "a", "--json").stdout)
    assert older["superseded_by"] == ["b"] and older["reinforced_at"] == ["2026-11-20T10:00:00Z"]
    text = run("show", db, "a").stdout
    assert "Confidence" in text and "Freshness" in text and "what would move it" in text
    missing = run("show", db, "nope", ok=False)
    assert missing.exit_code == 2 and "error: no fact with id 'nope'" in missing.stderr


def test_export_round_trips(db, tmp_path):
    out = tmp_path / "out.jsonl"
    run("export", db, "-o", out)
    again = tmp_path / "again.db"
    (tmp_path / "again.synapse.toml").write_text((tmp_path / "memory.synapse.toml").read_text())
    run("import", out, "--db", again)
    first = run("score", db, "--json").stdout
    assert run("score", again, "--json").stdout == first


def test_calibrate_proposes_and_writes(db, tmp_path):
    data = json.loads(run("calibrate", db, "--json").stdout)
    assert data["heads"] == 4
    assert data["proposed"] == {"B0": data["proposed_b0"], "s": data["proposed_scale"]}
    assert set(data["bands_before"]) == {"very low", "low", "moderate", "high", "very high"}
    assert sum(data["bands_after"].values()) == 5
    assert "activation B" in run("calibrate", db).stdout
    run("calibrate", db, "--write")
    cfg = (tmp_path / "memory.synapse.toml").read_text()
    assert f"b0 = {data['proposed_b0']!r}" in cfg and "signers" in cfg


def test_bad_import_exits_nonzero_and_changes_nothing(db, tmp_path):
    before = run("export", db).stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "ok", "text": "t", "created_at": "2026-01-01T00:00:00Z"}\n'
        '{"id": "x", "text": "t", "created_at": "2026-01-01T00:00:00Z", "corroborations": "many"}\n'
    )
    result = run("import", bad, "--db", db, ok=False)
    assert result.exit_code == 2
    assert f"{bad}:2: field 'corroborations'" in result.stderr and "Traceback" not in result.output
    assert run("export", db).stdout == before


@pytest.mark.parametrize("content", [b"not a database at all" * 50, None])
def test_foreign_or_missing_database_is_a_clear_error(tmp_path, content):
    path = tmp_path / "x.db"
    if content:
        path.write_bytes(content)
    result = run("score", path, ok=False)
    assert result.exit_code == 2 and "error:" in result.stderr and "Traceback" not in result.output


def _git_status() -> str:
    import subprocess
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        ["git", "status", "--porcelain", "--ignored=no"], cwd=repo, capture_output=True, text=True
    )
    return out.stdout if out.returncode == 0 else ""


def test_sample_prints_a_working_copy_outside_the_repo(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNAPSE_DATA_DIR", str(tmp_path / "data"))
    status = _git_status()
    path = run("sample").stdout.strip()
    assert path.startswith(str(tmp_path / "data"))
    rows = json_lines(run("score", path, "--json").stdout)
    assert len(rows) >= 2000
    assert run("sample").stdout.strip() == path  # built once, then reused
    assert _git_status() == status  # building and reading the sample left the checkout alone


def embedded_facts() -> list[dict]:
    """Six facts in two tight clusters, with model embeddings and shared notes."""
    vecs = {
        "p1": [1, 0, 0.01],
        "p2": [1, 0.02, 0],
        "p3": [1, 0.01, 0.02],
        "q1": [0, 1, 0.01],
        "q2": [0.02, 1, 0],
        "q3": [0.01, 1, 0.02],
    }
    return [
        {
            "id": fid,
            "text": f"fact {fid}",
            "created_at": "2026-11-01T00:00:00Z",
            "embedding": v,
            "entities": ["Payments API", "Maria"] if fid.startswith("p") else ["Ledger", "maria "],
            "note": f"note-{fid[1]}",
        }
        for fid, v in vecs.items()
    ]


def test_edges_and_neighbours(tmp_path):
    src = write_jsonl(tmp_path / "emb.jsonl", embedded_facts())
    db = tmp_path / "emb.db"
    run("import", src, "--db", db)
    edges = json_lines(run("edges", db, "--json").stdout)
    semantic = {(e["a"], e["b"]) for e in edges if e["kind"] == "semantic"}
    assert all(e["a"] < e["b"] and 0 < e["weight"] <= 1 for e in edges)
    assert not any(a[0] != b[0] for a, b in semantic)  # clusters never link across
    npmi = [e for e in edges if e["kind"] == "npmi"]
    assert all(e["a"] == e["a"].strip().casefold() for e in npmi)
    # read by a person (or cut): one edge a line, its kind, weight and ends a tab apart
    rows = [line.split("\t") for line in run("edges", db).stdout.splitlines()]
    assert [(r[0].split()[0], float(r[1]), r[2], r[3]) for r in rows] == [
        (e["kind"], round(e["weight"], 2), e["a"], e["b"]) for e in edges
    ]
    info = json.loads(run("neighbours", db, "p1", "--json").stdout)
    assert {n["id"] for n in info["semantic"]} <= {"p2", "p3"}
    assert {e["entity"] for e in info["entities"]} == {"payments api", "maria"}
    assert "semantic neighbours of p1" in run("neighbours", db, "p1").stdout
    assert run("neighbours", db, "nope", ok=False).exit_code != 0


def test_a_later_import_resolves_an_unknown_supersedes(tmp_path):
    first = write_jsonl(
        tmp_path / "one.jsonl",
        [{"id": "new", "text": "v2 is live", "created_at": "2026-11-01T00:00:00Z", "supersedes": "old"}],
    )
    second = write_jsonl(
        tmp_path / "two.jsonl", [{"id": "old", "text": "v1 is live", "created_at": "2026-01-01T00:00:00Z"}]
    )
    db = tmp_path / "m.db"
    assert "supersedes unknown id 'old'" in run("import", first, "--db", db).stderr
    run("import", second, "--db", db)
    rows = {r["id"]: r for r in json_lines(run("score", db, "--json").stdout)}
    assert rows["old"]["k"] == 1 and rows["new"]["k"] == 0


def test_export_audit_lists_each_decision_with_before_and_after(db):
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.review.triage import Triage
    from synapse_tui.core.store.db import Store

    with Store.open(db) as store:
        triage = Triage(store, Clock(parse_time("2026-12-01T00:00:00Z")), actor="tester")
        triage.apply("verify", ["a", "c"])
        triage.undo()
    lines = json_lines(run("export", db, "--audit").stdout)
    assert [(d["action"], d["id"]) for d in lines] == [
        ("verify", "a"),
        ("verify", "c"),
        ("undo", "a"),
        ("undo", "c"),
    ]
    assert lines[0]["before"] == {"reinforced_at": ["2026-11-20T10:00:00Z"]}
    assert lines[0]["after"]["reinforced_at"][-1] == "2026-12-01T00:00:00Z"
    assert lines[2]["undoes"] == lines[0]["batch"] and lines[0]["actor"] == "tester"


def test_damage_past_the_header_is_reported_not_a_traceback(db):
    import sqlite3

    sqlite3.connect(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").connection.close()
    with open(db, "r+b") as fh:  # keep the header, wreck the pages behind it
        size = fh.seek(0, 2)
        fh.seek(4096)
        fh.write(b"\xde\xad\xbe\xef" * ((size - 4096) // 4))
    result = run("score", db, "--json", ok=False)
    assert result.exit_code == 2 and "corrupt" in result.stderr and "Traceback" not in result.output


def test_edges_list_lexical_edges_only_on_request(tmp_path):
    facts = embedded_facts() + [
        {
            "id": f"w{i}",
            "text": f"the deploy pipeline runs tests step {i}",
            "created_at": "2026-11-01T00:00:00Z",
        }
        for i in range(4)
    ]
    src = write_jsonl(tmp_path / "mixed.jsonl", facts)
    db = tmp_path / "mixed.db"
    run("import", src, "--db", db)
    plain = [e for e in json_lines(run("edges", db, "--json").stdout) if e["kind"] == "semantic"]
    assert plain and all(e["a"][0] in "pq" and "space" not in e for e in plain)  # only embedded facts
    both = [e for e in json_lines(run("edges", db, "--json", "--lexical").stdout) if e["kind"] == "semantic"]
    lexical = [e for e in both if e.get("space") == "lexical"]
    assert lexical and all(e["a"].startswith("w") and e["b"].startswith("w") for e in lexical)
    assert "lexical" in json.dumps(json.loads(run("neighbours", db, "w0", "--json").stdout))


def test_an_id_that_begins_with_a_dash_is_an_id_not_an_option(tmp_path):
    """Ids are data ("-0" came out of a fuzz run): every command taking one finds it."""
    db = tmp_path / "m.db"
    facts = [
        {"id": "-0", "text": "a fact", "created_at": "2026-11-01T00:00:00Z"},
        {"id": "--new", "text": "its replacement", "created_at": "2026-11-02T00:00:00Z"},
    ]
    run("import", write_jsonl(tmp_path / "facts.jsonl", facts), "--db", db)
    assert json.loads(run("show", db, "-0", "--json").stdout)["id"] == "-0"
    assert json.loads(run("neighbours", db, "-0", "--json").stdout)["id"] == "-0"
    assert json.loads(run("corroborate", db, "-0", "--json").stdout)["corroborations"] == 1
    assert json.loads(run("supersede", db, "-0", "--new", "--json").stdout)["superseded_by"] == ["--new"]
    assert "no fact with id '--jsn'" in run("show", db, "--jsn", ok=False).stderr
