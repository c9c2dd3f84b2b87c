"""Messages thread workers post back to the main thread (only it touches widgets).

Each carries an immutable result of the headless `Browser`: the handler that receives it
paints, nothing else.
"""

from __future__ import annotations

from textual.message import Message

from synapse_tui.core.browser import Search, TriageResult
from synapse_tui.core.trust.explanation import Explanation


class MemoryLoaded(Message):
    """The store was read and scored (at start, after as-of, calibration, an outside write,
    the moving clock caught up)."""

    def __init__(self, reason: str = "load") -> None:
        self.reason = reason
        super().__init__()


class LoadFailed(Message):
    def __init__(self, error: str) -> None:
        self.error = error
        super().__init__()


class SearchDone(Message):
    def __init__(self, search: Search) -> None:
        self.search = search
        super().__init__()


class SearchFailed(Message):
    def __init__(self, source: str, message: str, position: int, token: str) -> None:
        self.source, self.message, self.position, self.token = source, message, position, token
        super().__init__()


class Explained(Message):
    """`Browser.explanation` of one fact (None: no such fact)."""

    def __init__(self, fact_id: str, explain: Explanation | None) -> None:
        self.fact_id, self.explain = fact_id, explain
        super().__init__()


class TextsRead(Message):
    def __init__(self, positions: list[int], texts: list[str]) -> None:
        self.positions, self.texts = positions, texts
        super().__init__()


class TriageLanded(Message):
    """A triage move landed (or was refused: `result.error`); scores are patched."""

    def __init__(self, result: TriageResult) -> None:
        self.result = result
        super().__init__()
