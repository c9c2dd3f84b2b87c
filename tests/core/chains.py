"""Facts in supersession chains, for tests of rescoring and of the load cache."""

from __future__ import annotations

from synapse_tui.core.base.clock import format_time, parse_time

NOW = parse_time("2026-12-01T00:00:00Z")
N = 16


def chain_facts() -> list[dict]:
    """Sixteen facts: a chain f03 <- f04 <- f05 <- f06, a branch f07 -> f04, a pair
    f10 <- f11, O(1)-form facts, and every tier."""
    facts = []
    for i in range(N):
        fact = {
            "id": f"f{i:02d}",
            "text": f"fact {i}",
            "created_at": format_time(NOW - (i + 1) * 9 * 86400),
            "tier": ("auto", "human", "auto", "signed")[i % 4],
            "corroborations": i % 3,
            "contradictions": i % 2,
        }
        if i % 5 == 0:
            fact["reinforcement_count"] = 1 + i % 4
        elif i % 3 == 0:
            fact["reinforced_at"] = [format_time(NOW - i * 86400)]
        facts.append(fact)
    for newer, older in ((4, 3), (5, 4), (6, 5), (7, 4), (11, 10)):
        facts[newer]["supersedes"] = f"f{older:02d}"
    return facts
