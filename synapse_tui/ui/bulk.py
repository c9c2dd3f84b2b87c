"""Marks and bulk triage on the main screen: space marks, M marks a queue, u clears;
with marks, c x v a act on every marked fact as one batch (one undo step).

A mixin for `MainScreen`, which provides `memory`, `refresh_rows` and the widgets; it
also receives the triage worker's `TriageDone` / `TriageFailed` for the whole app.
"""

from __future__ import annotations

from textual.binding import Binding

from .messages import TriageDone, TriageFailed
from .triage_actions import BULK_MOVES, CONFIRM_OVER, TriageActions, run_triage
from .widgets.fact_list import FactList
from .widgets.queue_bar import QueueBar

MARK_BINDINGS = [
    Binding(
        "space",
        "toggle_mark",
        "mark",
        show=False,
        id="main.mark",
        tooltip="Mark / unmark the selected fact and move down (c x v a then act on every marked fact)",
    ),
    Binding(
        "M",
        "mark_queue",
        "mark all",
        show=False,
        id="main.mark_queue",
        tooltip="Mark every fact in this queue (and search)",
    ),
    Binding("u", "clear_marks", "unmark", show=False, id="main.clear_marks", tooltip="Clear every mark"),
]


class BulkTriage(TriageActions):
    marks: set[int]  # positions marked for bulk triage (MainScreen sets it up)

    # -- triage -----------------------------------------------------------------------
    def action_triage(self, move: str) -> None:
        """With marks, c x v a act on every marked fact as one batch (one undo step)."""
        if move not in BULK_MOVES or not self.marks or self.app.store.readonly or self.memory is None:
            super().action_triage(move)
            return
        ids = [self.memory.ids[p] for p in sorted(self.marks)]
        if len(ids) <= CONFIRM_OVER:
            run_triage(self.app, move, ids, from_marks=True)
            return
        from .screens.confirm import ConfirmScreen

        def confirmed(yes: bool | None) -> None:
            if yes:
                run_triage(self.app, move, ids, from_marks=True)

        self.app.push_screen(
            ConfirmScreen(f"{move} {len(ids)} marked facts, as one action (ctrl+z undoes it)?"), confirmed
        )

    def on_triage_done(self, message: TriageDone) -> None:
        if message.from_marks:
            self.marks.clear()
        self.refresh_rows(keep=self.query_one(FactList).position)
        top = self.app.screen
        if top is not self and hasattr(top, "refresh_view"):
            top.refresh_view()
        self.app.notify(message.notice, timeout=4, markup=False)

    def on_triage_failed(self, message: TriageFailed) -> None:
        self.app.notify(
            message.error, title=f"{message.move}: nothing changed", severity="error", markup=False
        )

    # -- marks --------------------------------------------------------------------------
    def marks_changed(self) -> None:
        self.query_one(FactList).refresh()  # the strip cache is keyed on the mark
        self.query_one(QueueBar).set_marked(len(self.marks))

    def action_toggle_mark(self) -> None:
        facts = self.query_one(FactList)
        pos = facts.position
        if pos is None:
            return
        self.marks.symmetric_difference_update([pos])
        self.marks_changed()
        facts.action_cursor_down()

    def action_mark_queue(self) -> None:
        self.marks.update(self.query_one(FactList).order.tolist())
        self.marks_changed()

    def action_clear_marks(self) -> None:
        self.marks.clear()
        self.marks_changed()
