"""The pieces issue 12 rests on, one by one: the limits, the sanitiser, the clamp, the snapshot."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from synapse_tui.core.base import limits
from synapse_tui.core.base.clock import format_time, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.jsonl import json_line
from synapse_tui.core.base.textsafe import clean, clean_block
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl


def fact(i: int, **extra) -> dict:
    return {"id": f"f{i}", "text": f"fact {i}", "created_at": "2026-11-01T00:00:00Z", **extra}


def test_problem_finds_each_kind_of_bad_value_and_passes_good_ones():
    assert limits.problem({"a": [1, 2.5, None, True, "text", {"b": []}]}) is None
    assert "64-bit" in limits.problem({"a": [2**63]})
    assert "not JSON" in limits.problem([limits.NonFinite("NaN")])
    assert "overflows" in limits.problem({"x": float("inf")})
    assert "surrogate" in limits.problem({"k\ud800": 1})  # keys too
    assert "the limit is 100,000" in limits.problem(["x" * 100_001])
    deep: object = []
    for _ in range(limits.MAX_DEPTH):
        deep = [deep]
    assert "nested more than 64" in limits.problem(deep)
    assert limits.problem(deep[0]) is None


def test_brief_keeps_an_error_message_one_short_line():
    assert len(limits.brief("x" * 10_000_000)) == 60
    assert limits.brief("a\u202eb") == repr("a\u202eb") and "\u202e" not in limits.brief("a\u202eb")


@given(st.text(max_size=50))
@settings(max_examples=200, deadline=None)
def test_clean_leaves_nothing_that_acts_on_a_terminal_or_reorders_text(text):
    shown = clean(text)
    for ch in shown:
        code = ord(ch)
        assert code >= 0x20 and not 0x7F <= code <= 0x9F
        assert not (0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069 or 0x200B <= code <= 0x200F)
        assert code not in (0x061C, 0x2060, 0xFEFF, 0x2028, 0x2029)
    assert "\n" not in shown
    assert clean_block(text).count("\n") == text.count("\n")


def test_clean_names_each_invisible_character():
    assert clean("a\u202eb\u2066c\u200bd\U000e0041") == "a⟨U+202E⟩b⟨U+2066⟩c⟨U+200B⟩d⟨U+E0041⟩"
    assert clean("\x1b[31m\x7f\x85") == "␛[31m\u2421\ufffd"
    assert clean("émoji \U0001f680 arabic مرحبا") == "émoji \U0001f680 arabic مرحبا"


def test_format_time_writes_four_digit_years_and_clamps_past_them():
    assert format_time(parse_time("0001-01-01T00:00:00Z")) == "0001-01-01T00:00:00Z"
    assert format_time(parse_time("0999-12-31T23:59:59.5Z")) == "0999-12-31T23:59:59.500000Z"
    assert format_time(1e20) == format_time(float("inf")) == "9999-12-31T23:59:59Z"
    assert format_time(-1e20) == "0001-01-01T00:00:00Z"


def test_json_line_escapes_only_what_readers_split_lines_at():
    line = json_line({"t": "a\u2028b\u2029c\x85d é \U0001f680"})
    assert line.splitlines() == [line] and json.loads(line)["t"] == "a\u2028b\u2029c\x85d é \U0001f680"
    assert "é \U0001f680" in line


def test_a_snapshot_does_not_see_a_commit_made_meanwhile(tmp_path):
    db = tmp_path / "m.db"
    with Store.open(db, create=True) as writer:
        import_facts(writer, parse_file(write_jsonl(tmp_path / "a.jsonl", [fact(0)])), "a")
        with Store.open(db, readonly=True) as reader:
            with reader.snapshot():
                assert reader.count() == 1
                import_facts(writer, parse_file(write_jsonl(tmp_path / "b.jsonl", [fact(1), fact(2)])), "b")
                assert reader.count() == 1 and reader.load(Config())[0] == ["f0"]
                with reader.snapshot():  # nested: the same snapshot
                    assert reader.count() == 1
            assert reader.count() == 3  # the next read sees the commit


def test_memory_loads_and_explains_from_one_snapshot_each(tmp_path, now):
    db = tmp_path / "m.db"
    with Store.open(db, create=True) as writer:
        import_facts(writer, parse_file(write_jsonl(tmp_path / "a.jsonl", [fact(0)])), "a")
        with Store.open(db, readonly=True) as reader:
            memory = Memory(reader, Config(), now)
            src = write_jsonl(tmp_path / "b.jsonl", [fact(1, supersedes="f0", corroborations=5)])
            import_facts(writer, parse_file(src), "b")
            old, new = memory.explain("f0"), memory.explain("f1")
            assert old["superseded_by"] == ["f1"] and old["k"] == 1
            assert new["corroborations"] == 5 and new["confidence"] > old["confidence"]
            assert memory.ids == ["f0"]  # the view itself waits for its owner's reload
            memory.reload()
            assert memory.ids == ["f0", "f1"] and memory.explain("f1")["k"] == 0
