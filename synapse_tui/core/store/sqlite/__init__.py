"""A synapse-tui store in a SQLite file (the default backend; api.py says what a store is).

- store: the `SqliteStore`: opening, health, transactions and snapshots, PRAGMAs
- load: the bulk load's scan and the load cache beside a large store
- parts: the components' reads only SQLite words its way (`SqliteAudit`, `SqliteImports`)

Its word search is a `WordIndex` (core/store/words.py) over its FTS5 table.
"""
