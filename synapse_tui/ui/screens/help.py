"""Help (?): every key of the screen underneath, generated from its live bindings, and
the legend (the same one `L` shows)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.browser.triage import login, withheld
from synapse_tui.ui.screens.legend import legend_text

# horizontal scrolling is inherited from ScrollView but the list never scrolls sideways
_NOISE = {"scroll_left", "scroll_right", "page_left", "page_right"}


def binding_rows(screen: Screen) -> list[tuple[str, str]]:
    """(keys, what it does) for every binding active on `screen`, in binding order,
    keys sharing one action merged, so the help cannot drift from the code."""
    rows: dict[tuple[int, str], list[str]] = {}
    text: dict[tuple[int, str], str] = {}
    app = screen.app
    for _key, active in screen.active_bindings.items():
        b = active.binding
        if (b.system and b.action not in ("command_palette", "quit")) or b.action in _NOISE:
            continue
        ident = (id(active.node), b.action)
        display = b.key_display or app.get_key_display(b)
        rows.setdefault(ident, [])
        if display not in rows[ident]:
            rows[ident].append(display)
        text[ident] = b.tooltip or b.description or b.action
    return [(" ".join(keys), text[ident]) for ident, keys in rows.items()]


SEARCH_HINT = (
    "Search takes words (full text over facts and ids, facts holding every word first, then by relevance and trust) and filters:"
    " trust<0.3 fresh<0.5 tier:auto guidance:disputed band:low flag:signature_invalid is:stale"
    " is:deleted k>=1; -term negates."
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "close", id="help.close", tooltip="Close help")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.rows = binding_rows(under)
        name = under.__class__.__name__.replace("Screen", "").lower() or "main"
        self.title_text = f"Keys: {getattr(under, 'HELP_TITLE', f'{name} view')}"

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("does", ratio=1)
        for keys, does in self.rows:
            table.add_row(keys, does)
        with VerticalScroll(id="help-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = "escape closes · ctrl+p finds every command"
            lacking = withheld(self.app.store)
            if lacking:  # an agent's role on a server: why its keys are dimmed, read first
                yield Static(Text(clean(f"NOT FOR THIS LOGIN  (role {login(self.app.store)})"), style="bold"))
                for move, why in lacking.items():
                    yield Static(Text(clean(f"{move}: {why}")))
                yield Static("")
            yield Static(table)
            yield Static(Text("\nLEGEND  (L shows it alone)", style="bold"))
            yield Static(legend_text(self.app, tuple(self.app.config.bands.edges)))
            yield Static(Text("\n" + SEARCH_HINT, style="italic"))

    def action_close(self) -> None:
        self.dismiss()
