"""The store's schema and its migrations.

Facts keep the interchange strings verbatim (export reproduces them and signatures are
over them) next to the parsed numbers the arithmetic reads. Reinforcement times (creation
first) live in a float64 blob per fact so that loading a million facts is one aggregate
over one table, not five million rows.

A fact that came without an embedding has an `embeddings` row of kind 'lexical' whose `vec`
is empty: the built-in lexical vector is computed from the text when it is needed
(graph.build.add_lexical_embeddings). Stores written by earlier builds hold those vectors; they
are the same bits and are not read.
"""

from __future__ import annotations

import sqlite3

from synapse_tui.core.store import cjk

APPLICATION_ID = 0x53594E41  # "SYNA": marks a SQLite file as a synapse-tui store

GRAMS_FUNCTION = "synapse_cjk_grams"  # cjk.grams, as SQL, while migrating

# The facts table's columns, in the order both backends keep them (SQLite's m002 adds
# `deleted` last; the server's p001 has it): a copy moves every one (postgres.schema.TABLES),
# an import writes all but `supersedes_pos`, resolved once every row is in (imports.FACT_COLUMNS).
FACTS_COLUMNS = (
    "pos",
    "id",
    "text",
    "created_at",
    "created_ts",
    "tier",
    "r",
    "s",
    "events",
    "reinforced_at",
    "o1_count",
    "count_given",
    "supersedes",
    "supersedes_pos",
    "note",
    "entities",
    "provenance",
    "signature",
    "sig_state",
    "sig_key",
    "extra",
    "deleted",
)

# the edges' second index: rebuilt in one sort when a build fills an empty table
# (graph.build._write_edges), which takes a third less than keeping it up row by row
SEMANTIC_EDGES_B = "CREATE INDEX semantic_edges_b ON semantic_edges(b)"

_V1 = f"""
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE facts (
    pos INTEGER PRIMARY KEY,          -- dense 1-based position; arrays index pos - 1
    id TEXT NOT NULL UNIQUE,
    text TEXT NOT NULL,
    created_at TEXT NOT NULL,         -- verbatim RFC 3339 string (signed message)
    created_ts REAL NOT NULL,         -- epoch seconds
    tier TEXT NOT NULL,               -- declared tier: auto / human / signed
    r INTEGER NOT NULL,
    s INTEGER NOT NULL,
    events BLOB NOT NULL,             -- float64 epoch seconds: creation, then reinforced_at
    reinforced_at TEXT,               -- JSON list of verbatim strings, NULL when absent
    o1_count INTEGER,                 -- n of the O(1) form; NULL for the exact form
    count_given INTEGER,              -- reinforcement_count that came beside a list (kept)
    supersedes TEXT,
    supersedes_pos INTEGER,           -- resolved supersedes; NULL when unknown/absent
    note TEXT,
    entities TEXT,                    -- JSON list, verbatim spellings
    provenance TEXT,                  -- JSON object, verbatim
    signature TEXT,                   -- JSON object, verbatim
    sig_state INTEGER NOT NULL,       -- signing.SigState, checked at import
    sig_key TEXT,                     -- lower-case hex key of a valid signature
    extra TEXT                        -- JSON object of unknown keys, verbatim
);
CREATE INDEX facts_supersedes ON facts(supersedes);
CREATE TABLE entities (
    eid INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE          -- trimmed, case-folded
);
CREATE TABLE mentions (
    pos INTEGER NOT NULL,
    eid INTEGER NOT NULL,
    spelling TEXT NOT NULL,
    PRIMARY KEY (pos, eid)
) WITHOUT ROWID;
CREATE INDEX mentions_eid ON mentions(eid);
CREATE TABLE embeddings (
    pos INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,               -- 'model' (came with the fact) or 'lexical' (built in)
    vec BLOB NOT NULL                 -- float32, L2-normalised
);
CREATE TABLE audit (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    fact_id TEXT,
    batch INTEGER,                    -- actions applied together share a batch
    before TEXT,                      -- JSON
    after TEXT,                       -- JSON
    undoes INTEGER                    -- seq of the batch this entry reverses
);
CREATE INDEX audit_fact ON audit(fact_id);
CREATE TABLE knn (
    pos INTEGER PRIMARY KEY,          -- a fact's exact k nearest, in its own embedding space
    nbrs BLOB NOT NULL,               -- int32 positions, best first
    cos BLOB NOT NULL                 -- float32 cosines, same order
);
CREATE TABLE semantic_edges (
    a INTEGER NOT NULL,               -- fact positions, a < b
    b INTEGER NOT NULL,
    weight REAL NOT NULL,
    kind TEXT NOT NULL,               -- embedding space: 'model' or 'lexical'
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
{SEMANTIC_EDGES_B};
CREATE TABLE npmi_edges (
    a INTEGER NOT NULL,               -- entity ids, a < b
    b INTEGER NOT NULL,
    weight REAL NOT NULL,
    n_ab INTEGER NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE INDEX npmi_edges_b ON npmi_edges(b);
CREATE VIRTUAL TABLE facts_fts USING fts5(
    id, text, content='facts', content_rowid='pos', tokenize='unicode61'
);
"""

