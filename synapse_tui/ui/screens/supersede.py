"""Supersede (s): choose the fact that replaces this one, see the blast radius, confirm.

The candidates start as the fact's related facts (shared entities, semantic neighbours:
the replacement is usually among them) and become search results as soon as one types.
Each candidate is two lines: id, band, trust and why on the first, its whole text
wrapped under it, so no width hides what a fact says. Picking one previews the change:
the facts that may need the same treatment, or the reason it cannot apply (a cycle, a
target that already replaces another fact). Nothing is written until `y`; the screen
dismisses with the chosen id and the app's triage applies it. Every read is a worker's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from synapse_tui.core.base.errors import QueryError
from synapse_tui.core.base.limits import counted
from synapse_tui.core.graph.read import GraphRead
from synapse_tui.core.trust.score import BANDS
from synapse_tui.ui.screens.base import FactScreen
from synapse_tui.ui.screens.nav import MarksChanged
from synapse_tui.ui.search import SEARCH_DEBOUNCE, QueryInput  # the main search box's pause and `?`
from synapse_tui.ui.text import clean, gone_word
from synapse_tui.ui.workers import store_work

CANDIDATES = 100
BLAST_LIMIT = 50


@dataclass
class Candidates(Message):
    source: str
    ids: list[str]
    why: dict[str, str]
    texts: dict[str, str]
    error: str | None = None
    note: str = ""  # how the search read the query (a half-typed filter read as a word)


@dataclass
class Preview(Message):
    target: str
    error: str | None
    blast: GraphRead | None  # the blast radius (a BlastRadius as its value), read when it can apply
    texts: dict[str, str]


class SupersedeScreen(FactScreen[str | None], ModalScreen[str | None]):
    """Dismisses with the replacing fact's id, or None when nothing is to change."""

    BINDINGS = [
        Binding(
            "escape",
            "back",
            "back",
            id="supersede.back",
            tooltip="Back to the candidates; from there, close without changing anything",
        ),
        Binding("slash", "search", "search", key_display="/", id="supersede.search", tooltip="Search again"),
        Binding(
            "y,enter",
            "apply",
            "apply",
            key_display="y",
            id="supersede.apply",
            tooltip="Apply: the chosen fact replaces this one (one audited action; ctrl+z undoes it)",
        ),
        Binding(
            "m",
            "mark_radius",
            "mark these",
            id="supersede.mark",
            tooltip="Mark the blast-radius facts in the list, to treat them next (c x v a act on marks)",
        ),
        # a modal screen: the app's `?` does not reach it, so it has its own (an empty
        # search box passes `?` on to it: `QueryInput`)
        Binding(
            "question_mark",
            "app.help",
            "help",
            key_display="?",
            id="supersede.help",
            tooltip="Help: the keys of this chooser",
        ),
    ]
    HELP_TITLE = "supersede: choose the replacing fact"
    HELP_ENTER = "Preview the highlighted fact replacing this one (nothing changes before y)"
    HELP_SUBMIT = "To the candidates (once what was typed is searched)"
    HELP_LATER = {"apply": "in the preview", "mark_radius": "in the preview, when it lists facts"}

    # previewing the chosen fact (`-preview`) or choosing it; the preview's reason it
    # cannot apply (`-cannot`)
    previewing: var[bool] = var(False, init=False)
    cannot: var[str | None] = var(None, init=False)

    def __init__(self, fact_id: str) -> None:
        super().__init__()
        self.fact_id = fact_id
        self.target: str | None = None
        self.valid = False
        self.radius: Any = None
        self._debounce: Timer | None = None
        self._to_list = False  # enter was pressed before the results came: go to them then
        self._typed: str | None = None  # typed, not searched yet (the debounce)

    def compose(self) -> ComposeResult:
        with Vertical(id="sup-box") as box:
            box.border_title = clean(f"Supersede {self.fact_id}")
            box.border_subtitle = "escape closes without changing anything"
            yield Static(id="sup-head")
            yield Static(
                Text("Find the fact that replaces it; enter previews. Nothing changes before y."),
                id="sup-hint",
            )
            yield QueryInput(placeholder="search the replacing fact: words and filters", id="sup-search")
            yield Static(id="sup-list-title")
            yield OptionList(id="sup-candidates")
            with VerticalScroll(id="sup-preview", can_focus=True):
                yield Static(id="sup-error")
                yield Static(id="sup-blast")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#sup-search").focus()
        self.load_related()

    def watch_previewing(self, previewing: bool) -> None:
        self.set_class(previewing, "-preview")

    def watch_cannot(self, cannot: str | None) -> None:
        self.set_class(cannot is not None, "-cannot")
        text = f"cannot apply: {cannot}\nnothing has changed; escape picks another fact" if cannot else ""
        self.query_one("#sup-error", Static).update(Text(text))

    def current_fact_id(self) -> str | None:
        """The fact being superseded (what a palette triage command acts on)."""
        return self.fact_id

    # -- helpers ------------------------------------------------------------------------
    def _fact(self, fact_id: str, text: str, why: str = "", bold: bool = False) -> Text:
        """A fact as two lines: id, band, trust (and why), then its text, wrapped."""
        memory = self.app.browser.loaded_memory
        i = memory.index.get(fact_id)
        out = Text()
        out.append(clean(fact_id), style="bold" if bold else "")
        if i is not None:
            sc = memory.scores
            out.append(f"  {BANDS[int(sc.band[i])]} {sc.trust[i]:.2f}")
            if sc.k[i]:
                out.append(f" k={int(sc.k[i])}", style="italic")
            word = gone_word(int(sc.flags[i]))
            if word:  # deleted at its source: said, as the list says it
                out.append(f"  {word}", style="bold dim")
        if why:
            out.append(f"  {why}", style="italic")
        out.append("\n    ")
        out.append(clean(text))
        return out

    def _read(self, ids: list[str]) -> dict[str, str]:
        """Texts of facts by id (in a worker)."""
        memory = self.app.browser.loaded_memory
        known = [f for f in ids if f in memory.index]
        return dict(zip(known, self.app.browser.texts([memory.index[f] for f in known]), strict=True))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        previewing = self.previewing
        if action == "apply":
            return True if previewing and self.valid else None if previewing else False
        if action == "mark_radius":
            return True if previewing and self.valid and self.radius and self.radius.related else False
        return True

    # -- candidates ---------------------------------------------------------------------
    @store_work(
        "Could not find the candidates", group="supersede-search", exclusive=True, failed="_not_listed"
    )
    def load_related(self) -> None:
        read = self.app.browser.related(self.fact_id, limit=CANDIDATES)
        related = read.value.related if read.value is not None else ()
        ids = [r.id for r in related]
        texts = self._read([self.fact_id, *ids])
        unknown = clean(f"no related facts: {read.error}; type to search everything") if read.error else None
        self.post_message(Candidates("", ids, {r.id: r.why for r in related}, texts, unknown))

    @on(Input.Changed, "#sup-search")
    def _changed(self, event: Input.Changed) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        value = event.value
        self._typed = None
        if not value.strip():
            self.load_related()
            return
        self._typed = value
        self._debounce = self.set_timer(SEARCH_DEBOUNCE, self._search_typed)

    def _search_typed(self) -> None:
        if self._typed is not None:
            value, self._typed = self._typed, None
            self.search(value)

    @on(Input.Submitted, "#sup-search")
    def _submitted(self, event: Input.Submitted) -> None:
        if self._typed is not None:  # the results of what was typed are still to come
            if self._debounce is not None:
                self._debounce.stop()
            self._to_list = True
            self._search_typed()
            return
        self._focus_list()

    def _focus_list(self) -> None:
        options = self.query_one("#sup-candidates", OptionList)
        if options.option_count:
            options.focus()
            if options.highlighted is None:
                options.highlighted = 0

    @store_work("Could not search", group="supersede-search", exclusive=True, failed="_not_listed")
    def search(self, source: str) -> None:
        browser = self.app.browser
        try:
            found = browser.search(source)
        except QueryError as exc:
            self.post_message(Candidates(source, [], {}, {}, exc.reason))
            return
        positions = (
            found.positions[: CANDIDATES + 1] if found.positions is not None else np.empty(0, np.int64)
        )
        ids = [browser.loaded_memory.ids[int(p)] for p in positions]
        ids = [f for f in ids if f != self.fact_id][:CANDIDATES]
        self.post_message(Candidates(source, ids, {}, self._read([self.fact_id, *ids]), note=found.note))

    def _not_listed(self, why: str, source: str = "") -> None:
        """The candidates could not be read: the list's title says so (nothing to pick)."""
        self.post_message(Candidates(source, [], {}, {}, clean(f"could not list the candidates: {why}")))

    def on_candidates(self, message: Candidates) -> None:
        if message.source != self.query_one("#sup-search", Input).value:
            return  # typed on since
        self.query_one("#sup-head", Static).update(
            self._fact(self.fact_id, message.texts.get(self.fact_id, ""), bold=True)
        )
        options = self.query_one("#sup-candidates", OptionList)
        kept = options.highlighted_option.id if options.highlighted_option is not None else None
        options.clear_options()
        title = self.query_one("#sup-list-title", Static)
        if message.error:
            title.update(Text(message.error, style="bold"))
            return
        if not message.source:
            text = "related facts (shared entities, semantic neighbours); type to search everything"
        else:
            n = len(message.ids)
            more = " (the first shown)" if n >= CANDIDATES else ""
            text = f"{n} {'match' if n == 1 else 'matches'}{more}"
        if not message.ids:
            text += ": nothing here"
        if message.note:  # as the list's search box says it under the box
            text += f" ({clean(message.note)})"
        title.update(Text(text, style="italic"))
        options.add_options(
            Option(self._fact(f, message.texts.get(f, ""), message.why.get(f, "")), id=f) for f in message.ids
        )
        if message.ids:
            # the highlight stays on the fact it was on, so enter picks what the user saw
            options.highlighted = message.ids.index(kept) if kept in message.ids else 0
        if self._to_list:
            self._to_list = False
            self._focus_list()

    @on(OptionList.OptionSelected, "#sup-candidates")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.target = event.option.id
            self.preview(event.option.id)

    # -- preview ------------------------------------------------------------------------
    @store_work(
        "Could not preview the supersede", group="supersede-preview", exclusive=True, failed="_not_previewed"
    )
    def preview(self, target: str) -> None:
        browser = self.app.browser
        error = browser.check_supersede(self.fact_id, target)
        blast = None if error else browser.related(self.fact_id, exclude=(target,), limit=BLAST_LIMIT)
        related = [r.id for r in blast.value.related] if blast is not None and blast.value is not None else []
        self.post_message(Preview(target, error, blast, self._read([self.fact_id, target, *related])))

    def _not_previewed(self, why: str, target: str) -> None:
        """The check could not be read: the preview says why, and `y` does not apply."""
        self.post_message(Preview(target, clean(f"could not be checked: {why}"), None, {}))

    def on_preview(self, message: Preview) -> None:
        if message.target != self.target:
            return
        self.valid = message.error is None
        self.radius = message.blast.value if message.blast is not None else None
        texts = message.texts
        head = Text()
        head.append(clean(f"{message.target} would replace {self.fact_id}") + "\n", style="bold")
        head.append("new  ", style="bold")
        head.append_text(self._fact(message.target, texts.get(message.target, "")))
        head.append("\nold  ", style="bold")
        head.append_text(self._fact(self.fact_id, texts.get(self.fact_id, "")))
        head.append("\n\n")
        self.cannot = message.error
        if not message.error:
            head.append_text(self._blast_text(message.blast, texts))
            head.append(
                "\ny applies (one audited action, ctrl+z undoes it) · escape picks another", style="bold"
            )
        self.query_one("#sup-blast", Static).update(head)
        self.previewing = True
        preview = self.query_one("#sup-preview")
        preview.scroll_home(animate=False)
        preview.focus()
        self.refresh_bindings()

    def _blast_text(self, blast: GraphRead | None, texts: dict[str, str]) -> Text:
        out = Text()
        radius = blast.value if blast is not None else None
        if radius is None:  # no graph built, or an unknown fact: the read says which
            why = blast.error if blast is not None and blast.error else "not read"
            out.append(clean(f"BLAST RADIUS unknown: {why}") + "\n", style="bold")
            return out
        if not radius.related:
            out.append(
                "BLAST RADIUS: no other fact shares an entity or is a semantic neighbour\n", style="bold"
            )
            return out
        out.append(f"BLAST RADIUS: {radius.total} other facts", style="bold")
        out.append(
            f" share entities with {self.fact_id} or are its semantic neighbours; they may need the same"
            " treatment (m marks them)"
            + (f"; the first {len(radius.related)} shown" if radius.total > len(radius.related) else "")
            + "\n"
        )
        for r in radius.related:
            out.append("  ")
            out.append_text(self._fact(r.id, texts.get(r.id, ""), r.why))
            out.append("\n")
        return out

    # -- actions ------------------------------------------------------------------------
    def action_apply(self) -> None:
        if self.target and self.valid and self.previewing:
            self.dismiss(self.target)

    def action_mark_radius(self) -> None:
        if not self.radius:
            return
        memory = self.app.browser.loaded_memory
        self.app.browser.mark(memory.index[r.id] for r in self.radius.related if r.id in memory.index)
        self.app.post_message(MarksChanged())
        self.app.notify(f"marked {counted(len(self.radius.related), 'fact')} in the list", timeout=3)

    def action_search(self) -> None:
        if self.previewing:
            self._show_candidates()
        self.query_one("#sup-search").focus()

    def _show_candidates(self) -> None:
        self.previewing = False
        self.target, self.valid, self.radius = None, False, None
        self.refresh_bindings()

    def action_back(self) -> None:
        if self.previewing:
            self._show_candidates()
            self.query_one("#sup-candidates").focus()
        else:
            self.dismiss(None)
