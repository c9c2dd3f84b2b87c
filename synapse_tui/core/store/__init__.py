"""How a memory is kept: the SQLite store, its schema and migrations, the load cache."""
