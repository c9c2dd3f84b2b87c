"""Search on the main screen (/): words and filters in one box, debounced, run by a
worker against the browser's memory; a typo is explained under the box with a caret.

`SearchBar` owns its box, its debounce and its error line; it is handed the browser's
`search` (a read: it runs in the bar's worker) and posts `SearchBar.Changed` with the
results, which the screen installs in the browser and paints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Static

from synapse_tui.core.base.errors import QueryError
from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.browser import Search
from synapse_tui.ui.messages import SearchDone, SearchFailed
from synapse_tui.ui.workers import store_work

SEARCH_DEBOUNCE = 0.15  # seconds: one search per pause in typing, not one per key


# keys Textual's `key_to_character` gives no character for, though the box types them:
# without it the Footer would list `/` (find) while `/` is typed into a filter (note:a/b)
_UNNAMED = {"plus": "+", "minus": "-", "slash": "/", "at": "@", "backslash": "\\", "underscore": "_"}


class QueryInput(Input):
    """A box a query or an id is typed in. `?` typed in it while it is empty opens help,
    as `?` does everywhere else (no query starts with one); once it holds text, `?` is a
    character of the query. The Footer says which: `? help` only while the box is empty."""

    _was_empty = True

    def check_consume_key(self, key: str, character: str | None) -> bool:
        character = character or _UNNAMED.get(key)
        if character == "?" and not self.value:
            return False  # the help key, not text: the Footer lists it
        return super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        if event.character == "?" and not self.value:
            event.prevent_default()  # not typed: it goes on to the help key

    def watch_value(self, value: str) -> None:
        if (not value) != self._was_empty:  # `?` changes meaning: the Footer says so
            self._was_empty = not value
            self.refresh_bindings()


class SearchInput(QueryInput):
    """The search box: its Footer names the ways out (enter and down to the results,
    escape clears), and `down` goes to the list as it does from any box above a list."""

    BINDINGS = [
        Binding(
            "enter",
            "to_list",
            "to the list",
            key_display="↵",
            id="search.submit",
            tooltip="To the facts the search found",
        ),
        Binding(
            "down",
            "to_list",
            "to the list",
            show=False,
            id="search.down",
            tooltip="To the facts the search found",
        ),
        Binding(
            "escape",
            "clear",
            "clear",
            key_display="esc",
            id="search.clear",
            tooltip="Clear the search and leave the box",
        ),
    ]

    @dataclass
    class Leave(Message):
        """Away from the box: enter or down go to the list, escape clears and leaves."""

        clear: bool

    def action_to_list(self) -> None:
        self.post_message(self.Leave(clear=False))

    def action_clear(self) -> None:
        self.post_message(self.Leave(clear=True))


class SearchBar(Widget):
    """The box (`#search`) and, under it, what is wrong with the query (`#search-error`,
    shown while `error` is set: the `-error` class)."""

    DEFAULT_CSS = """
    SearchBar { height: auto; }
    SearchBar #search-error { display: none; }
    SearchBar.-error #search-error { display: block; }
    """

    error: var[Text | None] = var(None, init=False)

    @dataclass
    class Changed(Message):
        """The search to show: results (`top`: the best match under the cursor) or none
        (the box was cleared: the cursor stays)."""

        search: Search
        top: bool

    def __init__(self, search: Callable[[str], Search], *, placeholder: str, id: str | None = None) -> None:
        super().__init__(id=id)
        self._search = search
        self._placeholder = placeholder
        self._debounce: Timer | None = None

    def compose(self) -> ComposeResult:
        yield SearchInput(placeholder=self._placeholder, id="search", select_on_focus=False)
        yield Static(id="search-error")

    @property
    def input(self) -> SearchInput:
        return self.query_one(SearchInput)

    def watch_error(self, error: Text | None) -> None:
        self.set_class(error is not None, "-error")
        self.query_one("#search-error", Static).update(error or "")

    def focus_input(self) -> None:
        self.input.focus()

    def show(self, source: str) -> None:
        """Put `source` in the box (a view restored): its results follow, debounced."""
        if self.input.value != source:
            self.input.value = source

    def clear(self) -> None:
        self.input.value = ""  # Changed clears the results
        self.error = None

    def cancel_debounce(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()

    @on(Input.Changed, "#search")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.cancel_debounce()
        value = event.value
        if not value.strip():
            self.error = None
            self.post_message(self.Changed(Search(value), top=False))
            return
        self._debounce = self.set_timer(SEARCH_DEBOUNCE, lambda: self.run_search(value))

    @on(Input.Submitted, "#search")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.input.post_message(SearchInput.Leave(clear=False))

    @store_work("Could not search", group="search", exclusive=True, failed="_not_searched")
    def run_search(self, source: str) -> None:
        """Search now (no debounce): the box's text, or the search shown after the memory
        changed (new facts, another instant may match differently)."""
        try:
            search = self._search(source)
        except QueryError as exc:
            self.post_message(SearchFailed(source, exc.reason, exc.position, exc.token))
            return
        self.post_message(SearchDone(search))

    def on_search_done(self, message: SearchDone) -> None:
        message.stop()
        if message.search.source != self.input.value:
            return  # typed on since: a newer search is coming
        note = message.search.note  # e.g. an id naming several facts: it names them
        self.error = Text("  " + note, style="italic") if note else None
        # the best match first, under the cursor: keeping the cursor's fact would keep
        # whichever fact a search of half the text (typed a debounce apart) put on top
        self.post_message(self.Changed(message.search, top=True))

    def _not_searched(self, why: str, source: str) -> None:
        """The store failed under the search: the line under the box says so, and the list
        shows nothing rather than what an older search found (as for a query's error)."""
        if source != self.input.value:
            return
        self.error = Text.assemble(
            ("  " + clean(f"could not search: {why}"), "bold"), "\n  ", clean(source), "\n"
        )
        self.post_message(self.Changed(Search(source, np.empty(0, dtype=np.int64)), top=True))

    def on_search_failed(self, message: SearchFailed) -> None:
        message.stop()
        if message.source != self.input.value:
            return
        caret = " " * message.position + "^" * max(1, len(message.token))
        self.error = Text.assemble(("  " + message.message, "bold"), "\n  ", message.source, "\n  ", caret)
        # an invalid query lists nothing: the list it left behind (the whole store, at
        # first) would take a mark-all and a verdict meant for what the query said
        self.post_message(self.Changed(Search(message.source, np.empty(0, dtype=np.int64)), top=True))
