"""A file's answers to what the components leave to each database (`Audit`, `Imports`).

The components (audit.py, imports.py) write once the statements both databases read alike;
the few that lean on SQLite (its bare columns beside an aggregate, json_extract's typed
values, a table-valued PRAGMA, the FTS5 word index) are abstract there and answered here
for a file, and in postgres/store.py for a server. So a statement only SQLite reads is
never on a path a server's store can take: a backend missing one fails when it is made.
"""

from __future__ import annotations

from collections.abc import Sequence

from synapse_tui.core.store import cjk
from synapse_tui.core.store.audit import VERDICT_KEYS, Audit, AuditEntry, _entry
from synapse_tui.core.store.dialect import SQLITE
from synapse_tui.core.store.imports import Imports
from synapse_tui.core.store.schema import SOURCE_EXPR

# what a verdict row reads of its score_before, in VERDICT_KEYS' order, then the fact's x-source
_VERDICT_VALUES = ", ".join(f"json_extract(a.score_before, '$.{key}')" for key in VERDICT_KEYS)
_VERDICT_SOURCE = """json_extract(f.provenance, '$."x-source"')"""


class SqliteAudit(Audit):
    """`store.audit` of a file."""

    def role_column(self) -> str:
        if self._role is None:
            found = self._conn.execute(
                "SELECT 1 FROM pragma_table_info('audit') WHERE name = 'role'"
            ).fetchone()
            self._role = "role" if found else "NULL"
        return self._role

    def batch_heads(self, since: int) -> list[tuple[AuditEntry, int]]:
        # the bare columns come from the batch's first row (SQLite: the row of min(seq))
        rows = self._conn.execute(
            "SELECT min(seq), at, actor, action, fact_id, batch, before, after, undoes, NULL,"
            f" {self.role_column()}, count(DISTINCT fact_id) FROM audit WHERE seq > ?"
            " GROUP BY batch ORDER BY batch DESC",
            (since,),
        ).fetchall()
        return [(_entry(row[:11]), row[11]) for row in rows]

    def verdict_rows(
        self, holds: Sequence[str], actor_prefixes: Sequence[str], since: float | None
    ) -> list[tuple]:
        return self._verdicts(holds, actor_prefixes, since, _VERDICT_VALUES, _VERDICT_SOURCE)


class SqliteImports(Imports):
    """`store.imports` of a file."""

    def _source_rows(self, system: str) -> list[tuple]:
        # the expression of the index m008 adds, word for word, so SQLite reads it
        return self._conn.execute(
            f"SELECT id, text, note, deleted, provenance FROM facts WHERE {SOURCE_EXPR} = ? ORDER BY pos",
            (system,),
        ).fetchall()

    def _index_words(self, rows: list[tuple[int, str, str]]) -> None:
        """The FTS5 tables, which the file's `WordIndex` reads (words.py, cjk.py)."""
        SQLITE.insert_rows(self._conn, "facts_fts", ("rowid", "id", "text"), rows)
        SQLITE.insert_rows(self._conn, cjk.TABLE, ("rowid", "grams"), cjk.rows(rows))
