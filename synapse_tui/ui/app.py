"""The Textual app: one factory for the CLI and the tests, `SynapseApp(store, config, clock)`.

The app holds the headless `Browser` (core/browser/), which owns every piece of state;
the app's workers call it and post typed messages back; screens paint what it returns.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from rich.text import Text
from textual import events
from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import ModalScreen
from textual.theme import Theme

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config, non_defaults
from synapse_tui.core.base.textsafe import clean, clean_block
from synapse_tui.core.browser import Browser, Loaded
from synapse_tui.core.browser.triage import login, refusal, withheld
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from synapse_tui.ui.messages import MemoryLoaded
from synapse_tui.ui.prefs import read_prefs, write_pref
from synapse_tui.ui.screens.base import FactScreen, MemoryChange
from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.screens.nav import CursorTo, MarksChanged, OpenFact
from synapse_tui.ui.triage_actions import TRIAGE_BINDINGS, TriageApp
from synapse_tui.ui.workers import QUIT_WAIT_S, WorkFailed, reason_of, run_store_worker, tell_failure

if TYPE_CHECKING:
    from synapse_tui.ui.palette import Command

LISTEN_WAKE_S = 0.25  # how often the listener worker looks up to see whether the app quits
RETRY_NOTICE_S = 0.1  # a notice that found the store busy (a load, an action) asks again
POLL_FAILED = "Could not check the store for changes"

# the triage keys that act on the fact under the cursor (not undo / redo, which act on the log)
FACT_KEYS = frozenset(
    key.strip()
    for b in TRIAGE_BINDINGS
    if b.action not in ("triage('undo')", "triage('redo')")
    for key in b.key.split(",")
)


class StoreChanged(Message):
    """Another writer's change notice arrived (a store on a server: `_listen`)."""


@dataclass
class StorePolled(Message):
    """The poll's check came back (`poll_store`): whether another writer committed, or
    the store's failure that kept it from saying."""

    changed: bool
    error: Exception | None = None


class SynapseCommands(Provider):
    """The command palette (ctrl+p): queues, sorts, views, as-of and triage by name (Quit,
    Keys and Theme come from Textual's own system commands: listed once)."""

    def _commands(self) -> list[Command]:
        from synapse_tui.ui.palette import commands_for  # built when the palette opens

        app = self.app
        assert isinstance(app, SynapseApp)  # only SynapseApp.COMMANDS names this provider
        return commands_for(app, self.screen)

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, text=title, help=help_text)


