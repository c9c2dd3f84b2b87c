"""What the graph views, the session log and the legend share: the "open this fact"
message they post (the app decides what opening means, so no screen reaches into
another), a table that moves with j / k as the fact list does, and a fact's band cell."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from ...core.trust import BANDS
from ..text import fit
from ..widgets import explain as xp

BAND_SHORT = ("v.low", "low", "mod", "high", "v.hi")
NOT_BUILT = "the neighbour graph isn't built for this store yet (synapse-tui import builds it)"
T = TypeVar("T")


class OpenFact(Message):
    """Show fact `fact_id`: its detail view, with the list's cursor on it."""

    def __init__(self, fact_id: str) -> None:
        self.fact_id = fact_id
        super().__init__()


class RowTable(DataTable):
    """A row-cursor table with the fact list's movement keys (SPEC 7: j k home end too)."""

    BINDINGS = [
        Binding("k", "cursor_up", "up", show=False, id="table.up", tooltip="Move up one row"),
        Binding("j", "cursor_down", "down", show=False, id="table.down", tooltip="Move down one row"),
        Binding("home", "first_row", "first", show=False, id="table.home", tooltip="Go to the first row"),
        Binding("end", "last_row", "last", show=False, id="table.end", tooltip="Go to the last row"),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", **kwargs)

    def action_first_row(self) -> None:
        self.move_cursor(row=0)

    def action_last_row(self) -> None:
        self.move_cursor(row=self.row_count - 1)


def colours(app: Any) -> dict[str, str]:
    """Theme colours by role (the detail view's palette)."""
    return xp.palette(app.theme_variables)


def band_colour(band: int, palette: dict[str, str]) -> str:
    """A band's colour: the one definition the app has in Python (`explain.BAND_COLOURS`)."""
    return palette[xp.BAND_COLOURS[band]]


def band_cell(app: Any, fact_id: str, width: int) -> tuple[Text, Text]:
    """(band chip, trust) of a fact as the app scored it; blank when it is not scored."""
    memory = getattr(app, "memory", None)
    i = None if memory is None else memory.index.get(fact_id)
    if i is None:
        return Text(" " * width), Text("")
    band = int(memory.scores.band[i])
    name = BANDS[band] if width >= 9 else BAND_SHORT[band]
    chip = Text(fit(name, width), style=f"bold on {band_colour(band, colours(app))}")
    return chip, Text(f"{memory.scores.trust[i]:.2f}", style="bold")


def superseded(app: Any, fact_id: str) -> bool:
    memory = getattr(app, "memory", None)
    i = None if memory is None else memory.index.get(fact_id)
    return i is not None and int(memory.scores.k[i]) > 0


def read_graph(app: Any, read: Callable[[], T]) -> tuple[T | None, str | None]:
    """Run a read of the neighbour graph under the app's database lock, in a worker:
    (its result, None), or (None, why not) for a store without a graph, an unknown id or
    a store that cannot be read, so a bad store ends in a message, never a traceback."""
    from ...core.graphview import graph_built

    with app.db_lock:
        try:
            if not graph_built(app.store.conn):
                return None, NOT_BUILT
            return read(), None
        except KeyError as exc:
            return None, f"no fact {exc.args[0]} in this store"
        except sqlite3.Error as exc:
            return None, f"the store cannot be read: {exc}"
