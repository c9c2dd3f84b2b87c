"""Messages thread workers post back to the main thread (only it touches widgets).

Each carries an immutable result of the headless `Browser`: the handler that receives it
paints, nothing else. Dataclasses, as Textual's own messages are (`Message.__post_init__`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from synapse_tui.core.browser import Loaded, Search, TriageResult
from synapse_tui.core.trust.explanation import Explanation


@dataclass
class MemoryLoaded(Message):
    """The store was read and scored (at start, after as-of, calibration, an outside write,
    the moving clock caught up): the browser's next state, for the main thread to install
    (None: nothing changed)."""

    reason: str = "load"
    loaded: Loaded | None = None


@dataclass
class SearchDone(Message):
    search: Search


@dataclass
class SearchFailed(Message):
    source: str
    message: str
    position: int
    token: str


@dataclass
class Explained(Message):
    """`Browser.explanation` of one fact (None: no such fact)."""

    fact_id: str
    explain: Explanation | None


@dataclass
class TextsRead(Message):
    positions: list[int]
    texts: list[str]


@dataclass
class TriageLanded(Message):
    """A triage move landed (or was refused: `result.error`); scores are patched."""

    result: TriageResult
