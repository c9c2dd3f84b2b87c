"""`synapse-tui sync DB [--watch]`: run again every source the store was imported from.

Each `import --from` records its source in the store (core/ingest/sources.py); `sync` reads
them back and imports each again, which is a sync (SPEC 9): only what is new arrives, and
a sync with nothing new writes nothing. `--watch` then keeps doing so as the sources
change, for a browser left open beside a working agent: changes are debounced (an agent
saving ten files in a burst is one sync), and a source that fails is reported and watched
on, so one bad save never stops the watch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from synapse_tui.cli.commands import main
from synapse_tui.cli.common import FilePath, config_option, json_option, resolve_config, say
from synapse_tui.cli.import_from import import_from
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.location import is_server, locate
from synapse_tui.core.ingest.sources import recorded
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.errors import describe

DEBOUNCE_MS = 1_000  # an agent's burst of saves (a MEMORY.md and its topic file) is one sync


@main.command("sync")
@click.argument("db", type=FilePath())
@click.option("--watch", is_flag=True, help="Keep syncing as the sources change (Ctrl-C stops).")
@json_option
@config_option
def sync_cmd(db: str, watch: bool, as_json: bool, config_path: str | None) -> None:
    """Import again every source DB was imported from (`import --from`): what is new arrives,
    triage done here is kept."""
    if watch:
        try:
            import watchfiles  # noqa: F401
        except ModuleNotFoundError:
            raise SynapseError('sync --watch needs watchfiles: pip install "synapse-tui[watch]"') from None
    sources = sources_of(db)
    config = resolve_config(db, config_path)
    for source in sources:
        sync_one(db, source, config, as_json)
    if watch:
        say(f"watching {len(sources)} source(s) of {locate(db).shown}; Ctrl-C stops", err=True)
        watch_sources(db, sources, config, as_json)


def sources_of(db: str) -> list[dict[str, Any]]:
    if not is_server(db) and not Path(db).exists():
        raise SynapseError(f"{db}: no such store")
    with Store.open(db, readonly=True) as store:
        sources = recorded(store)
    if not sources:
        raise SynapseError(
            f"{locate(db).shown} records no sources; import one first:"
            f" synapse-tui import --from SYSTEM SOURCE --db {locate(db).shown}"
        )
    return sources


def sync_one(db: str, source: dict[str, Any], config: Config, as_json: bool) -> None:
    own = {k: v for k, v in source.items() if k not in ("system", "source", "vectors")}
    import_from(source["system"], source.get("source"), db, source.get("vectors"), config, as_json, **own)


def watched(source: dict[str, Any]) -> list[Path]:
    """The files and folders a source reads."""
    return [Path(source[k]) for k in ("source", "project", "vectors") if isinstance(source.get(k), str)]


def watch_sources(
    db: str,
    sources: list[dict[str, Any]],
    config: Config,
    as_json: bool,
    stop: threading.Event | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    synced: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Sync each source again whenever its files change, until `stop` is set (or Ctrl-C).

    A file source is watched through its folder (SQLite writes beside it: `-wal`,
    `-journal`), keeping only changes to that file's names."""
    import watchfiles

    targets = [(s, watched(s)) for s in sources]
    roots = sorted({str(p if p.is_dir() else p.parent) for _, paths in targets for p in paths if p.exists()})

    def relevant(change: Any, path: str) -> bool:
        return any(path.startswith(str(p)) for _, paths in targets for p in paths)

    for changes in watchfiles.watch(
        *roots, watch_filter=relevant, debounce=debounce_ms, stop_event=stop, raise_interrupt=False
    ):
        changed = {path for _, path in changes}
        for source, paths in targets:
            if not any(c.startswith(str(p)) for c in changed for p in paths):
                continue
            try:
                sync_one(db, source, config, as_json)
            except SynapseError as exc:  # reported, and the watch goes on
                say(
                    f"warning: sync of {source['system']} {source.get('source')} failed: {describe(exc)}",
                    err=True,
                )
            if synced is not None:
                synced(source)
