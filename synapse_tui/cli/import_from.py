"""`import --from SYSTEM [SOURCE]`: read another memory system's files and sync the store.

Readers are found in the registry `core.ingest.adapters.READERS` (system -> module), so a
new adapter plugs in by adding its module there with `read(source) -> Snapshot` (and,
optionally, `default_source()` for a SOURCE-less call, a `progress` keyword, a `known`
keyword when the source keeps only its current state and the reader needs the facts already
imported from it, and options of its own such as `project` or `model`).
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from synapse_tui.cli.common import emit_json, progress_bar, say
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.location import is_server, locate
from synapse_tui.core.ingest.adapters import READERS, known_facts
from synapse_tui.core.ingest.adapters.sync import sync_snapshot
from synapse_tui.core.ingest.sources import RECORDED, entry_for, remember, trust
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.postgres.server import holds_store

SYSTEMS = READERS


def reader_module(system: str) -> ModuleType:
    if system not in SYSTEMS:
        raise SynapseError(f"--from {system}: unknown system; one of {', '.join(SYSTEMS)}")
    name = "synapse_tui.core.ingest.adapters." + SYSTEMS[system]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the adapter exists but a library it needs is missing
            raise
        raise SynapseError(f"--from {system}: not available in this version of synapse-tui") from None


def after_a_second(label: str) -> Callable[[int, int], None] | None:
    """A progress bar that appears only once the work has taken a second (a terminal only)."""
    bar = progress_bar(label)
    if bar is None:
        return None
    start = time.monotonic()
    shown = False

    def update(done: int, total: int) -> None:
        nonlocal shown
        if shown or time.monotonic() - start >= 1.0:
            shown = True
            bar(done, total)

    return update


def import_from(
    system: str,
    source: str | None,
    db: str,
    vectors: str | None,
    config: Config,
    as_json: bool,
    record: bool = True,
    **own: str | None,
) -> None:
    """`own`: a reader's own options (`project`, `model`), None when not given. `record`:
    this user named the source here (`import --from`, not `sync`), so this machine's trust
    file says they recorded it (core/ingest/sources.py)."""
    module = reader_module(system)
    if vectors is not None and system != "mem0":
        raise SynapseError(f"--vectors applies only to --from mem0, not --from {system}")
    takes = inspect.signature(module.read).parameters
    options: dict[str, Any] = {}
    for name, value in own.items():
        if value is None:
            continue
        if name not in takes:
            raise SynapseError(f"--{name} does not apply to --from {system}")
        options[name] = Path(value) if name == "project" else value
    if source is None and "project" in options:
        source_path = None  # only the project's files
    elif source is None:
        default = getattr(module, "default_source", None)
        if default is None:
            needs = getattr(module, "NEEDS", "SOURCE (the files to read)")
            raise SynapseError(f"--from {system} needs {needs}")
        source_path = Path(default())
    elif is_server(source):
        source_path = None  # a database server (LangGraph's on PostgreSQL): no path to resolve
    else:
        source_path = Path(source)
    server = source is not None and source_path is None
    read_from = source if server else source_path
    if server:  # recorded without its password: `sync` then gets it from libpq (~/.pgpass)
        recorded = locate(source).shown
    else:
        recorded = None if source_path is None else str(source_path.resolve())
    # The source is read before the store is created: a refused source leaves no --db behind.
    if "known" in takes:
        options["known"] = []
        if holds_store(db) if is_server(db) else Path(db).exists():
            with Store.open(db) as store:
                options["known"] = known_facts(store, system)
    if vectors is not None:
        options["vectors"] = Path(vectors)
    if "progress" in takes:
        options["progress"] = after_a_second(f"reading {system}")
    snapshot = module.read(read_from, **options)
    with Store.open(db, create=True) as store:
        result = sync_snapshot(
            store,
            snapshot,
            config,
            progress=after_a_second("importing"),
            graph_progress=after_a_second("graph"),
        )
        store.warm(config)
        named = {
            k: str(Path(v).resolve()) if k in ("project", "vectors") else str(v)
            for k, v in options.items()
            if k in own or k == "vectors"
        }
        remember(store, system, recorded, **named)
    if record:
        trust(db, [entry_for(system, recorded, **named)], RECORDED, time.time())
    for warning in result.warnings:
        say(f"warning: {warning}", err=True)
    if as_json:
        emit_json({**result.to_json(), "db": locate(db).shown})
        return
    for line in result.left_out:
        say(f"left out: {line}", err=True)
    say(
        f"{system} {result.source} -> {locate(db).shown}: {result.added} added, {result.newly_deleted} newly deleted,"
        f" {result.reasserted} re-asserted, {result.unchanged} unchanged"
    )
