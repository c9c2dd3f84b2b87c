"""The detail pane beside the list: a `FactDetail` that follows the cursor.

One worker reads at a time, however fast the keys come: when its read lands and the
cursor has moved on (or an action changed the fact shown meanwhile), the pane reads the
newest fact next, never a queue of stale reads. The screen says which fact is under the
cursor (`follow_fact`); the pane asks the headless `Browser` for its explanation.
"""

from __future__ import annotations

from synapse_tui.core.browser import Browser
from synapse_tui.ui.messages import Explained
from synapse_tui.ui.widgets.fact_detail import FactDetail
from synapse_tui.ui.workers import store_work


class DetailPane(FactDetail):
    """The fact under the list's cursor, explained; read by a worker of its own."""

    def __init__(self, browser: Browser, *, id: str | None = None) -> None:
        super().__init__(id=id, follow=True)
        self.browser = browser
        self._wanted: str | None = None  # the fact the pane shows or is about to
        self._busy = False  # a worker is explaining a fact for the pane
        self._again = False  # asked to repaint meanwhile: read the fact again after

    def follow_fact(self, fact_id: str | None, force: bool = False) -> None:
        """Show `fact_id` (None: no fact); `force`: read it again even if it is shown (its
        score changed)."""
        if fact_id == self._wanted and not force:
            return
        self.waiting(fact_id)
        self._wanted = fact_id
        if self._busy:
            self._again |= force  # the read under way may predate what changed
            return
        if fact_id is None:
            return
        self._busy = True
        self._explain(fact_id)

    @store_work("Could not load the fact", group="pane", failed="_not_explained")
    def _explain(self, fact_id: str) -> None:
        self.post_message(Explained(fact_id, self.browser.explanation(fact_id)))

    def _not_explained(self, why: str, fact_id: str) -> None:
        """The read failed: the pane says so; a fact the cursor moved to since is read next
        (once: a store that keeps failing is not asked again until the cursor moves)."""
        self.not_loaded(fact_id, why)
        wanted, self._again = self._wanted, False
        if wanted is None or wanted == fact_id:
            self._busy = False
        else:
            self._explain(wanted)

    def on_explained(self, message: Explained) -> None:
        """Paint; when the cursor moved on meanwhile, explain the newest fact next."""
        self.show(message.explain, message.fact_id, self.browser.memory, self.browser.config.review.threshold)
        fact_id, again = self._wanted, self._again
        self._again = False
        if fact_id is None or (fact_id == message.fact_id and not again):
            self._busy = False
        else:
            self._explain(fact_id)
