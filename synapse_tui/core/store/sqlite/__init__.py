"""A synapse-tui store in a SQLite file (the default backend; api.py says what a store is).

- store: the `SqliteStore`: opening, health, transactions and snapshots, PRAGMAs
- load: the bulk load's scan and the load cache beside a large store
- fts: the word index's token counts (FTS5's docsize), for words.py
"""
