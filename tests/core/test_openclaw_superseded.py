"""An OpenClaw memory-wiki claim whose status is `superseded` (the plugin names no
successor: its claims carry id, text, status, confidence, evidence, updatedAt) was offered
by `suggest` and the R queue as the newer fact replacing the claim that is current, because
it was dated later: accepting it would have marked the current claim replaced by the stale
one. Page written as the plugin renders one (YAML front matter, block style)."""

from __future__ import annotations

from tests.cli_run import run
from tests.helpers import json_lines

PAGE = """\
---
id: entity.staging
pageType: entity
title: Staging server
updatedAt: 2026-11-10T09:00:00.000Z
claims:
  - id: staging.region
    text: Staging runs in eu-west-2.
    status: supported
    confidence: 0.9
    evidence:
      - sourceId: source.daily-2026-04-02
        updatedAt: 2026-04-02T18:00:00.000Z
    updatedAt: 2026-04-02T18:00:00.000Z
  - id: staging.region.old
    text: Staging runs in us-east-1.
    status: superseded
    confidence: 0.2
    evidence:
      - sourceId: source.setup-notes
---

# Staging server
"""


def test_a_superseded_claim_is_invalidated_and_never_offered_as_the_replacement(tmp_path):
    page = tmp_path / "wiki" / "main" / "entities" / "staging.md"
    page.parent.mkdir(parents=True)
    page.write_text(PAGE)
    db = tmp_path / "m.db"
    run("import", "--from", "openclaw", tmp_path / "wiki" / "main", "--db", db)
    now = ("--now", "2026-12-01T00:00:00Z")
    assert json_lines(run("suggest", db, "--json", *now).stdout) == []
    rows = {r["id"]: r for r in json_lines(run("score", db, "--json", *now).stdout)}
    old = rows["openclaw:wiki/main/entities/staging.md#staging.region.old"]
    assert "invalidated" in old["flags"]
    assert "invalidated" not in rows["openclaw:wiki/main/entities/staging.md#staging.region"]["flags"]
    (shown,) = json_lines(run("show", db, old["id"], "--json", *now).stdout)
    assert (
        shown["provenance"]["x-invalidated-at"] == "2026-11-10T09:00:00Z"
    )  # the page's time: the claim's own
    assert shown["supersedes"] is None and shown["superseded_by"] == []  # no successor guessed


def test_the_finder_reads_which_facts_their_source_invalidated_on_a_file_and_a_server(tmp_path, new_store):
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.review.suggest_state import items
    from synapse_tui.core.store.db import Store
    from tests.helpers import write_jsonl

    facts = [
        {"id": "a", "text": "Staging runs in eu-west-2.", "created_at": "2026-04-02T00:00:00Z", "note": "s"},
        {
            "id": "b",
            "text": "Staging runs in us-east-1.",
            "created_at": "2026-11-10T00:00:00Z",
            "note": "s",
            "provenance": {"x-invalidated-at": "2026-11-10T00:00:00Z"},
        },
    ]
    src = write_jsonl(tmp_path / "f.jsonl", facts)
    with Store.open(new_store("inv"), create=True) as store:
        import_facts(store, parse_file(src), str(src))
        assert store.invalidated_ids() == {"b"}
        assert {i.id: i.ended for i in items(store)} == {"a": False, "b": True}
