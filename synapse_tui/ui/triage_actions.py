"""The triage keys of SPEC 7 (c x v a s ctrl+z), in one place so they are easy to wire.

Screens that show a current fact mix in `TriageActions` and list `TRIAGE_BINDINGS`;
every key lands in `run_triage`, which is where the core's triage module plugs in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding

if TYPE_CHECKING:
    from textual.app import App

TRIAGE_BINDINGS = [
    Binding(
        "c",
        "triage('corroborate')",
        "corrob",
        id="triage.corroborate",
        tooltip="Corroborate: r + 1, and a reinforcement now",
    ),
    Binding("x", "triage('contradict')", "contra", id="triage.contradict", tooltip="Contradict: s + 1"),
    Binding(
        "v",
        "triage('verify')",
        "verify",
        id="triage.verify",
        tooltip="Verify: a reinforcement now (checked, still holds)",
    ),
    Binding(
        "a",
        "triage('accept')",
        "accept",
        id="triage.accept",
        tooltip="Accept: declared tier auto becomes human",
    ),
    Binding(
        "s",
        "triage('supersede')",
        "supersede",
        id="triage.supersede",
        tooltip="Supersede: choose the fact that replaces this one",
    ),
    Binding(
        "ctrl+z",
        "triage('undo')",
        "undo",
        id="triage.undo",
        tooltip="Undo: the last triage action (again for the one before)",
    ),
]

MOVES = ("corroborate", "contradict", "verify", "accept", "supersede", "undo")


def run_triage(app: App, move: str, fact_id: str | None) -> None:
    """Apply one triage move to `fact_id` (None for undo). Not wired to the core yet."""
    app.notify(f"{move}: triage not available yet", severity="warning", timeout=3)


class TriageActions:
    """Mixin for screens with a current fact: implement `current_fact_id`."""

    def current_fact_id(self) -> str | None:  # pragma: no cover - overridden
        return None

    def action_triage(self, move: str) -> None:
        fact_id = None if move == "undo" else self.current_fact_id()
        if move != "undo" and fact_id is None:
            self.app.notify("no fact selected", severity="warning", timeout=2)  # type: ignore[attr-defined]
            return
        run_triage(self.app, move, fact_id)  # type: ignore[attr-defined]