# Each migration is one statement list applied in one transaction by sqlite-utils'
# Migrations, which records what ran in `_sqlite_migrations`; `user_version` mirrors the
# count so an older synapse-tui can tell it is looking at a newer store.
# m002: facts the source system deleted keep their history but carry the flag `deleted`
# (SPEC 9); every audit entry keeps the score as it stood just before it (SPEC 8), the
# ground truth a later release fits its constants to.
_V2 = """
ALTER TABLE facts ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE audit ADD COLUMN score_before TEXT
"""

# m003: what the load cache (loadcache.py) checks and patches from. Every insert, update
# or delete of a fact, by whichever process or tool (the triggers live in the store), logs
# the fact's position in `facts_changes` with a fresh random token; the newest entry's
# token names the state of the facts. A cache written under token T is exact while T is
# the newest; later, while the log still holds T's entry, it is patched with the facts
# logged since. Random rather than a counter: a restored backup that made as many changes
# since still has tokens no cache has seen. The log keeps its newest CHANGE_LOG_KEEP
# entries (pruned every 1,024, so a write pays one appended row).
CHANGE_LOG_KEEP = 100_000
_V3 = f"""
CREATE TABLE facts_changes (
    seq INTEGER PRIMARY KEY,
    pos INTEGER NOT NULL,             -- the fact's position (before the change)
    kind TEXT NOT NULL,               -- 'i' insert, 'u' update, 'd' delete or moved, 's' start
    token INTEGER NOT NULL            -- random: names the state this change left
);
INSERT INTO facts_changes (pos, kind, token) VALUES (0, 's', random());
CREATE TRIGGER facts_changed_insert AFTER INSERT ON facts BEGIN
    INSERT INTO facts_changes (pos, kind, token) VALUES (NEW.pos, 'i', random());
END;
CREATE TRIGGER facts_changed_update AFTER UPDATE ON facts BEGIN
    INSERT INTO facts_changes (pos, kind, token)
    VALUES (OLD.pos, CASE WHEN NEW.pos = OLD.pos THEN 'u' ELSE 'd' END, random());
END;
CREATE TRIGGER facts_changed_delete AFTER DELETE ON facts BEGIN
    INSERT INTO facts_changes (pos, kind, token) VALUES (OLD.pos, 'd', random());
END;
CREATE TRIGGER facts_changes_pruned AFTER INSERT ON facts_changes WHEN NEW.seq % 1024 = 0 BEGIN
    DELETE FROM facts_changes WHERE seq <= NEW.seq - {CHANGE_LOG_KEEP};
END
"""

# m004: the graph's bookkeeping counts each embedding space's rows on every import; read
# from this index instead of the table (whose rows carry the vectors) that count takes
# 0.09 s at a million facts instead of 0.9-1.7 s. Nothing else changes, so a version-3
# store still reads as it is.
_V4 = """
CREATE INDEX embeddings_kind ON embeddings(kind)
"""

# m005: which database role made each audit entry (issue 25): NULL on a file, where the
# actor alone says who; a server's store fills it with the session's login. Not part of
# `export --audit` or `show --json`, which stay the same on both backends.
_V5 = """
ALTER TABLE audit ADD COLUMN role TEXT
"""

# m006: the number of the next audit batch is max(batch) + 1, asked by every triage
# action: without an index it scanned the whole audit (6.8 ms an action at 100,000
# entries, two of the file's whole action); with it, a few microseconds. Only an index,
# so a version-5 store still reads as it is.
_V6 = """
CREATE INDEX audit_batch ON audit(batch)
"""

