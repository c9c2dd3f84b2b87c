"""`synapse-tui embed DB`: real sentence embeddings for the facts that came without one.

Registered on the group from here (imported by `cli/__init__`), so the command lives
beside nothing else; torch is reached only when the command runs.
"""

from __future__ import annotations

from synapse_tui.cli.commands import main
from synapse_tui.cli.common import (
    config_option,
    db_argument,
    emit_json,
    json_option,
    now_option,
    progress_bar,
    resolve_config,
    say,
)
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.limits import counted
from synapse_tui.core.base.location import locate
from synapse_tui.core.store.db import Store


@main.command("embed")
@db_argument
@now_option
@json_option
@config_option
def embed_cmd(db: str, now: str | None, as_json: bool, config_path: str | None) -> None:
    """Embed the facts of DB that have no embedding with all-MiniLM-L6-v2 (needs [embed]).

    Facts that came with the source's own embeddings keep them; a store holding another
    model's embeddings is refused, so one store stays one space. The neighbour graph is
    updated afterwards.
    """
    from synapse_tui.core.graph import embed as embedder

    Clock.from_option(now)
    missing = embedder.missing_extra()
    if missing:
        raise SynapseError(f"embed needs the [embed] extra ({missing} is not installed): {embedder.INSTALL}")
    config = resolve_config(db, config_path)
    shown = locate(db).shown  # a server's location without its password
    with Store.open(db) as store:
        result = embedder.embed_store(store, config, progress_bar("embedding"), progress_bar("graph"))
    if as_json:
        emit_json(
            {
                "db": shown,
                "model": embedder.MODEL,
                "dim": embedder.DIM,
                "embedded": result.embedded,
                "replaced_lexical": result.replaced_lexical,
                "graph_updated": result.graph is not None and result.graph.changed,
            }
        )
    elif result.embedded:
        say(
            f"embedded {counted(result.embedded, 'fact')} of {shown} with {embedder.MODEL}"
            f" ({result.replaced_lexical} had only the built-in lexical embedding)"
        )
    elif result.graph is not None:
        say(
            f"every fact of {shown} already has a model embedding; the neighbour graph built on them"
            " was not up to date and now is"
        )
    else:
        say(f"every fact of {shown} already has a model embedding; nothing to do")
