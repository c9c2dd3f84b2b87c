"""`synapse-tui sync DB [--watch]`: run again every source the store was imported from.

Each `import --from` records its source in the store (core/ingest/sources.py); `sync` reads
them back and imports each again, which is a sync (SPEC 9): only what is new arrives, and
a sync with nothing new writes nothing. `--watch` then keeps doing so as the sources
change, for a browser left open beside a working agent: changes are debounced (an agent
saving ten files in a burst is one sync), and a source that fails is reported and watched
on, so one bad save never stops the watch.

A store's recorded sources are data, so `sync` reads only those this user trusts for this
store (core/ingest/sources.py): recorded by their own `import --from` here, or confirmed.
Any other is listed and asked about (`--yes` confirms them for a script); with no answer
to read (no stdin) nothing is synced and one line says why.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click

from synapse_tui.cli.commands import main
from synapse_tui.cli.common import FilePath, config_option, json_option, now_option, resolve_config, say
from synapse_tui.cli.import_from import import_from
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import StoreError, SynapseError
from synapse_tui.core.base.limits import counted
from synapse_tui.core.base.location import is_server, locate
from synapse_tui.core.ingest.sources import (
    CONFIRMED,
    RECORDED,
    checked,
    describe_entry,
    split_by_trust,
    trust,
)
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.errors import describe
from synapse_tui.core.store.postgres.connect import no_ambient_secrets

DEBOUNCE_MS = 1_000  # an agent's burst of saves (a MEMORY.md and its topic file) is one sync


@main.command("sync")
@click.argument("db", type=FilePath())
@click.option("--watch", is_flag=True, help="Keep syncing as the sources change (Ctrl-C stops).")
@click.option(
    "--yes",
    is_flag=True,
    help="Read the recorded sources you have not recorded or confirmed here without asking (scripts).",
)
@now_option
@json_option
@config_option
def sync_cmd(
    db: str, watch: bool, yes: bool, now: str | None, as_json: bool, config_path: str | None
) -> None:
    """Import again every source DB was imported from (`import --from`): what is new arrives,
    triage done here is kept. A source you did not record or confirm on this machine is
    listed and asked about first."""
    clock = Clock.from_option(now)  # SPEC 6: every command takes --now (a confirmation is dated by it)
    if watch:
        try:
            import watchfiles  # noqa: F401
        except ModuleNotFoundError:
            raise SynapseError('sync --watch needs watchfiles: pip install "synapse-tui[watch]"') from None
    sources = sources_of(db)
    how = confirm_sources(db, sources, yes, clock)
    config = resolve_config(db, config_path)
    failed = 0
    for source in sources:
        try:
            sync_one(db, source, config, as_json, how[_key(source)])
        except StoreError:
            raise  # the store itself: every other source would fail alike
        except SynapseError as exc:
            if len(sources) == 1:
                raise
            failed += 1  # one source moved or broken: the others are synced all the same
            say(
                f"error: sync of {describe_entry(source)} failed, nothing read from it: {describe(exc)}",
                err=True,
            )
    if watch:
        say(f"watching {len(sources)} source(s) of {locate(db).shown}; Ctrl-C stops", err=True)
        watch_sources(db, sources, config, as_json)
    if failed:
        raise click.exceptions.Exit(2)


def sources_of(db: str) -> list[dict[str, Any]]:
    if not is_server(db) and not Path(db).exists():
        raise SynapseError(f"{db}: no such database")  # as every other command says
    with Store.open(db, readonly=True) as store:
        sources = checked(store)
    if not sources:
        raise SynapseError(
            f"{locate(db).shown} records no sources; import one first:"
            f" synapse-tui import --from SYSTEM SOURCE --db {locate(db).shown}"
        )
    return sources


def _key(source: dict[str, Any]) -> str:
    return json.dumps(source, sort_keys=True)


def confirm_sources(
    db: str, sources: list[dict[str, Any]], yes: bool, clock: Clock | None = None
) -> dict[str, str]:
    """How this user trusts each source (by `_key`), asking about the ones not recorded or
    confirmed here; refused (nothing synced) when they are not confirmed."""
    ok, unknown = split_by_trust(db, sources)
    how = {_key(e): h for e, h in ok}
    if not unknown:
        return how
    shown = locate(db).shown
    if not yes and not sys.stdin.isatty():  # no one to ask: one line, nothing read
        listed = "; ".join(describe_entry(e) for e in unknown[:3]) + ("; …" if len(unknown) > 3 else "")
        raise SynapseError(
            f"{shown} records {counted(len(unknown), 'source')} you have not recorded or confirmed on this"
            f" machine ({listed}): run sync in a terminal to confirm, or pass --yes; nothing synced"
        )
    if not yes:
        say(
            f"{shown} records {counted(len(unknown), 'source')} you have not recorded or confirmed on this"
            " machine; sync would read:",
            err=True,
        )
        for entry in unknown:
            say(f"  {describe_entry(entry)}", err=True)
        try:
            answer = click.confirm("read them into this store?", default=False, err=True)
        except click.Abort:
            answer = False
        if not answer:
            raise SynapseError(f"not confirmed: nothing synced from {shown}")
    trust(db, unknown, CONFIRMED, (clock or Clock.from_option(None)).now())
    how.update({_key(e): CONFIRMED for e in unknown})
    return how


def sync_one(db: str, source: dict[str, Any], config: Config, as_json: bool, how: str = CONFIRMED) -> None:
    own = {k: v for k, v in source.items() if k not in ("system", "source", "vectors")}
    server = isinstance(source.get("source"), str) and is_server(source["source"])
    with nullcontext() if how == RECORDED or not server else no_ambient_secrets():
        import_from(
            source["system"],
            source.get("source"),
            db,
            source.get("vectors"),
            config,
            as_json,
            record=False,
            **own,
        )


def watched(source: dict[str, Any]) -> list[Path]:
    """The files and folders a source reads."""
    return [Path(source[k]) for k in ("source", "project", "vectors") if isinstance(source.get(k), str)]


def watch_sources(
    db: str,
    sources: list[dict[str, Any]],
    config: Config,
    as_json: bool,
    stop: threading.Event | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    synced: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Sync each source again whenever its files change, until `stop` is set (or Ctrl-C).

    A file source is watched through its folder (SQLite writes beside it: `-wal`,
    `-journal`), keeping only changes to that file's names."""
    import watchfiles

    how = {_key(e): h for e, h in split_by_trust(db, sources)[0]}  # confirmed by the caller
    targets = [(s, watched(s)) for s in sources if _key(s) in how]
    roots = sorted({str(p if p.is_dir() else p.parent) for _, paths in targets for p in paths if p.exists()})

    def relevant(change: Any, path: str) -> bool:
        return any(path.startswith(str(p)) for _, paths in targets for p in paths)

    for changes in watchfiles.watch(
        *roots, watch_filter=relevant, debounce=debounce_ms, stop_event=stop, raise_interrupt=False
    ):
        changed = {path for _, path in changes}
        for source, paths in targets:
            if not any(c.startswith(str(p)) for c in changed for p in paths):
                continue
            try:
                sync_one(db, source, config, as_json, how[_key(source)])
            except SynapseError as exc:  # reported, and the watch goes on
                say(
                    f"warning: sync of {source['system']} {source.get('source')} failed: {describe(exc)}",
                    err=True,
                )
            if synced is not None:
                synced(source)
