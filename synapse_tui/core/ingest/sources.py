"""What a store was imported from (SPEC 9, issue 24): `synapse-tui sync DB` runs them again.

Each `import --from` that lands records its source in `meta` (key `import.sources`, a JSON
list): the system, the source's absolute path (None when only a reader option named the
files, such as Claude Code's `--project`), and the options it was read with. A source is
recorded once; an import that changes nothing writes nothing, this record included.
"""

from __future__ import annotations

from typing import Any

from synapse_tui.core.store.db import Store

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
