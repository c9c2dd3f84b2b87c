"""`synapse-tui copy SRC DEST`: move a whole store between a file and a PostgreSQL server."""

from __future__ import annotations

import click

from synapse_tui.cli.commands import main
from synapse_tui.cli.common import emit_json, json_option, now_option, progress_bar, say
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import config_path_for
from synapse_tui.core.base.limits import counted
from synapse_tui.core.base.location import locate
from synapse_tui.core.store.postgres.transfer import copy_store


@main.command("copy")
@click.argument("src")
@click.argument("dest")
@now_option
@json_option
def copy_cmd(src: str, dest: str, now: str | None, as_json: bool) -> None:
    """Copy the store SRC into DEST, all of it or nothing.

    Either may be a file or a PostgreSQL server (postgresql://user@host/db, postgres://...,
    or service=NAME from pg_service.conf); DEST must be new or empty. Facts, events, the
    audit log, the graph and meta are kept, so `export` of both is the same. Keep passwords
    out of the command line: libpq reads them from ~/.pgpass or PGPASSFILE.
    """
    Clock.from_option(now)  # SPEC 6: every command takes --now; a copy keeps every time as it was
    copied = copy_store(src, dest, progress=progress_bar("copying"))
    rows = sum(copied.rows.values())
    if as_json:
        emit_json({"facts": copied.facts, "rows": rows, "from": copied.source, "to": copied.dest})
    else:
        say(
            f"copied {counted(copied.facts, 'fact')} ({counted(rows, 'row')}) from {copied.source}"
            f" to {copied.dest}"
        )
    config, beside_dest = config_path_for(src), config_path_for(dest)
    if config is not None and config.is_file() and (beside_dest is None or not beside_dest.is_file()):
        say(f"note: {config} (the config scoring {locate(src).shown}) was not copied", err=True)
