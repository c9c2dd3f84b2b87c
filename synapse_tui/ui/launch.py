"""What `synapse-tui DB` runs: open the store, build the app, report errors plainly."""

from __future__ import annotations

import sys

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import config_for
from synapse_tui.core.base.errors import SynapseError
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

    try:
        from synapse_tui.ui.prefs import prefs_path

        app = SynapseApp(store=store, config=config, clock=clock, prefs=prefs_path())
        app.run()
    finally:
        store.close()
    if app.return_code:
        raise SystemExit(app.return_code)
