"""What every view that shows facts has: the fact the user sees, and a repaint when the
memory changes under it.

The app's triage keys act on `current_fact_id()` (the list's cursor, the open fact, the
highlighted row of a graph view or the session log); the app's `memory_change` reactive
(triage landed, another writer, as of, a new config, the clock caught up) is watched here,
so no view asks another whether it can repaint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from textual import events, getters, on
from textual.binding import Binding
from textual.containers import ScrollableContainer, VerticalScroll
from textual.screen import ModalScreen, Screen, ScreenResultType
from textual.widgets import DataTable, Footer, OptionList

if TYPE_CHECKING:  # the app imports the screens: for the type checker only, so no circle
    from synapse_tui.ui.app import SynapseApp


@dataclass(frozen=True, eq=False)
class MemoryChange:
    """What changed: `reason` (load, suspects, external, as_of, config, clock, triage); a
    triage's change also says which fact the cursor follows and which rows look different
    (`TriageResult.follow`, `.repaint`)."""

    serial: int  # every change is a new value, so the watchers always run
    reason: str
    follow: str | None = None
    repaint: np.ndarray | None = None


class SynapseScreen(Screen[ScreenResultType]):
    """A screen of this app: `self.app` typed as the `SynapseApp` it runs in (Textual's
    `getters.app`), so `self.app.browser` has its type. Declared for the type checker
    only: the app imports the screens, so the screens cannot import it back at runtime,
    and at runtime Textual's own `app` answers the same object."""

    if TYPE_CHECKING:
        app = getters.app(SynapseApp)


class SynapseModalScreen(ModalScreen[ScreenResultType]):
    """A modal screen of this app, `self.app` typed as in `SynapseScreen`.

    It has a Footer of its own, naming its keys: a modal screen's keys are its own (the
    app's and the screen's underneath do nothing while it is open), and the Footer of the
    screen underneath would otherwise still show through with keys that do nothing here."""

    if TYPE_CHECKING:
        app = getters.app(SynapseApp)

    @on(events.Mount)
    def _own_footer(self) -> None:
        if not self.query(Footer):
            self.mount(Footer(compact=True, show_command_palette=False))


SCROLL = Binding.Group("scroll", compact=True)
PAGE = Binding.Group("page")
PANE_SCROLL = Binding.Group("scroll", compact=True)  # the Footer's `⇧↑⇧↓ scroll`


def pane_bindings(owner: str, show: bool = True) -> list[Binding]:
    """shift+↑ / shift+↓: scroll the pane under (or beside) a list a line, while the list
    keeps the focus and its cursor (↑ ↓ move the cursor); the same keys on every screen
    with such a pane. The screen's `action_scroll_pane` scrolls the pane its
    `scrolled_pane` names; the keys, and the Footer's `⇧↑⇧↓ scroll`, are there only while
    that pane has more than it shows (`FactScreen.check_action`)."""
    return [
        Binding(
            f"shift+{how}",
            f"scroll_pane('{how}')",
            "scroll",
            key_display=shown,
            show=show,
            id=f"{owner}.pane_{how}",
            group=PANE_SCROLL,
            tooltip="Scroll the pane up / down a line (the list keeps its cursor)",
        )
        for how, shown in (("up", "⇧↑"), ("down", "⇧↓"))
    ]


def pane_overflows(box: ScrollableContainer | None) -> bool:
    """Whether a pane is shown and holds more than it shows: there is something to scroll."""
    return box is not None and box.display and box.max_scroll_y > 0


def scroll_hint(box: ScrollableContainer) -> str:
    """What a pane that scrolls says on its border: which way more is, and the key to it
    (nothing when it all shows)."""
    if box.max_scroll_y <= 0:
        return ""
    above, below = box.scroll_y > 0, box.scroll_y < box.max_scroll_y
    if above and below:
        return "⇧↑⇧↓ more above and below"
    return "⇧↓ more below" if below else "⇧↑ more above"


