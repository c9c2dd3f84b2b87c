"""The browser's main screen: queues, search box, fact list, status line."""

from __future__ import annotations

import sqlite3

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Static

from ...core import query as fq
from ...core.clock import format_time
from ...core.errors import QueryError
from ...core.memory import Memory
from ..bulk import MARK_BINDINGS, BulkTriage
from ..messages import LoadFailed, MemoryLoaded, SearchDone, SearchFailed
from ..queues import QUEUES, SORTS, apply_sort, counts, queue_order
from ..triage_actions import TRIAGE_BINDINGS
from ..widgets.fact_list import ColumnHeader, FactList
from ..widgets.queue_bar import QueueBar, StatusLine

SEARCH_DEBOUNCE = 0.15
POLL_SECONDS = 2.0  # how often to check whether another process changed the store


class MainScreen(BulkTriage, Screen):
    """Queues of facts, searchable, with every key of SPEC 7."""

    BINDINGS = [
        Binding(
            "slash",
            "search",
            "search",
            key_display="/",
            id="main.search",
            tooltip="Search: full text over facts and ids, plus filters like trust<0.3 tier:auto",
        ),
        Binding(
            "escape",
            "leave",
            "back",
            show=False,
            id="main.escape",
            tooltip="Leave search (clears it) / clear the marks / return to the list",
        ),
        Binding(
            "enter",
            "open",
            "open",
            id="main.open",
            tooltip="Open the selected fact: factors, opinion, review date, provenance, history",
        ),
        Binding(
            "n",
            "neighbours",
            "nbrs",
            id="main.neighbours",
            tooltip="The selected fact's neighbours (enter goes to one, backspace goes back)",
        ),
        # repeated from the app so the Footer shows them before the triage keys
        Binding(
            "question_mark",
            "app.help",
            "help",
            key_display="?",
            id="main.help",
            tooltip="Help: every key and what it does",
        ),
        Binding("q", "app.quit", "quit", id="main.quit", tooltip="Quit"),
        *TRIAGE_BINDINGS,
        *MARK_BINDINGS,
        Binding("tab", "next_queue", "next queue", show=False, id="main.next_queue", tooltip="Next queue"),
        Binding(
            "shift+tab",
            "previous_queue",
            "previous queue",
            show=False,
            id="main.previous_queue",
            tooltip="Previous queue",
        ),
        *[
            Binding(
                str(i + 1),
                f"queue({i})",
                q.title,
                show=False,
                id=f"main.queue_{q.key}",
                tooltip=f"Queue {q.title}: {q.why}",
            )
            for i, q in enumerate(QUEUES)
        ],
        Binding(
            "o",
            "cycle_sort",
            "sort",
            show=False,
            id="main.sort",
            tooltip="Sort by the next column (queue order, trust, age, tier, guidance, id)",
        ),
        Binding("O", "reverse_sort", "reverse", show=False, id="main.reverse", tooltip="Reverse the sort"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.queue_index = 0
        self.sort_column = "queue"
        self.sort_reverse = False
        self.search_source = ""
        self.search_positions: np.ndarray | None = None
        self.search_ranked = False
        self._debounce: Timer | None = None
        self.marks: set[int] = set()  # positions marked for bulk triage

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(id="asof")
        yield QueueBar(id="queues")
        yield Input(
            placeholder="/ search words and filters: trust<0.3 tier:auto payments",
            id="search",
            select_on_focus=False,
        )
        yield Static(id="search-error")
        yield ColumnHeader(id="columns")
        yield FactList(texts=self.app.texts, id="facts")
        yield StatusLine(id="status")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#search-error").display = False
        self.query_one("#asof").display = False
        self.query_one(FactList).focus()
        self.query_one(FactList).marks = self.marks
        self.query_one("#status", StatusLine).update("loading…")
        self.load()

    # -- loading ----------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="load")
    def load(self) -> None:
        app = self.app
        try:
            with app.db_lock:
                app.memory = Memory(app.store, app.config, app.now)
                app.suspect = app.load_suspect(app.memory)
                app.data_version = app.store.data_version()
        except sqlite3.DatabaseError as exc:  # damage past the header check at open
            self.post_message(LoadFailed(f"the database is corrupt or unreadable ({exc})"))
            return
        except Exception as exc:  # a bad store must end with a message, not a traceback
            self.post_message(LoadFailed(str(exc)))
            return
        self.post_message(MemoryLoaded("load"))

    def on_load_failed(self, message: LoadFailed) -> None:
        self.app.exit(return_code=2, message=f"error: {message.error}")

    def on_memory_loaded(self, message: MemoryLoaded | None) -> None:
        reason = message.reason if message is not None else "rescore"
        if reason == "load":
            self.set_interval(POLL_SECONDS, self.app.poll_store)
        if reason == "external":
            n = len(self.memory)
            self.marks.difference_update([p for p in self.marks if p >= n])
            if self.search_source.strip():
                self.run_search(self.search_source)  # new facts may match
        self.refresh_rows(keep=self.query_one(FactList).position)
        self.update_asof()
        top = self.app.screen
        if top is not self and hasattr(top, "refresh_view"):
            top.refresh_view()  # the detail of a fact just triaged shows its new score

    # -- rows -------------------------------------------------------------------------
    @property
    def memory(self) -> Memory | None:
        return self.app.memory

    def refresh_rows(self, keep: int | None = None) -> None:
        memory = self.memory
        if memory is None:
            return
        facts = self.query_one(FactList)
        suspect = self.app.suspect
        queue = QUEUES[self.queue_index]
        within = None
        if self.search_positions is not None:
            within = np.zeros(len(memory), dtype=bool)
            within[self.search_positions] = True
        if self.search_positions is not None and self.search_ranked and self.sort_column == "queue":
            order = self.search_positions[queue.mask(memory, suspect)[self.search_positions]]
            if self.sort_reverse:
                order = order[::-1]
        else:
            order = queue_order(memory, queue, suspect)
            if within is not None:
                order = order[within[order]]
            order = apply_sort(memory, order, self.sort_column, self.sort_reverse)
        facts.set_rows(memory, order, keep=keep)
        self.query_one(QueueBar).update_state(
            self.queue_index, counts(memory, suspect, within), len(self.marks)
        )
        self.query_one(ColumnHeader).set_sort(self.sort_column, self.sort_reverse)
        self.update_status()

    def update_status(self) -> None:
        facts = self.query_one(FactList)
        memory = self.memory
        if memory is None:
            return
        n = len(facts.order)
        queue = QUEUES[self.queue_index]
        where = f"{facts.cursor + 1 if n else 0}/{n}"
        sort = (
            "relevance × freshness"
            if (self.search_ranked and self.search_positions is not None and self.sort_column == "queue")
            else ("queue order" if self.sort_column == "queue" else self.sort_column)
        )
        arrow = " ▼" if self.sort_reverse else ""
        text = Text.assemble(
            (f" {queue.title}", "bold"), f" · {where} · sorted by {sort}{arrow}", f" · {queue.why}"
        )
        if queue.key == "suspect" and self.app.suspect is None:
            text.append(" · the neighbour graph is not built", style="italic")
        self.query_one("#status", StatusLine).update(text)

    def on_fact_list_highlighted(self, message: FactList.Highlighted) -> None:
        self.update_status()

    def current_fact_id(self) -> str | None:
        pos = self.query_one(FactList).position
        if pos is None or self.memory is None:
            return None
        return self.memory.ids[pos]

    def go_to_fact(self, fact_id: str) -> None:
        """Put the cursor on a fact, leaving queue and search when it is not in view."""
        memory = self.memory
        if memory is None or fact_id not in memory.index:
            return
        pos = memory.index[fact_id]
        facts = self.query_one(FactList)
        if not facts.go_to_position(pos):
            self.queue_index = 0
            self.sort_column, self.sort_reverse = "queue", False
            self._clear_search()
            self.refresh_rows(keep=pos)
        facts.focus()

    # -- queues and sort --------------------------------------------------------------
    def action_queue(self, index: int) -> None:
        self.queue_index = index % len(QUEUES)
        self.refresh_rows()

    def action_next_queue(self) -> None:
        self.action_queue(self.queue_index + 1)

    def action_previous_queue(self) -> None:
        self.action_queue(self.queue_index - 1)

    def set_sort(self, column: str, reverse: bool | None = None) -> None:
        self.sort_column = column
        if reverse is not None:
            self.sort_reverse = reverse
        self.refresh_rows(keep=self.query_one(FactList).position)

    def action_cycle_sort(self) -> None:
        names = [name for name, _ in SORTS]
        self.set_sort(names[(names.index(self.sort_column) + 1) % len(names)])

    def action_reverse_sort(self) -> None:
        self.set_sort(self.sort_column, not self.sort_reverse)

    # -- search -----------------------------------------------------------------------
    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_leave(self) -> None:
        box = self.query_one("#search", Input)
        if box.value:
            box.value = ""  # Changed clears the results
        elif self.marks and self.query_one(FactList).has_focus:
            self.action_clear_marks()
        self.query_one(FactList).focus()

    def _clear_search(self) -> None:
        self.query_one("#search", Input).value = ""
        self.search_source, self.search_positions, self.search_ranked = "", None, False
        self._show_error(None)

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        value = event.value
        if not value.strip():
            self.search_source, self.search_positions, self.search_ranked = value, None, False
            self._show_error(None)
            self.refresh_rows()
            return
        self._debounce = self.set_timer(SEARCH_DEBOUNCE, lambda: self.run_search(value))

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self.query_one(FactList).focus()

    @work(thread=True, exclusive=True, group="search")
    def run_search(self, source: str) -> None:
        app = self.app
        try:
            parsed = fq.parse(source)
            with app.db_lock:
                positions = fq.run(app.memory, parsed)
        except QueryError as exc:
            self.post_message(SearchFailed(source, exc.reason, exc.position, exc.token))
            return
        self.post_message(SearchDone(source, positions, bool(parsed.words)))

    def on_search_done(self, message: SearchDone) -> None:
        if message.source != self.query_one("#search", Input).value:
            return  # typed on since: a newer search is coming
        self.search_source, self.search_positions = message.source, message.positions
        self.search_ranked = message.ranked
        self._show_error(None)
        self.refresh_rows()

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

    # -- views --------------------------------------------------------------------------
    def action_open(self) -> None:
        fact_id = self.current_fact_id()
        if fact_id is not None:
            from .detail import DetailScreen

            self.app.push_screen(DetailScreen(fact_id))

    def action_neighbours(self) -> None:
        fact_id = self.current_fact_id()
        if fact_id is not None:
            from .neighbours import NeighbourScreen

            self.app.push_screen(NeighbourScreen(fact_id))

    def update_asof(self) -> None:
        banner = self.query_one("#asof", Static)
        app = self.app
        if app.as_of is None:
            banner.display = False
            self.sub_title = str(app.store.path.name)
            if app.store.readonly:
                self.sub_title += " · read-only"
        else:
            stamp = format_time(app.as_of)
            banner.display = True
            banner.update(
                Text.assemble(
                    ("AS OF ", "bold"),
                    stamp,
                    ' · every score recomputed for that instant · ctrl+p "back to now" returns',
                )
            )
            self.sub_title = f"{app.store.path.name} · AS OF {stamp}"
            if app.store.readonly:
                self.sub_title += " · read-only"
