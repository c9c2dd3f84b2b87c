"""One fact explained, typed: what the browser's detail shows.

`Memory.explain` stays the `show --json` dict (the CLI and MCP contract, which others
extend); `Explanation.from_show` reads it once into a frozen dataclass, so the views use
named, typed fields instead of string keys, and a renamed key fails in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from synapse_tui.core.trust.row import NAMES, ScoreFields


@dataclass(frozen=True)
class HistoryEntry:
    at: str
    action: str
    actor: str | None
    undoes: int | None


@dataclass(frozen=True)
class Source:
    """Where an adapter read the fact: system, record, version, author, and the fields
    that system never records."""

    system: str
    record: str | None
    version: str | None
    author: str | None
    unrecorded: tuple[str, ...]


def _frozen(value: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    return None if value is None else MappingProxyType(dict(value))


@dataclass(frozen=True)
class Explanation(ScoreFields):
    """The score row's fields, then what `show` adds."""

    text: str
    guidance_advice: str
    declared_tier: str
    corroborations: int
    contradictions: int
    base_rate: float
    prior_weight: float
    freshness_form: str  # "o1" or "exact"
    # which B0 and s scored it (SPEC 14): {kind, b0, scale, from: "kind" | "global"}
    freshness_constants: Mapping[str, Any] | None
    reinforcement_count: int | None
    reinforced_at: tuple[str, ...]
    age_days: float
    created_at: str
    superseded_by: tuple[str, ...]
    chain_older: tuple[str, ...]
    chain_newer: tuple[str, ...]
    chain_texts: Mapping[str, str]
    entities: tuple[str, ...]
    note: str | None
    provenance: Mapping[str, Any] | None
    signature: Mapping[str, Any] | None
    signature_check: str
    review_due: str
    what_if: Mapping[str, float]
    history: tuple[HistoryEntry, ...]
    source: Source | None
    suspect: str | None  # why it is in a problem queue
    as_of: float | None

    @property
    def kind_constants(self) -> str | None:
        """'kind rule: B0 -2.10, s 0.80 (its own)' when the fact has a kind the config
        knows of (SPEC 14), else None: the global constants, as the config says."""
        fc = self.freshness_constants
        if not fc or fc.get("kind") is None:
            return None
        whose = "its own, [freshness.kind]" if fc.get("from") == "kind" else "the global ones"
        return f"kind {fc['kind']}: B0 {fc['b0']:.2f}, s {fc['scale']:.2f} ({whose})"

    @classmethod
    def from_show(cls, ex: Mapping[str, Any]) -> Explanation:
        """From the `show --json` object (plus the browser's chain and suspect keys)."""
        src = ex.get("source")
        source = None
        if isinstance(src, Mapping) and src.get("system"):
            source = Source(
                str(src["system"]),
                None if src.get("record") is None else str(src["record"]),
                None if src.get("version") is None else str(src["version"]),
                None if not src.get("author") else str(src["author"]),
                tuple(str(u) for u in src.get("unrecorded") or ()),
            )
        return cls(
            **{name: ex[name] for name in _PLAIN},
            flags=tuple(ex["flags"]),
            reinforcement_count=ex.get("reinforcement_count"),
            reinforced_at=tuple(ex.get("reinforced_at") or ()),
            superseded_by=tuple(ex["superseded_by"]),
            chain_older=tuple(ex["chain_older"]),
            chain_newer=tuple(ex.get("chain_newer") or ()),
            chain_texts=MappingProxyType(dict(ex.get("chain_texts") or {})),
            entities=tuple(ex.get("entities") or ()),
            note=ex.get("note"),
            freshness_constants=_frozen(ex.get("freshness_constants")),
            provenance=_frozen(ex.get("provenance")),
            signature=_frozen(ex.get("signature")),
            what_if=MappingProxyType(dict(ex["what_if"])),
            history=tuple(
                HistoryEntry(h["at"], h["action"], h.get("actor"), h.get("undoes")) for h in ex["history"]
            ),
            source=source,
            suspect=ex.get("suspect"),
            as_of=ex.get("as_of"),
        )


# every field of the score row (its flags, a list, become a tuple), then what `show` adds
_PLAIN = (
    *(name for name in NAMES if name != "flags"),
    "text",
    "guidance_advice",
    "declared_tier",
    "corroborations",
    "contradictions",
    "base_rate",
    "prior_weight",
    "freshness_form",
    "age_days",
    "created_at",
    "signature_check",
    "review_due",
)
