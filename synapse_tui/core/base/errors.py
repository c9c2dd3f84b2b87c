"""Errors a user can cause. The CLI and the app show their message, never a traceback."""

from __future__ import annotations

import sqlite3

from synapse_tui.core.base.textsafe import clean


class SynapseError(Exception):
    """Base of every error that is the user's input, not our bug."""


class InputError(SynapseError):
    """A bad interchange line or value: names the file, line and field."""

    def __init__(
        self, message: str, file: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        self.file, self.line, self.field, self.reason = file, line, field, message
        where = ":".join(str(p) for p in (file, line) if p is not None)
        prefix = f"{where}: " if where else ""
        fld = f"field '{field}': " if field else ""
        super().__init__(f"{prefix}{fld}{message}")


class StoreError(SynapseError):
    """The database is not ours, is corrupt, is locked, or cannot be written."""


class PartialWrite(SynapseError):
    """A command whose first part landed and a later part did not (the facts of an import
    are in, its neighbour graph is not): the message says which is which, and the CLI
    exits with a status of its own instead of a refusal's."""

    exit_code = 3


class ConfigError(SynapseError):
    """A config file that cannot be read or holds a bad value."""


class QueryError(SynapseError):
    """A filter-language typo; `position` points at the bad token in the query."""

    def __init__(self, message: str, query: str, position: int, token: str) -> None:
        self.query, self.position, self.token, self.reason = query, position, token, message
        super().__init__(f"{message} at {position + 1}: '{token}'")

    def caret(self) -> str:
        """The query with a caret under the bad token, for terminals."""
        return f"{self.query}\n{' ' * self.position}{'^' * max(1, len(self.token))}"


def describe(exc: BaseException) -> str:
    """What went wrong, in the user's words, with nothing a terminal acts on. A filter
    error adds its query and a caret under the bad token on two more lines; anything not
    a user's doing (see `is_internal`) says so and asks to be reported. Each front-end
    maps the message to its own channel: the CLI to an exit status, MCP to a tool error."""
    if isinstance(exc, QueryError):
        prefix, token = clean(exc.query[: exc.position]), clean(exc.token)
        caret = " " * len(prefix) + "^" * max(1, len(token))
        return f"{clean(exc.reason)}\n  {clean(exc.query)}\n  {caret}"
    if isinstance(exc, SynapseError):
        return clean(str(exc))
    if isinstance(exc, _OUR_SQL):
        pass  # a statement of ours that SQLite refused: a bug, said so below
    elif isinstance(exc, sqlite3.OperationalError):  # full disk, I/O, lock: not damage
        return clean(f"the database could not be read or written ({exc})")
    elif isinstance(exc, sqlite3.DatabaseError):  # damage found past the header check at open
        return clean(f"the database is corrupt or unreadable ({exc})")
    if isinstance(exc, OSError):  # the machine's, not ours: a full disk, a permission
        where = f"{exc.filename}: " if exc.filename else ""
        return clean(f"{where}{exc.strerror or exc}")
    what = f"{type(exc).__name__}: {exc}"
    what = what if len(what) <= 200 else what[:197] + "..."
    return clean(f"internal error, please report it ({what})")


# What SQLite raises for a statement of ours it refuses (a UNIQUE constraint our own
# write broke, a misused cursor): our bug, never the store's damage.
_OUR_SQL = (
    sqlite3.IntegrityError,
    sqlite3.ProgrammingError,
    sqlite3.InterfaceError,
    sqlite3.InternalError,
    sqlite3.NotSupportedError,
)


def is_internal(exc: BaseException) -> bool:
    """Our own bug, not the user's input, their store or their machine."""
    if isinstance(exc, _OUR_SQL):
        return True
    return not isinstance(exc, SynapseError | sqlite3.DatabaseError | OSError)
