"""Help (?): every key of the screen underneath, generated from its live bindings, and
the legend (the same one `L` shows)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.browser.triage import login, withheld
from synapse_tui.ui.screens.base import SynapseModalScreen
from synapse_tui.ui.screens.legend import legend_text

# generic keys of the widgets that say nothing about this browser: horizontal scrolling
# (the lists never scroll sideways; a row table's cursor is a whole row), focus cycling,
# copying a selection, and the duplicates of home / end
_NOISE = {
    "scroll_left",
    "scroll_right",
    "page_left",
    "page_right",
    "cursor_left",
    "cursor_right",
    "focus_next",
    "focus_previous",
    "copy_text",
    "scroll_top",
    "scroll_bottom",
}
# what `enter` does, where a widget's generic "Select" would say nothing
_SELECT = ("select", "select_cursor")


def binding_rows(screen: Screen) -> list[tuple[str, str]]:
    """(keys, what it does) for every binding active on `screen`, in binding order,
    keys sharing one action merged, so the help cannot drift from the code. A screen's
    HELP_ENTER says what `enter` does there; the triage keys are listed on every view of a
    fact (`FactScreen`), even while no row is highlighted yet (the Footer shows them then)."""
    rows: dict[tuple[int, str], list[str]] = {}
    text: dict[tuple[int, str], str] = {}
    app = screen.app
    enter = getattr(screen, "HELP_ENTER", None)
    seen_actions = set()
    for _key, active in screen.active_bindings.items():
        b = active.binding
        action = b.action.rsplit(".", 1)[-1]  # `app.focus_next`: the action, not its namespace
        if (b.system and action not in ("command_palette", "quit")) or action in _NOISE:
            continue
        ident = (id(active.node), b.action)
        display = b.key_display or app.get_key_display(b)
        rows.setdefault(ident, [])
        if display not in rows[ident]:
            rows[ident].append(display)
        text[ident] = b.tooltip or b.description or b.action
        if action in _SELECT and enter:
            text[ident] = enter
        seen_actions.add(b.action)
    out = [(" ".join(keys), text[ident]) for ident, keys in rows.items()]
    return out + _triage_rows(screen, seen_actions)


def _triage_rows(screen: Screen, listed: set[str]) -> list[tuple[str, str]]:
    """The triage keys a view of a fact offers but did not list (none highlighted yet)."""
    from synapse_tui.ui.screens.base import FactScreen
    from synapse_tui.ui.triage_actions import TRIAGE_BINDINGS

    if not isinstance(screen, FactScreen):
        return []
    return [
        (b.key_display or screen.app.get_key_display(b), f"{b.tooltip} (on the highlighted row's fact)")
        for b in TRIAGE_BINDINGS
        if b.action not in listed
    ]


SEARCH_FILTERS = (  # each one a filter the search box takes (tests parse every one)
    "trust<0.3 fresh<0.5 age>90 tier:auto guidance:disputed band:low flag:signature_invalid is:stale"
    " is:deleted is:suggested junk:duplicate k>=1 note:memory-bank/progress.md prov:x-source=mem0"
)
SEARCH_HINT = (
    "Search takes words (full text over facts and ids, facts holding every word first, then by relevance and trust) and filters:"
    f' {SEARCH_FILTERS}; a value with spaces is quoted (note:"My Notes.md"); -term negates;'
    " F lists the notes, sources and agents to filter by."
)


class HelpScreen(SynapseModalScreen[None]):
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
            yield Static(legend_text(self.app, tuple(self.app.config.bands.edges)), id="help-legend")
            yield Static(Text("\n" + SEARCH_HINT, style="italic"))

    def action_close(self) -> None:
        self.dismiss()