# m007: the CJK word index (cjk.py): a second FTS5 table holding, for each fact whose text
# holds Chinese, Japanese or Korean, its runs as pairs of characters, so a search finds
# every fact holding a CJK substring (unicode61 makes a whole run one token). Filled here
# from the facts an older build imported; a store still at 6 opened read-only reads as it
# is, its CJK terms found by a scan of the text instead.
_V7 = f"""
{cjk.CREATE};
INSERT INTO {cjk.TABLE} (rowid, grams)
SELECT pos, g FROM (SELECT pos, {GRAMS_FUNCTION}(text) AS g FROM facts) WHERE g IS NOT NULL
"""

# m008: a sync reads first its source's facts already here (`Imports.from_source`, which
# every sync runs for each system its reader reads: ruff's Markdown, 15,435 facts, twice):
# picked by the x-source of each one's provenance, that was a parse of every fact's JSON,
# whichever its system. This index holds each fact's x-source (NULL for a provenance that
# is not valid JSON, as `IS JSON OBJECT` gives on a server), so the read finds its rows and
# a system with none (`git-notes` beside `markdown`) costs nothing. Only an index, so a
# version-7 store still reads as it is (its rows then scanned).
SOURCE_EXPR = """CASE WHEN json_valid(provenance) THEN json_extract(provenance, '$."x-source"') END"""
_V8 = f"""
CREATE INDEX facts_source ON facts(({SOURCE_EXPR}))
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("m001_initial", _V1),
    ("m002_deleted_score_before", _V2),
    ("m003_facts_changes", _V3),
    ("m004_embeddings_kind", _V4),
    ("m005_audit_role", _V5),
    ("m006_audit_batch", _V6),
    ("m007_cjk_words", _V7),
    ("m008_facts_source", _V8),
]
SCHEMA_VERSION = len(MIGRATIONS)
# The oldest schema a read-only open reads as it is: m003 adds only what the load cache
# checks and m004 an index, so a version-2 store opened read-only loads from SQL (no cache)
# and a version-3 one reads as it is (without the index) instead of asking for an upgrade
# it cannot have.
READABLE_FROM = 2

# The tables every store holds, on either backend (m001 / p001), and the change log from
# m003 on (a server's: p002). One renamed or dropped by hand is refused at open in one line
# (`missing_tables`), before any command reads or writes, rather than at its first statement.
STORE_TABLES = (
    "meta",
    "facts",
    "entities",
    "mentions",
    "embeddings",
    "audit",
    "knn",
    "semantic_edges",
    "npmi_edges",
)
CHANGE_LOG = "facts_changes"


def missing_tables(shown: str, present: set[str], change_log: bool) -> str | None:
    """`LOCATION: a synapse-tui store without its table X ...` when a store's own table is
    not among `present` (its tables' names), else None: the same words on both backends."""
    missing = [t for t in (*STORE_TABLES, *((CHANGE_LOG,) if change_log else ())) if t not in present]
    if not missing:
        return None
    tables = f"table{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    return f"{shown}: a synapse-tui store without its {tables} (renamed or dropped by hand?); nothing was read or changed"


def _statements(script: str) -> list[str]:
    """Split a schema script into statements (our DDL holds no semicolons in literals;
    a trigger's body holds several, so a piece joins the next until SQLite calls it whole)."""
    lines = [line.split("--")[0] for line in script.splitlines()]
    out: list[str] = []
    pending = ""
    for piece in "\n".join(lines).split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            out.append(pending.strip().removesuffix(";").strip())
            pending = ""
    if pending.strip(" \n;"):
        out.append(pending.strip().removesuffix(";").strip())
    return [stmt for stmt in out if stmt]


def migrate(conn: sqlite3.Connection) -> None:
    """Bring a store (new or old) to SCHEMA_VERSION; each step lands whole or not at all."""
    from sqlite_utils import Database  # imported here: only writers that migrate pay for it
    from sqlite_utils.migrations import Migrations

    conn.create_function(GRAMS_FUNCTION, 1, cjk.grams, deterministic=True)
    migrations = Migrations("synapse-tui")
    for name, script in MIGRATIONS:

        def step(db: Database, _script: str = script) -> None:
            for statement in _statements(_script):
                db.execute(statement)

        migrations(name=name)(step)
    migrations.apply(Database(conn, recursive_triggers=False, execute_plugins=False))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
