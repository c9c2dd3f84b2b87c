"""The names callers have long imported from `core.store.db`, from where they live now.

The store is the abstract `Store` (api.py); a file's is the `SqliteStore` (sqlite/), a
server's the `PgStore` (postgres/); the statements they share are `SqlStore`'s (sql.py) and
the typed rows they answer with are in ops.py. New code imports from those modules.
"""

from synapse_tui.core.store.api import Store
from synapse_tui.core.store.ops import FactDetail, FactRecord, WordHits
from synapse_tui.core.store.sql import INVALIDATED_AT
from synapse_tui.core.store.sqlite.store import SqliteStore, holds_facts

__all__ = ["INVALIDATED_AT", "FactDetail", "FactRecord", "SqliteStore", "Store", "WordHits", "holds_facts"]
