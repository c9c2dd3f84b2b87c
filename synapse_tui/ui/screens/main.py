"""The browser's main screen: queues, search, the fact list paired with the fact's detail.

Wide terminals show the list and the detail pane side by side, narrow ones stack them;
`p` hides the pane. Both are CSS classes (the breakpoints' `-wide` / `-narrow`, and
`-no-pane` mirrored from `show_pane`): the stylesheet does the layout. The list repaints
when the app's `memory_change` says the memory changed (`FactScreen.memory_changed`); the
search box is a widget of its own (`SearchBar`), whose results the screen installs, and
so is the pane (`DetailPane`), which reads the fact under the cursor itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Header, Static

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.browser import Search
from synapse_tui.core.review.queues import QUEUES, SORTS
from synapse_tui.ui.bulk import MARK_BINDINGS
from synapse_tui.ui.messages import TextsRead
from synapse_tui.ui.screens.base import FactScreen, MemoryChange, pane_bindings
from synapse_tui.ui.search import SearchBar, SearchInput
from synapse_tui.ui.widgets.detail_pane import DetailPane
from synapse_tui.ui.widgets.fact_list import ColumnHeader, Columns, FactList
from synapse_tui.ui.widgets.footer import KeysFooter
from synapse_tui.ui.widgets.queue_bar import QueueBar, StatusLine
from synapse_tui.ui.workers import store_work


@dataclass(frozen=True)
class Bulk:
    """A bulk action under way, as its line shows it."""

    what: str
    since: float  # monotonic seconds
    step: int = 0
    steps: int = 3
    doing: str = "waiting for the store"


POLL_SECONDS = 2.0  # how often to check whether another process changed the store
REASON_QUEUES = ("suspect", "signature")  # the queues that say why in a column


class MainScreen(FactScreen, inherit_bindings=False):
    """Queues of facts, searchable, with every key of SPEC 7."""

    # side by side only when the list keeps ~40 cells of fact text and the pane ~50 (#list-pane)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (150, "-wide")]
    DEFAULT_CSS = """
    MainScreen #bulk-progress { display: none; height: 1; padding: 0 1; background: $warning 25%; }
    MainScreen.-bulk #bulk-progress { display: block; }
    """
    show_pane: var[bool] = var(True)
    as_of: var[float | None] = var(None, init=False)  # the instant shown (None: now), bannered

    BINDINGS = [
        Binding(
            "slash",
            "search",
            "find",
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
            key_display="↵",
            id="main.open",
            tooltip="Open the selected fact full screen: factors, opinion, review date, provenance, history",
        ),
        Binding(
            "n",
            "neighbours",
            "nbr",
            id="main.neighbours",
            tooltip="The selected fact's neighbours (enter goes to one, backspace goes back)",
        ),
        *MARK_BINDINGS,
        Binding("tab", "next_queue", "queue", key_display="⇥", id="main.next_queue", tooltip="Next queue"),
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
            id="main.sort",
            tooltip="Sort by the next column (queue order, trust, freshness, age, tier, guidance, id)",
        ),
        Binding("O", "reverse_sort", "reverse", show=False, id="main.reverse", tooltip="Reverse the sort"),
        Binding(
            "p",
            "toggle_pane",
            "pane",
            show=False,
            id="main.pane",
            tooltip="Show / hide the detail pane beside (or under) the list",
        ),
        Binding(
            "greater_than_sign",
            "id_column(8)",
            "wider ids",
            key_display=">",
            show=False,
            id="main.wider_ids",
            tooltip="Widen the id column (up to the whole ids); < narrows it",
        ),
        Binding(
            "less_than_sign",
            "id_column(-8)",
            "narrower ids",
            key_display="<",
            show=False,
            id="main.narrower_ids",
            tooltip="Narrow the id column: the fact's text takes the room",
        ),
        Binding(
            "F",
            "frequency",
            "count by",
            show=False,
            id="main.frequency",
            tooltip="Count the list by note, tier, source or agent; enter lists one value's facts",
        ),
        *pane_bindings("main", show=False),  # help names them, the pane's hint too
        Binding(
            "g",
            "go_other",
            "go to duplicate",
            show=False,
            id="main.other",
            tooltip="Suspect queue: go to the fact this one duplicates",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._return_to = None  # the view to come back to after the neighbour view
        self._bindings_had_fact: bool | None = None  # a fact was shown at the last refresh_bindings
        self._bulk: Bulk | None = None  # a bulk under way
        self._bulk_timer: Timer | None = None
        self.progress_seen: list[str] = []  # the bulk's steps as shown, in order

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(id="asof")
        yield QueueBar(id="queues")
        yield SearchBar(
            self.app.browser.search,
            placeholder="/ search words and filters: trust<0.3 tier:auto payments",
            id="search-bar",
        )
        with Container(id="panes"):
            with Vertical(id="list-pane"):
                yield ColumnHeader(id="columns")
                yield FactList(reason=self.app.browser.reason, id="facts")
            yield DetailPane(self.app.browser, id="pane")
        yield StatusLine(id="bulk-progress")  # a bulk under way: its step and time (-bulk)
        yield StatusLine(id="status")
        # what help lists beyond these, as the width allows (none at 80 columns)
        yield KeysFooter(
            extras=(
                "main.pane_up",
                "main.pane_down",
                "app.session_log",
                "main.mark_queue",
                "main.pane",
                "app.legend",
                "app.quit",
            ),
            compact=True,
        )

    def on_mount(self) -> None:
        self.query_one(FactList).focus()
        self.query_one("#status", StatusLine).update("loading…")
        self.app.load()

    def watch_show_pane(self, shown: bool) -> None:
        self.set_class(not shown, "-no-pane")
        self.refresh_bindings()  # the pane's scroll keys come and go with it

    def scrolled_pane(self) -> DetailPane:
        return self.query_one(DetailPane)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "scroll_pane" and not self.show_pane:
            return False  # no pane shown (p): nothing to scroll, the Footer drops the keys
        return super().check_action(action, parameters)

    def action_scroll_pane(self, how: str) -> None:
        """shift+↑ / shift+↓: the detail pane a line up or down (its why, provenance and
        history below the glance at 80x24); the list keeps the focus and its cursor."""
        pane = self.query_one(DetailPane)
        if pane.display and self.show_pane:
            getattr(pane, f"scroll_{how}")(animate=False)

    def action_toggle_pane(self) -> None:
        self.show_pane = not self.show_pane
        if self.show_pane:
            self.update_pane(force=True)

    # -- loading ----------------------------------------------------------------------

    @property
    def browser(self):
        return self.app.browser

    @property
    def memory(self):
        return self.app.browser.memory

    def memory_changed(self, change: MemoryChange) -> None:
        """Repaint the list (the app's `memory_change`): after triage the rows that look
        different, the cursor following the fact an undo gave back; else everything."""
        if change.reason == "triage":
            self.show_rows(follow=change.follow, changed=True, repaint=change.repaint)
            return
        if change.reason == "load":
            self.set_interval(POLL_SECONDS, self.app.poll_store)
            self.call_after_refresh(self.app.find_suspects)  # after the first page is painted
        if change.reason == "external" and self.browser.elsewhere:
            self.app.notify(self.browser.elsewhere, timeout=6, markup=False)
            self.browser.elsewhere = ""
        source = self.browser.view.search.source
        if change.reason in ("external", "as_of", "config") and source.strip():
            self.query_one(SearchBar).run_search(
                source
            )  # new facts (or another instant) may match differently
        self.query_one(FactList).invalidate(texts=change.reason == "external")
        self.show_rows()
        self.update_asof()
        self.update_pane(force=True)
        has_fact = self.current_fact_id() is not None
        if has_fact != self._bindings_had_fact:  # the Footer is rebuilt: only when it changes
            self._bindings_had_fact = has_fact
            self.refresh_bindings()  # the triage keys apply now there is a fact

    # -- rows -------------------------------------------------------------------------
    def show_rows(
        self, follow: str | None = None, top: bool = False, changed: bool = False, repaint=None
    ) -> None:
        """Paint what the browser says the list holds; the cursor stays on its fact (or
        follows `follow`), else on its row (the next fact, when its own left the queue).
        `changed`: scores changed (triage), so the pane is re-read even for the same fact;
        `repaint`: the positions whose rows look different (None: every row)."""
        memory = self.memory
        if memory is None:
            return
        facts = self.query_one(FactList)
        keep = memory.index.get(follow) if follow else facts.position
        rows = self.browser.rows()
        reasons = QUEUES[rows.view.queue].key in REASON_QUEUES
        facts.marks = self.browser.marks
        facts.empty = _empty_note(rows.view.queue, list(rows.counts), rows.view.search.positions is not None)
        facts.set_rows(
            memory, rows.order, keep=None if top else keep, reasons=reasons, top=top, repaint=repaint
        )
        searching = rows.view.search.positions is not None
        if (
            follow is not None
            and keep is not None
            and facts.position != keep
            and (rows.view.queue or searching)
        ):
            self.go_to_fact(follow)  # it came back outside this queue or search: find it
            return
        self.query_one(QueueBar).update_state(
            rows.view.queue, list(rows.counts), len(self.browser.marks), self.browser.marks_elsewhere()
        )
        view = rows.view
        self.query_one(ColumnHeader).set_sort(view.sort, view.reverse, facts.id_width, reasons, facts.columns)
        self.update_status()
        self.update_pane(force=changed)  # after triage the fact under the cursor has a new score

    def update_status(self) -> None:
        facts = self.query_one(FactList)
        if self.memory is None:
            return
        view = self.browser.view
        n = len(facts.order)
        queue = QUEUES[view.queue]
        where = f"{facts.cursor + 1 if n else 0:,}/{n:,}"
        ranked = view.search.ranked and view.search.positions is not None and view.sort == "queue"
        sort = "relevance, then trust" if ranked else dict(SORTS)[view.sort]
        arrow = " ▼" if view.reverse else ""
        text = Text.assemble(
            (f" {queue.title}", "bold"), f" · {where} · sorted by {sort}{arrow}", f" · {queue.why}"
        )
        if queue.key == "suspect":
            ready = self.browser.suspects_ready
            text.append(
                " · g goes to the duplicate" if ready else " · looking for duplicates…", style="italic"
            )
        self.query_one("#status", StatusLine).update(text)

    def on_fact_list_highlighted(self, message: FactList.Highlighted) -> None:
        self.cursor_moved()
        self.update_status()
        fact_id = self.current_fact_id()
        self.browser.view = replace(self.browser.view, cursor=fact_id)
        self.update_pane()

    def on_fact_list_need_texts(self, message: FactList.NeedTexts) -> None:
        self.read_texts(message.positions)

    @store_work("Could not read the facts' texts", group="texts", failed="_texts_not_read")
    def read_texts(self, positions: list[int]) -> None:
        self.post_message(TextsRead(positions, self.browser.texts(positions)))

    def _texts_not_read(self, why: str, positions: list[int]) -> None:
        self.query_one(FactList).texts_not_read(positions)

    def on_texts_read(self, message: TextsRead) -> None:
        self.query_one(FactList).add_texts(message.positions, message.texts)

    def current_fact_id(self) -> str | None:
        pos = self.query_one(FactList).position
        if pos is None or self.memory is None:
            return None
        return self.memory.ids[pos]

    def go_to_fact(self, fact_id: str, leave: bool = True) -> None:
        """Put the cursor on a fact, leaving queue and search when it is not in view
        (unless `leave` is False: then the cursor stays)."""
        memory = self.memory
        if memory is None or fact_id not in memory.index:
            return
        pos = memory.index[fact_id]
        facts = self.query_one(FactList)
        if not facts.go_to_position(pos) and leave:
            self.browser.restore(
                replace(self.browser.view, queue=0, sort="queue", reverse=False, search=Search())
            )
            self.query_one(SearchBar).clear()
            self.show_rows(follow=fact_id)
        facts.focus()

    # -- the pane ---------------------------------------------------------------------
    def update_pane(self, force: bool = False) -> None:
        """The pane follows the cursor; its content is read by its worker (`DetailPane`)."""
        if self.show_pane:
            self.query_one(DetailPane).follow_fact(self.current_fact_id(), force)

    @on(DetailPane.Jump)
    def _jump(self, message: DetailPane.Jump) -> None:
        self.go_to_fact(message.fact_id)

    # -- queues and sort --------------------------------------------------------------
    def action_queue(self, index: int) -> None:
        self.browser.set_queue(index)
        self.show_rows(top=True)  # a queue opens on its first (most decision-worthy) fact

    def action_next_queue(self) -> None:
        self.action_queue(self.browser.view.queue + 1)

    def action_previous_queue(self) -> None:
        self.action_queue(self.browser.view.queue - 1)

    def set_sort(self, column: str, reverse: bool | None = None) -> None:
        self.browser.set_sort(column, reverse)
        self.show_rows()

    def action_cycle_sort(self) -> None:
        names = [name for name, _ in SORTS]
        self.set_sort(names[(names.index(self.browser.view.sort) + 1) % len(names)])

    def action_reverse_sort(self) -> None:
        self.set_sort(self.browser.view.sort, not self.browser.view.reverse)

    def action_go_other(self) -> None:
        pos = self.query_one(FactList).position
        other = self.browser.other(pos) if pos is not None else None
        if other is None:
            self.app.notify("this fact duplicates no other", timeout=2)
            return
        self.go_to_fact(self.memory.ids[other])

    # -- a bulk under way ---------------------------------------------------------------------
    def bulk_started(self, what: str, since: float | None = None) -> None:
        """A bulk action was sent (`since`: at that monotonic instant, else now): a line
        says what, its step (n/N) and for how long, and that the triage keys wait
        (`TriageApp._bulk_held`), until `bulk_done`."""
        self._bulk = Bulk(what, time.monotonic() if since is None else since)
        self.progress_seen = []
        self.add_class("-bulk")
        self._show_bulk()
        self._bulk_timer = self.set_interval(0.25, self._show_bulk)

    def bulk_progress(self, step: int, steps: int, doing: str) -> None:
        if self._bulk is not None:
            self._bulk = replace(self._bulk, step=step, steps=steps, doing=doing)
            self._show_bulk()

    def bulk_done(self) -> None:
        self._bulk = None
        self.remove_class("-bulk")
        if self._bulk_timer is not None:
            self._bulk_timer.stop()
            self._bulk_timer = None

    def _show_bulk(self) -> None:
        bulk = self._bulk
        if bulk is None:
            return
        step = f"{bulk.what} · step {bulk.step}/{bulk.steps}: {bulk.doing}…"
        if not self.progress_seen or self.progress_seen[-1] != step:
            self.progress_seen.append(step)
        line = f"{step} {time.monotonic() - bulk.since:.1f} s"
        self.query_one("#bulk-progress", StatusLine).update(
            Text.assemble((line, "bold"), " · triage keys wait until it lands")
        )

    # -- columns --------------------------------------------------------------------------
    def set_columns(self, columns: Columns) -> None:
        facts = self.query_one(FactList)
        facts.set_columns(columns)
        view = self.browser.view
        reasons = QUEUES[view.queue].key in REASON_QUEUES
        self.query_one(ColumnHeader).set_sort(view.sort, view.reverse, facts.id_width, reasons, columns)

    def action_id_column(self, step: int) -> None:
        """Widen (`step` > 0) or narrow the id column, up to the whole ids, at least 4 cells."""
        facts = self.query_one(FactList)
        shown = facts.id_room()
        if "id" in facts.columns.hidden or not shown:
            self.set_columns(replace(facts.columns, hidden=facts.columns.hidden - {"id"}))
            shown = facts.id_room()
            step = 0
        room = max(4, min(facts.id_width, shown + step))
        self.set_columns(replace(facts.columns, id_room=room))
        now = facts.id_room()
        whole = " (the whole ids)" if now >= facts.id_width else ""
        self.app.notify(f"id column: {now} cells{whole}", timeout=2)

    def toggle_column(self, name: str) -> None:
        """Hide a column (its room goes to the fact's text), or show it again."""
        facts = self.query_one(FactList)
        hidden = facts.columns.hidden ^ {name}
        self.set_columns(replace(facts.columns, hidden=hidden))
        self.app.notify(f"{name} column {'hidden' if name in hidden else 'shown'}", timeout=2)

    def action_frequency(self) -> None:
        from synapse_tui.ui.screens.frequency import FrequencyScreen

        def narrowed(query: str | None) -> None:
            if query:
                self.query_one(SearchBar).show(query)

        if self.memory is not None:
            self.app.push_screen(FrequencyScreen(self.query_one(FactList).order), narrowed)

    # -- search -----------------------------------------------------------------------
    def action_search(self) -> None:
        self.query_one(SearchBar).focus_input()

    def on_search_bar_changed(self, message: SearchBar.Changed) -> None:
        self.browser.set_search(message.search)
        self.show_rows(top=message.top)

    def on_search_input_leave(self, message: SearchInput.Leave) -> None:
        if message.clear:
            self.action_leave()
        else:
            self.query_one(FactList).focus()

    def action_leave(self) -> None:
        bar = self.query_one(SearchBar)
        if bar.input.value:
            bar.clear()
        elif self.browser.marks and self.query_one(FactList).has_focus:
            self.action_clear_marks()
        elif self.app.as_of is not None and self.query_one(FactList).has_focus:
            self.app.set_as_of(None)  # the past is left as it was entered: one key
        self.query_one(FactList).focus()

    # -- marks (they live in the browser) ----------------------------------------------
    def marks_changed(self) -> None:
        facts = self.query_one(FactList)
        facts.marks = self.browser.marks
        facts.refresh()  # the strip cache is keyed on the mark
        self.query_one(QueueBar).set_marked(len(facts.marks), self.browser.marks_elsewhere())

    def action_toggle_mark(self) -> None:
        facts = self.query_one(FactList)
        pos = facts.position
        if pos is None:
            self.app.selected_fact_id()  # none: it says "no fact selected", as c x v a s do
            return
        self.browser.toggle_mark(pos)
        self.marks_changed()
        facts.action_cursor_down()

    def action_mark_queue(self) -> None:
        self.browser.mark(self.query_one(FactList).order)
        self.marks_changed()

    def action_clear_marks(self) -> None:
        self.browser.clear_marks()
        self.marks_changed()

    # -- views --------------------------------------------------------------------------
    def action_open(self) -> None:
        fact_id = self.app.selected_fact_id()  # none under the cursor: says so
        if fact_id is not None:
            from synapse_tui.ui.screens.detail import DetailScreen

            self.app.push_screen(DetailScreen(fact_id))

    def action_neighbours(self) -> None:
        """Walk the neighbour graph; coming back restores the queue, sort, search and
        fact you left from (walking moves the list's cursor along)."""
        fact_id = self.app.selected_fact_id()  # none under the cursor: says so
        if fact_id is None:
            return
        from synapse_tui.ui.screens.neighbours import NeighbourScreen

        self._return_to = self.browser.view
        self.app.push_screen(NeighbourScreen(fact_id))

    def stay_on(self, fact_id: str) -> None:
        """A view on top opened `fact_id` (`o`): coming back lands on it, in the queue and
        search the list shows now, instead of on the fact the walk left from."""
        if self._return_to is not None:
            self._return_to = replace(self.browser.view, cursor=fact_id)

    def on_screen_suspend(self) -> None:
        """A view opens on top: the pane stops waiting for the cursor to rest."""
        self.query_one(DetailPane).flush()

    def on_screen_resume(self) -> None:
        """Back on the list, however the view on top closed (dismiss or pop)."""
        view, self._return_to = self._return_to, None
        if view is None or self.memory is None:
            return
        self.browser.restore(view)
        self.query_one(SearchBar).show(view.search.source)
        self.show_rows(follow=view.cursor)

    def update_asof(self) -> None:
        self.as_of = self.app.as_of
        self.sub_title = self.app.subtitle()

    def watch_as_of(self, as_of: float | None) -> None:
        self.set_class(as_of is not None, "-as-of")
        if as_of is not None:
            self.query_one("#asof", Static).update(
                Text.assemble(  # the way back first: at 80 columns the rest is cut
                    ("AS OF ", "bold"),
                    format_time(as_of),
                    (" · esc: back to now", "bold"),
                    " · read-only · facts and events up to then",
                )
            )


def _empty_note(queue: int, counts: list[int | None], searching: bool) -> str:
    """What an empty list says: a search that found facts in other queues names the first
    of them and its key (the queue bar's counts were the only hint)."""
    if not searching or counts[queue] != 0:
        return "no facts here"
    other = next((i for i, n in enumerate(counts) if n), None)
    if other is None:
        return "no facts here"
    n = counts[other] or 0
    return f"no facts here in {QUEUES[queue].title}: {n:,} in {QUEUES[other].title} (press {other + 1})"
