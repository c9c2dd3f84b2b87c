"""A synapse-tui store on a PostgreSQL server (issue 25; docs/postgres.md).

Nothing here imports psycopg at module level: it is behind the `[postgres]` extra, and a
store that is a file never needs it. `location` tells a server from a file without it.

- location: a file or a server, and a server's location without its password
- connect: connections and a pool (psycopg 3), errors as one line, a connection the
  server ended found (`dropped`) and opened again as it was (`again`)
- schema: the SQLite tables as PostgreSQL DDL, versioned; is this database ours?
- server: open a store on a server (check, migrate)
- transfer: `copy` between any two stores
- live: LISTEN for the change log's notices and read what changed
- store: the PgStore, the file's SqliteStore's sibling (what differs is its own)
- dialect: `PostgresDialect` (the shared statements' server spellings) and the connection
  that runs them (placeholders, writes that wait for the next read, COPY)
- words: the FTS5 word index of a server's facts this process keeps, for word search
"""
