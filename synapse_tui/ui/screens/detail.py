"""The detail view (enter): one fact with every factor explained."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from ..messages import ExplainReady
from ..triage_actions import TRIAGE_BINDINGS, TriageActions
from ..widgets import explain as xp


def newer_versions(store, fact_id: str, limit: int = 100) -> list[str]:
    """Every version that replaces this one, transitively, nearest first."""
    out: list[str] = []
    frontier = [fact_id]
    while frontier and len(out) < limit:
        nxt = [n for f in frontier for n in store.superseded_by(f) if n not in out and n != fact_id]
        out.extend(nxt)
        frontier = nxt
    return out


class DetailScreen(TriageActions, Screen):
    """Everything about one fact; older/newer versions are selectable to jump there."""

    BINDINGS = [
        Binding("escape", "close", "close", id="detail.close", tooltip="Close the detail view"),
        Binding("n", "neighbours", "neighbours", id="detail.neighbours", tooltip="This fact's neighbours"),
        *TRIAGE_BINDINGS,
        Binding(
            "backspace",
            "back",
            "back",
            show=False,
            id="detail.back",
            tooltip="Back to the fact you jumped from along the chain",
        ),
    ]

    def __init__(self, fact_id: str) -> None:
        super().__init__()
        self.fact_id = fact_id
        self.path: list[str] = []
        self.explain: dict | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with VerticalScroll(id="detail-body"):
            yield Static(id="detail-head")
            yield Static(id="detail-factors")
            yield Static(id="detail-chain-title")
            yield OptionList(id="detail-chain")
            yield Static(id="detail-provenance")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = self.app.main.sub_title
        self.query_one("#detail-chain").display = False
        self.query_one("#detail-chain-title").display = False
        self.query_one("#detail-body").focus()
        self.load(self.fact_id)

    def current_fact_id(self) -> str | None:
        return self.fact_id

    @work(thread=True, exclusive=True, group="explain")
    def load(self, fact_id: str) -> None:
        app = self.app
        with app.db_lock:
            explained = app.memory.explain(fact_id) if app.memory is not None else None
            if explained is not None:
                explained["chain_newer"] = newer_versions(app.store, fact_id)
                pos = app.memory.index.get(fact_id)
                explained["suspect"] = app.suspect_reasons.get(pos)
        self.post_message(ExplainReady(fact_id, explained))

    def on_explain_ready(self, message: ExplainReady) -> None:
        if message.fact_id != self.fact_id:
            return
        self.explain = ex = message.explain
        if ex is None:
            self.query_one("#detail-head", Static).update(Text(f"{message.fact_id}: no such fact"))
            return
        colours = xp.palette(self.app.theme_variables)
        threshold = self.app.config.review.threshold
        now = self.app.memory.scores.now
        self.query_one("#detail-head", Static).update(xp.header_lines(ex, colours))
        factors = Text()
        for part in (
            xp.factor_lines(ex, colours, threshold, now),
            xp.opinion_lines(ex, colours),
            xp.review_lines(ex, threshold, now),
            xp.what_if_lines(ex, colours),
        ):
            factors.append("\n")
            factors.append_text(part)
        self.query_one("#detail-factors", Static).update(factors)
        chain = self.query_one("#detail-chain", OptionList)
        chain.clear_options()
        options = []
        for fid in reversed(ex["chain_older"]):
            options.append(Option(self._chain_label("older", fid), id=fid))
        options.append(Option(self._chain_label("this", ex["id"]), id=ex["id"], disabled=True))
        for fid in ex["chain_newer"]:
            options.append(Option(self._chain_label("newer", fid), id=fid))
        has_chain = len(options) > 1
        chain.display = has_chain
        title = self.query_one("#detail-chain-title", Static)
        title.display = has_chain
        title.update(
            Text.assemble(
                ("\nSUPERSESSION CHAIN", "bold"), "  (enter jumps to a version, backspace comes back)"
            )
        )
        if has_chain:
            chain.add_options(options)
        tail = xp.provenance_lines(ex, colours)
        tail.append("\n")
        tail.append_text(xp.history_lines(ex, colours))
        self.query_one("#detail-provenance", Static).update(Text("\n").append_text(tail))

    def _chain_label(self, kind: str, fact_id: str) -> Text:
        memory = self.app.memory
        i = memory.index.get(fact_id)
        label = Text(f"{kind:<6} ", style="bold")
        label.append(fact_id)
        if i is not None:
            from ...core.trust import BANDS

            label.append(f"  {BANDS[int(memory.scores.band[i])]} {memory.scores.trust[i]:.2f}  ")
            label.append(xp.clean(self.app.texts([i])[0])[:80])
        return label

    @on(OptionList.OptionSelected, "#detail-chain")
    def _jump(self, event: OptionList.OptionSelected) -> None:
        target = event.option.id
        if target and target != self.fact_id:
            self.path.append(self.fact_id)
            self.show(target)

    def show(self, fact_id: str) -> None:
        self.fact_id = fact_id
        self.app.main.go_to_fact(fact_id)
        self.query_one("#detail-body").scroll_home(animate=False)
        self.load(fact_id)

    def refresh_view(self) -> None:
        self.load(self.fact_id)

    def action_back(self) -> None:
        if self.path:
            self.show(self.path.pop())

    def action_close(self) -> None:
        self.dismiss()

    def action_neighbours(self) -> None:
        from .neighbours import NeighbourScreen

        self.app.push_screen(NeighbourScreen(self.fact_id))
