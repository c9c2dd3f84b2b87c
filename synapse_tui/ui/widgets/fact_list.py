"""The fact list: one line per fact, rendering only the visible lines.

A Line-API ScrollView (the Toolong / fastdatatable pattern): `render_line` builds a
Strip for row `scroll_y + y` from the score arrays and a page of texts fetched from the
store on demand; texts and strips sit in LRU caches, so 100,000 facts scroll like 100.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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

from ...core.trust import BANDS, GUIDANCE, TIERS
from ..text import age_label, clean, fit

PAGE = 128


@dataclass(frozen=True)
class Layout:
    """Column widths for a given total width; the text column takes what is left."""

    chip: int
    trust: int
    age: int
    tier: int
    guidance: int
    text: int

    @classmethod
    def for_width(cls, width: int) -> Layout:
        if width >= 72:
            chip, trust, age, tier, guidance = 11, 6, 6, 7, 10
        else:  # narrow terminals: short band names and tiers
            chip, trust, age, tier, guidance = 6, 5, 5, 5, 10
        text = max(1, width - chip - trust - age - tier - guidance)
        return cls(chip, trust, age, tier, guidance, text)


BAND_SHORT = ("v.low", "low", "mod", "high", "v.hi")
TIER_SHORT = ("auto", "hum", "sig")
HEADERS = {
    "band": "band",
    "trust": "trust",
    "text": "fact",
    "age": "age",
    "tier": "tier",
    "guidance": "guidance",
}


def header_text(width: int, sort_column: str, reverse: bool) -> Text:
    """Column titles matching `Layout`; the sort column carries an arrow."""
    lay = Layout.for_width(width)
    arrow = "▼" if reverse else "▲"

    def title(name: str, w: int, right: bool = False) -> str:
        t = HEADERS[name] + (arrow if name == sort_column else "")
        return t.rjust(w - 1) + " " if right else fit(" " + t, w)

    fact = "fact"
    if sort_column == "id" or (sort_column == "queue" and reverse):
        fact += f"  (by {sort_column} {arrow})"
    parts = [
        title("band", lay.chip),
        title("trust", lay.trust, True),
        fit(fact, lay.text),
        title("age", lay.age, True),
        fit(("tier" + (arrow if sort_column == "tier" else "")), lay.tier),
        fit(("guidance" + (arrow if sort_column == "guidance" else "")), lay.guidance),
    ]
    return Text("".join(parts), no_wrap=True, overflow="crop")


class FactList(ScrollView, can_focus=True):
    """The scrolling list of facts in the current queue / search order."""

    COMPONENT_CLASSES = {
        "fact-list--cursor",
        "fact-list--band-0",
        "fact-list--band-1",
        "fact-list--band-2",
        "fact-list--band-3",
        "fact-list--band-4",
        "fact-list--dim",
        "fact-list--disputed",
        "fact-list--uncertain",
        "fact-list--supported",
        "fact-list--superseded",
    }

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

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    class Highlighted(Message):
        def __init__(self, position: int | None) -> None:
            self.position = position
            super().__init__()

    def __init__(
        self,
        *,
        texts: Callable[[list[int]], list[str]] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._fetch = texts
        self.order: np.ndarray = np.empty(0, dtype=np.int64)
        self.memory = None
        self._texts: LRUCache[int, str] = LRUCache(4096)
        self._strips: LRUCache[tuple, Strip] = LRUCache(1024)
        self._generation = 0
        self.painted_rows = 0  # how many rows have been painted (benchmarks wait on it)
        self.marks: set[int] = set()  # marked positions (bulk triage), shown as a ● gutter

    # -- data -------------------------------------------------------------------------
    def set_rows(self, memory, order: np.ndarray, keep: int | None = None) -> None:
        """Show `order` (positions); keep the cursor on position `keep` if it is there,
        else on the same row (the next fact, when the kept one left the queue)."""
        self.memory = memory
        self.order = np.asarray(order, dtype=np.int64)
        self._generation += 1
        self._strips.clear()
        self.virtual_size = Size(0, len(self.order))
        row = 0
        if keep is not None and len(self.order):
            hits = np.flatnonzero(self.order == keep)
            row = int(hits[0]) if len(hits) else self.cursor
        self._set_cursor(row, center=True)
        self.refresh()

    def invalidate(self, texts: bool = False) -> None:
        """Scores (or texts) changed: drop cached strips and repaint."""
        if texts:
            self._texts.clear()
        self._generation += 1
        self._strips.clear()
        self.refresh()

    @property
    def position(self) -> int | None:
        """The store position under the cursor, or None for an empty list."""
        if not len(self.order):
            return None
        return int(self.order[min(self.cursor, len(self.order) - 1)])

    def go_to_position(self, position: int) -> bool:
        hits = np.flatnonzero(self.order == position)
        if not len(hits):
            return False
        self._set_cursor(int(hits[0]), center=True)
        return True

    def _text(self, row: int) -> str:
        pos = int(self.order[row])
        cached = self._texts.get(pos)
        if cached is not None:
            return cached
        start = row - row % PAGE
        page = [int(p) for p in self.order[start : start + PAGE]]
        missing = [p for p in page if p not in self._texts]
        if self._fetch is not None and missing:
            for p, t in zip(missing, self._fetch(missing), strict=False):
                self._texts[p] = clean(t)
        return self._texts.get(pos, "")

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

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    # -- rendering --------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = round(self.scroll_offset.y) + y
        base = self.rich_style
        if self.memory is None or row >= len(self.order):
            if row == 0 and self.memory is not None:
                msg = Segment(fit("  no facts here", width), base + Style(italic=True))
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

    def _render_row(self, row: int, width: int, selected: bool, base: Style) -> Strip:
        m = self.memory
        sc = m.scores
        pos = int(self.order[row])
        lay = Layout.for_width(width)
        band = int(sc.band[pos])
        style = self.get_component_rich_style
        row_style = base + style("fact-list--cursor") if selected else base
        if sc.k[pos] > 0:
            row_style = row_style + style("fact-list--superseded")
        dim = row_style + style("fact-list--dim")
        chip_name = BANDS[band] if lay.chip > 6 else BAND_SHORT[band]
        gutter = "●" if pos in self.marks else " "
        guidance = GUIDANCE[int(sc.guidance[pos])]
        tier = TIERS[int(sc.tier[pos])]
        if lay.tier < 7:
            tier = TIER_SHORT[int(sc.tier[pos])]
        segments = [
            Segment(fit(gutter + chip_name, lay.chip - 1), style(f"fact-list--band-{band}")),
            Segment(" ", row_style),
            Segment(f"{sc.trust[pos]:.2f}".rjust(lay.trust - 1) + " ", row_style + Style(bold=True)),
            Segment(fit(self._text(row), lay.text), row_style),
            Segment(age_label(float(sc.age_days[pos])).rjust(lay.age - 1) + " ", dim),
            Segment(fit(tier, lay.tier), dim),
            Segment(fit(guidance, lay.guidance), row_style + style(f"fact-list--{guidance}")),
        ]
        return Strip(segments).adjust_cell_length(width, row_style)


class ColumnHeader(Widget):
    """The column titles above the list, with the sort column marked."""

    DEFAULT_CSS = """
    ColumnHeader { height: 1; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.sort_column = "queue"
        self.reverse = False

    def set_sort(self, column: str, reverse: bool) -> None:
        self.sort_column, self.reverse = column, reverse
        self.refresh()

    def render(self) -> Text:
        return header_text(self.size.width - 1, self.sort_column, self.reverse)
