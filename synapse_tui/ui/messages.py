"""Messages thread workers post back to the main thread (only it touches widgets)."""

from __future__ import annotations

from typing import Any

import numpy as np
from textual.message import Message


class MemoryLoaded(Message):
    """The store was read and scored (at start, after as-of, after calibration)."""

    def __init__(self, reason: str = "load") -> None:
        self.reason = reason
        super().__init__()


class LoadFailed(Message):
    def __init__(self, error: str) -> None:
        self.error = error
        super().__init__()


class SearchDone(Message):
    """A query ran: `positions` ranked, or None when the box is empty."""

    def __init__(self, source: str, positions: np.ndarray | None, ranked: bool) -> None:
        self.source, self.positions, self.ranked = source, positions, ranked
        super().__init__()


class SearchFailed(Message):
    def __init__(self, source: str, message: str, position: int, token: str) -> None:
        self.source, self.message, self.position, self.token = source, message, position, token
        super().__init__()


class ExplainReady(Message):
    def __init__(self, fact_id: str, explain: dict[str, Any] | None) -> None:
        self.fact_id, self.explain = fact_id, explain
        super().__init__()


class TriageDone(Message):
    """A triage move landed: the scores of the facts it changed are already patched."""

    def __init__(self, move: str, outcome: Any, notice: str, from_marks: bool) -> None:
        self.move, self.outcome, self.notice, self.from_marks = move, outcome, notice, from_marks
        super().__init__()


class TriageFailed(Message):
    """A triage move was refused (a cycle, nothing to undo...); nothing changed."""

    def __init__(self, move: str, error: str) -> None:
        self.move, self.error = move, error
        super().__init__()
