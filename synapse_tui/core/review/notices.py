"""The one-line notice after a triage action: what it did and what it did to trust.

Shared by the browser (a toast) and anything else that reports a move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from synapse_tui.core.base.config import Config, GuidanceConfig
from synapse_tui.core.base.limits import counted
from synapse_tui.core.trust.score import BANDS, GUIDANCE

if TYPE_CHECKING:
    from synapse_tui.core.review.triage import Outcome
    from synapse_tui.core.trust.score import Scores


def describe(
    outcome: Outcome,
    ids: list[str],
    index: dict[str, int],
    before: Scores,
    after: Scores,
    lines: GuidanceConfig | None = None,
) -> str:
    """The notice after an action: what it did and what it did to trust (and, when the
    opinion moved, to d, u and the guidance, with why the guidance reads as it does).

    `before` and `after` are the score arrays either side of it; `lines` the guidance's
    thresholds (SPEC 2.1)."""
    action = outcome.action
    lines = lines or GuidanceConfig()
    olds = [c.fact_id for c in outcome.changes if "superseded_by" in (c.before | c.after)]
    if action.split()[-1] == "supersede" and len(olds) > 1:  # accepted suggestions, one action
        return f"{action} {counted(len(olds), 'fact')}"
    if action.split()[-1] == "supersede":
        old = olds[0]
        new = next(c.fact_id for c in outcome.changes if c.fact_id != old)
        return f"{action} {old} by {new}: " + _trust_change(index[old], before, after, lines)
    if len(ids) == 1:
        recorded = "contradiction recorded; " if action == "contradict" else ""
        return f"{action} {ids[0]}: {recorded}" + _trust_change(index[ids[0]], before, after, lines)
    pos = np.array([index[f] for f in ids if f in index], dtype=np.int64)
    text = f"{action} {counted(len(ids), 'fact')}"
    if len(pos):
        text += f": mean trust {before.trust[pos].mean():.2f} -> {after.trust[pos].mean():.2f}"
        moved = int((before.band[pos] != after.band[pos]).sum())
        if moved:
            text += f", {moved:,} changed band"
    return text


def _trust_change(i: int, before: Scores, after: Scores, lines: GuidanceConfig) -> str:
    text = f"trust {before.trust[i]:.2f} -> {after.trust[i]:.2f}"
    if before.band[i] != after.band[i]:
        text += f" ({BANDS[before.band[i]]} -> {BANDS[after.band[i]]})"
    if before.k[i] != after.k[i]:
        text += f", k {before.k[i]} -> {after.k[i]}"
    was = (float(before.d[i]), float(before.u[i]), GUIDANCE[before.guidance[i]])
    now = (float(after.d[i]), float(after.u[i]), GUIDANCE[after.guidance[i]])
    return text + opinion_change(was, now, lines)


Opinion = tuple[float, float, str]  # (d, u, guidance)


def opinion_of(r: int, s: int, config: Config) -> Opinion:
    """d, u and the guidance of r corroborations and s contradictions (SPEC 2.1)."""
    total = r + s + config.confidence.prior_weight
    d, u = s / total, config.confidence.prior_weight / total
    g = config.guidance
    return d, u, "disputed" if d >= g.disputed_d else "uncertain" if u >= g.uncertain_u else "supported"


def opinion_why(d: float, u: float, guidance: str, lines: GuidanceConfig, u_fell: bool = False) -> str:
    """Why the guidance reads as it does: SPEC 2.1's first rule that holds, with the
    numbers ('supported: ...; disputed from d >= 0.25, now 0.20')."""
    if guidance == "disputed":
        return f"disbelief d {d:.2f} >= {lines.disputed_d:.2f}"
    disputed = f"disputed from d >= {lines.disputed_d:.2f}, now {d:.2f}"
    if guidance == "uncertain":
        return f"uncertain from u >= {lines.uncertain_u:.2f}, now {u:.2f}; {disputed}"
    if u_fell:
        return f"the added evidence lowered uncertainty (u {u:.2f} < {lines.uncertain_u:.2f}); {disputed}"
    return f"uncertainty u {u:.2f} < {lines.uncertain_u:.2f}; {disputed}"


def opinion_change(was: Opinion, now: Opinion, lines: GuidanceConfig) -> str:
    """'; d 0.00 -> 0.20 (rose), u 0.50 -> 0.40 (fell); guidance uncertain -> supported:
    the added evidence lowered ...': what an action did to the opinion, '' when it did
    nothing. Evidence against that leaves (or makes) a fact supported says why: the
    guidance is SPEC 2.1's rule on d and u, and a contradiction lowers u too."""
    (d0, u0, g0), (d1, u1, g1) = was, now
    moves = [
        f"{name} {a:.2f} -> {b:.2f} ({'rose' if b > a else 'fell'})"
        for name, a, b in (("d", d0, d1), ("u", u0, u1))
        if round(a, 2) != round(b, 2)
    ]
    text = "; " + ", ".join(moves) if moves else ""
    why = opinion_why(d1, u1, g1, lines, u_fell=u1 < u0)
    if g0 != g1:
        text += f"; guidance {g0} -> {g1}: {why}"
    elif d1 > d0:  # evidence against, and the guidance stayed: say why it still reads so
        text += f"; still {g1}: {why}"
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
        parts.append(f"{what} {fact_id if n == 1 else counted(n, 'fact')} by {actor}")
    if len(actions) > len(shown):
        parts.append(f"{len(actions) - len(shown)} more actions (l: the session log)")
    return f"{head}: " + "; ".join(parts) if parts else ""
