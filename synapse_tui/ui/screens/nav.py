"""What the graph views, the session log and the legend share: the "open this fact"
message they post (the app decides what opening means, so no screen reaches into
another), a table that moves with j / k as the fact list does, and a fact's band cell in
the list's own colours."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from synapse_tui.core.trust.score import BANDS
from synapse_tui.ui.text import band_chip_style, fit, gone_word
from synapse_tui.ui.widgets import explain as xp
from synapse_tui.ui.widgets.fact_list import BAND_SHORT

if TYPE_CHECKING:  # the app imports this module: for the type checker only, so no circle
    from synapse_tui.ui.app import SynapseApp


@dataclass
class OpenFact(Message):
    """Show fact `fact_id`: its detail view, with the list's cursor on it."""

    fact_id: str


@dataclass
class CursorTo(Message):
    """Put the list's cursor on `fact_id` (the view on top stepped or jumped to it); the
    app moves it, leaving queue and search when the fact is not in them."""

    fact_id: str
    leave: bool = True  # False: stay in the queue (the cursor stays when it is not there)


@dataclass
class MarksChanged(Message):
    """A view marked facts in the browser: the list repaints its marks and count."""


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


def colours(app: App[Any]) -> dict[str, str]:
    """Theme colours by role (the detail view's palette)."""
    return xp.palette(app.theme_variables)


def band_style(app: App[Any], band: int) -> Style:
    """The chip style of `band` exactly as the fact list paints it (`text.band_chip_style`,
    from the one definition `text.BAND_CHIPS`), so the views and the legend show the list's
    colours."""
    return band_chip_style(band, app.theme_variables)


def band_cell(app: SynapseApp, fact_id: str, width: int) -> tuple[Text, Text]:
    """(band chip, trust) of a fact as the app scored it; blank when it is not scored."""
    memory = app.memory
    i = None if memory is None else memory.index.get(fact_id)
    if memory is None or i is None:
        return Text(" " * width), Text("")
    band = int(memory.scores.band[i])
    name = BANDS[band] if width >= 9 else BAND_SHORT[band]
    chip = Text(fit(name, width), style=band_style(app, band))
    return chip, Text(f"{memory.scores.trust[i]:.2f}", style="bold")


def superseded(app: SynapseApp, fact_id: str) -> bool:
    memory = app.memory
    i = None if memory is None else memory.index.get(fact_id)
    return memory is not None and i is not None and int(memory.scores.k[i]) > 0


def gone(app: SynapseApp, fact_id: str) -> str:
    """`deleted` / `expired` for a fact its source deleted or expired (as the list's
    guidance column says it), else ''."""
    memory = app.memory
    i = None if memory is None else memory.index.get(fact_id)
    return "" if memory is None or i is None else gone_word(int(memory.scores.flags[i]))
