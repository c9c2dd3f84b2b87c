"""The full detail view (enter): one fact with every factor explained, full screen.

The same `FactDetail` as the pane beside the list. `]` / `[` step to the next / previous
fact of the list without going back (the browser knows the list's order; the app moves
the list's cursor along, `CursorTo`); the triage keys (bound on the app) act on the fact
shown here.
"""

from __future__ import annotations

import numpy as np
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Header

from synapse_tui.ui.messages import Explained
from synapse_tui.ui.screens.base import FactScreen
from synapse_tui.ui.screens.nav import CursorTo
from synapse_tui.ui.widgets.fact_detail import FactDetail
from synapse_tui.ui.workers import store_work


class DetailScreen(FactScreen):
    """Everything about one fact; older/newer versions are selectable to jump there."""

    BINDINGS = [
        Binding("escape", "close", "close", id="detail.close", tooltip="Close the detail view"),
        Binding(
            "right_square_bracket,J",
            "step(1)",
            "next",
            key_display="]",
            id="detail.next",
            tooltip="The next fact of the list, without going back to it",
        ),
        Binding(
            "left_square_bracket,K",
            "step(-1)",
            "prev",
            key_display="[",
            id="detail.previous",
            tooltip="The previous fact of the list",
        ),
        Binding("n", "neighbours", "nbrs", id="detail.neighbours", tooltip="This fact's neighbours"),
        Binding(
            "backspace",
            "back",
            "back",
            show=False,
            id="detail.back",
            tooltip="Back to the fact you jumped from along the supersession chain",
        ),
    ]

    def __init__(self, fact_id: str) -> None:
        super().__init__()
        self.fact_id = fact_id
        self.path: list[str] = []
        self.order: np.ndarray | None = None  # the list's order when the view opened: what ] and [ walk

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield FactDetail(id="detail-body")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        shown = self.app.browser.shown
        self.order = shown.order if shown is not None else None  # never written once handed out
        self.sub_title = self.app.subtitle()
        self.query_one(FactDetail).focus()
        self.show(self.fact_id)

    def current_fact_id(self) -> str | None:
        return self.fact_id

    @store_work("Could not load the fact", group="explain", exclusive=True, failed="_not_loaded")
    def load(self, fact_id: str) -> None:
        self.post_message(Explained(fact_id, self.app.browser.explanation(fact_id)))

    def _not_loaded(self, why: str, fact_id: str) -> None:
        self.query_one(FactDetail).not_loaded(fact_id, why)

    def on_explained(self, message: Explained) -> None:
        self.query_one(FactDetail).show(
            message.explain, message.fact_id, self.app.memory, self.app.config.review.threshold
        )

    @on(FactDetail.Jump)
    def _jump(self, message: FactDetail.Jump) -> None:
        self.path.append(self.fact_id)
        self.go_to(message.fact_id)

    def go_to(self, fact_id: str, leave: bool = True) -> None:
        """Show `fact_id`; the app puts the list's cursor on it too (leaving the queue for
        a jump along the chain, not for a step through it)."""
        self.app.post_message(CursorTo(fact_id, leave=leave))
        self.show(fact_id)

    def show(self, fact_id: str) -> None:
        self.fact_id = fact_id
        body = self.query_one(FactDetail)
        body.waiting(fact_id)
        body.scroll_home(animate=False)
        self.load(fact_id)
        self.refresh_bindings()
        self.cursor_moved()  # its id heads the view from the next paint: the keys act on it

    def refresh_view(self) -> None:
        self.load(self.fact_id)

    def action_step(self, delta: int) -> None:
        browser = self.app.browser
        fact_id = browser.step(self.fact_id, delta, self.order)
        if fact_id is None:  # jumped off the walk (along the chain): the list as it is now
            fact_id = browser.step(self.fact_id, delta)
        if fact_id is not None and fact_id != self.fact_id:
            self.go_to(fact_id, leave=False)
        elif fact_id is not None:
            self.app.notify(f"the {'last' if delta > 0 else 'first'} fact of the list", timeout=2)

    def action_back(self) -> None:
        if self.path:
            self.go_to(self.path.pop())
        else:  # help lists the key on every fact: say why it did nothing, as the neighbours do
            self.app.notify(
                "nothing to go back to: enter on a version of the supersession chain jumps to it", timeout=3
            )

    def action_close(self) -> None:
        self.dismiss()

    def action_neighbours(self) -> None:
        from synapse_tui.ui.screens.neighbours import NeighbourScreen

        self.app.push_screen(NeighbourScreen(self.fact_id))
