"""What a store was imported from (SPEC 9, issue 24): `synapse-tui sync DB` runs them again.

Each `import --from` that lands records its source in `meta` (key `import.sources`, a JSON
list): the system, the source's absolute path (None when only a reader option named the
files, such as Claude Code's `--project`), and the options it was read with. A source is
recorded once; an import that changes nothing writes nothing, this record included.
`sync_recorded` runs them all again, for the browser's "Sync sources".
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.location import is_server
from synapse_tui.core.ingest.adapters import known_facts, reader
from synapse_tui.core.ingest.adapters.sync import SyncResult, sync_snapshot
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.errors import describe

KEY = "import.sources"


def recorded(store: Store) -> list[dict[str, Any]]:
    """The sources recorded in the store, in the order they were first imported."""
    value = store.meta(KEY)
    return (
        [s for s in value if isinstance(s, dict) and isinstance(s.get("system"), str)]
        if isinstance(value, list)
        else []
    )


def remember(store: Store, system: str, source: str | None, **options: str | None) -> bool:
    """Record a source (its options without the unset ones); whether it was new."""
    entry: dict[str, Any] = {"system": system, "source": source}
    entry.update({k: v for k, v in sorted(options.items()) if v is not None})
    have = recorded(store)
    if entry in have:
        return False
    store.set_meta(KEY, [*have, entry])
    return True


def sync_recorded(db: str | Path, config: Config) -> list[tuple[dict[str, Any], SyncResult | str]]:
    """Import again every source recorded in the store at `db`, each on a connection of its
    own (a browser open on the store sees the writes as another writer's). Each source's
    result, or what went wrong with it: one failing source does not stop the others."""
    with Store.open(db, readonly=True) as store:
        entries = recorded(store)
    out: list[tuple[dict[str, Any], SyncResult | str]] = []
    for entry in entries:
        try:
            out.append((entry, sync_entry(db, entry, config)))
        except SynapseError as exc:
            out.append((entry, describe(exc)))
    return out


def sync_entry(db: str | Path, entry: dict[str, Any], config: Config) -> SyncResult:
    """One recorded source, read and synced as `import --from` does."""
    module = reader(entry["system"])
    takes = inspect.signature(module.read).parameters
    options: dict[str, Any] = {
        k: Path(v) if k in ("project", "vectors") else v
        for k, v in entry.items()
        if k not in ("system", "source") and k in takes
    }
    named = entry.get("source")
    source = (named if is_server(named) else Path(named)) if isinstance(named, str) else None
    with Store.open(db) as store:
        if "known" in takes:
            options["known"] = known_facts(store, entry["system"])
        snapshot = module.read(source, **options)
        result = sync_snapshot(store, snapshot, config)
        store.warm(config)
    return result
