"""The pilot's store (tests/ui) on a server, for the browser's tests there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from synapse_tui.core.base.config import Config, load_config
from tests.helpers import run
from tests.ui.helpers import build_store


def ui_store_on_server(folder: Path, new_database: Callable[[], str]) -> tuple[Path, str, Config]:
    """(the pilot's store built in `folder`, its copy on a new database, its config)."""
    db = build_store(folder)
    url = new_database()
    run("copy", db, url)
    return db, url, load_config(db.with_name("memory.synapse.toml"))
