"""The fact list: one line per fact, rendering only the visible lines.

A Line-API ScrollView (the Toolong / fastdatatable pattern): `render_line` builds a
Strip for row `scroll_y + y` from the score arrays and the texts cached so far. Painting
never waits on the database: a text not read yet paints as a placeholder, the list asks
for its page (`NeedTexts`), and a worker's answer (`add_texts`) repaints those rows.
Texts and strips sit in LRU caches, so 100,000 facts scroll like 100.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from synapse_tui.core.trust.score import BANDS, FLAG_DELETED, FLAG_EXPIRED, GUIDANCE, TIERS
from synapse_tui.ui.text import BAND_CHIPS, age_label, clean, fit, gone_word, readable

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory

PAGE = 128


@dataclass(frozen=True)
class Layout:
    """Column widths for a given total width; the text column takes what is left
    (after the reason column, in the queues that say why)."""

    chip: int
    trust: int
    id: int
    age: int
    tier: int
    guidance: int
    reason: int
    text: int

    @classmethod
    def for_width(
        cls, width: int, id_width: int = 12, reasons: bool = False, columns: Columns | None = None
    ) -> Layout:
        """`columns`: what the person chose (hidden columns, the id column's room)."""
        columns = columns or Columns()
        if width >= 96:
            chip, trust, ident, age, tier, guidance = 11, 6, min(id_width, 16) + 1, 6, 7, 10
        elif width >= 64:  # narrow: short band names and tiers
            chip, trust, ident, age, tier, guidance = 7, 6, min(id_width, 12) + 1, 5, 5, 10
        else:
            chip, trust, ident, age, tier, guidance = 7, 6, 0, 5, 0, 10
        if columns.id_room is not None and ident:  # widened or narrowed, up to the whole ids
            ident = min(id_width, columns.id_room, max(4, width - 60)) + 1
        shown = {"id": ident, "age": age, "tier": tier, "guidance": guidance}
        ident, age, tier, guidance = (0 if name in columns.hidden else w for name, w in shown.items())
        rest = max(1, width - chip - trust - ident - age - tier - guidance)
        # the why column takes what the text can spare above ~40 cells, at least 16; with less
        # room it is left to the pane (its first line says why)
        reason = max(16, min(44, rest - 40)) if reasons and rest >= 56 else 0
        return cls(chip, trust, ident, age, tier, guidance, reason, max(1, rest - reason))


@dataclass(frozen=True)
class Columns:
    """The person's choice of columns: `hidden` ones give their room to the fact's text;
    `id_room` widens (or narrows) the id column, None: as the width has it."""

    hidden: frozenset[str] = frozenset()
    id_room: int | None = None


HIDEABLE = ("id", "age", "tier", "guidance")
BAND_SHORT = ("v.low", "low", "mod", "high", "v.hi")
TIER_SHORT = ("auto", "hum", "sig")
PLACEHOLDER = "…"
NOT_READ = "(text not read: the store failed)"


def header_text(
    width: int,
    sort_column: str,
    reverse: bool,
    id_width: int = 12,
    reasons: bool = False,
    columns: Columns | None = None,
) -> Text:
    """Column titles matching `Layout`; the sort column carries an arrow."""
    lay = Layout.for_width(width, id_width, reasons, columns)
    arrow = "▼" if reverse else "▲"

    def title(name: str, w: int, right: bool = False) -> str:
        if w <= 0:
            return ""
        t = name + (arrow if name == sort_column else "")
        return t.rjust(w - 1) + " " if right else fit(t, w)

    def right_of(before: str, name: str, w: int) -> str:
        """`before` and the right-aligned title after it: a title wider than its column
        with the arrow (`trust▲`) takes the cells it lacks from `before`'s padding, so
        every title after it stays over its column."""
        t = title(name, w, True)
        over = len(t) - w
        if over > 0 and before.endswith(" " * (over + 1)):
            return before[:-over] + t
        return before + t

    fact = "fact"
    if sort_column == "fresh":
        fact += f"  (by freshness {arrow})"
    elif sort_column == "queue" and reverse:
        fact += f"  (by queue order {arrow})"
    parts = [
        right_of(title("band", lay.chip), "trust", lay.trust),
        title("id", lay.id),
        title("why", lay.reason) if lay.reason else "",
        fit(fact, lay.text),
        title("age", lay.age, True) if lay.age else "",
        title("tier", lay.tier),
        title("guidance", lay.guidance),
    ]
    return Text("".join(parts), no_wrap=True, overflow="crop")


class FactList(ScrollView, can_focus=True):
    """The scrolling list of facts in the current queue / search order."""

    COMPONENT_CLASSES = {
        "fact-list--cursor",
        *(f"fact-list--band-{i}" for i in range(len(BANDS))),
        "fact-list--dim",
        "fact-list--disputed",
        "fact-list--uncertain",
        "fact-list--supported",
        "fact-list--superseded",
        "fact-list--deleted",
        "fact-list--placeholder",
    }
    # the band chips take their colours from the one definition (`text.BAND_CHIPS`)
    DEFAULT_CSS = "\n".join(
        f"FactList > .fact-list--band-{i} {{ background: ${name}; color: auto 100%;"
        f"{' text-style: bold;' if bold else ''} }}"
        for i, (name, bold) in enumerate(BAND_CHIPS)
    )

    BINDINGS = [
        Binding("up,k", "cursor_up", "up", show=False, id="list.up", tooltip="Move up one fact"),
        Binding("down,j", "cursor_down", "down", show=False, id="list.down", tooltip="Move down one fact"),
        Binding("pageup", "page_up", "page up", show=False, id="list.pageup", tooltip="Move up one screen"),
        Binding(
            "pagedown",
            "page_down",
            "page down",
            show=False,
            id="list.pagedown",
            tooltip="Move down one screen",
        ),
        Binding("home", "first", "first", show=False, id="list.home", tooltip="Go to the first fact"),
        Binding("end", "last", "last", show=False, id="list.end", tooltip="Go to the last fact"),
    ]

    # no repaint: `_set_cursor` repaints just the two rows that change (a whole-list
    # repaint per key was most of a cursor move's cost at 100,000 facts)
    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)

    @dataclass
    class Highlighted(Message):
        position: int | None

    @dataclass
    class NeedTexts(Message):
        """Rows are on screen whose texts are not read yet: read these positions."""

        positions: list[int]

    def __init__(
        self,
        *,
        reason: Callable[[int], str] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._reason = reason
        self.show_reasons = False
        self.empty = "no facts here"  # what an empty list says (the screen adds where to look)
        self.order: np.ndarray = np.empty(0, dtype=np.int64)
        self.memory: Memory | None = None
        self.id_width = 12
        self.columns = Columns()  # hidden columns, the id column's room
        self._texts: LRUCache[int, str] = LRUCache(4096)
        self._asked: set[int] = set()  # pages asked for and not answered yet
        self._strips: LRUCache[tuple, Strip] = LRUCache(1024)
        self._generation = 0
        self.painted_rows = 0  # how many rows have been painted (benchmarks wait on it)
        self._marks: frozenset[int] = frozenset()  # marked positions, shown as a ● gutter
        self._base: Style | None = None  # the widget's style while a paint is under way
        self._sizes: tuple[Size, ...] | None = None  # as last laid out
        self._marks_moved = False  # marks changed since `set_rows` last painted

    @property
    def marks(self) -> frozenset[int]:
        return self._marks

    @marks.setter
    def marks(self, marks: frozenset[int]) -> None:
        if marks != self._marks:
            self._marks, self._marks_moved = marks, True

    # -- data -------------------------------------------------------------------------
    def set_rows(
        self,
        memory: Memory,
        order: np.ndarray,
        keep: int | None = None,
        reasons: bool = False,
        top: bool = False,
        repaint: np.ndarray | None = None,
    ) -> None:
        """Show `order` (positions); keep the cursor on position `keep` if it is there,
        else on the same row (the next fact, when the kept one left the queue).
        `repaint`: when the order is unchanged, only these positions' rows changed."""
        order = np.asarray(order, dtype=np.int64)
        same = (
            repaint is not None
            and memory is self.memory
            and reasons == self.show_reasons
            and np.array_equal(order, self.order)
        )
        if memory is not self.memory:
            self.id_width = _id_width(memory.ids)
        self.memory = memory
        self.show_reasons = reasons
        self.order = order
        if same and repaint is not None:
            stale = {int(p) for p in repaint}
            for key in [k for k in self._strips.keys() if k[0] in stale]:
                self._strips.discard(key)
        else:
            self._generation += 1
            self._strips.clear()
        self.virtual_size = Size(0, len(self.order))
        row = 0 if top else self.cursor
        if keep is not None and len(self.order):
            hits = np.flatnonzero(self.order == keep)
            row = int(hits[0]) if len(hits) else self.cursor
        before = round(self.scroll_offset.y)
        self._set_cursor(row, center=True)
        marks_moved, self._marks_moved = self._marks_moved, False
        if same and not marks_moved and round(self.scroll_offset.y) == before:
            # the same rows in the same place: repaint only those that look different
            height = max(1, self.scrollable_content_region.height)
            shown = self.order[before : before + height]
            for y in np.flatnonzero(np.isin(shown, np.asarray(repaint, dtype=np.int64))):
                self.refresh_line(before + int(y))
        else:
            self.refresh()

    def set_columns(self, columns: Columns) -> None:
        self.columns = columns
        self.invalidate()

    def id_room(self) -> int:
        """The cells the id column shows now (0: hidden or no room)."""
        width = self.scrollable_content_region.width
        return max(0, Layout.for_width(width, self.id_width, self.show_reasons, self.columns).id - 1)

    def invalidate(self, texts: bool = False) -> None:
        """Scores (or texts) changed: drop cached strips and repaint."""
        if texts:
            self._texts.clear()
            self._asked.clear()
        self._generation += 1
        self._strips.clear()
        self.refresh()

    def add_texts(self, positions: list[int], texts: list[str]) -> None:
        """A worker read these texts: cache them and repaint the rows that waited."""
        for p, t in zip(positions, texts, strict=False):
            self._texts[p] = clean(t)
        if positions:
            self._asked.discard(positions[0])
        self._generation += 1
        self._strips.clear()
        self.refresh()

    def texts_not_read(self, positions: list[int]) -> None:
        """The read of these texts failed (the notice says why): the rows say so rather
        than wait, and are asked for again once the memory changes (`invalidate`)."""
        self.add_texts(positions, [NOT_READ] * len(positions))

    @property
    def waiting_for_texts(self) -> bool:
        """Rows on screen are painted with placeholders, their texts asked for."""
        return bool(self._asked)

    @property
    def position(self) -> int | None:
        """The store position under the cursor, or None for an empty list."""
        if not len(self.order):
            return None
        return int(self.order[min(self.cursor, len(self.order) - 1)])

    def on_screen(self) -> frozenset[int]:
        """The store positions of the rows a person can see now."""
        top = round(self.scroll_offset.y)
        height = max(1, self.scrollable_content_region.height)
        return frozenset(int(p) for p in self.order[top : top + height])

    def go_to_position(self, position: int) -> bool:
        hits = np.flatnonzero(self.order == position)
        if not len(hits):
            return False
        self._set_cursor(int(hits[0]), center=True)
        return True

    def _text(self, row: int) -> str | None:
        """The row's text, or None when it is not read yet (its page is asked for)."""
        pos = int(self.order[row])
        cached = self._texts.get(pos)
        if cached is not None:
            return cached
        start = row - row % PAGE
        page = [int(p) for p in self.order[start : start + PAGE] if int(p) not in self._texts]
        if page and page[0] not in self._asked:
            self._asked.add(page[0])
            self.post_message(self.NeedTexts(page))
        return None

    # -- cursor -----------------------------------------------------------------------
    def _set_cursor(self, row: int, center: bool = False) -> None:
        n = len(self.order)
        row = max(0, min(row, n - 1)) if n else 0
        old = self.cursor
        self.cursor = row
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_offset.y)
        if center and not (top <= row < top + height):
            self.scroll_to(y=max(0, row - height // 2), animate=False, force=True)
        elif row < top:
            self.scroll_to(y=row, animate=False, force=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, force=True)
        self.refresh_line(old)
        self.refresh_line(row)

    def watch_cursor(self, value: int) -> None:
        self.post_message(self.Highlighted(self.position))

    def action_cursor_up(self) -> None:
        self._set_cursor(self.cursor - 1)

    def action_cursor_down(self) -> None:
        self._set_cursor(self.cursor + 1)

    def action_page_up(self) -> None:
        self._set_cursor(self.cursor - max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self._set_cursor(self.cursor + max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self._set_cursor(0)

    def action_last(self) -> None:
        self._set_cursor(len(self.order) - 1)

    def on_click(self, event) -> None:
        row = round(self.scroll_offset.y) + event.y
        if 0 <= row < len(self.order):
            self._set_cursor(row)

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Every re-layout of the screen (the pane beside the list changing height) reports
        the list's sizes again; unchanged, they need no scrollbar update and no repaint."""
        sizes = (size, virtual_size, container_size, self.virtual_size)  # ours: rows shown
        if sizes == self._sizes:
            return False
        self._sizes = sizes
        return super()._size_updated(size, virtual_size, container_size, layout)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    # -- rendering --------------------------------------------------------------------
    def render_lines(self, crop):
        self._base = self.rich_style  # once per paint, not per line: it walks the DOM
        try:
            return super().render_lines(crop)
        finally:
            self._base = None

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = round(self.scroll_offset.y) + y
        base = self._base or self.rich_style
        if self.memory is None or row >= len(self.order):
            if row == 0 and self.memory is not None:
                msg = Segment(fit(f"  {self.empty}", width), base + Style(italic=True))
                return Strip([msg], width)
            return Strip.blank(width, base)
        selected = row == self.cursor
        pos = int(self.order[row])
        key = (pos, selected, width, self._generation, self.has_focus, pos in self.marks)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._render_row(row, width, selected, base)
            self._strips[key] = strip
        self.painted_rows += 1
        return strip

    def shown_id(self, fact_id: str, room: int) -> str:
        """`fact_id` as this list would show it in `room` cells (a toast's line): whole,
        or a shortened form that names it alone, which the search box and CLI take."""
        memory = self.memory
        if memory is None or fact_id not in memory.index or len(fact_id) <= room:
            return fact_id
        return self._short_id(memory.ids, memory.index[fact_id], room)

    def _short_id(self, ids: list[str], pos: int, room: int) -> str:
        """The id as the column shows it in `room` cells: whole when it fits, else the
        prefix that tells every id apart, else (ids alike for longer than the column, as
        Claude Code's and mem0's versions are) '…' and the tail that does; when neither
        does in the room, the edge that tells more of them apart (a shortened id naming
        several is answered as ambiguous). `show` and the triage commands take either form."""
        fid = ids[pos]
        if len(fid) <= room:
            return fid
        if self.id_width <= room:
            return fid[: self.id_width]
        if _edge_width(ids, tail=False) < room:  # the column's cut (prefix…) still tells them apart
            return fid
        tail = _edge_width(ids, tail=True)
        if tail < room:
            return "…" + fid[-tail:]
        # neither edge tells every id apart in the room (one text, so one hash, in several
        # files of a Markdown folder): the edge that tells more of them apart
        if _told_apart(ids, room - 1, tail=True) > _told_apart(ids, room - 1, tail=False):
            return "…" + fid[1 - room :]
        return fid[: self.id_width]

    def _render_row(self, row: int, width: int, selected: bool, base: Style) -> Strip:
        m = self.memory
        assert m is not None  # rows are painted once a memory is shown
        sc = m.scores
        pos = int(self.order[row])
        lay = Layout.for_width(width, self.id_width, self.show_reasons, self.columns)
        band = int(sc.band[pos])
        row_style = base + self.get_component_rich_style("fact-list--cursor") if selected else base
        if sc.k[pos] > 0:
            row_style = row_style + self.get_component_rich_style("fact-list--superseded")
        deleted = bool(sc.flags[pos] & (FLAG_DELETED | FLAG_EXPIRED))
        if deleted:
            row_style = row_style + self.get_component_rich_style("fact-list--deleted")
        # a component's colours over the row's background: the cursor's covers every cell
        under = Style(bgcolor=row_style.bgcolor)

        def style(name: str) -> Style:
            return self.get_component_rich_style(name) + under

        # a deleted row is dim to its band and guidance too: their colours would say "live"
        gone = style("fact-list--deleted") if deleted else Style()
        dim = row_style + style("fact-list--dim")
        chip_name = BANDS[band] if lay.chip > 7 else BAND_SHORT[band]
        gutter = "●" if pos in self.marks else " "
        guidance = GUIDANCE[int(sc.guidance[pos])]
        # a fact its source deleted (or expired) says so in words where the guidance goes:
        # the dim alone reads as nothing on a terminal without colours, and it is triaged no more
        said_word = gone_word(int(sc.flags[pos])) or guidance
        tier = TIERS[int(sc.tier[pos])] if lay.tier >= 7 else TIER_SHORT[int(sc.tier[pos])]
        text = self._text(row)
        chip = self.get_component_rich_style(f"fact-list--band-{band}")
        said = row_style + (style("fact-list--deleted") if deleted else style(f"fact-list--{guidance}"))
        if selected:  # the cursor's background, the band and guidance in colours that read on it
            chip = Style(
                color=readable(chip.bgcolor, row_style.bgcolor), bgcolor=row_style.bgcolor, bold=True
            )
            said += Style(color=readable(said.color, row_style.bgcolor))
            dim += Style(color=readable(dim.color, row_style.bgcolor))
        segments = [
            Segment(fit(gutter + chip_name, lay.chip - 1), chip + gone),
            Segment(" ", row_style),
            Segment(f"{sc.trust[pos]:.2f}".rjust(lay.trust - 1) + " ", row_style + Style(bold=True)),
        ]
        if lay.id:
            segments.append(
                Segment(fit(clean(self._short_id(m.ids, pos, lay.id - 1)), lay.id - 1) + " ", dim)
            )
        if lay.reason:
            why = self._reason(pos) if self._reason else ""
            segments.append(Segment(fit(why, lay.reason - 1) + " ", row_style + Style(italic=True)))
        if text is None:
            segments.append(
                Segment(fit(PLACEHOLDER, lay.text - 1) + " ", row_style + style("fact-list--placeholder"))
            )
        else:  # a gap before the age, always
            segments.append(Segment(fit(text, lay.text - 1) + " ", row_style))
        if lay.age:
            segments.append(Segment(age_label(float(sc.age_days[pos])).rjust(lay.age - 1) + " ", dim))
        if lay.tier:
            segments.append(Segment(fit(tier, lay.tier), dim))
        if lay.guidance:
            segments.append(Segment(fit(said_word, lay.guidance), said + gone))
        return Strip(segments).adjust_cell_length(width, row_style)


_ID_WIDTHS: dict[int, int] = {}


def _id_width(ids: list[str]) -> int:
    """How many characters tell every id apart (as git shortens hashes: at least 7, or the
    longest id when shorter), once per loaded id list. The list shows that prefix, which
    the search box and `P` accept; the pane shows the whole id."""
    key = id(ids)
    if key not in _ID_WIDTHS:
        _ID_WIDTHS.clear()
        longest = max(map(len, ids), default=4)
        width = longest
        for n in (7, 8, 10, 12, 16, 24):
            if longest <= 18 or n >= longest:  # ids that fit the column show whole
                break
            if _edges(ids, n, tail=False) == len(ids):
                width = n
                break
        _ID_WIDTHS[key] = width
    return _ID_WIDTHS[key]


_EDGE_WIDTHS: dict[tuple[int, bool], int] = {}


def _edge_width(ids: list[str], tail: bool) -> int:
    """How many leading (or, with `tail`, trailing) characters tell every id apart, at
    least 4, once per id list; a large number when none up to 24 do."""
    key = (id(ids), tail)
    if key not in _EDGE_WIDTHS:
        if len(_EDGE_WIDTHS) > 4:
            _EDGE_WIDTHS.clear()
        found = 1_000
        for n in (4, 6, 8, 10, 12, 14, 16, 20, 24):
            if _edges(ids, n, tail) == len(ids):
                found = n
                break
        _EDGE_WIDTHS[key] = found
    return _EDGE_WIDTHS[key]


_TOLD_APART: dict[tuple[int, int, bool], int] = {}


def _edges(ids: list[str], n: int, tail: bool) -> int:
    """How many different first (or, with `tail`, last) `n` characters the ids have: all
    of them (`len(ids)`) when those characters tell every id apart."""
    return len({i[-n:] if tail else i[:n] for i in ids})


def _told_apart(ids: list[str], n: int, tail: bool) -> int:
    """`_edges`, once per id list and width (the column asks it for every row painted)."""
    key = (id(ids), n, tail)
    if key not in _TOLD_APART:
        if len(_TOLD_APART) > 8:
            _TOLD_APART.clear()
        _TOLD_APART[key] = _edges(ids, n, tail)
    return _TOLD_APART[key]


class ColumnHeader(Widget):
    """The column titles above the list, with the sort column marked."""

    DEFAULT_CSS = """
    ColumnHeader { height: 1; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.sort_column = "queue"
        self.reverse = False
        self.id_width = 12
        self.reasons = False
        self.columns = Columns()

    def set_sort(
        self,
        column: str,
        reverse: bool,
        id_width: int = 12,
        reasons: bool = False,
        columns: Columns | None = None,
    ) -> None:
        self.sort_column, self.reverse, self.id_width, self.reasons = column, reverse, id_width, reasons
        self.columns = columns or Columns()
        self.refresh()

    def render(self) -> Text:
        return header_text(
            self.size.width - 1, self.sort_column, self.reverse, self.id_width, self.reasons, self.columns
        )
