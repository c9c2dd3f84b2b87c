"""Which inputs of a fact a source wrote, as `show` reports them."""

from __future__ import annotations

INPUTS = ("corroborations", "contradictions", "reinforcements", "acceptance")


def inputs_written(fact) -> set[str]:
    written = {
        "corroborations": fact.r > 0,
        "contradictions": fact.s > 0,
        "reinforcements": bool(fact.reinforced_at) or bool(fact.reinforcement_count),
        "acceptance": fact.tier != "auto",
    }
    return {name for name, yes in written.items() if yes}
