"""The blast radius of superseding a fact: other facts that may need the same treatment.

A fact being replaced rarely stands alone: facts that mention the same entities, and its
semantic neighbours, may be just as outdated. Reads the stored graph (mentions and
semantic edges) with indexed queries, so it stays fast on large stores.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from synapse_tui.core.graph.read import edge_weights, shared_entities
from synapse_tui.core.store.db import Store


@dataclass(frozen=True)
class Related:
    """One fact within the blast radius and why it is there."""

    id: str
    entities: tuple[str, ...]  # entities it shares with the fact, as that fact spells them
    weight: float | None  # the semantic edge weight, when it is a semantic neighbour

    @property
    def why(self) -> str:
        parts = []
        if self.entities:
            parts.append("shares " + ", ".join(self.entities))
        if self.weight is not None:
            parts.append(f"semantic neighbour w={self.weight:.2f}")
        return "; ".join(parts)


@dataclass(frozen=True)
class BlastRadius:
    fact_id: str
    related: tuple[Related, ...]  # both reasons first, then heaviest edge, most entities
    total: int  # how many related facts there are before `limit`


def blast_radius(
    store: Store, fact_id: str, *, exclude: Iterable[str] = (), limit: int | None = 50
) -> BlastRadius:
    """Facts sharing an entity with `fact_id`, plus its semantic neighbours.

    `exclude` leaves facts out (the replacing fact, typically). Raises KeyError for an
    unknown id.
    """
    shared = shared_entities(store, fact_id)
    if shared is None:
        raise KeyError(fact_id)
    skip = {fact_id, *exclude}
    entities = {fid: spellings for fid, spellings in shared.items() if fid not in skip}
    weights: dict[str, float] = {}
    for fid, weight in edge_weights(store, fact_id):
        if fid not in skip:
            weights[fid] = max(weight, weights.get(fid, weight))
    related = [
        Related(fid, tuple(entities.get(fid, ())), weights.get(fid))
        for fid in entities.keys() | weights.keys()
    ]
    related.sort(
        key=lambda r: (
            not (r.entities and r.weight is not None),
            -(r.weight or 0.0),
            -len(r.entities),
            r.id,
        )
    )
    total = len(related)
    return BlastRadius(fact_id, tuple(related[:limit] if limit is not None else related), total)
