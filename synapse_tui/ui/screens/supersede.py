"""Supersede (s): choose the fact that replaces this one, see the blast radius, confirm.

The candidates start as the fact's related facts (shared entities, semantic neighbours:
the replacement is usually among them) and become search results as soon as one types.
Picking one previews the change: the facts that may need the same treatment, or the
reason it cannot apply (a cycle, a target that already replaces another fact). Nothing is
written until `y`; the screen dismisses with the chosen id and `run_triage` applies it.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from ...core.trust import BANDS
from ..text import clean, fit

SEARCH_DEBOUNCE = 0.15
CANDIDATES = 100
BLAST_LIMIT = 50


class Candidates(Message):
    def __init__(self, source: str, ids: list[str], why: dict[str, str], error: str | None = None) -> None:
        self.source, self.ids, self.why, self.error = source, ids, why, error
        super().__init__()


class Preview(Message):
    def __init__(self, target: str, error: str | None, radius: Any) -> None:
        self.target, self.error, self.radius = target, error, radius
        super().__init__()


class SupersedeScreen(ModalScreen[str | None]):
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
    ]

    def __init__(self, fact_id: str) -> None:
        super().__init__()
        self.fact_id = fact_id
        self.target: str | None = None
        self.valid = False
        self.radius: Any = None
        self._debounce: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="sup-box") as box:
            box.border_title = f"Supersede {self.fact_id}"
            box.border_subtitle = "escape closes without changing anything"
            yield Static(id="sup-head")
            yield Static(
                Text(
                    "Find the fact that replaces it (words and filters); enter on a candidate "
                    "previews what else it touches. Nothing changes before you confirm."
                ),
                id="sup-hint",
            )
            yield Input(placeholder="search the replacing fact: words and filters", id="sup-search")
            yield Static(id="sup-list-title")
            yield OptionList(id="sup-candidates")
            with VerticalScroll(id="sup-preview", can_focus=True):
                yield Static(id="sup-error")
                yield Static(id="sup-blast")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#sup-preview").display = False
        self.query_one("#sup-error").display = False
        self.query_one("#sup-head", Static).update(self._fact_line(self.fact_id, bold=True))
        self.query_one("#sup-search").focus()
        self.load_related()

    # -- helpers ------------------------------------------------------------------------
    def _width(self, inset: int) -> int:
        return max(30, self.query_one("#sup-box").content_region.width - inset)

    def _fact_line(self, fact_id: str, bold: bool = False, why: str = "", width: int = 0) -> Text:
        """One line per fact (id, band, trust, why, text), cut to `width` cells."""
        line = self._fact_text(fact_id, bold, why)
        if width:
            line.truncate(width, overflow="ellipsis")
        return line

    def _fact_text(self, fact_id: str, bold: bool, why: str) -> Text:
        app = self.app
        memory = app.memory
        i = memory.index.get(fact_id)
        line = Text()
        line.append(f"{fact_id:<16}", style="bold" if bold else "")
        if i is None:
            return line
        sc = memory.scores
        line.append(f" {BANDS[int(sc.band[i])]:<9} {sc.trust[i]:.2f}")
        if sc.k[i]:
            line.append(f" k={int(sc.k[i])}", style="italic")
        line.append("  ")
        if why:
            line.append(why, style="italic")
            line.append("  ")
        line.append(fit(clean(app.texts([i])[0]), 200))
        return line

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        previewing = self.query_one("#sup-preview").display if self.is_mounted else False
        if action == "apply":
            return True if previewing and self.valid else None if previewing else False
        if action == "mark_radius":
            return True if previewing and self.valid and self.radius and self.radius.related else False
        return True

    # -- candidates ---------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="supersede-search")
    def load_related(self) -> None:
        from ...core.blast import blast_radius

        app = self.app
        try:
            with app.db_lock:
                radius = blast_radius(app.store.conn, self.fact_id, limit=CANDIDATES)
        except Exception:  # no graph tables in an old store: search still works
            self.post_message(Candidates("", [], {}))
            return
        why = {r.id: r.why for r in radius.related}
        self.post_message(Candidates("", [r.id for r in radius.related], why))

    @on(Input.Changed, "#sup-search")
    def _changed(self, event: Input.Changed) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        value = event.value
        if not value.strip():
            self.load_related()
            return
        self._debounce = self.set_timer(SEARCH_DEBOUNCE, lambda: self.search(value))

    @on(Input.Submitted, "#sup-search")
    def _submitted(self, event: Input.Submitted) -> None:
        options = self.query_one("#sup-candidates", OptionList)
        if options.option_count:
            options.focus()
            if options.highlighted is None:
                options.highlighted = 0

    @work(thread=True, exclusive=True, group="supersede-search")
    def search(self, source: str) -> None:
        from ...core import query as fq
        from ...core.errors import QueryError

        app = self.app
        try:
            with app.db_lock:
                positions = fq.run(app.memory, source)
                ids = [app.memory.ids[int(p)] for p in positions[: CANDIDATES + 1]]
        except QueryError as exc:
            self.post_message(Candidates(source, [], {}, exc.reason))
            return
        ids = [f for f in ids if f != self.fact_id][:CANDIDATES]
        self.post_message(Candidates(source, ids, {}))

    def on_candidates(self, message: Candidates) -> None:
        if message.source != self.query_one("#sup-search", Input).value:
            return  # typed on since
        options = self.query_one("#sup-candidates", OptionList)
        options.clear_options()
        title = self.query_one("#sup-list-title", Static)
        if message.error:
            title.update(Text(message.error, style="bold"))
            return
        if not message.source:
            text = "related facts (shared entities, semantic neighbours); type to search everything"
        else:
            more = " (the first shown)" if len(message.ids) >= CANDIDATES else ""
            text = f"{len(message.ids)} matches{more}"
        if not message.ids:
            text += ": nothing here"
        title.update(Text(text, style="italic"))
        for fid in message.ids:
            line = self._fact_line(fid, why=message.why.get(fid, ""), width=self._width(6))
            options.add_option(Option(line, id=fid))

    @on(OptionList.OptionSelected, "#sup-candidates")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.target = event.option.id
            self.preview(event.option.id)

    # -- preview ------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="supersede-preview")
    def preview(self, target: str) -> None:
        from ...core.blast import blast_radius
        from ...core.errors import SynapseError
        from ...core.triage import Triage

        app = self.app
        with app.db_lock:
            try:
                Triage(app.store, app.clock).check_supersede(self.fact_id, target)
            except SynapseError as exc:
                self.post_message(Preview(target, str(exc), None))
                return
            try:
                radius = blast_radius(app.store.conn, self.fact_id, exclude=[target], limit=BLAST_LIMIT)
            except Exception:  # no graph tables: the supersession itself is still fine
                radius = None
        self.post_message(Preview(target, None, radius))

    def on_preview(self, message: Preview) -> None:
        if message.target != self.target:
            return
        self.valid, self.radius = message.error is None, message.radius
        error = self.query_one("#sup-error", Static)
        blast = self.query_one("#sup-blast", Static)
        head = Text()
        head.append(f"{message.target} would replace {self.fact_id}\n", style="bold")
        head.append("  new  ")
        head.append_text(self._fact_line(message.target, width=self._width(10)))
        head.append("\n  old  ")
        head.append_text(self._fact_line(self.fact_id, width=self._width(10)))
        head.append("\n\n")
        if message.error:
            error.display = True
            error.update(
                Text(f"cannot apply: {message.error}\nnothing has changed; escape picks another fact")
            )
            blast.update(head)
        else:
            error.display = False
            head.append_text(self._blast_text(message.radius))
            head.append(
                "\ny applies (one audited action, ctrl+z undoes it) · escape picks another", style="bold"
            )
            blast.update(head)
        for part in ("#sup-candidates", "#sup-search", "#sup-hint", "#sup-list-title"):
            self.query_one(part).display = False
        preview = self.query_one("#sup-preview")
        preview.display = True
        preview.scroll_home(animate=False)
        preview.focus()
        self.refresh_bindings()

    def _blast_text(self, radius: Any) -> Text:
        out = Text()
        if radius is None:
            out.append("BLAST RADIUS unknown: the neighbour graph is not built\n", style="bold")
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
            out.append_text(self._fact_line(r.id, why=r.why, width=self._width(4)))
            out.append("\n")
        return out

    # -- actions ------------------------------------------------------------------------
    def action_apply(self) -> None:
        if self.target and self.valid and self.query_one("#sup-preview").display:
            self.dismiss(self.target)

    def action_mark_radius(self) -> None:
        if not self.radius:
            return
        main = self.app.main
        memory = self.app.memory
        main.marks.update(memory.index[r.id] for r in self.radius.related if r.id in memory.index)
        main.marks_changed()
        self.app.notify(f"marked {len(self.radius.related)} facts in the list", timeout=3)

    def action_search(self) -> None:
        if self.query_one("#sup-preview").display:
            self._show_candidates()
        self.query_one("#sup-search").focus()

    def _show_candidates(self) -> None:
        self.query_one("#sup-preview").display = False
        for part in ("#sup-candidates", "#sup-search", "#sup-hint", "#sup-list-title"):
            self.query_one(part).display = True
        self.target, self.valid, self.radius = None, False, None
        self.refresh_bindings()

    def action_back(self) -> None:
        if self.query_one("#sup-preview").display:
            self._show_candidates()
            self.query_one("#sup-candidates").focus()
        else:
            self.dismiss(None)
