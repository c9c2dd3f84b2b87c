"""The neighbour view (n): the two-hop ego graph of one fact, one row per node.

Semantic neighbours, facts sharing its entities (by the strength of those links), facts two
semantic links away (the chain's product), its entities (specificity) and their NPMI
neighbours, in fixed columns. `enter` walks to the highlighted fact and `backspace` walks
back; the list underneath keeps its queue and cursor. `o` opens the highlighted fact, `p`
shows how the fact is connected to it, and the triage keys act on it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable, Footer, Header, Static

from synapse_tui.core.graph.ego import FACT, EgoGraph, EgoRow
from synapse_tui.core.graph.read import GraphInfo, GraphRead
from synapse_tui.ui.screens.base import FactScreen
from synapse_tui.ui.screens.nav import OpenFact, RowTable, band_cell, colours, gone, superseded
from synapse_tui.ui.text import bar, clean, fit
from synapse_tui.ui.workers import store_work

LINK = {"semantic": "semantic", "shared": "shares", "second": "2 hops", "entity": "entity", "npmi": "npmi"}


@dataclass
class EgoReady(Message):
    fact_id: str
    read: GraphRead


class NeighbourScreen(FactScreen):
    HELP_TITLE = "neighbour view"
    HELP_ENTER = "Walk to the highlighted fact: its neighbours replace these (backspace walks back)"
    DEFAULT_CSS = """
    NeighbourScreen #nb-head { padding: 0 1; height: auto; }
    NeighbourScreen #nb-trail { padding: 0 1; color: $text-muted; height: 1; }
    NeighbourScreen #nb-table { height: 1fr; }
    NeighbourScreen #nb-note { padding: 0 1; color: $warning; text-style: bold; height: auto; display: none; }
    NeighbourScreen.-note #nb-note { display: block; }
    """

    BINDINGS = [
        Binding("escape", "close", "close", id="neighbours.close", tooltip="Close the neighbour view"),
        Binding(
            "backspace",
            "back",
            "back",
            id="neighbours.back",
            tooltip="Back to the previous fact along the path walked",
        ),
        Binding(
            "o",
            "open",
            "open",
            id="neighbours.open",
            tooltip="Open the detail view of the highlighted fact",
        ),
        Binding(
            "p",
            "path",
            "path to",
            id="neighbours.path",
            tooltip="How is this fact connected to the highlighted one? The strongest chain of links",
        ),
        Binding(
            "P",
            "path_to_id",
            "path to id",
            show=False,
            id="neighbours.path_to_id",
            tooltip="How is this fact connected to another one? Type its id",
        ),
    ]  # the triage keys are the app's: they act on the highlighted fact (`current_fact_id`)

    note: var[str | None] = var(None, init=False)  # why there is no graph (none built, not yet then)

    def __init__(self, fact_id: str) -> None:
        super().__init__()
        self.fact_id = fact_id
        self.trail: list[str] = []
        self._rows_left: list[tuple[str, str] | None] = []  # per trail step: the row walked from
        self.ego: EgoGraph | None = None
        self.info: GraphInfo | None = None
        self.rows: list[EgoRow] = []
        self._keep: tuple[str, str] | None = None  # the row to highlight after a reload
        self._long_ids = False  # the id column shows the ends that tell the rows apart (`_widths`)

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(id="nb-head")
        yield Static(id="nb-trail")
        yield RowTable(id="nb-table")
        yield Static(id="nb-note")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = self.app.subtitle()
        self.query_one(RowTable).focus()
        self.load(self.fact_id)

    @store_work("Could not load the neighbours", group="neighbours", exclusive=True, failed="_not_loaded")
    def load(self, fact_id: str) -> None:
        self.post_message(EgoReady(fact_id, self.app.browser.neighbourhood(fact_id)))

    def _not_loaded(self, why: str, fact_id: str) -> None:
        if fact_id == self.fact_id:  # not walked on since: the table says it stays empty
            self.note = clean(f"the neighbours of {fact_id} could not be read: {why}")

    def on_ego_ready(self, message: EgoReady) -> None:
        if message.fact_id != self.fact_id:
            return  # walked on since
        read = message.read
        self.ego, self.info = read.value, read.info
        self._head()
        self.note = read.error
        self.rows = list(read.value.rows) if read.value else []
        self._fill()
        self.app.refresh_bindings()  # the triage keys apply when the highlighted row is a fact

    def watch_note(self, note: str | None) -> None:
        self.set_class(note is not None, "-note")
        self.query_one("#nb-note", Static).update(Text(note or ""))

    def on_resize(self) -> None:
        if self.ego is not None:
            self._keep = self._highlighted_key()
            self._fill()

    # -- painting -----------------------------------------------------------------------
    def _head(self) -> None:
        head = Text()
        head.append("NEIGHBOURS OF ", style="bold")
        head.append(clean(self.fact_id), style=f"bold {colours(self.app)['primary']}")
        chip, trust = band_cell(self.app, self.fact_id, 9)
        if trust.plain:
            head.append("  ")
            head.append_text(chip)
            head.append(" ")
            head.append_text(trust)
        word = gone(self.app, self.fact_id)
        if word:
            head.append(f"  {word}", style="bold dim")
        if self.info is not None and self.info.approximate:  # SPEC 3.1: say so where it shows
            head.append(f"   approximate graph, recall@10 {self.info.recall:.3f}", style="italic")
        if self.ego is not None:
            head.append("\n")
            head.append(clean(self.ego.text))
        self.query_one("#nb-head", Static).update(head)
        # the head names the fact whole; the walk, cut as the ids are, keeps its hint in sight
        walked = " › ".join(self._short(step, 18) for step in [*self.trail, self.fact_id])
        hint = "   (backspace goes back)" if self.trail else "   (enter walks to a fact)"
        self.query_one("#nb-trail", Static).update(Text(f"walked: {walked}{hint}", style="italic"))

    def _widths(self) -> dict[str, int]:
        """Fixed columns; the text takes what is left (2 cells of padding per column)."""
        width = max(40, self.size.width - 2)  # room for the vertical scrollbar
        wide = width >= 110
        ids = [r.node for r in self.rows] or [""]
        cols = {
            "link": 8,
            "weight": 11 if width >= 90 else 4,
            "band": 9 if width >= 90 else 5,
            "trust": 5,
            "id": max(4, min(18, max(len(i) for i in ids))),
            "via": 14 if wide else 0,
        }
        self._long_ids = False
        facts = sorted({r.node for r in self.rows if r.kind == FACT})
        alike = cols["id"] - 5  # ids that end alike but for their first cells shown
        if len({f[-alike:] for f in facts}) < len(facts):
            # one text copied into several files keeps its hash: rows that would read alike
            # (`…S.md#1c2f97f52d20`, `…f.md#1c2f97f52d20`) get a quarter of the width, the
            # ids whole or their ends with the files named (`git-notes:AGENTS.md#1c2f97f52d20`,
            # `…ry-bank/projectbrief.md#1c2f97f52d20`)
            cols["id"] = min(max(map(len, facts)), max(18, width // 4))
            self._long_ids = True
        used = sum(cols.values()) + 2 * (len([c for c in cols.values() if c]) + 1)  # + the text's
        cols["text"] = max(8, width - used)
        return cols

    def _fill(self) -> None:
        table = self.query_one(RowTable)
        keep = self._keep or self._highlighted_key()
        self._keep = None
        table.clear(columns=True)
        widths = self._widths()
        weight = "weight" if widths["weight"] > 4 else "wt"
        titles = {"link": "link", "weight": weight, "band": "band", "trust": "trust", "id": "id"}
        titles |= {"via": "via", "text": "fact / entity"}
        for key, title in titles.items():
            if widths[key]:
                table.add_column(title, width=widths[key], key=key)
        palette = colours(self.app)
        for row in self.rows:
            table.add_row(*self._cells(row, widths, palette), key=f"{row.kind}:{row.node}")
        if not self.rows and self.ego is not None:
            table.add_row(*[""] * (len(table.columns) - 1), Text("no neighbours", style="italic"))
        target = next((i for i, r in enumerate(self.rows) if (r.kind, r.node) == keep), 0)
        if self.rows:
            table.move_cursor(row=target, animate=False)

    def _cells(self, row: EgoRow, widths: dict[str, int], palette: dict[str, str]) -> list[Text]:
        colour = "" if row.kind == FACT else "italic"  # weight bars in the text colour: no band's
        weight = Text()
        if widths["weight"] > 4:
            weight.append_text(bar(row.weight, 6, colour, palette["muted"]))
            weight.append(" ")
        weight.append(f"{row.weight:.2f}")
        if row.kind == FACT:
            chip, trust = band_cell(self.app, row.node, widths["band"])
            struck = "strike" if superseded(self.app, row.node) else ""
            text = _differs(clean(row.label), clean(self.ego.text) if self.ego else "", widths["text"])
            word = gone(self.app, row.node)
            if word:  # deleted at its source: said, and dim, as the list says it
                text, struck = f"{word} · {text}", f"{struck} dim".strip()
        else:
            chip, trust, struck = Text(""), Text(""), ""
            text = f"{clean(row.label)} · {row.detail}"
        # in its column, or (narrow) before the text: cut as the id column cuts ids either way
        via = clean(self._short(row.via, widths["via"] or widths["id"]) if row.via else "")
        if not widths["via"] and via:
            text = f"via {via} · {text}"
        if row.lexical:
            text += " · lexical"
        cells = [
            Text(LINK[row.section], style="bold" if row.hops == 1 else "dim"),
            weight,
            chip,
            trust,
            Text(
                fit(clean(self._short(row.node, widths["id"])), widths["id"]), style=f"bold {struck}".strip()
            ),
        ]
        if widths["via"]:
            cells.append(Text(fit(via, widths["via"]), style="dim"))
        cells.append(Text(fit(text, widths["text"]), style=struck))
        return cells

    def _short(self, node: str, room: int) -> str:
        """A fact's id as the list shows it (the end that tells it apart), or the longer end
        that tells these rows apart (`_widths`); an entity as is."""
        memory = self.app.memory
        if memory is None or node not in memory.index:
            return node
        if self._long_ids and len(node) > room:
            return "…" + node[-(room - 1) :]
        return self.app.shown_id(node, room)

    # -- the highlighted row ------------------------------------------------------------
    def _highlighted(self) -> EgoRow | None:
        table = self.query_one(RowTable)
        if not self.rows or not (0 <= table.cursor_row < len(self.rows)):
            return None
        return self.rows[table.cursor_row]

    def _highlighted_key(self) -> tuple[str, str] | None:
        row = self._highlighted()
        return None if row is None else (row.kind, row.node)

    def _highlighted_fact(self, doing: str) -> str | None:
        row = self._highlighted()
        if row is None or row.kind != FACT:
            what = "an entity" if row is not None else "nothing"
            self.app.notify(
                f"{doing}: the highlighted row is {what}, not a fact", severity="warning", timeout=3
            )
            return None
        return row.node

    def current_fact_id(self) -> str | None:
        """Triage acts on the highlighted fact: the one the user sees under the cursor."""
        row = self._highlighted()
        return row.node if row is not None and row.kind == FACT else None

    @on(DataTable.RowHighlighted, "#nb-table")
    def _highlighted_moved(self) -> None:
        self.app.refresh_bindings()  # a fact row takes the triage keys, an entity row does not

    # -- walking ------------------------------------------------------------------------
    @on(DataTable.RowSelected, "#nb-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        fact_id = self._highlighted_fact("walk")
        if fact_id is not None:
            self.trail.append(self.fact_id)
            self._rows_left.append(self._highlighted_key())
            self.walk(fact_id)

    def walk(self, fact_id: str, keep: tuple[str, str] | None = None) -> None:
        self.fact_id = fact_id
        self._keep = keep
        self.rows, self.ego = [], None
        self.load(fact_id)

    def refresh_view(self) -> None:
        """After triage or another writer's commit: same fact, same highlighted row."""
        self._keep = self._highlighted_key()
        self.load(self.fact_id)

    def on_screen_resume(self) -> None:
        """Back from a view pushed on top (a detail, a path): its triage may have moved scores."""
        if self.ego is not None:
            self.refresh_view()

    def action_back(self) -> None:
        if self.trail:  # back on the row walked from, at every level
            self.walk(self.trail.pop(), self._rows_left.pop() if self._rows_left else None)
        else:
            self.app.notify("at the start of the path", timeout=2)

    def action_close(self) -> None:
        self.dismiss()

    def action_open(self) -> None:
        fact_id = self._highlighted_fact("open")
        if fact_id is not None:
            self.post_message(OpenFact(fact_id))

    def action_path_to_id(self) -> None:
        from synapse_tui.ui.screens.path import PathScreen

        self.app.push_screen(PathScreen(self.fact_id))

    def action_path(self) -> None:
        fact_id = self._highlighted_fact("path")
        if fact_id is not None:
            from synapse_tui.ui.screens.path import PathScreen

            self.app.push_screen(PathScreen(self.fact_id, fact_id))


def _differs(label: str, centre: str, width: int) -> str:
    """A neighbour's text that does not fit, from where it departs from the centre fact's
    (shown in the head): ten rows reading 'the task to renew the TLS ce…' tell nothing."""
    if len(label) <= width:
        return label
    same = len(os.path.commonprefix([label.casefold(), centre.casefold()]))
    if same < 16:
        return label
    cut = label.rfind(" ", 0, same - 8)  # a few words of context before the difference
    return "…" + label[cut + 1 :] if cut > 0 else label
