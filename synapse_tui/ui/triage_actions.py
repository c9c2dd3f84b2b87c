"""Triage, from key to write and back, in one file.

A key (c x v a s ctrl+z ctrl+y, bound on the app so it works in every view; the session
log's `u` too) calls `action_triage`; it picks the fact the user sees (the list's cursor,
the open fact, the highlighted row of the neighbour, path or session log view) or the
marked facts, reserves them (`Browser.claim`: a second key
on a row that is about to change is refused, not applied twice), and starts a worker;
the worker calls `Browser.triage` (one audited transaction, rescoring what changed) and
posts `TriageLanded`; `on_triage_landed` installs the browser's next state and the app's
`memory_change` repaints the row, the counts, the pane and the view on top. If the store
fails under the write (a lock, a file or server gone), the worker's guard (ui/workers.py)
says "Not saved: corroborate f-1: why", and the facts are released with the list, the marks
and the undo stack as they were before the key.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from textual.app import App
from textual.binding import Binding
from textual.timer import Timer

from synapse_tui.core.base.limits import counted
from synapse_tui.core.browser import Browser, TriageResult
from synapse_tui.core.browser.triage import RESCORING
from synapse_tui.ui.messages import TriageLanded
from synapse_tui.ui.screens.base import FactScreen
from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.widgets.fact_list import FactList
from synapse_tui.ui.workers import run_store_worker

SLOW = 0.5  # seconds an undo or redo runs before its line says it is under way


@dataclass(eq=False)
class SlowLine:
    """An undo or redo in flight: whether its line shows yet, and its step so far."""

    move: str
    since: float  # monotonic seconds at the key
    shown: bool = False
    step: tuple[int, int, str] = (1, 3, "waiting for the store")
    timer: Timer | None = None


def triage_words(move: str, fact_ids: list[str], target: str | None) -> str:
    """A move as the user would name it: "supersede A -> B", "corroborate 3 facts", "undo"."""
    if move in ("undo", "redo") or not fact_ids:
        return move
    facts = fact_ids[0] if len(fact_ids) == 1 else counted(len(fact_ids), "fact")
    return f"{move} {facts} -> {target}" if target else f"{move} {facts}"


TRIAGE = Binding.Group("triage", compact=True)
UNDO = Binding.Group("undo", compact=True)

TRIAGE_BINDINGS = [
    Binding(
        "c",
        "triage('corroborate')",
        "corrob",
        id="triage.corroborate",
        group=TRIAGE,
        tooltip="Corroborate the fact shown: r + 1, and a reinforcement now (in the list: every marked fact, if any)",
    ),
    Binding(
        "x",
        "triage('contradict')",
        "contra",
        id="triage.contradict",
        group=TRIAGE,
        tooltip="Contradict the fact shown: s + 1 (in the list: every marked fact, if any)",
    ),
    Binding(
        "v",
        "triage('verify')",
        "verify",
        id="triage.verify",
        group=TRIAGE,
        tooltip="Verify the fact shown: a reinforcement now, checked and still holds (in the list: every marked fact, if any)",
    ),
    Binding(
        "a",
        "triage('accept')",
        "accept",
        id="triage.accept",
        group=TRIAGE,
        tooltip="Accept the fact shown: declared tier auto becomes human (in the list: every marked fact, if any)",
    ),
    Binding(
        "s",
        "triage('supersede')",
        "supersede",
        id="triage.supersede",
        group=TRIAGE,
        tooltip="Supersede the fact shown: choose the fact that replaces it (shows the blast radius first)",
    ),
    Binding(
        "ctrl+z",
        "triage('undo')",
        "undo",
        key_display="^z",
        id="triage.undo",
        group=UNDO,
        tooltip="Undo: the last triage action (again for the one before); survives a restart",
    ),
    Binding(
        "ctrl+y",
        "triage('redo')",
        "redo",
        key_display="^y",
        id="triage.redo",
        group=UNDO,
        tooltip="Redo: the triage action undone last (a new action forgets what was undone)",
    ),
]

BULK_MOVES = ("corroborate", "contradict", "verify", "accept")  # apply to every marked fact
CONFIRM_OVER = 20  # bulk actions on more facts than this ask first


class TriageApp(App[None]):
    """The app's triage: `browser` is the state owner, `main` the list screen."""

    browser: Browser

    @property
    def main(self) -> MainScreen:
        """The browser's main screen (the bottom of the stack)."""
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("no main screen")

    def poll_store(self) -> None:
        """Reload when another writer committed (the app's store workers)."""
        raise NotImplementedError

    def reload(self, reason: str = "external") -> None:
        """Read the store again in a worker (the app's)."""
        raise NotImplementedError

    def memory_changed(
        self, reason: str, follow: str | None = None, repaint: np.ndarray | None = None
    ) -> None:
        """Tell the views the memory changed (the app's `memory_change` reactive)."""
        raise NotImplementedError

    def shown_fact_id(self) -> str | None:
        """The fact the user sees in the current view."""
        screen = self.screen
        return screen.current_fact_id() if isinstance(screen, FactScreen) else None

    def selected_fact_id(self) -> str | None:
        """`shown_fact_id` for a key that acts on it: None, with a notice, when no fact is shown."""
        fact_id = self.shown_fact_id()
        if fact_id is None:
            self.notify("no fact selected", severity="warning", timeout=2)
        return fact_id

    def _bulk_held(self, move: str) -> bool:
        """While a bulk action runs (12,386 facts take seconds), every triage key waits:
        a second bulk, or an undo of what has not landed, would act on a state about to
        change; so while an undo or redo that says it is slow runs (`_slow_line`). True,
        with a notice, when `move` is held."""
        running = [ids for ids in self._bulk_cursor() if isinstance(ids, tuple)]
        slow = [line for line in self._slow_lines() if line.shown]
        if not running and not slow:
            return False
        what = (
            f"{counted(len(running[0]), 'fact')} are still being changed"
            if running
            else f"the {slow[0].move} is still running"
        )
        self.notify(
            f"{move}: held while {what}; press again once that lands",
            severity="warning",
            timeout=3,
            markup=False,
        )
        return True

    def _slow_lines(self) -> list[SlowLine]:
        """The undos and redos in flight, oldest first (they land in key order)."""
        if not hasattr(self, "_slow"):
            self._slow: list[SlowLine] = []
        return self._slow

    def _not_painted(self, fact_id: str) -> bool:
        """Whether `fact_id`, under the view's cursor, was not drawn yet (a key typed ahead
        of the screen): then nothing is done, and a notice says so."""
        screen = self.screen
        if not isinstance(screen, FactScreen) or screen.painted_fact == fact_id:
            return False
        self.notify(
            f"{fact_id} is not on screen yet: nothing done (press again once you see it)",
            severity="warning",
            timeout=3,
            markup=False,
        )
        return True

    def action_triage(self, move: str, expect: int | None = None) -> None:
        """`expect`: an undo that must revert that batch or nothing (the session log's)."""
        browser = self.browser
        refusal = browser.readonly_reason
        if refusal:
            self.notify(refusal, severity="warning", timeout=4, markup=False)
            return
        if browser.memory is None:
            return
        if self._bulk_held(move):
            return
        if move in ("undo", "redo"):
            self.start_triage(move, [], expect=expect)
            return
        main = self.main
        if move in BULK_MOVES and browser.marks and self.screen is main:
            ids = [browser.memory.ids[p] for p in sorted(browser.marks)]
            hidden = len(browser.marks - main.query_one(FactList).on_screen())
            if len(ids) <= CONFIRM_OVER and not hidden:
                self.start_triage(move, ids, from_marks=True)
                return
            from synapse_tui.ui.screens.confirm import ConfirmScreen

            def confirmed(yes: bool | None) -> None:
                if yes and not self._bulk_held(move):
                    self.start_triage(move, ids, from_marks=True)

            facts = counted(len(ids), "marked fact")
            unseen = f" ({hidden:,} not on screen)" if hidden else ""
            question = f"{move} {facts}{unseen}, as one action (ctrl+z undoes it)?"
            self.push_screen(ConfirmScreen(question), confirmed)
            return
        fact_id = self.selected_fact_id()
        if fact_id is None:
            return
        if self._not_painted(fact_id):
            return
        if move == "supersede":
            from synapse_tui.ui.screens.supersede import SupersedeScreen

            def chosen(new: str | None) -> None:
                if new:
                    self.start_triage("supersede", [fact_id], new)

            self.push_screen(SupersedeScreen(fact_id), chosen)
            return
        self.start_triage(move, [fact_id])

    def start_triage(
        self,
        move: str,
        fact_ids: list[str],
        target: str | None = None,
        *,
        from_marks: bool = False,
        expect: int | None = None,
    ) -> None:
        """Reserve the facts at the keypress, then apply the move in a worker, in key order."""
        browser = self.browser
        busy = browser.claim(fact_ids)
        if busy:
            self.notify(
                f"{busy[0]} is still being changed: wait for its row to update",
                severity="warning",
                timeout=2,
                markup=False,
            )
            return
        ticket = browser.turns.take()
        shown = None
        if from_marks:  # an undo of the bulk puts the cursor back here; keys wait meanwhile
            self._bulk_cursor()[tuple(fact_ids)] = self.main.current_fact_id()
            if len(fact_ids) > CONFIRM_OVER:  # seconds, at thousands: say it is under way
                self.notify(
                    f"{move} {counted(len(fact_ids), 'fact')}… (triage keys wait until it lands)",
                    timeout=2,
                    markup=False,
                )
                main = self.main
                main.bulk_started(f"{move} {counted(len(fact_ids), 'fact')}")

                def shown(step: int, steps: int, doing: str) -> None:  # from the worker
                    self.call_from_thread(main.bulk_progress, step, steps, doing)

        reached = [0]  # the step the move got to (`RESCORING`: its write is in the store)
        slow = None
        if move in ("undo", "redo"):  # an undo of a bulk takes as long: said once it is slow
            slow = SlowLine(move, time.monotonic())
            slow.timer = self.set_timer(SLOW, lambda: self._slow_shown(slow))
            self._slow_lines().append(slow)

        def progress(step: int, steps: int, doing: str) -> None:
            reached[0] = step
            if shown is not None:
                shown(step, steps, doing)
            if slow is not None:
                slow.step = (step, steps, doing)
                if slow.shown:
                    self.call_from_thread(self.main.bulk_progress, step, steps, doing)

        def work() -> None:
            result = browser.triage(
                move, fact_ids, target, from_marks=from_marks, ticket=ticket, expect=expect, progress=progress
            )
            self.post_message(TriageLanded(result))

        what = triage_words(move, fact_ids, target)

        def written() -> bool:
            return reached[0] >= RESCORING

        def headline() -> str:  # asked in the worker, once it failed
            return f"Saved, but not shown yet: {what}" if written() else f"Not saved: {what}"

        def failed(why: str) -> None:  # the main thread: as before the key, nothing claimed
            browser.install(
                TriageResult(move, None, "", error=why, from_marks=from_marks, fact_ids=tuple(fact_ids))
            )
            if slow is not None:
                self._slow_done(slow)
            if from_marks:
                self._bulk_cursor().pop(tuple(fact_ids), None)
                if len(fact_ids) > CONFIRM_OVER:
                    self.main.bulk_done()
            if written():  # the store has it: read it back
                self.reload("triage")

        run_store_worker(self, work, headline, group="triage", failed=failed, name=f"triage {move}")

    def _bulk_cursor(self) -> dict:
        """{the marked facts of a bulk in flight, or its batch once landed: the fact under
        the list's cursor when it was applied} (`undo` of a bulk goes back there)."""
        if not hasattr(self, "_bulk_cursors"):
            self._bulk_cursors: dict = {}
        return self._bulk_cursors

    def _slow_shown(self, slow: SlowLine) -> None:
        """An undo or redo still running after `SLOW` seconds: the bulk line says what,
        its step and for how long, and the triage keys wait until it lands."""
        if slow not in self._slow_lines():
            return  # landed meanwhile
        slow.shown = True
        main = self.main
        main.bulk_started(slow.move, since=slow.since)
        main.bulk_progress(*slow.step)

    def _slow_done(self, slow: SlowLine) -> None:
        if slow in self._slow_lines():
            self._slow_lines().remove(slow)
        if slow.timer is not None:
            slow.timer.stop()
        if slow.shown:
            self._bulk_line_done()

    def _bulk_line_done(self) -> None:
        """The bulk line's last step: the list repaints, then the line goes."""
        self.main.bulk_progress(3, 3, "repainting the list")
        self.call_after_refresh(self.main.bulk_done)

    def on_triage_landed(self, message: TriageLanded) -> None:
        result = message.result
        if result.move in ("undo", "redo") and self._slow_lines():
            self._slow_done(self._slow_lines()[0])
        if result.from_marks and len(result.fact_ids) > CONFIRM_OVER:
            self._bulk_line_done()
        self.browser.install(result)  # releases the facts claimed at the key
        cursors = self._bulk_cursor()
        started = cursors.pop(result.fact_ids, None) if result.from_marks else None
        if result.error:
            self.notify(result.error, title=f"{result.move}: nothing changed", severity="error", markup=False)
            self.poll_store()  # refused because a writer acted? show it
            return
        follow = result.follow
        if started is not None and result.outcome is not None:
            cursors[result.outcome.batch] = started
        elif result.move == "undo" and follow is None and result.state is not None and result.state.undone:
            follow = cursors.get(result.state.undone[-1])  # a bulk undone: back where it started
        # the list repaints the rows that look different, the view on top its fact
        self.memory_changed("triage", follow=follow, repaint=result.repaint)
        self.notify(result.notice, timeout=4, markup=False)
