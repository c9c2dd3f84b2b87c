"""The main screen's mark keys: space marks, M marks a queue, u clears; with marks, c x v a
act on every marked fact as one batch (one undo step: see triage_actions.py). The marks
live in the `Browser`; `MainScreen` runs the actions.
"""

from __future__ import annotations

from textual.binding import Binding

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
