"""Marks on the main screen: space marks, M marks a queue, u clears; with marks, c x v a
act on every marked fact as one batch (one undo step: see triage_actions.py).

A mixin for `MainScreen`; the marks themselves live in the `Browser`.
"""

from __future__ import annotations

from textual.binding import Binding

from synapse_tui.ui.widgets.fact_list import FactList
from synapse_tui.ui.widgets.queue_bar import QueueBar

MARK_BINDINGS = [
    Binding(
        "space",
        "toggle_mark",
        "mark",
        key_display="␣",
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


class Marks:
    def marks_changed(self) -> None:
        facts = self.query_one(FactList)  # type: ignore[attr-defined]
        facts.marks = self.app.browser.marks  # type: ignore[attr-defined]
        facts.refresh()  # the strip cache is keyed on the mark
        browser = self.app.browser  # type: ignore[attr-defined]
        self.query_one(QueueBar).set_marked(len(facts.marks), browser.marks_elsewhere())  # type: ignore[attr-defined]

    def action_toggle_mark(self) -> None:
        facts = self.query_one(FactList)  # type: ignore[attr-defined]
        pos = facts.position
        if pos is None:
            return
        self.app.browser.toggle_mark(pos)  # type: ignore[attr-defined]
        self.marks_changed()
        facts.action_cursor_down()

    def action_mark_queue(self) -> None:
        self.app.browser.mark(self.query_one(FactList).order)  # type: ignore[attr-defined]
        self.marks_changed()

    def action_clear_marks(self) -> None:
        self.app.browser.clear_marks()  # type: ignore[attr-defined]
        self.marks_changed()
