"""Search on the main screen (/): words and filters in one box, debounced, run by a
worker against the browser's memory; a typo is explained under the box with a caret.

A mixin for `MainScreen`, which provides `browser` and `show_rows`.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import Input, Static

from synapse_tui.core.base.errors import QueryError
from synapse_tui.core.browser import Search
from synapse_tui.ui.messages import SearchDone, SearchFailed
from synapse_tui.ui.widgets.fact_list import FactList

SEARCH_DEBOUNCE = 0.15


class SearchInput(Input):
    """The search box: its Footer names the ways out (enter and down to the results,
    escape clears), and `down` goes to the list as it does from any box above a list."""

    BINDINGS = [
        Binding("enter", "to_list", "to the list", key_display="↵", id="search.submit"),
        Binding("down", "to_list", "to the list", show=False, id="search.down"),
        Binding("escape", "clear", "clear", key_display="esc", id="search.clear"),
    ]

    def action_to_list(self) -> None:
        self.screen.query_one(FactList).focus()

    def action_clear(self) -> None:
        self.screen.action_leave()


class SearchBox:
    _debounce: Timer | None = None

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    # named handlers, not @on: Textual collects @on only from the screen class itself
    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "search":
            return
        if self._debounce is not None:
            self._debounce.stop()
        value = event.value
        if not value.strip():
            self.browser.set_search(Search(value))
            self._show_error(None)
            self.show_rows()
            return
        self._debounce = self.set_timer(SEARCH_DEBOUNCE, lambda: self.run_search(value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "search":
            self.query_one(FactList).focus()

    @work(thread=True, exclusive=True, group="search")
    def run_search(self, source: str) -> None:
        try:
            search = self.browser.search(source)
        except QueryError as exc:
            self.post_message(SearchFailed(source, exc.reason, exc.position, exc.token))
            return
        self.post_message(SearchDone(search))

    def on_search_done(self, message: SearchDone) -> None:
        if message.search.source != self.query_one("#search", Input).value:
            return  # typed on since: a newer search is coming
        self.browser.set_search(message.search)
        self._show_error(None)
        # the best match first, under the cursor: keeping the cursor's fact would keep
        # whichever fact a search of half the text (typed a debounce apart) put on top
        self.show_rows(top=True)

    def on_search_failed(self, message: SearchFailed) -> None:
        if message.source != self.query_one("#search", Input).value:
            return
        caret = " " * message.position + "^" * max(1, len(message.token))
        self._show_error(
            Text.assemble(("  " + message.message, "bold"), "\n  ", message.source, "\n  ", caret)
        )

    def _show_error(self, text: Text | None) -> None:
        label = self.query_one("#search-error", Static)
        label.display = text is not None
        label.update(text or "")
