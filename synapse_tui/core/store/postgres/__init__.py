"""A synapse-tui store on a PostgreSQL server (issue 25; docs/postgres.md).

Nothing here imports psycopg at module level: it is behind the `[postgres]` extra, and a
store that is a file never needs it. `location` tells a server from a file without it.
"""
