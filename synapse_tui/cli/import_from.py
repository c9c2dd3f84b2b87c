"""`import --from SYSTEM [SOURCE]`: read another memory system's files and sync the store.

The work is `core.ingest.sources.import_source`, the one import pipeline (`sync` and the
browser's "Sync sources" run it too); this module adds the progress bars and the report.
Readers are found in the registry `core.ingest.adapters.READERS` (system -> module), so a
new adapter plugs in by adding its module there with `read(source) -> Snapshot` (and,
optionally, `default_source()` for a SOURCE-less call, a `progress` keyword, a `known`
keyword when the source keeps only its current state and the reader needs the facts already
imported from it, and options of its own such as `project` or `model`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from synapse_tui.cli.common import emit_json, progress_bar, say
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.location import locate
from synapse_tui.core.ingest.sources import import_source


def after_a_second(label: str) -> Callable[[int, int], None] | None:
    """A progress bar that appears only once the work has taken a second (a terminal only)."""
    bar = progress_bar(label)
    if bar is None:
        return None
    start = time.monotonic()
    shown = False

    def update(done: int, total: int) -> None:
        nonlocal shown
        if shown or time.monotonic() - start >= 1.0:
            shown = True
            bar(done, total)

    return update


def import_from(
    system: str,
    source: str | None,
    db: str,
    vectors: str | None,
    config: Config,
    as_json: bool,
    record: bool = True,
    **own: str | None,
) -> None:
    """`own`: a reader's own options (`project`, `model`), None when not given. `record`:
    this user named the source here (`import --from`, not `sync`), so this machine's trust
    file says they recorded it (core/ingest/sources.py)."""
    result = import_source(
        system, source, db, config, vectors=vectors, record=record, progress=after_a_second, **own
    ).result
    if (
        record  # said once, when named here, not at every sync
        and system == "claude-code"
        and source is not None
        and not (Path(source).expanduser() / "projects").is_dir()
    ):
        hint = (
            f"; for a project's instructions use --project {source}"
            if own.get("project") is None
            else " (no auto memory of the project is read from it)"
        )
        say(
            f"note: {source} has no projects/ folder, so only its CLAUDE.md is read as your user"
            f" instructions{hint}",
            err=True,
        )
    for warning in result.warnings:
        say(f"warning: {warning}", err=True)
    if as_json:
        emit_json({**result.to_json(), "db": locate(db).shown})
        return
    for line in result.left_out_said():
        say(f"left out: {line}", err=True)
    # the four counts every sync says, then what only some syncs do, each when it happened
    more = [
        (result.restored, "back at the source (no longer deleted)"),
        (result.invalidated, "invalidated at the source"),
        (result.valid_again, "valid again at the source (no longer invalidated)"),
        (result.accepted, "now tier human"),
    ]
    say(
        f"{system} {result.source} -> {locate(db).shown}: {result.added} added, {result.newly_deleted} newly deleted,"
        f" {result.reasserted} re-asserted, {result.unchanged} unchanged"
        + "".join(f", {n} {what}" for n, what in more if n)
    )