class ScrolledModalScreen(SynapseModalScreen[None]):
    """A box of text over the screen (help, the legend): its own keys close and scroll it,
    and its Footer says so. The box (`.scrolled`) takes no focus, so these keys are the
    screen's, the ones the Footer shows; a subclass adds its own keys for `close`."""

    BINDINGS = [
        Binding("escape", "close", "close", id="modal.close", tooltip="Close"),
        *(
            Binding(
                keys, f"scroll('{how}')", what, key_display=shown, id=f"modal.{how}", group=group, tooltip=tip
            )
            for keys, how, what, shown, group, tip in (
                ("up,k", "up", "scroll", "↑", SCROLL, "Scroll up a line"),
                ("down,j", "down", "scroll", "↓", SCROLL, "Scroll down a line"),
                ("pageup", "page_up", "page", "pgup", PAGE, "Scroll up a page"),
                ("pagedown", "page_down", "page", "pgdn", PAGE, "Scroll down a page"),
            )
        ),
        Binding("home", "scroll('home')", "top", show=False, id="modal.home", tooltip="Scroll to the top"),
        Binding("end", "scroll('end')", "end", show=False, id="modal.end", tooltip="Scroll to the end"),
    ]

    def action_scroll(self, how: str) -> None:
        box = self.query_one(".scrolled", ScrollableContainer)
        getattr(box, f"scroll_{how}")(animate=False)

    def action_close(self) -> None:
        self.dismiss()


class FactScreen(SynapseScreen[ScreenResultType]):
    """A view showing facts: it names the one under the cursor and repaints on change.

    `painted_fact` is the fact under the cursor as of the last repaint: a key typed ahead
    (`n` then `x` 20 ms later) finds the view's cursor on a fact not drawn yet, and the
    app refuses it (`TriageApp.shown_fact_id`) rather than act on a fact never seen."""

    painted_fact: str | None = None

    def current_fact_id(self) -> str | None:
        """The fact the triage keys act on (None: no fact under the cursor)."""
        return None

    def cursor_moved(self) -> None:
        """The cursor's fact changed: once the screen has repainted, it is on screen."""
        self.call_after_refresh(self._painted)

    def _painted(self) -> None:
        before, self.painted_fact = self.painted_fact, self.current_fact_id()
        if (before is None) != (self.painted_fact is None):
            # a fact came under the cursor (a queue found in a worker), or left: the
            # triage keys apply now, or no more, and the Footer says so
            self.refresh_bindings()

    def scrolled_pane(self) -> ScrollableContainer | None:
        """The pane shift+↑ / shift+↓ scroll (`pane_bindings`); None: the view has none."""
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "scroll_pane":
            # nothing to scroll (a short text, a tall terminal): no keys, no Footer hint
            return pane_overflows(self.scrolled_pane())
        return True

    @on(events.Mount)
    def _watch_memory(self) -> None:
        self.watch(self.app, "memory_change", self.memory_changed, init=False)
        pane = self.scrolled_pane()
        if pane is not None:
            # Textual sets it at each layout: the pane's text or size changed whether it
            # overflows, so whether its scroll keys apply, and the Footer says so
            self.watch(pane, "show_vertical_scrollbar", self._pane_overflow, init=False)
        self.cursor_moved()

    def _pane_overflow(self) -> None:
        self.refresh_bindings()

    @on(events.ScreenResume)
    def _resumed(self) -> None:
        self.cursor_moved()

    @on(DataTable.RowHighlighted)
    @on(OptionList.OptionHighlighted)
    def _row_moved(self) -> None:
        self.cursor_moved()

    def memory_changed(self, change: MemoryChange) -> None:
        """The view on top shows the new scores (the list repaints itself: `MainScreen`)."""
        if self.is_active:
            self.refresh_view()

    def refresh_view(self) -> None:
        """Repaint what the view shows from the browser's state as it is now."""


class PaneBox(VerticalScroll):
    """A pane under a list that scrolls (the queues' at 80x24): its top border says which
    way more is and the key to it (`scroll_hint`), as it scrolls by key or by wheel."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.show_hint()

    def watch_virtual_size(self) -> None:
        self.call_after_refresh(self.show_hint)

    def on_resize(self) -> None:
        self.call_after_refresh(self.show_hint)

    def show_hint(self) -> None:
        self.border_title = scroll_hint(self)
