"""The queue tabs with live counts; number keys 1-7 and tab / shift+tab switch."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widget import Widget

from synapse_tui.core.base.limits import counted
from synapse_tui.core.review.queues import QUEUES


class QueueBar(Widget):
    DEFAULT_CSS = """
    QueueBar { height: 1; }
    """
    COMPONENT_CLASSES = {"queue-bar--active", "queue-bar--key", "queue-bar--empty", "queue-bar--marked"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.active = 0
        self.counts: list[int | None] = [None] * len(QUEUES)
        self.marked = 0
        self.elsewhere: tuple[int, str] = (0, "")  # marks kept in another queue or search

    def update_state(
        self, active: int, counts: list[int | None], marked: int = 0, elsewhere: tuple[int, str] = (0, "")
    ) -> None:
        self.active, self.counts, self.marked, self.elsewhere = active, counts, marked, elsewhere
        self.refresh()

    def set_marked(self, marked: int, elsewhere: tuple[int, str] = (0, "")) -> None:
        self.marked, self.elsewhere = marked, elsewhere
        self.refresh()

    def _marks_labels(self) -> tuple[str, str]:
        """The marks, long and short."""
        if self.marked:
            return (f" ● {self.marked:,} marked",) * 2
        count, where = self.elsewhere
        if count:
            return f" ○ {counted(count, 'mark')} in {where}", f" ○ {count:,} in {where}"
        return "", ""

    def render(self) -> Text:
        """Every queue with its count, and the marks, at any width: the labels shorten
        (titles, then spacing) before anything is cut."""
        out = Text(no_wrap=True, overflow="ellipsis")
        counts = ["…" if n is None else f"{n:,}" for n in self.counts]
        forms = (
            lambda i, q, n: f" {i + 1} {q.title} {n} ",
            lambda i, q, n: f" {i + 1} {q.short} {n} ",
            lambda i, q, n: f" {i + 1} {q.short} {n}",
            lambda i, q, n: f" {i + 1}:{n}",
        )
        width = self.size.width
        for form in forms:
            labels = [form(i, q, n) for i, (q, n) in enumerate(zip(QUEUES, counts, strict=False))]
            marks = next((m for m in self._marks_labels() if sum(map(len, labels)) + len(m) <= width), None)
            if marks is not None:
                break
        else:
            marks = self._marks_labels()[1]
        for i, (label, n) in enumerate(zip(labels, counts, strict=False)):
            if i == self.active:
                out.append(label, style=self.get_component_rich_style("queue-bar--active"))
            elif n == "0":
                out.append(label, style=self.get_component_rich_style("queue-bar--empty"))
            else:
                out.append(label)
        if marks:
            out.append(marks, style=self.get_component_rich_style("queue-bar--marked"))
        return out


class StatusLine(Widget):
    """One line of status; updating it repaints this line only (no re-layout, unlike Static)."""

    DEFAULT_CSS = """
    StatusLine { height: 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._text: Text = Text()

    def update(self, text: Text | str) -> None:
        self._text = text if isinstance(text, Text) else Text(text)
        self.refresh()

    def render(self) -> Text:
        return self._text
