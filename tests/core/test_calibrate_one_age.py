"""Calibrating freshness on a store whose facts are one age: a Markdown memory bank read
from git, every fact written in one commit or seconds apart (SPEC 2.2)."""

from __future__ import annotations

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.calibrate import MIN_SPREAD, calibrate
from tests.cli_run import run
from tests.helpers import write_jsonl


def _memory(tmp_path, created: list[str]) -> Memory:
    facts = [{"id": f"f{i}", "text": f"fact {i}", "created_at": at} for i, at in enumerate(created)]
    db = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "m.jsonl", facts), "--db", db)
    return Memory(Store.open(db), Config(), parse_time("2026-12-01T00:00:00Z"))


def test_facts_written_seconds_apart_keep_the_scale(tmp_path):
    """Forty facts written over forty seconds 18 months ago: the middle half of their B
    spans 0.00001, and s = IQR / (2 ln 3) would be 0.00001, turning the seconds between
    their writes into freshness from 0.25 to 0.75. The current s is kept, and said so."""
    memory = _memory(tmp_path, [f"2025-06-01T12:00:{i:02d}Z" for i in range(40)])
    cal = calibrate(memory)
    assert cal.proposed_scale == Config().freshness.scale and cal.scale_kept
    assert cal.bands_after["moderate"] + cal.bands_after["high"] == 0  # one age, one band


def test_facts_written_over_months_get_a_scale_from_their_spread(tmp_path):
    memory = _memory(tmp_path, [f"2026-{m:02d}-01T00:00:00Z" for m in range(1, 11) for _ in range(4)])
    cal = calibrate(memory)
    assert not cal.scale_kept and cal.proposed_scale > MIN_SPREAD
