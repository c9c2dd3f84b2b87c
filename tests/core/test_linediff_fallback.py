"""The fallback past MAX_CHANGES (a generated file rewritten through a merge, where git gave
no hunks) still places a valid diff: every line outside its regions is kept, in order, on
both sides, the unchanged start and end outside them. Its cost is in
benchmarks/bench_linediff.py (a real repository's import did not finish in 10 minutes)."""

from __future__ import annotations

from synapse_tui.core.ingest.adapters import linediff


def _licenses(names: range, skip: set[int]) -> list[str]:
    lines = ["# project", "", "## Summary", ""]
    for n in names:
        if n not in skip:
            lines += [
                f"### pkg-{n}@1.{n % 7}.0",
                "",
                "#### ",
                "",
                "##### Paths",
                f"* /m/pkg-{n}",
                "",
                "MIT",
                "",
            ]
    return [*lines, "## End", "generated, do not edit"]


def test_a_rewrite_past_the_myers_limit_is_a_valid_diff():
    old = _licenses(range(300), skip=set(range(0, 300, 5)))
    new = _licenses(range(380), skip=set(range(2, 300, 7)))
    regions = linediff.changes(old, new)
    changed = sum(r[1] - r[0] + r[3] - r[2] for r in regions)
    assert changed > linediff.MAX_CHANGES  # the fallback, not Myers
    keep_a = [line for i, line in enumerate(old) if not any(r[0] <= i < r[1] for r in regions)]
    keep_b = [line for j, line in enumerate(new) if not any(r[2] <= j < r[3] for r in regions)]
    assert keep_a == keep_b
    assert regions[0][0] >= 4 and regions[-1][1] <= len(old) - 2  # the same start and end: kept
