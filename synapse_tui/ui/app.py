"""The Textual app: one factory for the CLI and the tests, `SynapseApp(store, config, clock)`."""

from __future__ import annotations

import threading

import numpy as np
from textual.app import App
from textual.binding import Binding

from ..core.clock import Clock
from ..core.config import Config
from ..core.memory import Memory
from ..core.store import Store
from .commands import SynapseCommands
from .messages import MemoryLoaded
from .screens.main import MainScreen


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

    def load_suspect(self, memory: Memory) -> np.ndarray | None:
        """Duplicates, near-duplicates and unsupported claims (the junk detectors).

        Returns None when the detectors are unavailable; `suspect_reasons` says why each
        suspect fact is there."""
        try:
            from ..core import junk
        except ImportError:
            return None
        reasons: dict[int, str] = {}
        conn = self.store.conn
        try:
            for group in junk.exact_duplicates(conn):
                for fid in group:
                    others = ", ".join(g for g in group if g != fid)
                    reasons[memory.index[fid]] = f"exact duplicate of {others}"
            try:
                clusters = junk.near_duplicate_clusters(conn, memory.config)
            except Exception:  # no graph tables yet
                clusters = []
            for group in clusters:
                for fid in group:
                    i = memory.index[fid]
                    if i not in reasons:
                        others = ", ".join(g for g in group if g != fid)
                        reasons[i] = f"near-duplicate of {others}"
            for fid in junk.unsupported_claims(conn, memory.config, memory.scores.now):
                i = memory.index[fid]
                reasons.setdefault(
                    i,
                    f"unsupported: auto, never corroborated, older than "
                    f"{memory.config.graph.unsupported_age_days:g} days",
                )
        except Exception:
            return None
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
