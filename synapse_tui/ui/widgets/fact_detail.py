"""One fact, every factor explained: the pane beside the list and the full detail view.

A thin shell over `explain.py` (pure functions from the explain dict to Text). It never
reads the store: a worker (the detail view's, or the pane's in `detail_pane.py`) asks
`Browser.explanation` and hands the result to `show`; until then `waiting` says which
fact is coming.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from synapse_tui.core.trust.explanation import Explanation
from synapse_tui.core.trust.score import BANDS
from synapse_tui.ui.widgets import explain as xp

REST = 0.25  # seconds the cursor rests before the pane paints provenance and history
# what a narrow pane says under its glance: the rest is below, and how to reach it
MORE = "⇧↓ scrolls to why and provenance, enter opens it"


class FactDetail(VerticalScroll):
    """Everything about one fact; versions in its supersession chain are selectable.

    The pane beside the list (`follow=True`), while the cursor moves (facts shown less than
    `REST` seconds apart), paints the header and the factors at once and the rest (chain,
    provenance, history: the longer half to render) when the cursor has rested `REST`
    seconds, so holding a key down moves through facts without painting every one's
    history. Until then that part says it is coming, never another fact's. A single move,
    and a repaint of the same fact after an action, paint everything at once."""

    DEFAULT_CSS = """
    FactDetail #detail-chain, FactDetail #detail-chain-title { display: none; }
    FactDetail.-chain #detail-chain, FactDetail.-chain #detail-chain-title { display: block; }
    """

    # the supersession chain is shown (`-chain`): the fact has older or newer versions
    chain_shown: var[bool] = var(False, init=False)

    @dataclass
    class Jump(Message):
        """A version in the chain was chosen: show that fact."""

        fact_id: str

    def __init__(self, *, id: str | None = None, classes: str | None = None, follow: bool = False) -> None:
        super().__init__(id=id, classes=classes)
        self.fact_id: str | None = None
        self.explain: Explanation | None = None
        self._shown: tuple | None = None  # what show() last rendered, and how compact
        self.follow = follow
        self._rest: Timer | None = None  # paints the rest when the cursor has rested
        self._rest_job: Callable[[], None] | None = None  # what it paints
        self._tail_waiting = False  # the provenance part says it is coming
        self._last_show = float("-inf")  # when show() last ran (monotonic seconds)

    def compose(self) -> ComposeResult:
        yield Static(id="detail-head")
        yield Static(id="detail-factors")
        yield Static(id="detail-chain-title")
        yield OptionList(id="detail-chain")
        yield Static(id="detail-provenance")

    def watch_chain_shown(self, shown: bool) -> None:
        self.set_class(shown, "-chain")

    def waiting(self, fact_id: str | None) -> None:
        """The fact to be shown next: keep the old content until it arrives, titled so."""
        self.fact_id = fact_id
        if fact_id is None:
            self._stop_rest()
            self.explain = None
            self.query_one("#detail-head", Static).update(Text("no fact selected", style="italic"))
            for part in ("#detail-factors", "#detail-provenance"):
                self.query_one(part, Static).update("")
            self.chain_shown = False

    def not_loaded(self, fact_id: str, why: str) -> None:
        """The read of `fact_id` failed: say so where it would show, not an older fact."""
        if fact_id != self.fact_id:
            return  # the cursor moved on since this was asked for
        self._stop_rest()
        self.explain = None
        self._shown = None
        self.query_one("#detail-head", Static).update(
            Text(xp.clean(f"{fact_id}: not loaded: {why}"), style="italic")
        )
        for part in ("#detail-factors", "#detail-provenance"):
            self.query_one(part, Static).update("")
        self.chain_shown = False

    def _compact(self) -> bool:
        """Short bars and stacked lines when narrow (the pane beside the list)."""
        width = self.size.width or self.app.size.width
        return width < 90

    def _more(self) -> str:
        """What the pane says under its glance: the rest is below, and how to reach it (the
        full view, scrolled by its keys, says nothing)."""
        return MORE if self.follow else ""

    def on_resize(self) -> None:
        if self._shown is not None and self._shown[-1] != self._compact():
            self.show(*self._shown[:-1])  # laid out at another width: render for this one

    def show(self, ex: Explanation | None, fact_id: str, memory: Any, threshold: float) -> None:
        if fact_id != self.fact_id:
            return  # the cursor moved on since this was asked for
        compact = self._compact()
        same_fact = self._shown is not None and self._shown[1] == fact_id  # repainted after an action
        self._shown = (ex, fact_id, memory, threshold, compact)
        self.explain = ex
        head = self.query_one("#detail-head", Static)
        if ex is None:
            self._stop_rest()
            head.update(Text(xp.clean(f"{fact_id}: no such fact")))
            return
        colours = xp.palette(self.app.theme_variables)
        now = memory.scores.now
        rest = Text()
        for part in (
            xp.opinion_lines(ex, colours, compact, memory.config.guidance),
            xp.review_lines(ex, threshold, now),
            xp.what_if_lines(ex, colours),
        ):
            rest.append("\n")
            rest.append_text(part)
        rows = xp.factor_lines(ex, colours, threshold, now, compact)
        if compact:  # narrow: the factors and the opinion at a glance under the title, then the text
            body = xp.body_lines(ex, colours)
            body.rstrip()
            head.update(Group(xp.title_line(ex, colours), xp.glance_lines(ex, colours, self._more()), body))
            factors = Group(Text(), rows, rest)
        else:  # the text's last line break is the gap above the factors
            head.update(xp.header_lines(ex, colours))
            factors = Group(rows, rest)
        self.query_one("#detail-factors", Static).update(factors)
        self._stop_rest()
        moment = time.monotonic()
        moving = self.follow and not same_fact and moment - self._last_show < REST
        self._last_show = moment
        if moving:
            self.chain_shown = False  # the last fact's versions
            if not self._tail_waiting:  # already saying so: no re-layout
                self._tail_waiting = True
                self.query_one("#detail-provenance", Static).update(
                    Text("\nPROVENANCE, HISTORY …", style=colours["muted"])
                )
            self._rest_job = lambda: self._show_rest(ex, fact_id, memory, colours)
            self._rest = self.set_timer(REST, self._rest_job)
        else:
            self._show_rest(ex, fact_id, memory, colours)

    @property
    def pending(self) -> bool:
        """The chain, provenance and history wait for the cursor to rest."""
        return self._rest is not None

    def flush(self) -> None:
        """Paint what waits for the cursor to rest now (another view opens over the pane)."""
        job = self._rest_job
        self._stop_rest()
        if job is not None:
            job()

    def _stop_rest(self) -> None:
        if self._rest is not None:
            self._rest.stop()
            self._rest = None
        self._rest_job = None

    def _show_rest(self, ex: Explanation, fact_id: str, memory: Any, colours: dict[str, str]) -> None:
        """The supersession chain, provenance and history of the fact shown."""
        self._rest = self._rest_job = None
        if fact_id != self.fact_id:
            return
        self._chain(ex, memory)
        self._tail_waiting = False
        head = Text("\n").append_text(xp.provenance_lines(ex, colours))
        head.rstrip()  # the source line follows: padded, so a long one wraps under itself
        source = xp.source_lines(ex, colours)
        source.rstrip()
        history = Text("\n").append_text(xp.history_lines(ex, colours))
        parts = [head, Padding(source, (0, 0, 0, 2)), history] if source.plain else [head, history]
        self.query_one("#detail-provenance", Static).update(Group(*parts))

    def _chain(self, ex: Explanation, memory: Any) -> None:
        chain = self.query_one("#detail-chain", OptionList)
        if not ex.chain_older and not ex.chain_newer and not self.chain_shown:
            return  # no chain before, none now: leave the widgets alone (no re-layout)
        chain.clear_options()
        texts = ex.chain_texts
        options = [Option(self._label("older", f, memory, texts), id=f) for f in reversed(ex.chain_older)]
        options.append(Option(self._label("this", ex.id, memory, texts), id=ex.id, disabled=True))
        options += [Option(self._label("newer", f, memory, texts), id=f) for f in ex.chain_newer]
        has_chain = len(options) > 1
        self.chain_shown = has_chain
        self.query_one("#detail-chain-title", Static).update(
            Text.assemble(("\nSUPERSESSION CHAIN", "bold"), "  (enter on a version goes to it)")
        )
        if has_chain:
            chain.add_options(options)

    @staticmethod
    def _label(kind: str, fact_id: str, memory: Any, texts: Mapping[str, str]) -> Text:
        i = memory.index.get(fact_id)
        label = Text(f"{kind:<6} ", style="bold")
        label.append(xp.clean(fact_id))
        if i is not None:
            label.append(f"  {BANDS[int(memory.scores.band[i])]} {memory.scores.trust[i]:.2f}  ")
        label.append(xp.clean(texts.get(fact_id, ""))[:80])
        return label

    @on(OptionList.OptionSelected, "#detail-chain")
    def _jump(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id and event.option.id != self.fact_id:
            self.post_message(self.Jump(event.option.id))
