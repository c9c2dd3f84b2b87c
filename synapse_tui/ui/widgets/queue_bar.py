"""The queue tabs with live counts; number keys 1-7 and tab / shift+tab switch."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from synapse_tui.core.review.queues import QUEUES


class QueueBar(Widget):
    DEFAULT_CSS = """
    QueueBar { height: 1; }
    """
    COMPONENT_CLASSES = {"queue-bar--active", "queue-bar--key", "queue-bar--empty", "queue-bar--marked"}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.active = 0
        self.counts: list[int | None] = [None] * len(QUEUES)
        self.marked = 0

    def update_state(self, active: int, counts: list[int | None], marked: int = 0) -> None:
        self.active, self.counts, self.marked = active, counts, marked
        self.refresh()

    def set_marked(self, marked: int) -> None:
        self.marked = marked
        self.refresh()

    def render(self) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis")
        counts = ["…" if n is None else str(n) for n in self.counts]
        marks = f" ● {self.marked} marked" if self.marked else ""
        full = sum(len(q.title) + len(n) + 5 for q, n in zip(QUEUES, counts, strict=False)) + len(marks)
        use_full = full <= self.size.width
        for i, (q, n) in enumerate(zip(QUEUES, counts, strict=False)):
            label = f" {i + 1} {q.title if use_full else q.short} {n} "
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

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._text: Text = Text()

    def update(self, text: Text | str) -> None:
        self._text = text if isinstance(text, Text) else Text(text)
        self.refresh()

    def render(self) -> Text:
        return self._text
