"""The Textual app: one factory for the CLI and the tests, `SynapseApp(store, config, clock)`."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from textual.app import App
from textual.binding import Binding

from ..core.clock import Clock
from ..core.config import Config
from ..core.memory import Memory
from ..core.store import Store
from .commands import SynapseCommands
from .messages import MemoryLoaded, TriageDone, TriageFailed
from .screens.main import MainScreen


def unsupported_reason(config: Config) -> str:
    return f"unsupported: auto, never corroborated, older than {config.graph.unsupported_age_days:g} days"


class Turns:
    """Turns in call order: triage workers apply moves in the order the keys were pressed
    (the db lock alone serialises them, but not in order)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._issued = 0
        self._serving = 0

    def take(self) -> int:
        with self._cond:
            self._issued += 1
            return self._issued - 1

    @contextmanager
    def turn(self, ticket: int) -> Iterator[None]:
        with self._cond:
            # a turn whose worker never ran (app exiting) must not wedge the rest
            self._cond.wait_for(lambda: self._serving >= ticket, timeout=30)
        try:
            yield
        finally:
            with self._cond:
                self._serving = max(self._serving, ticket + 1)
                self._cond.notify_all()


class SynapseApp(App[None]):
    """Browse and triage an agent's memory, with every trust score explained."""

    CSS_PATH = ["tcss/app.tcss"]
    TITLE = "synapse-tui"
    COMMANDS = App.COMMANDS | {SynapseCommands}
    BINDINGS = [
        Binding("q", "quit", "quit", id="app.quit", tooltip="Quit"),
        Binding(
            "question_mark",
            "help",
            "help",
            key_display="?",
            id="app.help",
            tooltip="Help: every key and what it does",
        ),
    ]

    def __init__(self, *, store: Store, config: Config, clock: Clock, theme: str | None = None) -> None:
        super().__init__()
        self.store = store
        self.config = config
        self.clock = clock
        self.memory: Memory | None = None
        self.suspect: np.ndarray | None = None  # junk-detector mask
        self.suspect_reasons: dict[int, str] = {}
        self.as_of: float | None = None
        self.data_version: int | None = None
        # one sqlite connection, many threads: one user of it at a time
        self.db_lock = threading.RLock()
        self.triage_turns = Turns()
        if theme:
            self.theme = theme

    @property
    def now(self) -> float:
        """The instant every score is computed for: the as-of time, else the clock."""
        return self.as_of if self.as_of is not None else self.clock.now()

    def get_default_screen(self) -> MainScreen:
        return MainScreen()

    @property
    def main(self) -> MainScreen:
        """The browser's main screen (the bottom of the stack)."""
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("no main screen")

    def texts(self, positions: list[int]) -> list[str]:
        with self.db_lock:
            return self.store.texts(positions)

    def load_suspect(self, memory: Memory) -> np.ndarray:
        """Duplicates, near-duplicates and unsupported claims (the junk detectors);
        `suspect_reasons` says why each suspect fact is there."""
        from ..core import junk

        reasons: dict[int, str] = {}
        conn = self.store.conn
        for group in junk.exact_duplicates(conn):
            for fid in group:
                others = ", ".join(g for g in group if g != fid)
                reasons[memory.index[fid]] = f"exact duplicate of {others}"
        for group in junk.near_duplicate_clusters(conn, memory.config):
            for fid in group:
                others = ", ".join(g for g in group if g != fid)
                reasons.setdefault(memory.index[fid], f"near-duplicate of {others}")
        unsupported = junk.unsupported_mask(memory.arrays, memory.config, memory.scores.now)
        for i in np.flatnonzero(unsupported).tolist():
            reasons.setdefault(i, unsupported_reason(memory.config))
        self.suspect_reasons = reasons
        mask = np.zeros(len(memory), dtype=bool)
        mask[list(reasons)] = True
        return mask

    def reload(self, reason: str = "reload") -> None:
        """Re-read the store (after triage, or another process's commit) and rescore."""

        def work() -> None:
            with self.db_lock:
                self.memory.reload(self.now)
                self.suspect = self.load_suspect(self.memory)
                self.data_version = self.store.data_version()
            self.main.post_message(MemoryLoaded(reason))

        self.run_worker(work, thread=True, exclusive=True, group="rescore")

    def triage(
        self, move: str, fact_ids: list[str], target: str | None = None, *, from_marks: bool = False
    ) -> None:
        """Apply a triage move in a worker; the main screen gets TriageDone or TriageFailed.

        The cheap path: one transaction, then only the changed facts are re-read
        (`Memory.refresh`), so the row and the counts update within a frame or two even
        at 100,000 facts."""
        ticket = self.triage_turns.take()

        def work() -> None:
            with self.triage_turns.turn(ticket):
                message = self._triage_now(move, fact_ids, target, from_marks)
            self.main.post_message(message)

        self.run_worker(work, thread=True, group="triage", name=f"triage {move}")

    def _triage_now(
        self, move: str, fact_ids: list[str], target: str | None, from_marks: bool
    ) -> TriageDone | TriageFailed:
        from ..core.errors import SynapseError
        from ..core.triage import Triage
        from .triage_actions import describe

        with self.db_lock:
            memory = self.memory
            triage = Triage(self.store, self.clock)
            try:
                if move == "undo":
                    outcome = triage.undo()
                elif move == "redo":
                    outcome = triage.redo()
                else:
                    outcome = triage.apply(move, fact_ids, target)
            except SynapseError as exc:
                return TriageFailed(move, str(exc))
            before = memory.scores
            ids = list(dict.fromkeys(outcome.fact_ids))
            if self.store.count() != len(memory) or any(f not in memory.index for f in ids):
                # another process added facts since the last reload: read everything
                memory.reload()
                self.suspect = self.load_suspect(memory)
            else:
                memory.refresh(ids)
                self.patch_suspect(memory, [memory.index[f] for f in ids])
            notice = describe(outcome, ids, memory.index, before, memory.scores)
        return TriageDone(move, outcome, notice, from_marks)

    def patch_suspect(self, memory: Memory, positions: list[int]) -> None:
        """Triage can only change whether a fact is an unsupported claim (auto, never
        corroborated, old): re-check that for the facts it touched, not the whole store."""
        if self.suspect is None:
            return
        from ..core.junk import unsupported_mask

        unsupported = unsupported_mask(memory.arrays, memory.config, memory.scores.now)
        suspect, reasons = self.suspect.copy(), dict(self.suspect_reasons)
        for i in positions:
            reason = reasons.get(i)
            if reason is not None and not reason.startswith("unsupported"):
                continue  # a duplicate stays a duplicate
            if unsupported[i]:
                reasons[i] = unsupported_reason(memory.config)
                suspect[i] = True
            else:
                reasons.pop(i, None)
                suspect[i] = False
        self.suspect, self.suspect_reasons = suspect, reasons

    def poll_store(self) -> None:
        """Reload when another connection has committed (an agent writing meanwhile)."""
        if self.memory is None or not self.db_lock.acquire(blocking=False):
            return
        try:
            version = self.store.data_version()
        finally:
            self.db_lock.release()
        if self.data_version is not None and version != self.data_version:
            self.data_version = version
            self.reload("external")

    def rescore(self, reason: str) -> None:
        """Recompute every score for `self.now` in a worker; the main screen repaints."""

        def work() -> None:
            with self.db_lock:
                self.memory.rescore(self.now)
                self.suspect = self.load_suspect(self.memory)
            self.main.post_message(MemoryLoaded(reason))

        self.run_worker(work, thread=True, exclusive=True, group="rescore")

    def set_as_of(self, when: float | None) -> None:
        self.as_of = when
        self.rescore("as_of")
        if when is None:
            self.notify("back to now", timeout=2)

    def action_as_of(self) -> None:
        from .screens.as_of import AsOfScreen

        def chosen(when: float | str | None) -> None:
            if when == "now":
                if self.as_of is not None:
                    self.set_as_of(None)
            elif when is not None:
                self.set_as_of(float(when))

        self.push_screen(AsOfScreen(self.clock.now(), self.as_of), chosen)

    def action_calibrate(self) -> None:
        from .screens.calibration import CalibrationScreen

        if self.memory is not None:
            self.push_screen(CalibrationScreen())

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))
