"""Calibrating freshness on a store whose facts are one age: a Markdown memory bank read
from git, every fact written in one commit or seconds apart (SPEC 2.2)."""

from __future__ import annotations

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.calibrate import calibrate
from tests.cli_run import run
from tests.helpers import write_jsonl


def _memory(tmp_path, created: list[str]) -> Memory:
    facts = [{"id": f"f{i}", "text": f"fact {i}", "created_at": at} for i, at in enumerate(created)]
    db = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "m.jsonl", facts), "--db", db)
    return Memory(Store.open(db), Config(), parse_time("2026-12-01T00:00:00Z"))


def test_facts_written_seconds_apart_are_warned_of(tmp_path):
    """Forty facts written over forty seconds 18 months ago: the middle half of their B
    spans 0.00001, and s = IQR / (2 ln 3) (SPEC 2.2) is 0.00001, turning the seconds between
    their writes into freshness from 0.25 to 0.75. It is proposed, as SPEC 2.2 says, with a
    warning; one commit (a spread of 0) keeps s."""
    memory = _memory(tmp_path, [f"2025-06-01T12:00:{i:02d}Z" for i in range(40)])
    cal = calibrate(memory)
    assert 0 < cal.proposed_scale < 0.001 and cal.one_age
    (tmp_path / "one").mkdir()
    same = calibrate(_memory(tmp_path / "one", ["2025-06-01T12:00:00Z"] * 40))
    assert same.proposed_scale == Config().freshness.scale and same.one_age


def test_facts_written_over_months_get_a_scale_from_their_spread(tmp_path):
    memory = _memory(tmp_path, [f"2026-{m:02d}-01T00:00:00Z" for m in range(1, 11) for _ in range(4)])
    cal = calibrate(memory)
    assert not cal.one_age and cal.proposed_scale > 0.01
