"""The triage keys of SPEC 7 (c x v a s ctrl+z, and ctrl+y redo), in one place.

Screens that show a current fact mix in `TriageActions` and list `TRIAGE_BINDINGS`;
every key and palette command lands in `run_triage`, which hands the move to the app's
triage worker (`SynapseApp.triage`). The worker applies it as one audited transaction,
patches the scores of just the facts it changed, and posts `TriageDone` back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from textual.binding import Binding

from ..core.trust import BANDS

if TYPE_CHECKING:
    from textual.app import App

    from ..core.triage import Outcome
    from ..core.trust import Scores

TRIAGE_BINDINGS = [
    Binding(
        "c",
        "triage('corroborate')",
        "corrob",
        id="triage.corroborate",
        tooltip="Corroborate: r + 1, and a reinforcement now (all marked facts, if any)",
    ),
    Binding(
        "x",
        "triage('contradict')",
        "contra",
        id="triage.contradict",
        tooltip="Contradict: s + 1 (all marked facts, if any)",
    ),
    Binding(
        "v",
        "triage('verify')",
        "verify",
        id="triage.verify",
        tooltip="Verify: a reinforcement now, checked and still holds (all marked facts, if any)",
    ),
    Binding(
        "a",
        "triage('accept')",
        "accept",
        id="triage.accept",
        tooltip="Accept: declared tier auto becomes human (all marked facts, if any)",
    ),
    Binding(
        "s",
        "triage('supersede')",
        "supersede",
        id="triage.supersede",
        tooltip="Supersede: choose the fact that replaces this one (shows the blast radius first)",
    ),
    Binding(
        "ctrl+z",
        "triage('undo')",
        "undo",
        id="triage.undo",
        tooltip="Undo: the last triage action (again for the one before); survives a restart",
    ),
    Binding(
        "ctrl+y",
        "triage('redo')",
        "redo",
        show=False,
        id="triage.redo",
        tooltip="Redo: the triage action undone last (a new action forgets what was undone)",
    ),
]

MOVES = ("corroborate", "contradict", "verify", "accept", "supersede", "undo", "redo")
BULK_MOVES = ("corroborate", "contradict", "verify", "accept")  # apply to every marked fact
CONFIRM_OVER = 20  # bulk actions on more facts than this ask first


def readonly_refusal(app: App) -> str | None:
    """Why triage is off, or None when the store can be written."""
    store = app.store  # type: ignore[attr-defined]
    if store.readonly:
        return f"read-only: {store.path} cannot be written; triage is off"
    return None


def run_triage(
    app: App,
    move: str,
    fact_id: str | list[str] | None,
    target: str | None = None,
    *,
    from_marks: bool = False,
) -> None:
    """Apply one triage move to `fact_id` (a list for bulk; None for undo and redo).

    Supersede without a target opens the chooser, which comes back here with one."""
    refusal = readonly_refusal(app)
    if refusal:
        app.notify(refusal, severity="warning", timeout=4, markup=False)
        return
    if app.memory is None:  # type: ignore[attr-defined]
        return
    if move == "supersede" and target is None:
        from .screens.supersede import SupersedeScreen

        assert isinstance(fact_id, str)

        def chosen(new: str | None) -> None:
            if new:
                run_triage(app, "supersede", fact_id, new)

        app.push_screen(SupersedeScreen(fact_id), chosen)
        return
    ids = [] if fact_id is None else [fact_id] if isinstance(fact_id, str) else list(fact_id)
    app.triage(move, ids, target, from_marks=from_marks)  # type: ignore[attr-defined]


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
    return text


class TriageActions:
    """Mixin for screens with a current fact: implement `current_fact_id`."""

    def current_fact_id(self) -> str | None:  # pragma: no cover - overridden
        return None

    def action_triage(self, move: str) -> None:
        app = self.app  # type: ignore[attr-defined]
        refusal = readonly_refusal(app)
        if refusal:
            app.notify(refusal, severity="warning", timeout=4, markup=False)
            return
        fact_id = None if move in ("undo", "redo") else self.current_fact_id()
        if move not in ("undo", "redo") and fact_id is None:
            app.notify("no fact selected", severity="warning", timeout=2)
            return
        run_triage(app, move, fact_id)
