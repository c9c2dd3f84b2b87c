"""The neighbour view (n): the ego graph of one fact.

Its semantic neighbours, the facts that share its entities (by the share in common), and
its entities with their NPMI neighbours and importance. `enter` on a fact walks to it;
`backspace` walks back along the path.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from ...core.trust import BANDS
from ..text import bar, clean, fit, two
from ..widgets import explain as xp

WBAR = 10
SHARED = 12  # facts sharing entities: the closest few, by the share of entities in common


class NeighboursReady(Message):
    def __init__(self, fact_id: str, result: Any, error: str | None) -> None:
        self.fact_id, self.result, self.error = fact_id, result, error
        super().__init__()


class NeighbourScreen(Screen):
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
            "open fact",
            id="neighbours.open",
            tooltip="Open the detail view of the fact shown here",
        ),
    ]

    def __init__(self, fact_id: str) -> None:
        super().__init__()
        self.fact_id = fact_id
        self.path: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(id="nb-head")
        yield Static(id="nb-path")
        yield Static(Text("SEMANTIC NEIGHBOURS  (enter goes to one)", style="bold"), id="nb-sem-title")
        yield OptionList(id="nb-semantic")
        with VerticalScroll(id="nb-entities-box"):
            yield Static(id="nb-entities")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = self.app.main.sub_title
        self.query_one("#nb-semantic").focus()
        self.load(self.fact_id)

    @work(thread=True, exclusive=True, group="neighbours")
    def load(self, fact_id: str) -> None:
        from ...core.graphview import neighbours, sharing_facts

        app = self.app
        with app.db_lock:
            built = app.store.conn.execute("SELECT count(*) FROM meta WHERE key = 'graph.npmi'").fetchone()[0]
            if not built:
                error = "the neighbour graph isn't built for this store yet (synapse-tui import builds it)"
                self.post_message(NeighboursReady(fact_id, None, error))
                return
            try:
                result = neighbours(app.store.conn, fact_id, app.config)
                listed = {n.id for n in result.semantic}
                pos = app.memory.index[fact_id] + 1
                shared = [
                    it
                    for it in sharing_facts(app.store.conn, pos, len(result.entities), SHARED + len(listed))
                    if it.node not in listed
                ]
            except KeyError:
                self.post_message(NeighboursReady(fact_id, None, f"no fact {fact_id} in this store"))
                return
        self.post_message(NeighboursReady(fact_id, (result, shared[:SHARED]), None))

    def on_neighbours_ready(self, message: NeighboursReady) -> None:
        if message.fact_id != self.fact_id:
            return
        app = self.app
        memory = app.memory
        colours = xp.palette(app.theme_variables)
        i = memory.index.get(self.fact_id)
        head = Text()
        head.append("NEIGHBOURS OF ", style="bold")
        head.append(self.fact_id, style=f"bold {colours['primary']}")
        if i is not None:
            head.append("  ")
            head.append_text(
                xp.band_chip(BANDS[int(memory.scores.band[i])], float(memory.scores.trust[i]), colours)
            )
            head.append("\n")
            head.append(clean(app.texts([i])[0]))
        self.query_one("#nb-head", Static).update(head)
        path = " › ".join([*self.path, self.fact_id])
        self.query_one("#nb-path", Static).update(
            Text(f"path: {path}" + ("   (backspace goes back)" if self.path else ""), style="italic")
        )
        options = self.query_one("#nb-semantic", OptionList)
        options.clear_options()
        entities = self.query_one("#nb-entities", Static)
        if message.error:
            options.display = False
            self.query_one("#nb-sem-title").display = False
            entities.update(Text(message.error, style=f"bold {colours['warning']}"))
            return
        nb, shared = message.result
        options.display = True
        self.query_one("#nb-sem-title").display = True
        width = max(20, self.size.width - 7)  # border, padding and a vertical scrollbar
        if not nb.semantic:
            options.add_option(Option(Text("no semantic neighbours", style="italic"), disabled=True))
        texts = app.texts([memory.index[s.id] for s in nb.semantic if s.id in memory.index])
        text_of = dict(zip([s.id for s in nb.semantic if s.id in memory.index], texts, strict=False))
        for s in nb.semantic:
            label = self._fact_row(s.id, s.weight, text_of.get(s.id, ""), colours["accent"], width, s.lexical)
            options.add_option(Option(label, id=s.id))
        if shared:
            options.add_option(Option(Text("FACTS SHARING ITS ENTITIES", style="bold"), disabled=True))
        for item in shared:
            label = self._fact_row(item.node, item.weight, item.label, colours["secondary"], width)
            options.add_option(Option(label, id=item.node))
        if nb.semantic or shared:
            options.highlighted = 0 if nb.semantic else 1
        ent = Text()
        ent.append(
            "ENTITIES  (PageRank importance, and NPMI neighbours; importance is not trust)\n", style="bold"
        )
        if not nb.entities:
            ent.append("  this fact names no entities\n", style="italic")
        top = max([e.pagerank for e in nb.entities] or [1.0]) or 1.0
        for e in nb.entities:
            ent.append(f"  {clean(e.name)}", style=f"bold {colours['primary']}")
            ent.append("  importance ")
            ent.append_text(bar(e.pagerank / top, WBAR, colours["secondary"], colours["muted"]))
            ent.append(f" {100 * e.pagerank:.1f}% of all entity importance\n")
            if not e.npmi:
                ent.append("      no co-occurring entities\n", style="italic")
            for link in e.npmi:
                ent.append("      ")
                ent.append_text(bar(link.weight, WBAR, colours["accent"], colours["muted"]))
                ent.append(f" {two(link.weight)}  {clean(link.name)}  (together in {link.n_ab} notes)\n")
        entities.update(ent)

    def _fact_row(
        self, fact_id: str, weight: float, text: str, colour: str, width: int, lexical: bool = False
    ) -> Text:
        """One fact row: weight bar, its own band and trust, id, text cut to fit."""
        memory = self.app.memory
        colours = xp.palette(self.app.theme_variables)
        j = memory.index.get(fact_id)
        label = Text()
        label.append_text(bar(weight, WBAR, colour, colours["muted"]))
        label.append(f" {two(weight)} ")
        if j is not None:
            band = BANDS[int(memory.scores.band[j])]
            label.append_text(xp.band_chip(band, float(memory.scores.trust[j]), colours))
        label.append(f"  {fact_id}  ", style="bold")
        label.append(fit(clean(text), max(1, width - label.cell_len - (10 if lexical else 0))))
        if lexical:
            label.append("  lexical", style="italic")
        return label

    @on(OptionList.OptionSelected, "#nb-semantic")
    def _go(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.path.append(self.fact_id)
            self.walk(event.option.id)

    def walk(self, fact_id: str) -> None:
        self.fact_id = fact_id
        self.app.main.go_to_fact(fact_id)
        self.load(fact_id)

    def refresh_view(self) -> None:
        self.load(self.fact_id)

    def action_back(self) -> None:
        if self.path:
            self.walk(self.path.pop())
        else:
            self.app.notify("at the start of the path", timeout=2)

    def action_close(self) -> None:
        self.dismiss()

    def action_open(self) -> None:
        from .detail import DetailScreen

        self.app.push_screen(DetailScreen(self.fact_id))