class SynapseApp(TriageApp):
    """Browse and triage an agent's memory, with every trust score explained."""

    # "the memory changed": the views watch it (`FactScreen`) and repaint
    memory_change: var[MemoryChange] = var(MemoryChange(0, "none"), init=False)

    CSS_PATH = ["tcss/app.tcss"]
    TITLE = "synapse-tui"
    COMMANDS = App.COMMANDS | {SynapseCommands}
    BINDINGS = [
        *TRIAGE_BINDINGS,
        Binding(
            "question_mark",
            "help",
            "help",
            key_display="?",
            id="app.help",
            tooltip="Help: every key and what it does, and what the colours mean",
        ),
        Binding(
            "l",
            "session_log",
            "log",
            show=False,  # in help and the palette: the Footer keeps its 80 columns
            id="app.session_log",
            tooltip="Session log: this session's triage by anyone, before -> after; jump to a fact, undo",
        ),
        Binding(
            "R",
            "replaced",
            "replaced?",
            show=False,  # in help and the palette: the Footer keeps its 80 columns
            id="app.replaced",
            tooltip=(
                "Replaced? queue: facts a newer fact probably replaces, best first, then facts"
                " naming a path the repository no longer has; y accepts, d dismisses"
            ),
        ),
        Binding(
            "B",
            "referents",
            "gone?",
            id="app.referents",
            tooltip="Gone? queue: facts naming a path the repository no longer has; y contradicts, d dismisses",
            show=False,  # in the palette and the help, not the footer (the footer has no room left)
        ),
        Binding(
            "L",
            "legend",
            "legend",
            show=False,
            id="app.legend",
            tooltip="Legend: what the band colours, strike-through, dim rows and flags mean",
        ),
        Binding(
            "ctrl+p",
            "command_palette",
            "cmds",
            show=False,
            priority=True,
            key_display="^p",
            id="app.palette",
            tooltip="Command palette: every action by name, calibration, as of",
        ),
        # q is in help and the palette; the Footer keeps its 80 columns for the rest
        Binding("q", "quit", "quit", show=False, id="app.quit", tooltip="Quit"),
        Binding(
            "y",
            "copy_id",
            "copy id",
            show=False,
            id="app.copy_id",
            tooltip="Copy the id of the fact shown to the clipboard (the terminal's, through OSC 52)",
        ),
    ]

    # a quit waiting for the store to answer (`action_quit`): what failed meanwhile
    _quitting: list[str] | None

    async def action_quit(self) -> None:
        """`q`, ctrl+q. The store work running or about to run (a key's write pressed just
        before) gets `QUIT_WAIT_S` to end; work still running then waits on the store
        (another program's lock): a notice says so, and the app quits when it has ended
        (a failure said on the way out), or at once on a second `q`, leaving it unfinished
        (the launcher says what: `workers.unfinished`). Nothing is dropped unasked."""
        if self._quitting is not None:  # q again: now
            self.exit()
            return
        deadline = time.monotonic() + QUIT_WAIT_S  # polled: awaiting a worker cancels it at the end
        while self._store_busy() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if not self._store_busy():
            self.exit()
            return
        self._quitting = []
        self.notify(
            "Quitting once the store answers: it is still busy (another program may hold its lock)."
            " q again quits now, without what has not finished",
            severity="warning",
            timeout=30,
        )
        self.set_interval(0.1, self._quit_when_done)

    def _store_busy(self) -> bool:
        return any(not w.is_finished for w in self.workers)

    def _quit_when_done(self) -> None:
        """A quit waiting on the store: leave once its work has ended, saying what failed."""
        if not self._store_busy() and self._quitting is not None:
            self.exit(message=Text("\n".join(self._quitting)) if self._quitting else None)

    def action_copy_id(self) -> None:
        """`y`: the whole id of the fact the user sees, to the clipboard (lazygit's, k9s's y)."""
        fact_id = self.selected_fact_id()
        if fact_id is None:
            return
        self.copy_to_clipboard(fact_id)
        self.notify(f"copied {fact_id}", timeout=2, markup=False)

    def __init__(
        self,
        *,
        store: Store,
        config: Config,
        clock: Clock,
        theme: str | None = None,
        prefs: Path | None = None,
    ) -> None:
        """`prefs`: the file the chosen theme is remembered in (the CLI passes the user's;
        tests pass none, or their own)."""
        super().__init__()
        self.browser = Browser(store, config, clock)
        self.store = store
        self.clock = clock
        self.prefs = prefs
        self._poll_failing: str | None = None  # why the last poll could not read the store
        self._poll_running = False  # a poll's check is under way (`poll_store`)
        self._poll_again = False  # a poll was asked for meanwhile: one more once it is back
        self._quitting = None
        remembered = read_prefs(prefs).get("theme") if prefs is not None else None
        theme = theme or remembered
        if theme and theme in self.available_themes:
            self.theme = theme

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notice through the one text-safety function, never as markup: a notice
        names actors, ids and errors another writer or a store chose (`markup` is ignored)."""
        super().notify(
            self._ids_fit(clean_block(str(message))),
            title=clean(str(title)),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def _ids_fit(self, message: str) -> str:
        """A fact id longer than a toast's line, shortened as the list shows it (`…c3d4`,
        which the search box and the CLI take): a toast folds a long word mid-word."""
        room = max(16, min(60, self.size.width // 2) - 4)  # Toast: width 60, max 50%, padding
        return self.ids_shown(message, room)

    def ids_shown(self, text: str, room: int) -> str:
        """`text` with each word longer than `room` that is a fact id (a `:,;)` after it
        kept) shortened as the list shows it (`shown_id`)."""
        if all(len(word) <= room for word in text.split()) or not self.screen_stack:
            return text

        def shorten(found: re.Match[str]) -> str:
            word = found.group(0)
            fact_id = word.rstrip(":,;)")
            return self.shown_id(fact_id, room) + word[len(fact_id) :]

        return re.sub(rf"\S{{{room + 1},}}", shorten, text)

    def shown_id(self, fact_id: str, room: int) -> str:
        """`fact_id` in `room` cells as the list's id column shows it (whole, a prefix, or
        `…` and the tail that tells it apart), for every view's id column: ids alike in
        their first 18 characters (`git-notes:memory-bank/...`) read alike cut at the end.
        Longer than `room` when the list would cut it at the end too (`fit` it)."""
        from synapse_tui.ui.widgets.fact_list import FactList

        facts = self.main.query(FactList) if self.screen_stack else None
        return facts.first().shown_id(fact_id, room) if facts else fact_id

    def on_mount(self) -> None:
        if self.prefs is not None:
            self.theme_changed_signal.subscribe(self, self._remember_theme)
        self._listen()

    def _remember_theme(self, theme: Theme) -> None:
        if self.prefs is not None:  # subscribed only then
            write_pref(self.prefs, "theme", theme.name)

    # what the views read (the browser owns it)
    @property
    def config(self) -> Config:
        return self.browser.config

    @property
    def memory(self) -> Memory | None:
        return self.browser.memory

    @property
    def db_lock(self) -> threading.RLock:
        return self.browser.lock

    @property
    def as_of(self) -> float | None:
        return self.browser.as_of

    def texts(self, positions: list[int]) -> list[str]:
        """Fact texts (reads the store: call from a worker)."""
        return self.browser.texts(positions)

    def get_default_screen(self) -> MainScreen:
        return MainScreen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "triage" and parameters and parameters[0] not in ("undo", "redo"):
            # views without a fact (calibration) do not offer the keys
            if isinstance(self.screen, ModalScreen) or self.shown_fact_id() is None:
                return False
            # a move this login may not make (an agent's role: accept) shows dimmed
            return None if parameters[0] in withheld(self.store) else True
        if action == "triage" and getattr(self.screen, "OWNS_UNDO", False):
            return False  # a view with its own undo (calibration: the config write) keeps ctrl+z
        if action in ("session_log", "legend", "replaced", "referents"):
            return not isinstance(self.screen, ModalScreen)
        if action in ("path", "copy_id"):  # on the fact shown: not where no view shows one (F)
            return isinstance(self.screen, FactScreen) and not isinstance(self.screen, ModalScreen)
        return True

    # -- workers: the store is read off the main thread --------------------------------
    def _in_worker(self, job: Callable[[], Loaded | None], reason: str, group: str = "rescore") -> None:
        """Run `job` (a `Browser` method returning its next state) in a thread; the main
        thread installs what it returns (`on_memory_loaded`). If the store fails under it
        (damage past the header check at open, a lock, I/O), the first load ends the app
        with the message (there is nothing to browse); any later one leaves the memory on
        screen as it was and says why (ui/workers.py)."""

        def work() -> None:
            self.post_message(MemoryLoaded(reason, job()))

        first = group == "load"
        headline = "Could not load the store" if first else f"Could not update the memory ({reason})"
        run_store_worker(
            self, work, headline, group=group, exclusive=True, failed=self._load_failed if first else None
        )

    def load(self) -> None:
        """Paint the list as soon as the scores are in; the duplicate detectors (a read
        of every text) fill the Suspect queue once the first page is on screen
        (`find_suspects`), so they do not compete with painting it."""
        self._in_worker(lambda: self.browser.load(duplicates=False), "load", group="load")

    def find_suspects(self) -> None:
        self._in_worker(self.browser.find_duplicates, "suspects", group="suspects")

    def reload(self, reason: str = "external") -> None:
        self._in_worker(self.browser.reload, reason)

    def poll_store(self) -> None:
        """Reload when another connection has committed (an agent writing meanwhile);
        otherwise bring every score up to the moving clock once triage has scored its own
        facts at a later instant, or a minute has passed (`Browser.clock_behind`). The
        check reads the store (a server's, over the network), so a worker makes it: a
        server that does not answer (a table locked by a migration, a network dropping
        the packets) keeps that worker waiting, never the keys. One check at a time: a
        poll asked for meanwhile runs once it is back (`on_store_polled`)."""
        if self._poll_running:
            self._poll_again = True
            return
        self._poll_running, self._poll_again = True, False

        def check() -> None:
            try:
                changed = self.browser.changed_elsewhere()  # once per change
            except Exception as exc:  # a server gone, a file gone: told once (`on_store_polled`)
                self.post_message(StorePolled(False, exc))
                return
            self.post_message(StorePolled(changed))

        run_store_worker(self, check, POLL_FAILED, group="poll", failed=self._poll_back)

    def on_store_polled(self, message: StorePolled) -> None:
        """The check came back: a failure is told as a worker's is, once, not every poll,
        and the browser goes on showing what it has; a change is read (`reload`)."""
        self._poll_back()
        if message.error is not None:
            said = reason_of(message.error, self.store.path)
            if said != self._poll_failing:
                self._poll_failing = said
                tell_failure(self, WorkFailed(POLL_FAILED, message.error), self.store.path)
        else:
            self._poll_failing = None
            if message.changed:
                self.reload("external")
            elif self.browser.clock_behind() and not any(
                w.group == "clock" and not w.is_finished for w in self.workers
            ):
                self._in_worker(self.browser.catch_up, "clock", group="clock")
        if self._poll_again:
            self.poll_store()

    def _poll_back(self, _why: str = "") -> None:
        """The poll's worker is done (its answer arrived, or it failed past its own catch)."""
        self._poll_running = False

    def _listen(self) -> None:
        """On a server, wait for another writer's change notice in a thread and post it
        (`on_store_changed`): the change is on screen within a second, where the poll
        takes up to its interval. A file has no notices; its poll stays how it notices.
        A daemon thread, not a worker (a worker that never finishes would keep the app
        from ever being idle); it wakes every LISTEN_WAKE_S to see whether the app quits
        (`on_unmount`), and if listening fails it ends quietly and the poll carries on."""
        listener = self.browser.listener()
        if listener is None:
            return
        stop = self._stop_listening = threading.Event()

        def work() -> None:
            with closing(listener):
                while not stop.is_set():
                    try:
                        changes = listener.wait(LISTEN_WAKE_S)
                    except Exception:  # noqa: BLE001 - never a traceback: the poll still runs
                        return
                    if changes is not None and not stop.is_set():
                        self.post_message(StoreChanged())

        threading.Thread(target=work, name="synapse-listen", daemon=True).start()

    def on_unmount(self) -> None:
        if (stop := getattr(self, "_stop_listening", None)) is not None:
            stop.set()

    def on_store_changed(self, _: StoreChanged) -> None:
        """Run what the poll runs; if a worker holds the store, ask again shortly (a
        notice the non-blocking check skipped would wait for the next poll)."""
        lock = self.browser.lock
        if not lock.acquire(blocking=False):
            self.set_timer(RETRY_NOTICE_S, lambda: self.post_message(StoreChanged()))
            return
        lock.release()
        self.poll_store()

    def set_as_of(self, when: float | None) -> None:
        self._in_worker(lambda: self.browser.set_as_of(when), "as_of")
        if when is None:
            self.notify("back to now", timeout=2)

    def set_config(self, config: Config) -> None:
        self._in_worker(lambda: self.browser.set_config(config), "config")

    # -- views ---------------------------------------------------------------------------
    def action_as_of(self) -> None:
        from synapse_tui.ui.screens.as_of import AsOfScreen

        def chosen(when: float | str | None) -> None:
            if when == "now":
                if self.as_of is not None:
                    self.set_as_of(None)
            elif when is not None:
                self.set_as_of(float(when))

        self.push_screen(AsOfScreen(self.clock.now(), self.as_of), chosen)

    def action_calibrate(self) -> None:
        from synapse_tui.ui.screens.calibration import CalibrationScreen

        if self.memory is not None:
            self.push_screen(CalibrationScreen())

    def action_command_palette(self) -> None:
        """The palette, with a Footer of its own keys (`KeysPalette`)."""
        from textual.command import CommandPalette

        from synapse_tui.ui.palette import KeysPalette

        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(KeysPalette(id="--command-palette"))

    def action_help(self) -> None:
        from synapse_tui.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_session_log(self) -> None:
        from synapse_tui.ui.screens.session_log import SessionLogScreen

        for screen in reversed(self.screen_stack):  # one log: back to it if it is open
            if isinstance(screen, SessionLogScreen):
                while self.screen is not screen:
                    self.pop_screen()
                return
        self.push_screen(SessionLogScreen())

    def action_replaced(self) -> None:
        from synapse_tui.ui.screens.replaced import ReplacedScreen

        if self.memory is not None and not isinstance(self.screen, ReplacedScreen):
            self.push_screen(ReplacedScreen())

    def action_referents(self) -> None:
        from synapse_tui.ui.screens.referent import ReferentScreen

        if self.memory is not None and not isinstance(self.screen, ReferentScreen):
            self.push_screen(ReferentScreen())

    def action_legend(self) -> None:
        from synapse_tui.ui.screens.legend import LegendScreen

        self.push_screen(LegendScreen())

    def action_path(self, from_marks: bool = False) -> None:
        """How is this connected to that? From the fact shown (the other one is typed), or
        between the two marked facts."""
        from synapse_tui.ui.screens.path import PathScreen

        if from_marks:
            marks = sorted(self.browser.marks)
            if len(marks) != 2 or self.memory is None:
                self.notify(f"mark exactly two facts (space): {len(marks)} marked", severity="warning")
                return
            a, b = (self.memory.ids[p] for p in marks)
            self.push_screen(PathScreen(a, b))
            return
        fact_id = self.selected_fact_id()
        if fact_id is None:
            return
        self.push_screen(PathScreen(fact_id))

    def subtitle(self) -> str:
        """Every view's subtitle: the store's name, the instant shown when as of, read-only,
        and the role when it may not make every move (a server's agent login)."""
        from synapse_tui.core.base.clock import format_time

        title = str(self.store.path.name)  # a server's: its location without the password
        if self.as_of is not None:
            title += f" · AS OF {format_time(self.as_of)}"
        if self.store.readonly or self.as_of is not None:
            title += " · read-only"
        elif lacking := withheld(self.store):  # first: a server's location is long
            title = f"role {login(self.store)}: no {', '.join(lacking)} · {title}"
        if non_defaults(self.config):  # the score is not the one SPEC documents: say so everywhere
            title += " · constants not the defaults"
        return clean(title)

    def on_key(self, event: events.Key) -> None:
        """A dimmed triage key (a move this login may not make) still says why when pressed;
        so does one help lists on a view of facts with none under the cursor (an empty log)."""
        active = self.screen.active_bindings.get(event.key)
        if active is None and event.key in FACT_KEYS and isinstance(self.screen, FactScreen):
            event.stop()
            self.selected_fact_id()  # None here: it says "no fact selected"
            return
        if active is None or active.enabled or not active.binding.action.startswith("triage("):
            return
        move = next((m for m in withheld(self.store) if active.binding.action == f"triage('{m}')"), None)
        if move is not None:
            event.stop()
            self.notify(
                refusal(self.store, None, move) or "",
                title=f"{move}: nothing changed",
                severity="warning",
                markup=False,
            )

    def _load_failed(self, why: str) -> None:
        self.exit(return_code=2, message=clean(f"error: {why}"))

    def on_work_failed(self, message: WorkFailed) -> None:
        """A worker's body raised: say so and keep running (ui/workers.py decides how)."""
        why = tell_failure(self, message, self.store.path)
        if self._quitting is not None:  # said again on the way out: the notice goes with the screen
            self._quitting.append(clean_block(f"{clean(message.headline)}: {why}"))

    def on_memory_loaded(self, message: MemoryLoaded) -> None:
        self.install(message.loaded, message.reason)

    def install(self, loaded: Loaded | None, reason: str) -> None:
        """A worker's new state becomes what every view shows (main thread only)."""
        self.browser.install(loaded)
        self.memory_changed(reason)

    def memory_changed(
        self, reason: str, follow: str | None = None, repaint: np.ndarray | None = None
    ) -> None:
        """The browser's memory changed under the views: the list repaints, then the view
        on top (watchers run in the order the views were mounted)."""
        self.memory_change = MemoryChange(self.memory_change.serial + 1, reason, follow, repaint)

    def on_cursor_to(self, message: CursorTo) -> None:
        self.main.go_to_fact(message.fact_id, leave=message.leave)

    def on_marks_changed(self, message: MarksChanged) -> None:
        self.main.marks_changed()

    def on_open_fact(self, message: OpenFact) -> None:
        """A view asked to open a fact: the list's cursor goes to it, its detail opens on top."""
        from synapse_tui.ui.screens.detail import DetailScreen

        main = self.main
        main.go_to_fact(message.fact_id)
        main.stay_on(message.fact_id)  # chosen to open: leaving the views lands on it
        self.push_screen(DetailScreen(message.fact_id))
