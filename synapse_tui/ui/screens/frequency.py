"""Count the list by note, tier, source or agent (VisiData's `F`): one row per value, its
count, its share and a bar. `enter` narrows the list to that value's facts: the screen
closes with the query, which the list's search box takes (so it shows, and `escape`
there takes it back off).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from synapse_tui.core.review.frequency import FIELDS, Facets, Group, count, facets
from synapse_tui.ui.screens.base import SynapseScreen
from synapse_tui.ui.screens.nav import RowTable
from synapse_tui.ui.text import bar, clean, fit
from synapse_tui.ui.workers import store_work


@dataclass
class FacetsRead(Message):
    found: Facets


class FrequencyScreen(SynapseScreen[str | None]):
    HELP_TITLE = "count by"
    HELP_ENTER = "List the facts with the highlighted value (the search gets its term)"
    DEFAULT_CSS = """
    FrequencyScreen #freq-head { padding: 0 1; height: auto; }
    FrequencyScreen #freq-table { height: 1fr; }
    """

    BINDINGS = [
        Binding("escape,F", "close", "close", id="freq.close", tooltip="Back to the list"),
        *[
            Binding(
                field[0],
                f"by('{field}')",
                field,
                id=f"freq.{field}",
                tooltip=f"Count the list by {field}",
            )
            for field in FIELDS
        ],
        Binding("enter", "narrow", "list these", key_display="↵", id="freq.narrow", tooltip=HELP_ENTER),
    ]

    def __init__(self, positions: np.ndarray, field: str = "note") -> None:
        super().__init__()
        self.positions = np.asarray(positions, dtype=np.int64)
        self.field = field
        self.found: Facets | None = None
        self.groups: list[Group] = []
        self.failure: str | None = None  # why the facets could not be counted (the store failed)

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(id="freq-head")
        yield RowTable(id="freq-table")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = self.app.subtitle()
        self.query_one(RowTable).focus()
        self._paint()
        self.read()

    @store_work("Could not count the facets", group="frequency", exclusive=True, failed="_not_counted")
    def read(self) -> None:
        browser = self.app.browser
        memory = browser.loaded_memory
        with browser.lock:
            found = facets(browser.store, len(memory.ids))
        self.post_message(FacetsRead(found))

    def _not_counted(self, why: str) -> None:
        self.failure = why
        self._paint()

    def on_facets_read(self, message: FacetsRead) -> None:
        self.found = message.found
        self._paint()

    def on_resize(self) -> None:
        self._paint()

    def action_by(self, field: str) -> None:
        self.field = field
        self._paint()

    def action_close(self) -> None:
        self.dismiss(None)

    def _paint(self) -> None:
        n = len(self.positions)
        head = Text.assemble(("COUNT BY ", "bold"), (self.field.upper(), "bold"))
        head.append(f"  {n:,} fact{'s' if n != 1 else ''} listed")
        ready = self.field == "tier" or self.found is not None
        self.groups = (
            count(self.field, self.positions, self.app.browser.loaded_memory, self.found) if ready else []
        )
        if ready:
            head.append(f" · {len(self.groups):,} value{'s' if len(self.groups) != 1 else ''}")
        head.append(
            "\nn note · t tier · s source · a agent · enter lists the highlighted value's facts · esc back",
            style="dim",
        )
        if not ready:
            head.append(
                "\n" + (clean(f"not counted: {self.failure}") if self.failure else "counting…"),
                style="italic",
            )
        self.query_one("#freq-head", Static).update(head)
        table = self.query_one(RowTable)
        table.clear(columns=True)
        width = max(40, self.size.width - 2)
        value_width = max(12, min(60, width - 40))
        for key, label, w in (
            ("value", Text(self.field), value_width),
            ("count", Text("count", justify="right"), 9),  # over its numbers
            ("share", Text("share"), 24),
        ):
            table.add_column(label, width=w, key=key)
        for i, group in enumerate(self.groups):
            share = group.count / n if n else 0.0
            line = bar(share, 14, "", "")
            line.append(f" {share:6.1%}")
            table.add_row(
                Text(fit(clean(group.value), value_width), style="italic" if group.term is None else ""),
                Text(f"{group.count:,}".rjust(9)),
                line,
                key=str(i),
            )

    def action_narrow(self) -> None:
        table = self.query_one(RowTable)
        if not self.groups or not (0 <= table.cursor_row < len(self.groups)):
            return
        group = self.groups[table.cursor_row]
        if group.term is None:
            why = "no value recorded" if group.value.startswith("(") else "a value with spaces"
            self.app.notify(f"{why}: no search term lists these facts", severity="warning", timeout=4)
            return
        self.dismiss(f"{self.app.browser.view.search.source.strip()} {group.term}".strip())

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_narrow()
