"""The session log: this session's triage actions, newest first, by anyone.

Each row: when, who (user:LOGIN, agent:NAME), what, which fact, and its fields before ->
after. `enter` jumps to the fact; `u` undoes the highlighted action through the app's
triage, with the batch it means (`Triage.undo(expect=...)`): only the newest live action
can be undone (SPEC 8), and when a writer alongside acted since the log was painted,
nothing is undone and the notice says why. The triage keys act on the highlighted
action's fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from synapse_tui.core.review.sessionlog import LogEntry
from synapse_tui.ui.screens.base import FactScreen
from synapse_tui.ui.screens.nav import OpenFact, RowTable, colours
from synapse_tui.ui.text import clean, fit
from synapse_tui.ui.workers import store_work

EMPTY = "nothing in the log yet: triage (c x v a s) shows up here, and o / u then act on it"

if TYPE_CHECKING:
    from synapse_tui.core.browser.session import Browser


@dataclass
class LogReady(Message):
    entries: tuple[LogEntry, ...]


@dataclass
class BatchReady(Message):
    """The facts of a bulk action, read to expand its row."""

    batch: int
    entries: tuple[LogEntry, ...]


class SessionLogScreen(FactScreen):
    HELP_TITLE = "session log"
    HELP_ENTER = "Jump to the fact of the highlighted action (on a bulk action: list its facts)"
    DEFAULT_CSS = """
    SessionLogScreen #log-head { padding: 0 1; height: auto; }
    SessionLogScreen #log-table { height: 1fr; }
    """

    BINDINGS = [
        Binding("escape,l", "close", "close", id="log.close", tooltip="Close the session log"),
        Binding(
            "o", "open", "open fact", id="log.open", tooltip="Jump to the fact of the highlighted action"
        ),
        Binding(
            "u",
            "undo",
            "undo this",
            id="log.undo",
            tooltip="Undo the highlighted action (only the newest live action can be undone)",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.entries: tuple[LogEntry, ...] = ()  # one per action, newest first
        self.loaded = False
        self.failure: str | None = None  # why the log could not be read (the store failed)
        self.expanded: dict[int, tuple[LogEntry, ...]] = {}  # bulk batch -> its facts
        self.rows: list[tuple[str, LogEntry, bool]] = []  # (row key, entry, a fact of a bulk)

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(id="log-head")
        yield RowTable(id="log-table")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = self.app.subtitle()
        self.query_one(RowTable).focus()
        self._paint()
        self.load()

    @store_work("Could not read the audit log", group="session-log", exclusive=True, failed="_not_loaded")
    def load(self) -> None:  # if the store fails, what is shown stays, and a notice says why
        self.post_message(LogReady(self.app.browser.session_log()))

    def _not_loaded(self, why: str) -> None:
        self.failure = why
        self._paint(self._highlighted_key())

    def on_log_ready(self, message: LogReady) -> None:
        keep = self._highlighted_key()
        self.entries, self.loaded, self.failure = message.entries, True, None
        self._paint(keep)

    @store_work(lambda _, batch: f"Could not read batch {batch} of the audit log", group="session-log-batch")
    def read_batch(self, batch: int) -> None:
        self.post_message(BatchReady(batch, self.app.browser.session_batch(batch)))

    def on_batch_ready(self, message: BatchReady) -> None:
        self.expanded[message.batch] = message.entries
        self._paint(self._highlighted_key())

    def refresh_view(self) -> None:
        """After triage here or elsewhere, while the log is on top (`FactScreen`)."""
        self.load()

    def on_screen_resume(self) -> None:
        """Back from the fact it jumped to: what was done there shows here."""
        if self.loaded:
            self.load()

    def on_resize(self) -> None:
        if self.loaded:
            self._paint(self._highlighted_key())

    # -- painting -----------------------------------------------------------------------
    def _paint(self, keep: str | None = None) -> None:
        self.query_one("#log-head", Static).update(self._head())
        table = self.query_one(RowTable)
        table.clear(columns=True)
        cols = self._columns(max(60, self.size.width - 2))
        for key in ("#", "at", "actor", "action", "fact", "change", "state"):
            if cols[key]:
                table.add_column(key if key != "change" else "before -> after", width=cols[key], key=key)
        if not self.entries:
            return
        palette = colours(self.app)
        self.rows = []
        for e in self.entries:
            self.rows.append((f"b{e.batch}", e, False))
            self.rows.extend((f"s{m.seq}", m, True) for m in self.expanded.get(e.batch, ()) if e.bulk)
        for key, e, member in self.rows:
            table.add_row(*self._cells(e, member, cols, palette), key=key)
        keys = [k for k, _, _ in self.rows]
        table.move_cursor(row=keys.index(keep) if keep in keys else 0, animate=False)

    def _head(self) -> Text:
        n = len(self.entries)
        actors = sorted({e.actor for e in self.entries})
        head = Text.assemble(("SESSION LOG", "bold"))
        head.append(f"  {n:,} action{'s' if n != 1 else ''} since the browser opened, newest first")
        if actors:
            head.append(clean(f" · by {', '.join(actors)}"))  # another writer's login: data
        if not self.entries:
            none = "nothing yet: triage (c x v a s) here, or by an agent alongside, shows up here"
            waiting = clean(f"not loaded: {self.failure}") if self.failure else "loading…"
            head.append("\n" + (none if self.loaded else waiting), style="italic")
        head.append(
            "\nenter jumps to the fact (on a bulk: lists its facts) · u undoes the newest live action"
            " (marked ◀ undo)",
            style="dim",
        )
        return head

    def _columns(self, width: int) -> dict[str, int]:
        """Each column's width (0: not shown); `change` takes what is left."""
        ids = [e.fact_id for e in self.entries] or [""]
        narrow = width < 100  # no time at all, narrower actor and action
        short = width < 120  # the time without the year and seconds: 12-01 09:30
        names = [len(clean(_actor(e, self.app.browser))) for e in self.entries] or [0]
        whats = [len(clean(e.what)) for e in self.entries] or [0]
        cols = {
            "#": 5,
            "at": 0 if narrow else len(_when("2026-01-01T00:00:00Z", short)),
            # wide: the whole actor (agent:claude-desktop), up to a third of the room
            "actor": 12 if narrow else min(max(14, *names), width // 6 if short else 32),
            # a sync's one step is named by all its actions (corroborate+retract): room for it
            "action": 12 if narrow else min(max(16, *whats), 24 if short else 32),
            "fact": min(18, max(4, *map(len, ids))),
            "state": 7,
        }
        shown = [k for k, w in cols.items() if w]
        cols["change"] = max(10, width - sum(cols.values()) - 2 * (len(shown) + 1))  # + the change's
        return cols

    def _cells(self, e: LogEntry, member: bool, cols: dict[str, int], palette: dict[str, str]) -> list[Text]:
        """One row of the table: an action, or (`member`) a fact of a bulk action."""
        struck = "strike" if e.undone else ""
        if member:
            state = Text("")
        elif e.next_undo:
            state = Text("◀ undo", style=f"bold {palette['warning']}")
        else:
            state = Text("undone" if e.undone else "", style="dim")
        cells = [Text("  └" if member else f"#{e.batch}", style="dim")]
        if cols["at"]:
            cells.append(Text(clean(_when(e.at, cols["at"] < 19))))
        actor = clean(_actor(e, self.app.browser))
        fact = (
            f"{e.facts:,} facts"
            if e.bulk and not member
            else clean(self.app.shown_id(e.fact_id, cols["fact"]))
        )
        return [
            *cells,
            Text(fit(actor, cols["actor"]), style="bold" if e.actor.startswith("agent:") else ""),
            Text(fit(clean(e.what), cols["action"]), style=struck),
            Text(fit(fact, cols["fact"]), style=f"bold {struck}".strip()),
            Text(fit(self.app.ids_shown(clean(e.change), cols["fact"]), cols["change"]), style=struck),
            state,
        ]

    def _highlighted_row(self) -> tuple[str, LogEntry, bool] | None:
        table = self.query_one(RowTable)
        if not self.rows or not (0 <= table.cursor_row < len(self.rows)):
            return None
        return self.rows[table.cursor_row]

    def _highlighted(self) -> LogEntry | None:
        row = self._highlighted_row()
        return row[1] if row else None

    def _highlighted_key(self) -> str | None:
        row = self._highlighted_row()
        return row[0] if row else None

    # -- actions ------------------------------------------------------------------------
    def action_close(self) -> None:
        self.dismiss()

    def action_open(self) -> None:
        entry = self._highlighted()
        if entry is None:  # the Footer names `o` and `u` on the empty log too: say why not
            self.app.notify(EMPTY, timeout=3)
        elif entry.fact_id:
            self.post_message(OpenFact(entry.fact_id))
        else:
            self.app.notify("a bulk action: enter lists its facts, o then opens one", timeout=3)

    @on(DataTable.RowSelected, "#log-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        row = self._highlighted_row()
        if row is not None and row[1].bulk and not row[2]:  # a bulk: list / fold its facts
            batch = row[1].batch
            if self.expanded.pop(batch, None) is None:
                self.read_batch(batch)
            else:
                self._paint(row[0])
            return
        self.action_open()

    def current_fact_id(self) -> str | None:
        """The triage keys act on the fact of the highlighted action (none for a bulk's row:
        its facts, listed, each have theirs)."""
        row = self._highlighted_row()
        if row is None or (row[1].bulk and not row[2]):
            return None
        return row[1].fact_id or None

    @on(DataTable.RowHighlighted, "#log-table")
    def _highlighted_moved(self) -> None:
        self.app.refresh_bindings()

    def action_undo(self) -> None:
        """Undo the highlighted action, or say why not (an undo of an undo is a redo)."""
        row = self._highlighted_row()
        if row is None:
            self.app.notify(EMPTY, timeout=3)
            return
        entry = next((e for e in self.entries if e.batch == row[1].batch), row[1])  # a fact: its action
        if entry.undoes is not None:
            self.app.notify(
                f"#{entry.batch} is itself {'an undo' if entry.action == 'undo' else 'a redo'}: "
                "ctrl+z and ctrl+y step through undo and redo",
                severity="warning",
                timeout=4,
            )
        elif entry.undone:
            self.app.notify(f"#{entry.batch} is already undone", severity="warning", timeout=3)
        else:  # the core refuses unless it is still the newest live action
            self.app.action_triage("undo", expect=entry.batch)


def _when(at: str, short: bool) -> str:
    """An audit time as a person reads it: '2026-12-06T06:53:10Z' (the fraction of a second
    left out, which cut the column short), or '12-06 06:53' when `short`."""
    whole = re.sub(r"\.\d+", "", at)
    return whole[5:16].replace("T", " ") if short else whole


def _actor(entry: LogEntry, browser: Browser) -> str:
    """The actor, and 'elsewhere' when it is this browser's login but not this browser (the
    CLI in another terminal)."""
    if entry.actor == browser.actor and entry.batch not in browser.own_batches:
        return f"{entry.who} (elsewhere)"
    return entry.who
