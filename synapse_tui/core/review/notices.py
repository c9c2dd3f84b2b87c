"""The one-line notice after a triage action: what it did and what it did to trust.

Shared by the browser (a toast) and anything else that reports a move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from synapse_tui.core.base.limits import counted
from synapse_tui.core.trust.score import BANDS, GUIDANCE

if TYPE_CHECKING:
    from synapse_tui.core.review.triage import Outcome
    from synapse_tui.core.trust.score import Scores


def describe(outcome: Outcome, ids: list[str], index: dict[str, int], before: Scores, after: Scores) -> str:
    """The notice after an action: what it did and what it did to trust.

    `before` and `after` are the score arrays either side of it."""
    action = outcome.action
    if action.split()[-1] == "supersede":
        old = next(c.fact_id for c in outcome.changes if "superseded_by" in (c.before | c.after))
        new = next(c.fact_id for c in outcome.changes if c.fact_id != old)
        return f"{action} {old} by {new}: " + _trust_change(index[old], before, after)
    if len(ids) == 1:
        return f"{action} {ids[0]}: " + _trust_change(index[ids[0]], before, after)
    pos = np.array([index[f] for f in ids if f in index], dtype=np.int64)
    text = f"{action} {len(ids)} facts"
    if len(pos):
        text += f": mean trust {before.trust[pos].mean():.2f} -> {after.trust[pos].mean():.2f}"
        moved = int((before.band[pos] != after.band[pos]).sum())
        if moved:
            text += f", {moved} changed band"
    return text


def _trust_change(i: int, before: Scores, after: Scores) -> str:
    text = f"trust {before.trust[i]:.2f} -> {after.trust[i]:.2f}"
    if before.band[i] != after.band[i]:
        text += f" ({BANDS[before.band[i]]} -> {BANDS[after.band[i]]})"
    if before.k[i] != after.k[i]:
        text += f", k {before.k[i]} -> {after.k[i]}"
    if before.guidance[i] != after.guidance[i]:
        was, now = GUIDANCE[before.guidance[i]], GUIDANCE[after.guidance[i]]
        text += f"; guidance {was} -> {now}"
        if now == "supported" and after.d[i] > before.d[i]:
            # evidence against that leaves a fact "supported" says why: less uncertain
            text += (
                f" (evidence against still lowers the uncertainty, u {before.u[i]:.2f} -> {after.u[i]:.2f};"
                f" disbelief {after.d[i]:.2f} is below the disputed line)"
            )
    return text


def describe_elsewhere(
    added: int,
    removed: int,
    actions: list[tuple[str, str, str, int]],
    deleted: int = 0,
    superseded: int = 0,
    head: str = "changed elsewhere",
) -> str:
    """The notice when the store changed under the browser: facts added, facts a source
    deleted and facts newly superseded (a sync's, which are no triage action), and each
    action as (actor, what, fact id, facts changed). `head`: who changed it (this
    browser's own sync says so). '' when nothing a person would see changed."""
    parts = []
    if added:
        parts.append(counted(added, "new fact"))
    if removed:
        parts.append(f"{counted(removed, 'fact')} fewer")
    if deleted:
        parts.append(f"{counted(deleted, 'fact')} deleted at the source")
    if superseded:
        parts.append(f"{counted(superseded, 'fact')} superseded")
    shown = actions[:3]
    for actor, what, fact_id, n in shown:
        parts.append(f"{what} {fact_id if n == 1 else f'{n} facts'} by {actor}")
    if len(actions) > len(shown):
        parts.append(f"{len(actions) - len(shown)} more actions (l: the session log)")
    return f"{head}: " + "; ".join(parts) if parts else ""
