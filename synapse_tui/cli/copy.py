"""`synapse-tui copy SRC DEST`: move a whole store between a file and a PostgreSQL server."""

from __future__ import annotations

import click

from synapse_tui.cli.commands import main
from synapse_tui.cli.common import progress_bar, say
from synapse_tui.core.base.config import config_path_for
from synapse_tui.core.store.postgres.location import locate
from synapse_tui.core.store.postgres.transfer import copy_store


@main.command("copy")
@click.argument("src")
@click.argument("dest")
def copy_cmd(src: str, dest: str) -> None:
    """Copy the store SRC into DEST, all of it or nothing.

    Either may be a file or a PostgreSQL server (postgresql://user@host/db, postgres://...,
    or service=NAME from pg_service.conf); DEST must be new or empty. Facts, events, the
    audit log, the graph and meta are kept, so `export` of both is the same. Keep passwords
    out of the command line: libpq reads them from ~/.pgpass or PGPASSFILE.
    """
    copied = copy_store(src, dest, progress=progress_bar("copying"))
    rows = sum(copied.rows.values())
    say(f"copied {copied.facts:,} facts ({rows:,} rows) from {copied.source} to {copied.dest}")
    source = locate(src)
    config = config_path_for(src) if not source.is_server else None
    if (
        config is not None
        and config.is_file()
        and (locate(dest).is_server or not config_path_for(dest).is_file())
    ):
        say(f"note: {config} (the config scoring {source.shown}) was not copied", err=True)
