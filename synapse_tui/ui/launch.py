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
    missing = no_terminal()
    if missing is not None:
        store.close()
        _refuse(missing)
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


def no_terminal() -> str | None:
    """Why the browser could not be used here, or None: it reads its keys from stdin and
    Textual draws its screen on stderr (stdout on Windows). With either not a terminal
    (`echo | synapse-tui`, `ssh host synapse-tui` without -t, `synapse-tui 2> log`) it
    would wait for keys it can never read, or draw into a file while the terminal stays
    blank. A driver named in TEXTUAL_DRIVER (textual-serve's) brings its own streams."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return None
    stdin = sys.__stdin__
    if stdin is None or not stdin.isatty():
        return "its keys come from stdin, which is not a terminal (a pipe, a file, or ssh without -t)"
    name, screen = ("stdout", sys.__stdout__) if sys.platform == "win32" else ("stderr", sys.__stderr__)
    if screen is None or not screen.isatty():
        return f"it draws on {name}, which is not a terminal (redirected to a file or a pipe)"
    return None


def _refuse(missing: str) -> None:
    """One `error:` line and exit status 2; on stdout as well when stderr is the stream
    redirected, so that the person at the terminal reads it too."""
    line = (
        f"error: the browser needs a terminal: {missing}; run it in one, or read the store"
        " as text with `synapse-tui score DB` (or `show DB FACT_ID`)"
    )
    print(line, file=sys.stderr)
    stdout = sys.__stdout__
    if stdout is not None and stdout.isatty() and not (sys.__stderr__ and sys.__stderr__.isatty()):
        print(line, file=stdout)
    raise SystemExit(2)


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
