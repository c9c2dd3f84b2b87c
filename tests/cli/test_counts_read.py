"""The one-line summaries a person reads count in their language: one fact, 2 facts,
100,000 facts; never "1 facts"."""

from __future__ import annotations

from synapse_tui.core.base.limits import counted
from tests.helpers import base_facts, run, write_jsonl


def test_counted_says_one_of_a_thing_and_groups_thousands():
    assert counted(1, "fact") == "1 fact"
    assert counted(0, "fact") == "0 facts"
    assert counted(2, "row") == "2 rows"
    assert counted(100_000, "fact") == "100,000 facts"


def test_import_and_score_of_a_single_fact_say_fact(tmp_path):
    one = write_jsonl(tmp_path / "one.jsonl", base_facts()[:1])
    db = tmp_path / "one.db"
    assert f"imported 1 fact into {db}" in run("import", one, "--db", db).stdout
    assert run("score", db).stdout.rstrip().endswith("1 fact")
    more = write_jsonl(tmp_path / "more.jsonl", base_facts()[1:])
    assert f"imported 4 facts into {db}" in run("import", more, "--db", db).stdout
    assert run("score", db).stdout.rstrip().endswith("5 facts")
