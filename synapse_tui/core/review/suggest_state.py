"""What every kind of suggestion shares below its finders: the dismissals people made (the
audit's live `dismiss` entries), what a finder reads of each fact, and its options. Kept apart
from `suggestions` (which registers the finders) so a finder can use them without a circle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.review.suggest import KINDS, Item, Suggestion
from synapse_tui.core.store.db import Store

DISMISS = "dismiss"  # the audit action (Action.DISMISS)


@dataclass(frozen=True)
class Dismissed:
    """The suggestions people dismissed and have not undone: (kind, fact, other)."""

    keys: frozenset[tuple[str, str, str]] = frozenset()

    def pairs(self, kind: str) -> frozenset[tuple[str, str]]:
        return frozenset((f, o) for k, f, o in self.keys if k == kind)

    def __contains__(self, s: Suggestion) -> bool:
        return s.key in self.keys


def dismissed_entry(kind: str, other: str) -> dict[str, Any]:
    """What a `dismiss` audit entry records in `after` (its `before` is empty): a field no
    column holds, like a supersession's `superseded_by`, so undo and redo need nothing new."""
    return {"dismissed": {"kind": kind, "other": other}}


def dismissals(store: Store) -> Dismissed:
    """Every live dismissal in the store's audit (undone ones excluded, redone ones back)."""
    keys = set()
    for fid, after in store.audit.live_afters(DISMISS):
        d = after.get("dismissed") or {}
        if isinstance(d, dict) and d.get("kind") in KINDS and isinstance(d.get("other"), str):
            keys.add((d["kind"], fid, d["other"]))
    return Dismissed(frozenset(keys))


def items(store: Store) -> list[Item]:
    """What the finders read of every fact, in store order (`Store.finder_rows`: only those
    columns; each distinct time parsed once: a sync writes many facts at one instant)."""
    gone = store.review.deleted_when()
    ended = store.invalidated_ids()
    rows = list(store.finder_rows())
    named = {r[5] for r in rows if r[5]}
    times: dict[str, float] = {}

    def when(value: str) -> float:
        got = times.get(value) if isinstance(value, str) else None
        if got is None:
            got = parse_time(value)
            times[value] = got
        return got

    out = []
    for pos, fid, text, created_at, reinforced_at, supersedes, note, entities in rows:
        try:
            created = when(created_at)
            seen = max((when(t) for t in reinforced_at), default=None) if reinforced_at else None
        except (
            TypeError,
            ValueError,
        ):  # a row no writer of ours made (a forged server row): no time, no order
            continue
        out.append(
            Item(
                fid,
                text,
                created,
                note,
                entities,
                successor=fid in named,
                predecessor=bool(supersedes),
                gone=gone.get(pos),
                last_seen=seen if seen is not None and seen > created else None,
                replaces=supersedes or None,
                ended=fid in ended,
            )
        )
    return out


@dataclass(frozen=True)
class Options:
    """What a finder may need beyond the facts (`--repo`, `--rev` for `referent`)."""

    repo: str | None = None
    rev: str | None = None
