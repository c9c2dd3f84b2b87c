"""The "Replaced?" queue (R): facts a newer fact probably replaces, best first, then the
facts naming a path the repository no longer has (B's, every one scored 1.00) (SPEC 13).

The pane shows both texts with the words that differ marked, and why. `y` accepts (the
existing supersede: audited, ctrl+z undoes it; on a gone path's row the repository's
contradiction, and the Footer and help say `contra` there), `d` dismisses (audited,
undoable, never suggested again); `space` marks (`M` marks all, `u` clears), and `Y` / `D` act on every
marked suggestion after the usual confirmation, as one audited action (one ctrl+z). The
triage keys (c x v a s) act on the older fact of the highlighted suggestion. The list is found in a worker (`of_memory`: the finder kept for the store,
built on the first open with what it is doing said on screen, the replaced facts listed
before the repository is read), and found again whenever the memory changes under it
(triage here or elsewhere, another writer) by catching that finder up.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.review.referent import contradictions, land_contradictions
from synapse_tui.core.review.suggest import KINDS, REFERENT, REPLACED, Suggestion
from synapse_tui.core.review.suggest_text import changed_spans
from synapse_tui.core.review.suggestions import Standing, dismissed_entry, of_memory
from synapse_tui.core.review.triage import Triage, TriageError
from synapse_tui.ui.screens.base import FactScreen, MemoryChange, PaneBox, pane_bindings
from synapse_tui.ui.screens.nav import OpenFact
from synapse_tui.ui.text import clean, clean_block, fit
from synapse_tui.ui.widgets.footer import KeysFooter
from synapse_tui.ui.workers import run_store_worker, store_work

CONFIRM_OVER = 1  # a bulk accept or dismiss of more than this asks first
TEXT_ROOM = 40  # the cells a row keeps for its fact's text before its ids are cut


@dataclass
class QueueReady(Message):
    found: tuple[Suggestion, ...]
    texts: dict[str, str]
    partial: bool = False  # the first kinds found: the others still to come


@dataclass
class Finding(Message):
    """What the finder is doing, in words, while the queue waits for it."""

    doing: str


@dataclass
class Dismissed(Message):
    notice: str
    error: bool = False
    doing: str = "dismiss"  # what was refused, the error's title


def marked_texts(old: str, new: str) -> tuple[Text, Text]:
    """Both texts, the words only the older has struck through, the words only the newer
    has in bold: what changed, at a glance (fact text is data: never markup). A text's own
    lines stay lines (a bullet's nested ones), as the detail view shows them."""
    left, right = changed_spans(old, new)
    a, b = Text(), Text()
    for part, differs in left:
        a.append(clean_block(part), style="strike bold red" if differs else "")
    for part, differs in right:
        b.append(clean_block(part), style="bold green underline" if differs else "")
    return a, b


def queue_order(found: list[Suggestion]) -> tuple[Suggestion, ...]:
    """The order the queue lists and help promises: the facts a newer fact probably
    replaces first, best first; then each other kind (issue 40's gone paths, all scored
    1.00, which best-first alone put on top), in the order `standing` ranks them."""
    kinds = list(KINDS)
    return tuple(sorted(found, key=lambda s: (s.kind != REPLACED, kinds.index(s.kind))))


@dataclass(frozen=True)
class RowShape:
    """A queue's columns: `cut`, None when the ids show whole, else the cells the list's id
    column cuts them to; `older`, `other` and `path`, the cells of the older fact's id, the
    newer's and the gone path."""

    cut: int | None
    older: int = 0
    other: int = 0
    path: int = 0


def path_end(path: str, room: int) -> str:
    """`path` in `room` cells: whole, or `…` and its end (the file's name tells it)."""
    return path if len(path) <= room else "…" + path[len(path) - room + 1 :]


def row_text(text: str) -> str:
    """A fact's text for one row: its start, made safe (the row cuts it to its width)."""
    return clean(text[:400])


def after_shared(fact_id: str, other: str) -> str:
    """`other` without the start it shares with `fact_id` up to a separator, as `…rest`:
    `git-notes:memory-bank/techContext.md#7e492b75c3b1` after its note's other fact reads
    `…#7e492b75c3b1`; whole when little more than the source's name is shared."""
    shared = os.path.commonprefix([fact_id, other])
    cut = max(shared.rfind(c) for c in "#/:.@")  # the separator stays: `…#`, `…/`
    source = shared.find(":")  # more shared than the source's name (`git-notes:`)
    return "…" + other[cut:] if cut >= 8 and cut > source else other


def queue_bindings(
    owner: str,
    opens: str,
    *,
    queue: str,
    row: str,
    accept: tuple[str, str],
    dismiss: str,
    accept_marked: tuple[str, str],
    contradict: tuple[str, str] | None = None,
) -> list[BindingType]:
    """A suggestion queue's keys, the Replaced? queue's and the Gone? queue's: the same keys
    and actions, shown in the same places (the Footer, or help only); the words are each
    queue's. `owner` begins every id; `opens` opens the queue and closes it (as escape
    does); `queue` is its name and `row` what a row is called in the tooltips; `accept` and
    `accept_marked`: y's and Y's (name, tooltip); `dismiss`: d's tooltip. `contradict`: y's
    (name, tooltip) on a gone path's row of a queue listing other kinds too, a binding of its
    own that the screen shows instead of `accept` there (`ReplacedScreen.check_action`)."""
    ys = [Binding("y", "accept", accept[0], id=f"{owner}.accept", tooltip=accept[1])]
    if contradict is not None:
        ys.append(Binding("y", "contradict", contradict[0], id=f"{owner}.contradict", tooltip=contradict[1]))
    return [
        Binding(f"escape,{opens}", "close", "close", id=f"{owner}.close", tooltip=f"Close the {queue} queue"),
        *ys,
        Binding("d", "dismiss_one", "dismiss", id=f"{owner}.dismiss", tooltip=dismiss),
        Binding(
            "space",
            "mark",
            "mark",
            key_display="␣",
            id=f"{owner}.mark",
            tooltip=f"Mark or unmark the highlighted {row} and move down (as in the list)",
        ),
        Binding(
            "M",
            "mark_all",
            "mark all",
            show=False,
            id=f"{owner}.mark_all",
            tooltip=f"Mark every {row} in the queue (as M in the list); Y or D then acts on them",
        ),
        Binding(
            "u", "clear_marks", "unmark", show=False, id=f"{owner}.clear_marks", tooltip="Clear every mark"
        ),
        Binding(
            "Y",
            "accept_marked",
            accept_marked[0],
            show=False,  # help lists it; the Footer from 120 columns (`FOOTER_EXTRAS`)
            id=f"{owner}.accept_marked",
            tooltip=accept_marked[1],
        ),
        Binding(
            "D",
            "dismiss_marked",
            "dismiss marked",
            show=False,
            id=f"{owner}.dismiss_marked",
            tooltip=f"Dismiss every marked {row} as one action (asks first when more than one)",
        ),
        *pane_bindings(owner),
    ]


class ReplacedScreen(FactScreen):
    TITLE = "Replaced?"  # the header's: a subclass names its own queue
    HELP_TITLE = "Replaced? queue: replaced facts best first, then facts naming a gone path"
    HELP_ENTER = "Open the older fact full screen (escape comes back here)"
    DEFAULT_CSS = """
    ReplacedScreen #replaced-list { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    ReplacedScreen #replaced-pane-box {
        height: auto; max-height: 50%; border-top: solid $primary; border-title-align: right;
    }
    ReplacedScreen #replaced-pane { height: auto; padding: 0 1; }
    ReplacedScreen #replaced-doing { height: 1; padding: 0 1; color: $text-muted; display: none; }
    """
    SCORED = True  # a row shows its score after the mark
    GONE = ("  gone: ", "bold")  # what stands between an id and a gone path, and the path's style
    EMPTY = ("nothing suggested", "finding what was replaced…")  # an empty queue, found / finding
    # the question before Y accepts more than one
    ACCEPT_MARKED = "accept {n} marked suggestions as one action (ctrl+z undoes them all)?"
    BINDINGS = queue_bindings(
        "replaced",
        "R",
        queue="Replaced?",
        row="suggestion",
        accept=("accept", "Accept: the newer fact supersedes the older (undo: ctrl+z)"),
        dismiss="Dismiss: not a replacement; never suggested again (undo: ctrl+z)",
        accept_marked=(
            "accept marked",
            "Accept every marked suggestion as one action: a replaced fact superseded, a gone"
            " path's fact contradicted (asks first when more than one)",
        ),
        # the Gone? queue's word and the triage keys': the Footer keeps `? help` at 80 columns
        contradict=("contra", "Contradict: the repository says the path is gone (undo: ctrl+z)"),
    )
    # `y` is one key with two meanings here: help lists the one not shown with when it applies
    HELP_LATER = {"accept": "on a replaced fact's row", "contradict": "on a gone path's row"}
    Y_GONE = "contradict"  # the action `y` shows as on a gone path's row (`check_action`)
    # the keys help lists that the Footer shows too when there is room (not at 80 columns)
    FOOTER_EXTRAS = ("replaced.accept_marked", "replaced.dismiss_marked")

    def __init__(self) -> None:
        super().__init__()
        self.found: tuple[Suggestion, ...] = ()
        self.texts: dict[str, str] = {}
        self.marked: set[tuple[str, str, str]] = set()
        self.loaded = False
        self.doing = ""  # what the finder is doing while the queue waits for it
        self.failure: str | None = None  # why the queue could not be read (the store failed)
        self._shape = RowShape(None)  # the rows' columns (`_measure`)
        self.follow: str | None = None  # the fact an undo or redo brought back: the cursor goes to it
        self.y_shown = "accept"  # what the Footer was last told `y` does (`_painted`)

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield OptionList(id="replaced-list")
        yield Static(id="replaced-doing")
        with PaneBox(id="replaced-pane-box"):  # long texts at 80x24: it scrolls (shift+↑↓)
            yield Static(id="replaced-pane")
        yield KeysFooter(extras=self.FOOTER_EXTRAS, compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = self.app.subtitle()
        self.query_one(OptionList).focus()
        self._paint()
        self.load()

    # -- finding ----------------------------------------------------------------------
    @store_work("Could not read the suggestions", group="replaced", exclusive=True, failed="_not_found")
    def load(self) -> None:
        app = self.app
        live = app.browser.live  # what is suggested now, whatever instant the list shows
        if live is None:
            return

        def early(first: Standing) -> None:  # the replaced facts, while the repository is read
            self.post_message(QueueReady(*self._with_texts(first.found), partial=True))

        # every kind with a finder, one queue; the finder kept for the store answers again
        # after triage by catching up, not by finding everything again. The store's lock is
        # taken for each read and let go while the finder is built (seconds on a large
        # store): the list and the pane behind go on reading meanwhile
        found = of_memory(live, self._finding, early, lock=app.db_lock).found
        self.post_message(QueueReady(*self._with_texts(found)))

    def _with_texts(self, found: list[Suggestion]) -> tuple[tuple[Suggestion, ...], dict[str, str]]:
        """The suggestions in the queue's order and the texts of the facts they name."""
        app = self.app
        listed = queue_order(found)
        ids = sorted({f for s in listed for f in (s.fact, s.other)})
        with app.db_lock:
            memory = app.memory
            index = memory.index if memory is not None else {}
            known = [i for i in ids if i in index]
            return listed, dict(zip(known, app.texts([index[i] for i in known]), strict=True))

    def _finding(self, doing: str) -> None:
        """Told from the worker: a message, never a wait for the screen (it holds the lock)."""
        self.post_message(Finding(doing))

    def on_finding(self, message: Finding) -> None:
        self.doing = message.doing
        line = self.query_one("#replaced-doing", Static)
        line.update(Text(clean(f"{self.doing}…"), style="italic"))
        line.display = bool(self.found)  # an empty queue says it in its pane
        if not self.found:
            self._pane_empty()

    def _not_found(self, why: str) -> None:
        """The store failed under the finder: what is listed stays, and an empty queue
        says it was not read (not that nothing is suggested)."""
        self.failure, self.doing = why, ""
        self.query_one("#replaced-doing", Static).display = False
        self._paint(keep.key if (keep := self.current()) else None)

    def on_queue_ready(self, message: QueueReady) -> None:
        if not message.partial:
            self.doing = ""
            self.query_one("#replaced-doing", Static).display = False
        keep = self.current()
        before = self.found
        self.found, self.texts, self.failure = message.found, message.texts, None
        back = next((s for s in self.found if s.fact == self.follow), None) if self.follow else None
        if back is not None or not message.partial:
            self.follow = None
        keep = back or keep
        self.loaded = self.loaded or not message.partial
        self.marked &= {s.key for s in self.found}
        options = self.query_one(OptionList)
        shape = self._shape
        self._measure()
        if (
            back is None
            and before
            and message.found[: len(before)] == before
            and options.option_count == len(before)
            and self._shape == shape
        ):
            # the same rows in the same columns, maybe more after them (the gone paths after
            # the replaced facts): only the new ones are made and measured, the highlight
            # stays where it is
            options.add_options([self._option(s) for s in message.found[len(before) :]])
            self._pane()
            self._say_position()
            return
        self._paint(keep.key if keep else None)

    def memory_changed(self, change: MemoryChange) -> None:
        """A triage's change names the fact the cursor follows (the one an undo brought
        back): the queue, found again, highlights its suggestion, as the list does."""
        if change.reason == "triage" and change.follow is not None:
            self.follow = change.follow
        super().memory_changed(change)

    def refresh_view(self) -> None:
        self.load()

    def y_action(self) -> str:
        """What `y` does to the highlighted row, as the Footer and help name it: a gone
        path's row contradicts (`Y_GONE`), any other (or none) accepts."""
        s = self.current()
        return self.Y_GONE if s is not None and s.kind == REFERENT else "accept"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("accept", "contradict"):
            # one key, two bindings: the one naming what y does to this row shows (and runs)
            return action == self.y_action()
        return super().check_action(action, parameters)

    def _painted(self) -> None:
        """The cursor's row is on screen: if `y` means otherwise on it, the Footer says so."""
        before, self.y_shown = self.y_shown, self.y_action()
        super()._painted()
        if before != self.y_shown:
            self.refresh_bindings()

    def on_screen_resume(self) -> None:
        if self.loaded:
            self.load()

    # -- painting -----------------------------------------------------------------------
    def _label(self, s: Suggestion) -> Text:
        """One line a suggestion: the score, the older id, the newer (or the gone path) and
        the older fact's text, the ids in columns. Whole ids (the newer without the start it
        shares with the older: `…#7e492b75c3b1`) when the text keeps `TEXT_ROOM` cells
        beside them; else both cut as the list's id column cuts them (`…0003 → …0004`): a
        person scanning the queue reads the texts, and the pane names both facts whole."""
        shape = self._shape
        mark = "● " if s.key in self.marked else "  "
        line = Text(f"{mark}{s.score:.2f}  " if self.SCORED else mark)
        line.append(fit(self._row_id(s.fact, shape), shape.older), style="bold")
        if s.kind == REPLACED:
            line.append(" → ")
            line.append(fit(self._row_id(s.other, shape, s.fact), shape.other), style="bold")
        else:  # a path, not a fact: not "replaced by" it
            between, style = self.GONE
            line.append(between)
            line.append(fit(path_end(clean(s.other), shape.path), shape.path), style=style)
        line.append("  " + row_text(self.texts.get(s.fact, "")), style="dim")
        return line

    def _row_id(self, fact_id: str, shape: RowShape, older: str | None = None) -> str:
        """`fact_id` as the row shows it: whole (a newer after its `older`'s shared start),
        or cut as the list's id column cuts it."""
        if shape.cut is None:
            return clean(after_shared(older, fact_id) if older else fact_id)
        return clean(self.app.shown_id(fact_id, shape.cut))

    def _measure(self) -> None:
        """The rows' columns for the list's width now and the suggestions listed: the ids
        whole when the longest row keeps `TEXT_ROOM` cells for its text, else cut (to 12
        cells, 16 from 96 on: the list's id column) and padded to the longest cut."""
        # the list's cells inside its border and padding (before its first layout: the
        # screen's less those); a scrollbar come since takes its cells from the text
        width = self.query_one(OptionList).scrollable_content_region.width or self.app.size.width - 4
        pairs = [s for s in self.found if s.kind == REPLACED]
        gone = [s for s in self.found if s.kind != REPLACED]
        path = min(max((len(clean(s.other)) for s in gone), default=0), max(16, width // 3))

        def widths(cut: int | None) -> tuple[int, int]:
            older = max((len(self._row_id(s.fact, RowShape(cut))) for s in self.found), default=0)
            other = max((len(self._row_id(s.other, RowShape(cut), s.fact)) for s in pairs), default=0)
            return (older, other) if cut is None else (min(older, cut), min(other, cut))

        older, other = widths(None)
        rest = max(len(" → ") + other if pairs else 0, len(self.GONE[0]) + path if gone else 0)
        start = len("● ") + (len("0.00  ") if self.SCORED else 0)  # the mark and the score (`_label`)
        if start + older + rest + 2 + TEXT_ROOM <= width:
            self._shape = RowShape(None, older, other, path)
            return
        cut = 12 if width < 96 else 16
        self._shape = RowShape(cut, *widths(cut), path)

    def on_resize(self) -> None:
        if self.found:
            self._paint(keep.key if (keep := self.current()) else None)

    def _option(self, s: Suggestion) -> Option:
        return Option(self._label(s), id="\x1f".join(s.key))

    def _paint(self, keep: tuple[str, str, str] | None = None) -> None:
        options = self.query_one(OptionList)
        at = options.highlighted
        options.clear_options()
        self._measure()
        options.add_options([self._option(s) for s in self.found])
        if not self.found:
            self._pane_empty()
            self._say_position()
            self.cursor_moved()  # no row: y accepts (says why nothing happens)
            return
        keys = [s.key for s in self.found]
        at = keys.index(keep) if keep in keys else min(at or 0, len(keys) - 1)
        options.highlighted = at
        self._pane()
        self._say_position()
        self.cursor_moved()  # other rows under the same index: what y does may differ

    def _pane_empty(self) -> None:
        """What the pane of an empty queue says: nothing found, still finding (and what is
        being done), or why it was not read."""
        self.query_one("#replaced-pane", Static).update(Text(self._empty(*self.EMPTY), style="italic"))

    def _empty(self, none: str, finding: str) -> str:
        """What an empty queue says: nothing found, still finding, or why it was not read."""
        if self.failure:
            return clean(f"not read: {self.failure}")
        if self.loaded:
            return none
        return clean(f"{finding} {self.doing}") if self.doing else finding

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, _: OptionList.OptionHighlighted) -> None:
        self._pane()
        self._say_position()

    def _say_position(self) -> None:
        """The header counts the queue and says where the cursor is (`Replaced? 3/104`), as
        the list's status line does: at 80x24 the list shows nine of hundreds."""
        at = self.query_one(OptionList).highlighted
        if not self.found or at is None:
            self.title = self.TITLE
        else:
            self.title = f"{self.TITLE} {min(at + 1, len(self.found)):,}/{len(self.found):,}"

    @on(OptionList.OptionSelected)
    def _selected(self, _: OptionList.OptionSelected) -> None:
        """`enter`: the fact the suggestion is about, full screen (the list's cursor goes
        to it too, as from the path view)."""
        s = self.current()
        if s is not None:
            self.post_message(OpenFact(s.fact))

    def current(self) -> Suggestion | None:
        if not self.found:
            return None
        at = self.query_one(OptionList).highlighted
        return self.found[at] if at is not None and 0 <= at < len(self.found) else None

    def current_fact_id(self) -> str | None:
        s = self.current()
        return s.fact if s else None

    def _pane(self) -> None:
        s = self.current()
        pane = self.query_one("#replaced-pane", Static)
        if s is None:
            pane.update("")
            return
        # why first: the score and what changed stay in sight above two long texts
        body = Text()
        body.append(f"why ({s.score:.2f}): ", style="bold")
        body.append(clean(s.why))
        body.append("\n\n")
        if s.kind == REPLACED:
            old, new = marked_texts(self.texts.get(s.fact, ""), self.texts.get(s.other, ""))
            body.append(f"OLDER  {clean(s.fact)}\n", style="bold")
            body.append_text(old)
            body.append(f"\nNEWER  {clean(s.other)}\n", style="bold")
            body.append_text(new)
        else:  # another kind (issue 40's `referent`): the fact and what it names
            body.append(f"{clean(s.fact)}\n", style="bold")
            body.append(clean_block(self.texts.get(s.fact, "")))
            name = "GONE" if s.kind == REFERENT else KINDS[s.kind].other.upper()
            body.append(f"\n{name}  {clean(s.other)}", style="bold")
        body.append(self.hint("contradicts" if s.kind == REFERENT else "accepts"), style="dim")  # y's verb
        self._show_pane(body)

    def hint(self, accepts: str) -> str:
        """The pane's last line: every key that acts on the queue (`y` doing `accepts` to
        the highlighted one), the marks counted; help and the Footer say the same keys."""
        return (
            f"\n\ny {accepts} · d dismisses · space marks ({len(self.marked)} marked), M all, u none"
            " · Y / D act on the marked · ctrl+z undoes"
        )

    def _show_pane(self, body: Text) -> None:
        """The pane says `body` from its top (a longer one scrolls: its scrollbar shows)."""
        self.query_one("#replaced-pane", Static).update(body)
        self.query_one("#replaced-pane-box", PaneBox).scroll_home(animate=False)

    def scrolled_pane(self) -> PaneBox:
        return self.query_one("#replaced-pane-box", PaneBox)

    def action_scroll_pane(self, how: str) -> None:
        """shift+↑ / shift+↓: the pane a line up or down; the list keeps its cursor."""
        getattr(self.scrolled_pane(), f"scroll_{how}")(animate=False)

    # -- acting -------------------------------------------------------------------------
    def action_close(self) -> None:
        self.app.pop_screen()

    def _none(self) -> None:
        """A key that acts on the highlighted suggestion, in a queue with none: say why
        nothing happened (still finding, not read, or nothing suggested)."""
        self.app.notify(
            self._empty("the queue is empty", "nothing yet: the queue is still being found"), timeout=2
        )

    def action_mark(self) -> None:
        s = self.current()
        if s is None:
            self._none()
            return
        self.marked.symmetric_difference_update({s.key})
        self._paint(s.key)
        self.query_one(OptionList).action_cursor_down()  # as the list's space does: mark a run

    def action_mark_all(self) -> None:
        if not self.found:
            self._none()
            return
        self._marks({s.key for s in self.found})

    def action_clear_marks(self) -> None:
        self._marks(set())

    def _marks(self, keys: set[tuple[str, str, str]]) -> None:
        s = self.current()
        self.marked = keys
        self._paint(s.key if s is not None else None)

    def _chosen(self) -> list[Suggestion]:
        return [s for s in self.found if s.key in self.marked]

    def _accept(self, s: Suggestion) -> None:
        """The kind's own triage action (SPEC 13): a supersede for `replaced`."""
        if s.kind == REPLACED:
            self.app.start_triage("supersede", [s.fact], s.other)
        elif s.kind == REFERENT:  # issue 40: a contradiction from the repository
            accept_together(self, [s])
        else:
            self.app.notify(f"accept a {s.kind} suggestion: {KINDS[s.kind].accept}", timeout=4, markup=False)

    def action_accept(self) -> None:
        s = self.current()
        if s is None:
            self._none()
        else:
            self._accept(s)

    def action_contradict(self) -> None:
        """`y` on a gone path's row (the binding the Footer names `contra` there)."""
        self.action_accept()

    def action_dismiss_one(self) -> None:
        s = self.current()
        if s is None:
            self._none()
        else:
            self._dismiss([s])

    def action_accept_marked(self) -> None:
        chosen = self._chosen()
        if not chosen:
            self.app.notify("mark suggestions first (space)", severity="warning", timeout=2)
            return

        if len(chosen) == 1:  # one: the single accept, its notice and cursor as `y`'s
            self._accept(chosen[0])
            self.marked.clear()
            return
        other = next((s for s in chosen if s.kind not in (REPLACED, REFERENT)), None)
        if other is not None:
            self._accept(other)  # says what accepting that kind takes
            return

        def go(yes: bool | None) -> None:
            if yes:
                accept_together(self, chosen)
                self.marked.clear()

        self._confirm(self.ACCEPT_MARKED.format(n=len(chosen)), len(chosen), go)

    def action_dismiss_marked(self) -> None:
        chosen = self._chosen()
        if not chosen:
            self.app.notify("mark suggestions first (space)", severity="warning", timeout=2)
            return

        def go(yes: bool | None) -> None:
            if yes:
                self._dismiss(chosen)
                self.marked.clear()

        self._confirm(
            f"dismiss {len(chosen)} marked suggestions, as one action (ctrl+z undoes it)?", len(chosen), go
        )

    def _confirm(self, question: str, n: int, go: Callable[[bool | None], None]) -> None:
        if n <= CONFIRM_OVER:
            go(True)
            return
        from synapse_tui.ui.screens.confirm import ConfirmScreen

        self.app.push_screen(ConfirmScreen(question), go)

    @store_work(lambda _, chosen: f"Not saved: dismiss {_suggestions(chosen)}", group="replaced-dismiss")
    def _dismiss(self, chosen: list[Suggestion]) -> None:
        app = self.app
        browser = app.browser
        refusal = browser.readonly_reason
        if refusal:
            self.post_message(Dismissed(refusal, error=True))
            return
        try:
            with app.db_lock:
                Triage(app.store, app.clock, config=app.config).dismiss(
                    [(s.fact, dismissed_entry(s.kind, s.other)) for s in chosen]
                )
        except TriageError as exc:  # refused (the store's failure: the worker's guard says it)
            self.post_message(Dismissed(str(exc), error=True))
            return
        self.post_message(Dismissed(f"dismissed {_suggestions(chosen)} (ctrl+z undoes it)"))

    def on_dismissed(self, message: Dismissed) -> None:
        if message.error:
            title = f"{message.doing}: nothing changed"
            self.app.notify(message.notice, title=title, severity="error", markup=False)
            return
        self.app.notify(message.notice, timeout=4, markup=False)
        self.app.reload("triage")  # the audit moved: the browser's undo sees the dismissal
        if message.doing == "dismiss":  # facts changed otherwise: the queue is found again
            self.load()  # once the reload has read them (`memory_changed`), not before


def _suggestions(chosen: list[Suggestion]) -> str:
    """One suggestion as `OLD by NEW`, a gone path's as `FACT (PATH)` (no fact replaces it)."""
    if len(chosen) != 1:
        return f"{len(chosen)} suggestions"
    s = chosen[0]
    return f"{s.fact} by {s.other}" if s.kind == REPLACED else f"{s.fact} ({s.other})"


def _referents(chosen: list[Suggestion]) -> str:
    return f"{chosen[0].fact} ({chosen[0].other})" if len(chosen) == 1 else f"{len(chosen)} facts"


def accept_together(screen: ReplacedScreen, chosen: list[Suggestion]) -> None:
    """Accept every chosen suggestion as one audited batch (one undo step), in a worker:
    a `replaced` one a supersede, a `referent` one a contradiction from the repository
    (its entry's actor `repo:<commit>`). One pair refused (a cycle, a predecessor named
    already, a suggestion no longer standing): nothing is written, the notice names it. The
    screen hears how it went as a `Dismissed` message (a notice, the browser reloaded, the
    queue found again)."""
    app = screen.app
    replaced = [(s.fact, s.other) for s in chosen if s.kind == REPLACED]
    gone = [(s.fact, s.other) for s in chosen if s.kind == REFERENT]
    doing = "accept" if replaced else "contradict"

    def work() -> None:
        refusal = app.browser.readonly_reason
        if refusal:
            screen.post_message(Dismissed(refusal, error=True, doing=doing))
            return
        store = app.store
        try:
            with app.db_lock:
                by_actor = contradictions(store, gone) if gone else {}
                with store.transaction():
                    batch = None
                    if replaced:
                        triage = Triage(store, app.clock, config=app.config)
                        batch = triage.supersede_all_in(replaced).batch
                    if by_actor:
                        land_contradictions(store, app.clock, by_actor, batch)
        except (TriageError, SynapseError) as exc:  # refused (the store's failure: the guard's)
            screen.post_message(Dismissed(str(exc), error=True, doing=doing))
            return
        screen.post_message(Dismissed(_accepted(chosen, replaced, gone), doing=doing))

    def headline(_: Exception | None) -> str:
        return f"Not saved: {doing} {_suggestions(chosen) if replaced else _referents(chosen)}"

    run_store_worker(screen, work, headline, group="referent-accept")


def _accepted(chosen: list[Suggestion], replaced: list[tuple[str, str]], gone: list[tuple[str, str]]) -> str:
    if not replaced:
        one = " as one action" if len(gone) > 1 else ""
        return f"contradicted {_referents(chosen)}{one}: the repository says it is gone (ctrl+z undoes it)"
    if len(chosen) == 1:
        return f"superseded {_suggestions(chosen)} (ctrl+z undoes it)"
    said = [f"{len(replaced)} superseded by their newer facts"]
    if gone:
        said.append(f"{len(gone)} contradicted by the repository")
    return f"accepted {len(chosen)} suggestions ({', '.join(said)}) as one action (ctrl+z undoes it)"
