"""The queue tabs with live counts; number keys 1-7 and tab / shift+tab switch."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from ..queues import QUEUES


class QueueBar(Widget):
    DEFAULT_CSS = """
    QueueBar { height: 1; }
    """
    COMPONENT_CLASSES = {"queue-bar--active", "queue-bar--key", "queue-bar--empty"}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.active = 0
        self.counts: list[int | None] = [None] * len(QUEUES)

    def update_state(self, active: int, counts: list[int | None]) -> None:
        self.active, self.counts = active, counts
        self.refresh()

    def render(self) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis")
        full = sum(len(q.title) + 6 for q in QUEUES) <= self.size.width
        for i, (q, n) in enumerate(zip(QUEUES, self.counts, strict=False)):
            title = q.title if full else q.short
            label = f" {i + 1} {title} {'…' if n is None else n} "
            if i == self.active:
                out.append(label, style=self.get_component_rich_style("queue-bar--active"))
            elif n == 0:
                out.append(label, style=self.get_component_rich_style("queue-bar--empty"))
            else:
                out.append(label)
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
