"""One score row: `score --json`, `score_before`, the MCP schema, `--sort` and the filter
language all read their field lists from `core/trust/row.py`, and stay there."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import numpy as np
import pytest

import synapse_tui.core.store as store_package
from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.review import query
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.explanation import Explanation
from synapse_tui.core.trust.row import LABELS, NAMES, NUMBERS, ScoreRecord, ScoreRow, score_json
from synapse_tui.core.trust.spot import spot_scores
from tests.helpers import trusted_config

NOW = parse_time("2026-12-01T00:00:00Z")
# SPEC 6: "one JSON object per fact ... with at least" these, in this order today
SPEC_SCORE = "id trust band confidence freshness supersession gate b d u guidance k B tier flags".split()
# SPEC 8: "score_before: the fact's trust, band, confidence, freshness, supersession, gate, r, s,
# declared and effective tier, reinforcement count, last reinforcement time and k" (and B, SPEC 11.3)
SPEC_SCORE_BEFORE = (
    "trust band confidence freshness supersession gate r s declared_tier tier"
    " reinforcement_count last_reinforced_at k B"
).split()


@pytest.fixture
def memory(store_location):
    with Store.open(store_location) as store:
        yield Memory(store, trusted_config(), NOW)


def test_a_row_is_specs_object_in_specs_order(memory):
    assert list(NAMES) == SPEC_SCORE
    rows = [memory.row(i) for i in range(len(memory))]
    assert all(list(row) == SPEC_SCORE for row in rows)
    assert {type(row["flags"]) for row in rows} == {list}
    assert any(row["flags"] for row in rows)  # the store has flagged facts: both paths are seen


def test_rows_built_column_wise_are_the_rows_built_one_by_one(memory):
    """`score --json` builds rows a column at a time; the text printed is the same."""
    at = np.array([4, 0, 2, 2, 3, 1], dtype=np.int64)
    by_column = score_json(memory.ids, memory.scores, at)
    one_by_one = [ScoreRow.of(memory.ids[i], memory.scores, i).to_json() for i in at.tolist()]
    assert [json.dumps(r) for r in by_column] == [json.dumps(r) for r in one_by_one]
    assert [json.dumps(memory.row(i)) for i in at.tolist()] == [json.dumps(r) for r in one_by_one]
    assert by_column[2] is not by_column[3] and by_column[2]["flags"] is not by_column[3]["flags"]


def test_score_before_is_the_record_of_the_score_row(store_location):
    with Store.open(store_location) as store:
        outcome = Triage(store, Clock(NOW), config=trusted_config()).apply("contradict", ["a"])
        before = outcome.scores_before["a"]
        assert list(before) == SPEC_SCORE_BEFORE == list(ScoreRecord.KEYS)
        assert store.history("a")[-1].score_before == before
        memory = Memory(store, trusted_config(), NOW)
        spot = spot_scores(store, trusted_config(), NOW, ["a"])["a"]
    row = memory.row(memory.index["a"])
    assert {key: spot[key] for key in spot if key in row} == {key: row[key] for key in spot if key in row}
    assert (spot["s"], spot["declared_tier"]) == (before["s"] + 1, "auto")


def test_every_field_list_is_the_rows():
    """The lists that used to be spelled out beside the row: a field added to it is sorted,
    filtered, described to agents and shown in the browser, or this fails."""
    from synapse_tui.cli.commands import SORT_KEYS, _sort_values

    assert set(NUMBERS) | set(LABELS) == set(NAMES) - {"id", "flags"}
    assert set(NUMBERS) <= set(SORT_KEYS)
    for name in NAMES:
        if name != "flags":
            assert _sort_values(None, name) is not None, name
    for name in NUMBERS:
        assert query.ALIASES.get(name, name) in query.NUMERIC, name
        query.parse(f"{name}>=0")  # a comparison on it parses
    for name, labels in LABELS.items():
        query.parse(f"{name}:{labels[0].replace(' ', '-')}")
    explained = typing.get_type_hints(Explanation)
    row_types = typing.get_type_hints(ScoreRow)
    assert {name: explained[name] for name in NAMES} == row_types


def test_the_mcp_schema_declares_every_field_of_the_row():
    pytest.importorskip("mcp")
    from synapse_tui.mcp_server import Fact

    declared = typing.get_type_hints(Fact)
    as_json = {tuple[str, ...]: list[str]}  # a tuple in the row is a JSON array
    assert {name: declared[name] for name in NAMES} == {
        name: as_json.get(t, t) for name, t in typing.get_type_hints(ScoreRow).items()
    }


def test_the_verdicts_read_only_keys_score_before_has():
    """The calibration report reads score_before in SQL (the store sits below the row, so it
    cannot import it): every key it extracts is one the record writes."""
    from synapse_tui.core.store.audit import VERDICT_KEYS

    read = set(VERDICT_KEYS)  # the verdict row's values, then any key read by the Dialect
    for path in Path(store_package.__file__).parent.rglob("*.py"):
        text = path.read_text()
        read |= set(re.findall(r"score_before, '\$\.(\w+)'", text))
        read |= set(re.findall(r"json_text\(\"a\.score_before\", \"(\w+)\"\)", text))
    assert read and read <= set(ScoreRecord.KEYS), read - set(ScoreRecord.KEYS)
