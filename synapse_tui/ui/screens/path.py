"""How is this fact connected to that one? The strongest chain of links, step by step.

Each step shows its kind (semantic, mentions, npmi) and weight; the chain's strength is
the product of the weights (core.graphpath says why). The second fact can be typed or
pasted in the box; `enter` on a fact of the chain opens it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Footer, Header, Input, OptionList, Static
from textual.widgets.option_list import Option

from synapse_tui.core.graph.path import Path
from synapse_tui.core.graph.read import GraphRead
from synapse_tui.ui.screens.base import FactScreen
from synapse_tui.ui.screens.nav import OpenFact, band_cell, colours, gone, superseded
from synapse_tui.ui.search import QueryInput
from synapse_tui.ui.text import bar, clean, fit
from synapse_tui.ui.workers import store_work


@dataclass
class PathReady(Message):
    a: str
    b: str
    read: GraphRead


class Steps(OptionList):
    """The chain, a fact or an entity per stop: `down`/`j` and `up`/`k` go to the next
    stop (the links between are skipped), and stop at either end instead of wrapping."""

    BINDINGS = [
        Binding("down,j", "cursor_down", "down", show=False),
        Binding("up,k", "cursor_up", "up", show=False),
    ]

    def _step(self, direction: int) -> None:
        here = self.highlighted
        if here is None:
            self.action_first()
            return
        i = here + direction
        while 0 <= i < self.option_count:
            if not self.get_option_at_index(i).disabled:
                self.highlighted = i
                return
            i += direction  # at either end: stays where it is

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_cursor_up(self) -> None:
        self._step(-1)


class PathScreen(FactScreen):
    HELP_TITLE = "path view"
    HELP_ENTER = "Open the highlighted fact of the chain"
    HELP_SUBMIT = "Find the strongest chain to the fact whose id is typed"
    DEFAULT_CSS = """
    PathScreen #path-head { padding: 0 1; height: auto; }
    PathScreen #path-to { border: tall $panel; height: 3; margin: 0 1; }
    PathScreen #path-to:focus { border: tall $primary; }
    PathScreen #path-steps { height: 1fr; border: none; padding: 0 1; }
    PathScreen #path-summary { padding: 0 1; height: auto; color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "close", "close", id="path.close", tooltip="Close the path view"),
        Binding("o", "open", "open", id="path.open", tooltip="Open the highlighted fact of the chain"),
        Binding(
            "slash",
            "edit",
            "other fact",
            key_display="/",
            id="path.edit",
            tooltip="Type the id of the fact to connect to",
        ),
    ]

    def __init__(self, a: str, b: str | None = None) -> None:
        super().__init__()
        self.a, self.b = a, b
        self.path: Path | None = None
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(id="path-head")
        yield QueryInput(value=self.b or "", placeholder="the id of the other fact, then enter", id="path-to")
        yield Steps(id="path-steps")
        yield Static(id="path-summary")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = self.app.subtitle()
        self.query_one("#path-to", Input).cursor_blink = False
        if self.b:
            self.query_one("#path-steps").focus()
            self.find(self.a, self.b)
        else:
            self.query_one("#path-to").focus()
        self._paint()

    @store_work("Could not find the path", group="path", exclusive=True, failed="_not_found")
    def find(self, a: str, b: str) -> None:
        self.post_message(PathReady(a, b, self.app.browser.path(a, b)))

    def _not_found(self, why: str, a: str, b: str) -> None:
        if (a, b) == (self.a, self.b):  # the chain shows why, not "searching…"
            self.path, self.error = None, f"the path could not be read: {why}"
            self._paint()

    def on_path_ready(self, message: PathReady) -> None:
        if (message.a, message.b) != (self.a, self.b):
            return
        self.path, self.error = message.read.value, message.read.error
        self._paint()
        self.app.refresh_bindings()

    def current_fact_id(self) -> str | None:
        """Triage acts on the highlighted fact of the chain."""
        steps = self.query_one("#path-steps", OptionList)
        if self.path is None or steps.highlighted is None:
            return None
        return steps.get_option_at_index(steps.highlighted).id

    @on(OptionList.OptionHighlighted, "#path-steps")
    def _highlighted_moved(self) -> None:
        self.app.refresh_bindings()

    def on_resize(self) -> None:
        self._paint()

    def on_screen_resume(self) -> None:
        self._paint()

    def refresh_view(self) -> None:
        """After triage or another writer's commit: the chain's bands and trust, as now."""
        self._paint()

    @on(Input.Submitted, "#path-to")
    def _other(self, event: Input.Submitted) -> None:
        b = event.value.strip()
        if not b:
            return
        self.b, self.path, self.error = b, None, None
        self._paint()
        self.query_one("#path-steps").focus()
        self.find(self.a, b)

    # -- painting -----------------------------------------------------------------------
    def _paint(self) -> None:
        palette = colours(self.app)
        head = Text()
        head.append("HOW ", style="bold")
        head.append(clean(self.a), style=f"bold {palette['primary']}")
        head.append(" IS CONNECTED TO ", style="bold")
        head.append(clean(self.b or "…"), style=f"bold {palette['primary']}")
        self.query_one("#path-head", Static).update(head)
        steps = self.query_one("#path-steps", OptionList)
        keep = steps.highlighted  # a repaint after triage stays on the fact acted on
        steps.clear_options()
        summary = self.query_one("#path-summary", Static)
        if self.error:
            steps.add_option(
                Option(Text(clean(self.error), style=f"bold {palette['warning']}"), disabled=True)
            )
            summary.update("")
            return
        if self.path is None:
            steps.add_option(Option(Text("searching…" if self.b else "", style="italic"), disabled=True))
            summary.update("")
            return
        width = max(30, steps.size.width - 4)
        path = self.path
        id_width = min(18, max(len(n.id) for n in path.nodes if n.kind == "fact"))
        for i, node in enumerate(path.nodes):
            if node.kind == "fact":
                steps.add_option(Option(self._fact_line(node.id, node.label, width, id_width), id=node.id))
            else:
                line = Text.assemble(("◇ ", "bold"))
                line.append(clean(node.label), style="bold italic")
                line.append("  entity", style="dim")
                steps.add_option(Option(line))  # a stop of the chain: the cursor lands on it
            if i < len(path.steps):
                step = path.steps[i]
                line = Text.assemble(("  │ ", "dim"))
                line.append(fit(step.kind, 9), style="bold")
                line.append_text(bar(step.weight, 10, "", palette["muted"]))
                line.append(f" {step.weight:.2f}   cost {step.cost:.2f}")
                if step.lexical:
                    line.append("   lexical", style="italic")
                steps.add_option(Option(line, disabled=True))
        steps.highlighted = keep if keep is not None and keep < steps.option_count else 0
        n = path.hops
        summary.update(
            Text(
                f"{n} step{'s' if n != 1 else ''} · strength {path.strength:.2f}, the product of the weights"
                f" · cost {path.cost:.2f} = Σ −ln(weight) · {path.explored} nodes read"
            )
        )

    def _fact_line(self, fact_id: str, text: str, width: int, id_width: int) -> Text:
        chip, trust = band_cell(self.app, fact_id, 9)
        struck = "strike" if superseded(self.app, fact_id) else ""
        word = gone(self.app, fact_id)
        if word:  # deleted at its source: said, and dim, as the list says it
            text, struck = f"{word} · {text}", f"{struck} dim".strip()
        line = Text.assemble(("● ", "bold"))  # the text colour: band colours mean trust only
        line.append(
            fit(clean(self.app.shown_id(fact_id, id_width)), id_width), style=f"bold {struck}".strip()
        )
        line.append("  ")
        line.append_text(chip)
        line.append(" ")
        line.append(fit(trust.plain, 4), style="bold")
        line.append("  ")
        line.append(fit(clean(text), max(4, width - line.cell_len)), style=struck)
        return line

    # -- actions ------------------------------------------------------------------------
    def action_close(self) -> None:
        self.dismiss()

    def action_edit(self) -> None:
        self.query_one("#path-to", Input).focus()

    def action_open(self) -> None:
        steps = self.query_one("#path-steps", OptionList)
        if steps.highlighted is None:
            return
        option = steps.get_option_at_index(steps.highlighted)
        if option.id:
            self.post_message(OpenFact(option.id))

    @on(OptionList.OptionSelected, "#path-steps")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.post_message(OpenFact(event.option.id))
