"""What an agent is told (SPEC 10): `show` and `search` carry a fact's suggestions, and a
search phrased with an outdated fact names the current one in `stale_premise`."""

from __future__ import annotations

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl

FACTS = [
    {"id": "d1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "d2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
    {
        "id": "p1",
        "text": "the billing database is Postgres 14",
        "created_at": "2025-01-01T00:00:00Z",
        "note": "db",
    },
    {
        "id": "p2",
        "text": "the billing database is Postgres 16",
        "created_at": "2025-02-01T00:00:00Z",
        "note": "db",
        "supersedes": "p1",
    },
    {
        "id": "x1",
        "text": "the office wifi password rotates monthly",
        "created_at": "2025-01-01T00:00:00Z",
        "note": "it",
    },
]


def _recall(tmp_path) -> Recall:
    src = write_jsonl(tmp_path / "f.jsonl", FACTS)
    db = tmp_path / "m.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    return Recall(Store.open(db), Config(), Clock.from_option("2026-12-01T00:00:00Z"))


def test_show_and_search_carry_the_standing_suggestion(tmp_path):
    recall = _recall(tmp_path)
    shown = recall.show("d1")
    assert shown["suggestions"] == [{"kind": "replaced", "by": "d2", "why": shown["suggestions"][0]["why"]}]
    assert "suggested_replaced" in shown["flags"]
    assert recall.show("d2")["suggestions"] == []
    rows = {r["id"]: r for r in recall.search("deploys", 10)["results"]}
    assert rows["d1"]["suggestions"][0]["by"] == "d2" and rows["d2"]["suggestions"] == []
    recall.close()


def test_an_outdated_premise_names_the_current_fact_and_a_current_one_does_not(tmp_path):
    recall = _recall(tmp_path)
    suggested = recall.search("when do deploys run on Fridays?", 10)["stale_premise"]
    assert (suggested["matched"], suggested["current"]) == ("d1", "d2")
    declared = recall.search("is the billing database Postgres 14", 10)["stale_premise"]
    assert (declared["matched"], declared["current"]) == ("p1", "p2") and "superseded" in declared["why"]
    assert "stale_premise" not in recall.search("deploys run on Tuesdays since March", 10)
    assert "stale_premise" not in recall.search("billing database Postgres 16", 10)
    assert "stale_premise" not in recall.search("wifi password", 10)
    recall.close()


def test_a_fact_an_agent_remembers_is_suggested_at_once_and_a_supersede_ends_it(tmp_path):
    recall = _recall(tmp_path)
    assert recall.show("x1")["suggestions"] == []
    new = recall.remember("the office wifi password now rotates weekly", "agent:test", note="it")
    shown = recall.show("x1")
    assert [s["by"] for s in shown["suggestions"]] == [new["id"]]
    premise = recall.search("how often does the wifi password rotate monthly", 10)["stale_premise"]
    assert premise["current"] == new["id"]
    assert recall.show("d1")["suggestions"]
    recall.remember("deploys run on Wednesdays now", "agent:test", note="ops", supersedes="d1")
    assert recall.show("d1")["suggestions"] == []  # it has a successor now
    recall.close()


def test_a_fact_flagged_deleted_while_an_agent_reads_places_the_edit_there(tmp_path):
    # "make" -> "just" looks like an edit until a sync records what left the note: "make"
    # stayed and the changelog line went, so the store no longer suggests it
    facts = [
        {
            "id": "z",
            "text": "the changelog lives in docs/",
            "created_at": "2025-01-01T00:00:00Z",
            "note": "dev",
        },
        {
            "id": "m",
            "text": "run the tests with `make test`",
            "created_at": "2025-01-02T00:00:00Z",
            "note": "dev",
        },
        {
            "id": "j",
            "text": "run the tests with `just test`",
            "created_at": "2025-01-03T00:00:00Z",
            "note": "dev",
        },
    ]
    src = write_jsonl(tmp_path / "f.jsonl", facts)
    db = tmp_path / "m.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    recall = Recall(Store.open(db), Config(), Clock.from_option("2026-12-01T00:00:00Z"))
    assert [s["by"] for s in recall.show("m")["suggestions"]] == ["j"]
    with Store.open(db) as store:
        store.imports.flag_deleted(["z"], 1.7e9, {"z": 1735862400.0}, [])
    assert recall.show("m")["suggestions"] == []
    recall.close()
