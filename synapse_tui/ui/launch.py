"""What `synapse-tui DB` runs: open the store, build the app, report errors plainly."""

from __future__ import annotations

import asyncio
import os
import sys

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import config_for
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.store.db import Store


def launch(db: str, now: str | None = None, config_path: str | None = None) -> None:
    """Open the browser on `db`. A bad store, config or `--now` prints one line and
    exits with status 2, never a traceback."""
    try:
        clock = Clock.from_option(now)
        config = config_for(db, config_path)
        store = Store.open(db)
    except SynapseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    from synapse_tui.ui.app import SynapseApp

    app: SynapseApp | None = None
    runner = asyncio.Runner()  # asyncio.run, but its ending is ours: `_leave`
    try:
        from synapse_tui.ui.prefs import prefs_path

        app = SynapseApp(store=store, config=config, clock=clock, prefs=prefs_path())
        runner.run(app.run_async())
    finally:
        _leave(runner, app.return_code if app is not None else None)
        store.close()
    if app.return_code:
        raise SystemExit(app.return_code)


def _leave(runner: asyncio.Runner, code: int | None) -> None:
    """After the app has quit (its screen already restored, its quit having given the
    store work a moment to end: `action_quit`), end the loop as asyncio.run does. Work
    whose thread still runs waits on the store (another program's lock, a server that does
    not answer) and would keep the process for seconds or for ever (Python joins every
    worker thread before it exits, and a thread cannot be stopped): the process leaves
    without it, saying what it was. Nothing half-written stays: a write is one
    transaction, rolled back when its connection ends unfinished (SQLite at the next
    open, a server at once)."""
    from synapse_tui.ui.workers import unfinished

    left = unfinished()
    if left:
        lines = "".join(f"\n  {clean(said)}" for said in left)
        print(
            "synapse-tui: quit without waiting for the store, which had not answered (another"
            f" program holds its lock, or the server does not); nothing half-written stays in it:{lines}",
            file=sys.stderr,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code or 0)
    runner.close()
