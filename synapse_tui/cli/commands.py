"""The subcommands of SPEC section 6."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click
import numpy as np

from synapse_tui.cli.asof import as_of as past
from synapse_tui.cli.asof import as_of_option, when_said
from synapse_tui.cli.common import (
    STORE_ENV,
    TAKES_IDS,
    FilePath,
    SynapseGroup,
    config_option,
    db_argument,
    emit_json,
    json_option,
    nothing_left_if_refused,
    now_option,
    open_memory,
    progress_bar,
    resolve_config,
    resolve_id,
    say,
    say_row,
    store_id,
)
from synapse_tui.cli.render import print_explain, print_neighbours, print_score_table
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.errors import SynapseError, missing_fact
from synapse_tui.core.base.limits import counted
from synapse_tui.core.base.location import is_server, locate, refuse_server
from synapse_tui.core.ingest.interchange import (
    export_facts,
    import_facts,
    landed_facts,
    link_landed,
    parse_file,
    write_jsonl,
)
from synapse_tui.core.review import query as fq
from synapse_tui.core.review.memory import stream_rows
from synapse_tui.core.review.suggestions import add_flags, explained, of_memory, standing
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.row import LABELS, NUMBERS

JSON_CHUNK = 5_000  # rows per write of `score --json`
SORT_KEYS = (*NUMBERS, "age", "id")  # the score row's numbers, then the age and the id


@click.group(
    cls=SynapseGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(package_name="synapse-tui")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Browse and triage the memory of an AI agent.

    With no arguments, opens the store SYNAPSE_DB names (a file or a postgresql://
    location), else the bundled sample memory; `synapse-tui DB` opens a store. Every
    command's DB may be left out when SYNAPSE_DB names it.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(open_cmd, db=None)


@main.command("open")
@click.argument("db", required=False, type=FilePath())
@now_option
@config_option
def open_cmd(db: str | None, now: str | None = None, config_path: str | None = None) -> None:
    """Open the browser on DB (default: SYNAPSE_DB, else the bundled sample)."""
    from synapse_tui.ui.launch import launch

    if db is None:
        db = str(_sample_path())
    launch(db, now=now, config_path=config_path)


@main.command("import")
@click.argument("file", required=False, type=click.Path(), metavar="[FILE.jsonl | SOURCE]")
@click.option(
    "--db",
    required=True,
    type=FilePath(),
    envvar=STORE_ENV,
    show_envvar=True,
    help="Store to create or extend.",
)
@click.option(
    "--from",
    "system",
    metavar="SYSTEM",
    help="Read another memory system's own files instead: mem0, basic-memory, graphiti,"
    " claude-code, git-notes, langgraph, mcp-memory, codex, gemini-cli, openclaw, cursor,"
    " markdown."
    " Run again, it syncs: only what is new arrives, triage done here is kept.",
)
@click.option(
    "--vectors",
    type=click.Path(),
    help="With --from mem0: its vector store (a Qdrant folder such as mem0's /tmp/qdrant, read"
    " only when named; a FAISS folder; or vector_store.db). It must be your own.",
)
@click.option(
    "--project",
    type=click.Path(),
    help="With --from claude-code or gemini-cli: a project's CLAUDE.md / GEMINI.md files too;"
    " with --from cursor: the project whose rules to read.",
)
@click.option("--model", help="With --from langgraph: the model its stored embeddings came from.")
@click.option(
    "--agents",
    help="With --from git-notes (or markdown in git): author emails that are agents"
    " (globs; default *@letta.com).",
)
@now_option
@json_option
@config_option
def import_cmd(
    file: str | None,
    db: str,
    system: str | None,
    vectors: str | None,
    now: str | None,
    as_json: bool,
    config_path: str | None,
    project: str | None = None,
    model: str | None = None,
    agents: str | None = None,
) -> None:
    """Import FILE.jsonl into DB, all or nothing; or, with --from SYSTEM [SOURCE], open the
    memory another agent already keeps (mem0's SOURCE defaults to $MEM0_DIR/history.db, else
    ~/.mem0/history.db; codex's to ~/.codex/memories, gemini-cli's to ~/.gemini,
    openclaw's to ~/.openclaw/workspace; cursor reads --project P)."""
    clock = Clock.from_option(now)  # dates the audit entry of the dismissals a file brings
    config = resolve_config(db, config_path)
    if system is not None:
        from synapse_tui.cli.import_from import import_from

        import_from(system, file, db, vectors, config, as_json, project=project, model=model, agents=agents)
        return
    if vectors is not None:
        raise SynapseError("--vectors applies only to --from mem0")
    if file is None:
        raise SynapseError("import needs FILE.jsonl, or --from SYSTEM [SOURCE]")
    refuse_server(file, "FILE.jsonl")  # before "cannot read" could spell its password
    if Path(file).is_dir():  # a folder is a SOURCE only with --from
        raise click.BadParameter(
            f"{file!r} is a folder, not a JSON Lines file; to read the memory in it, name what"
            f" wrote it with --from: markdown for any Markdown notes, else claude-code, codex, cursor and more",
            param_hint="'FILE'",
        )
    wrong = _not_json_lines(Path(file))
    if wrong is not None:
        raise click.BadParameter(f"{file!r} is {wrong}", param_hint="'FILE'")
    facts = parse_file(file, progress=progress_bar("reading"))
    if not is_server(db) and not Path(db).parent.is_dir():
        raise SynapseError(f"{db}: the folder {Path(db).parent} does not exist")
    with nothing_left_if_refused(db), Store.open(db, create=True) as store:
        result = import_facts(store, facts, file, progress=progress_bar("importing"), clock=clock)
        # The graph is derived data: built in its own transaction, so the facts land even
        # if this is interrupted, and the next import finishes it (a failure says so).
        graph = link_landed(store, config, landed_facts(result.imported), progress_bar("graph"))
        store.warm(config)
    for warning in result.warnings + list(graph.notes):
        say(f"warning: {warning}", err=True)
    if as_json:
        emit_json({"imported": result.imported, "db": locate(db).shown, "warnings": result.warnings})
    else:
        say(f"imported {counted(result.imported, 'fact')} into {locate(db).shown}")


_SQLITE = b"SQLite format 3\x00"


def _not_json_lines(file: Path) -> str | None:
    """What a FILE given without --from is when it is plainly no JSON Lines (a Markdown
    note, a SQLite database), said with the command that reads it, or None: it read as
    `not valid JSON at column 1` or `not valid UTF-8`, naming neither."""
    if not file.is_file():
        return None  # parse_file says what is wrong with it
    if file.suffix.lower() in (".md", ".mdc", ".markdown"):
        folder = shlex.quote(str(file.parent))
        return (
            "a Markdown file, not JSON Lines; read the notes of its folder with"
            f" `synapse-tui import --from markdown {folder} --db DB` (or --from claude-code, cursor...)"
        )
    try:
        with file.open("rb") as handle:
            head = handle.read(len(_SQLITE))
    except OSError:
        return None  # parse_file says why it cannot be read
    if head == _SQLITE:
        return (
            "a SQLite database, not JSON Lines: open a store as it is (`synapse-tui DB`), or"
            " name the system that wrote it with --from (mem0's history.db: --from mem0 FILE)"
        )
    return None


@main.command("score")
@db_argument
@click.option("--where", "where", default="", help="Filter, e.g. 'trust<0.3 tier:auto payments'.")
@click.option(
    "--sort",
    "sort",
    default=None,
    help=f"Column to sort by, '-' for descending: {', '.join(SORT_KEYS)}, or any name of the"
    " table's header or of --where (fresh, conf, sup, r, s, tier...). Default: -trust in the"
    " table; store order with --json; relevance (then trust) when --where has words.",
)
@click.option(
    "--limit",
    type=int,
    default=None,
    callback=lambda ctx, param, value: _not_negative(value),
    help="Rows to show (default: all with --json, 50 in the table; 0 for all).",
)
@as_of_option
@now_option
@json_option
@config_option
def score_cmd(
    db: str,
    where: str,
    sort: str,
    limit: int | None,
    now: str | None,
    as_json: bool,
    config_path: str | None,
    as_of: float | None = None,
) -> None:
    """Score every fact of DB."""
    if sort is not None and _sort_values(None, sort.lstrip("-")) is None:
        names = ", ".join(dict.fromkeys([*SORT_KEYS, "conf", "fresh", "sup", *fq.NUMERIC, *fq.ALIASES]))
        raise click.BadParameter(f"unknown column '{sort.lstrip('-')}'; one of {names}", param_hint="--sort")
    q = fq.parse(where)
    for hint in fq.hints(q):  # read as words, where a filter may have been meant
        say(f"note: {hint}", err=True)
    if sort is None and not (as_json or q.words):
        sort = "-trust"
    if as_json and q.empty and not sort and as_of is None:  # every fact in store order: stream
        _stream_json(db, now, config_path, limit or 0)
        return
    with open_memory(db, now, config_path) as memory:
        memory, existed = past(memory, as_of)
        positions = fq.run(memory, q) if not q.empty else np.arange(len(memory))
        if existed is not None:
            positions = positions[existed[positions]]
        if sort:
            positions = _sorted(memory, positions, sort.lstrip("-"), descending=sort.startswith("-"))
        total = len(positions)
        if limit is None:
            limit = 0 if as_json else 50
        if limit:
            positions = positions[:limit]
        if as_json:  # streamed a chunk at a time: the first line comes early, memory stays flat
            flagged = of_memory(memory).flagged() if existed is None else {}
            for c0 in range(0, len(positions), JSON_CHUNK):
                chunk = add_flags(memory.rows(positions[c0 : c0 + JSON_CHUNK]), flagged)
                sys.stdout.write("".join(_dumps(row) + "\n" for row in chunk))
                sys.stdout.flush()
            return
        print_score_table(memory, positions, total)


def _stream_json(db: str, now: str | None, config_path: str | None, limit: int) -> None:
    """`score --json` without a filter or a sort: a chunk is printed as soon as it is
    scored (no index, no sort, one chunk in memory); same lines as the whole view's."""
    clock = Clock.from_option(now)
    config = resolve_config(db, config_path)
    with Store.open(db, readonly=True) as store:
        flagged = standing(store).flagged()  # SPEC 13: a suggestion flags, never scores
        for chunk in stream_rows(store, config, clock.now(), JSON_CHUNK, limit):
            chunk = add_flags(chunk, flagged)
            sys.stdout.write("".join(_dumps(row) + "\n" for row in chunk))
            sys.stdout.flush()


def _not_negative(value: int | None) -> int | None:
    if value is not None and value < 0:
        raise click.BadParameter(f"must be 0 (all) or more, got {value}")
    return value


def _sort_values(memory, name: str):
    """The array `--sort NAME` orders by: every name of the table's header and of the filter
    language (fresh, freshness, conf, sup, activation, depth, r, s...). With no memory:
    whether NAME is one (None if not)."""
    key = fq.ALIASES.get(name, name)
    if key == "id" or key in LABELS or key in fq.NUMERIC:
        if memory is None:
            return key
        if key in LABELS:  # by the label's code: bands and tiers in their order
            return getattr(memory.scores, key)
        return fq.NUMERIC[key](memory)
    return None


def _sorted(memory, positions: np.ndarray, key: str, descending: bool) -> np.ndarray:
    if key == "id":
        by_id = sorted(positions.tolist(), key=lambda i: memory.ids[i], reverse=descending)
        return np.asarray(by_id, dtype=np.int64)
    v = _sort_values(memory, key)[positions].astype(np.float64)
    order = np.lexsort((positions, -v if descending else v))
    return positions[order]


def _dumps(obj: dict) -> str:
    from synapse_tui.core.base.jsonl import json_line

    return json_line(obj)


@main.command("show", context_settings=TAKES_IDS)
@db_argument
@click.argument("fact_id")
@as_of_option
@now_option
@json_option
@config_option
def show_cmd(
    db: str, fact_id: str, now: str | None, as_json: bool, config_path: str | None, as_of: float | None = None
) -> None:
    """Explain one fact: every factor with its inputs, the opinion, what would move it."""
    with open_memory(db, now, config_path) as memory:
        fact_id = resolve_id(fact_id, memory.ids, memory.index)  # a shortened id, as shown
        if as_of is None:
            info = memory.explain(fact_id)
        else:
            from synapse_tui.core.review.asof import explain_as_of

            info = explain_as_of(*past(memory, as_of), fact_id, as_of)
        if info is None:
            raise SynapseError(missing_fact(fact_id, locate(db).shown) + when_said(as_of))
        if as_of is None:  # SPEC 13: the fact's standing suggestions and their flags, as MCP's
            explained(memory, info)
        if as_json:
            emit_json(info)
        else:
            roles = {h.seq: h.role for h in memory.store.history(fact_id) if h.role}
            print_explain(info, memory.config, roles, now=memory.scores.now)


@main.command("export")
@db_argument
@click.option("-o", "--output", type=FilePath(), help="Write here (default: stdout).")
@click.option("--audit", is_flag=True, help="Export the triage decisions instead of the facts.")
@as_of_option
@now_option
@json_option
@config_option
def export_cmd(
    db: str,
    output: str | None,
    audit: bool,
    now: str | None,
    as_json: bool,
    config_path: str | None,
    as_of: float | None = None,
) -> None:
    """Write DB back as interchange JSON Lines (triage included)."""
    Clock.from_option(now)
    if as_of is not None:
        _export_as_of(db, output, audit, now, config_path, as_of)
        return
    with Store.open(db, readonly=True) as store, store.snapshot():
        if audit:
            from synapse_tui.core.review.triage import export_audit

            write_jsonl(export_audit(store), output)
        else:
            write_jsonl(export_facts(store), output)


def _export_as_of(
    db: str, output: str | None, audit: bool, now: str | None, config_path: str | None, when: float
):
    """`export --as-of T`: the facts that existed at T with their triage then, or the audit
    up to T."""
    from synapse_tui.core.review.asof import audit_as_of, export_as_of
    from synapse_tui.core.review.triage import export_audit

    with open_memory(db, now, config_path) as memory:
        then, existed = past(memory, when)
        if audit:
            write_jsonl(audit_as_of(export_audit(memory.store), when), output)
        else:
            write_jsonl(export_as_of(then, existed, export_facts(memory.store), when), output)


@main.command("edges")
@db_argument
@click.option("--kind", type=click.Choice(["semantic", "npmi", "all"]), default="all", show_default=True)
@click.option(
    "--lexical",
    is_flag=True,
    help="Also list edges between facts that came without an embedding (built-in lexical embedder).",
)
@now_option
@json_option
@config_option
def edges_cmd(
    db: str, kind: str, lexical: bool, now: str | None, as_json: bool, config_path: str | None
) -> None:
    """Every edge of the neighbour graph: semantic (facts) and NPMI (entities).

    Semantic edges join facts that carry an embedding (SPEC 3.1); edges the built-in
    lexical embedder made for facts without one are listed only with --lexical, each
    marked "space": "lexical".
    """
    from synapse_tui.core.graph.build import load_edges
    from synapse_tui.core.graph.read import store_graph_info

    Clock.from_option(now)
    with Store.open(db, readonly=True) as store, store.snapshot():
        edges = [e for e in load_edges(store) if kind in ("all", e.kind)]
        info = store_graph_info(store)
    if info.approximate and kind != "npmi":  # on stderr: stdout stays one edge per line
        say(f"({info.describe()})", err=True)
    hidden = sum(e.space == "lexical" for e in edges) if not lexical else 0
    for e in edges:
        if e.space == "lexical" and not lexical:
            continue
        if as_json:
            obj = e.to_json() | ({"space": "lexical"} if e.space == "lexical" else {})
            sys.stdout.write(_dumps(obj) + "\n")
        else:
            space = f" ({e.space})" if e.space else ""
            say_row(f"{e.kind}{space}", f"{e.weight:.2f}", e.a, e.b)
    if hidden and not as_json:
        say(f"({hidden} lexical edges between facts without embeddings: --lexical lists them)", err=True)


@main.command("neighbours", context_settings=TAKES_IDS)
@db_argument
@click.argument("fact_id")
@now_option
@json_option
@config_option
def neighbours_cmd(db: str, fact_id: str, now: str | None, as_json: bool, config_path: str | None) -> None:
    """A fact's semantic neighbours, and its entities with their NPMI neighbours."""
    from synapse_tui.core.graph.read import neighbours

    if as_json:  # one indexed lookup; no need to score the whole store
        Clock.from_option(now)
        config = resolve_config(db, config_path)
        with Store.open(db, readonly=True) as store, store.snapshot():
            emit_json(_neighbours_or_error(neighbours, store, fact_id, config).to_json())
        return
    with open_memory(db, now, config_path) as memory:
        print_neighbours(memory, _neighbours_or_error(neighbours, memory.store, fact_id, memory.config))


def _neighbours_or_error(neighbours, store: Store, fact_id: str, config):
    try:
        return neighbours(store, store_id(store, fact_id), config)  # an id as the list shows it
    except KeyError:
        raise SynapseError(missing_fact(fact_id, store.path)) from None


@main.command("sample")
@click.option(
    "--reset",
    is_flag=True,
    help="Rebuild the working copy from the bundle: your triage and calibration there are lost.",
)
@now_option
@json_option
def sample_cmd(now: str | None, as_json: bool, reset: bool = False) -> None:
    """Print the path of the working copy of the bundled sample (built on first use)."""
    Clock.from_option(now)
    if reset:
        from synapse_tui.core.ingest.sample import data_dir

        (data_dir() / "sample.fingerprint").unlink(missing_ok=True)  # the next use rebuilds it
    path = str(_sample_path())
    if as_json:
        emit_json({"path": path})
    else:
        say(path)


def _sample_path() -> Path:
    from synapse_tui.core.ingest.sample import ensure_sample

    return ensure_sample(progress=progress_bar("building the sample"))
