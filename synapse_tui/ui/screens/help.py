"""Help (?): every key of the screen underneath, generated from its live bindings, and
the legend (the same one `L` shows)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.browser.triage import login, withheld
from synapse_tui.ui.screens.base import ScrolledModalScreen
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
# a text box's own editing keys (a search box's, an id's): one row says what typing does
# (its own and those it inherits: a one-line box does not scroll)
_EDITING = frozenset(b.action for cls in Input.__mro__ for b in vars(cls).get("BINDINGS", ())) - {"submit"}
TYPING = (
    "type",
    "Text into the box (ctrl+w, ctrl+u, ctrl+k and the arrows edit it); ? in the empty box is this help",
)


def binding_rows(screen: Screen) -> list[tuple[str, str]]:
    """(keys, what it does) for every binding active on `screen`, in binding order,
    keys sharing one action merged, so the help cannot drift from the code. A screen's
    HELP_ENTER says what `enter` does there; the triage keys are listed on every view of a
    fact (`FactScreen`), even while no row is highlighted yet (the Footer shows them then).
    In a text box, its editing keys are one row (`TYPING`) and HELP_SUBMIT says what
    `enter` does there."""
    rows: dict[tuple[int, str], list[str]] = {}
    text: dict[tuple[int, str], str] = {}
    app = screen.app
    enter = getattr(screen, "HELP_ENTER", None)
    seen_actions = set()
    typing = False
    for _key, active in screen.active_bindings.items():
        b = active.binding
        action = b.action.rsplit(".", 1)[-1]  # `app.focus_next`: the action, not its namespace
        if isinstance(active.node, Input) and action in _EDITING:
            typing = True
            continue
        if (b.system and action not in ("command_palette", "quit")) or action in _NOISE:
            continue
        # keys of one group that say the same (shift+↑ / shift+↓: "scroll the pane") share a row
        ident = (
            id(active.node),
            f"{b.group.description}\0{b.tooltip}" if b.group and b.tooltip else b.action,
        )
        display = b.key_display or app.get_key_display(b)
        rows.setdefault(ident, [])
        if display not in rows[ident]:
            rows[ident].append(display)
        text[ident] = b.tooltip or b.description or b.action
        if action in _SELECT and enter:
            text[ident] = enter
        if action == "submit":
            text[ident] = getattr(screen, "HELP_SUBMIT", text[ident])
        seen_actions.add(b.action)
    out = [(" ".join(keys), text[ident]) for ident, keys in rows.items()]
    return [TYPING] * typing + out + _later_rows(screen, seen_actions) + _triage_rows(screen, seen_actions)


def _later_rows(screen: Screen, listed: set[str]) -> list[tuple[str, str]]:
    """A screen's keys that work only in another of its states (HELP_LATER: action -> when,
    the supersede chooser's `y` once a fact is previewed), listed with when they work."""
    later: dict[str, str] = getattr(screen, "HELP_LATER", {})
    return [
        (b.key_display or screen.app.get_key_display(b), f"{b.tooltip or b.description} ({later[b.action]})")
        for b in getattr(screen, "BINDINGS", ())
        if isinstance(b, Binding) and b.action in later and b.action not in listed
    ]


def _triage_rows(screen: Screen, listed: set[str]) -> list[tuple[str, str]]:
    """The triage keys a view of a fact offers but did not list (none highlighted yet).
    Not on a modal view (the supersede chooser: the app's keys do not reach it), nor while
    a text box has the focus (the path view's id: the letters are typed)."""
    from synapse_tui.ui.screens.base import FactScreen
    from synapse_tui.ui.triage_actions import TRIAGE_BINDINGS

    if (
        not isinstance(screen, FactScreen)
        or isinstance(screen, ModalScreen)
        or isinstance(screen.focused, Input)
    ):
        return []
    return [
        (b.key_display or screen.app.get_key_display(b), f"{b.tooltip} (on the highlighted row's fact)")
        for b in TRIAGE_BINDINGS
        if b.action not in listed and b.action not in ("triage('undo')", "triage('redo')")
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


class HelpScreen(ScrolledModalScreen):
    """Its Footer names what works here (close, scroll), not the keys of the screen
    underneath, which do nothing while help is open."""

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
        with VerticalScroll(id="help-box", classes="scrolled", can_focus=False) as box:
            box.border_title = self.title_text
            box.border_subtitle = "escape closes · ctrl+p finds every command"
            lacking = withheld(self.app.store)
            if lacking:  # an agent's role on a server: why its keys are dimmed, read first
                yield Static(Text(clean(f"NOT FOR THIS LOGIN  (role {login(self.app.store)})"), style="bold"))
                for move, why in lacking.items():
                    yield Static(Text(clean(f"{move}: {why}")))
                yield Static("")
            yield Static(table)
            yield Static(Text("\nLEGEND  (L shows it alone)", style="bold"), id="help-legend-title")
            yield Static(legend_text(self.app, tuple(self.app.config.bands.edges)), id="help-legend")
            yield Static(Text("\n" + SEARCH_HINT, style="italic"))
