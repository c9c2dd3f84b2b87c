"""The session log: this session's triage actions, newest first, by anyone.

Each row: when, who (user:LOGIN, agent:NAME), what, which fact, and its fields before ->
after. `enter` jumps to the fact; `u` undoes the highlighted action through the app's
triage, with the batch it means (`Triage.undo(expect=...)`): only the newest live action
can be undone (SPEC 8), and when a writer alongside acted since the log was painted,
nothing is undone and the notice says why. The triage keys act on the highlighted
action's fact.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from synapse_tui.core.review.sessionlog import LogEntry
from synapse_tui.ui.screens.nav import OpenFact, RowTable, colours
from synapse_tui.ui.text import clean, fit


class LogReady(Message):
    def __init__(self, entries: tuple[LogEntry, ...]) -> None:
        self.entries = entries
        super().__init__()


class SessionLogScreen(Screen):
    HELP_TITLE = "session log"
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
        self.entries: tuple[LogEntry, ...] = ()
        self.loaded = False

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

    @work(thread=True, exclusive=True, group="session-log")
    def load(self) -> None:
        import sqlite3

        try:
            entries = self.app.browser.session_log()
        except sqlite3.Error as exc:  # a damaged store: say so, keep what is shown
            self.app.call_from_thread(
                self.app.notify, f"the audit log cannot be read: {exc}", severity="error"
            )
            return
        self.post_message(LogReady(entries))

    def on_log_ready(self, message: LogReady) -> None:
        keep = self._highlighted()
        self.entries, self.loaded = message.entries, True
        self._paint(keep.seq if keep else None)

    def refresh_view(self) -> None:
        """After triage here or elsewhere (the app calls it on the top screen)."""
        self.load()

    def on_screen_resume(self) -> None:
        """Back from the fact it jumped to: what was done there shows here."""
        if self.loaded:
            self.load()

    def on_resize(self) -> None:
        if self.loaded:
            keep = self._highlighted()
            self._paint(keep.seq if keep else None)

    # -- painting -----------------------------------------------------------------------
    def _paint(self, keep_seq: int | None = None) -> None:
        n = len(self.entries)
        actors = sorted({e.actor for e in self.entries})
        head = Text.assemble(("SESSION LOG", "bold"))
        head.append(f"  {n} change{'s' if n != 1 else ''} since the browser opened, newest first")
        if actors:
            head.append(f" · by {', '.join(actors)}")
        if not self.entries:
            none = "nothing yet: triage (c x v a s) here, or by an agent alongside, shows up here"
            head.append("\n" + (none if self.loaded else "loading…"), style="italic")
        head.append(
            "\nenter jumps to the fact · u undoes the newest live action (marked ◀ undo)", style="dim"
        )
        self.query_one("#log-head", Static).update(head)
        table = self.query_one(RowTable)
        table.clear(columns=True)
        width = max(60, self.size.width - 2)
        ids = [e.fact_id for e in self.entries] or [""]
        short = width < 120  # the time without the year and seconds: 12-01 09:30
        narrow = width < 100  # no time at all, narrower actor and action
        cols = {
            "#": 5,
            "at": 0 if narrow else 11 if short else 20,
            "actor": 12 if narrow else 14,
            "action": 12 if narrow else 16,
            "fact": min(18, max(4, *map(len, ids))),
            "state": 7,
        }
        shown = [k for k, w in cols.items() if w]
        cols["change"] = max(10, width - sum(cols.values()) - 2 * (len(shown) + 1))  # + the change's
        for key in ("#", "at", "actor", "action", "fact", "change", "state"):
            if cols[key]:
                table.add_column(key if key != "change" else "before -> after", width=cols[key], key=key)
        if not self.entries:
            return
        palette = colours(self.app)
        for e in self.entries:
            struck = "strike" if e.undone else ""
            if e.next_undo:
                state = Text("◀ undo", style=f"bold {palette['warning']}")
            elif e.undone:
                state = Text("undone", style="dim")
            else:
                state = Text("")
            cells = [
                Text(f"#{e.batch}", style="dim"),
                Text(e.at[5:16].replace("T", " ") if short else e.at) if cols["at"] else None,
                Text(
                    fit(clean(e.actor), cols["actor"]), style="bold" if e.actor.startswith("agent:") else ""
                ),
                Text(fit(e.what, cols["action"]), style=struck),
                Text(fit(e.fact_id, cols["fact"]), style=f"bold {struck}".strip()),
                Text(fit(clean(e.change), cols["change"]), style=struck),
                state,
            ]
            table.add_row(*[c for c in cells if c is not None], key=str(e.seq))
        seqs = [e.seq for e in self.entries]
        table.move_cursor(row=seqs.index(keep_seq) if keep_seq in seqs else 0, animate=False)

    def _highlighted(self) -> LogEntry | None:
        table = self.query_one(RowTable)
        if not self.entries or not (0 <= table.cursor_row < len(self.entries)):
            return None
        return self.entries[table.cursor_row]

    # -- actions ------------------------------------------------------------------------
    def action_close(self) -> None:
        self.dismiss()

    def action_open(self) -> None:
        entry = self._highlighted()
        if entry is not None and entry.fact_id:
            self.post_message(OpenFact(entry.fact_id))

    @on(DataTable.RowSelected, "#log-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def current_fact_id(self) -> str | None:
        """The triage keys act on the fact of the highlighted action."""
        entry = self._highlighted()
        return entry.fact_id or None if entry is not None else None

    @on(DataTable.RowHighlighted, "#log-table")
    def _highlighted_moved(self) -> None:
        self.app.refresh_bindings()

    def action_undo(self) -> None:
        """Undo the highlighted action, or say why not (an undo of an undo is a redo)."""
        entry = self._highlighted()
        if entry is None:
            return
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
