"""What the database driver raises, known in one place, and the user's words for any error.

Outside the store nothing names a driver: a front-end or a session catches `DatabaseError`
(and the few that must tell a missing table from damage, `OperationalError`). Each is a
tuple of the drivers' own classes, so `except` and `isinstance` take it as they are; a
second driver adds its classes to the tuples, and `describe` and `is_internal` classify its
errors with no change anywhere else.

What a store is as it stands (a table renamed by hand, a lock held past the wait, a full
disk) is worded here once for both backends (`unreadable`, `by_hand`, `busy`), in one line
naming the store: a server's connection words its SQLSTATEs with them (postgres/connect.py),
a file's connection SQLite's errors (sqlite/state.py, raising a `StoreStateError`).
"""

from __future__ import annotations

import sqlite3

from synapse_tui.core.base.errors import QueryError, StoreError, SynapseError
from synapse_tui.core.base.textsafe import clean

ExceptionTypes = tuple[type[Exception], ...]

# Anything the driver raises: a damaged or unreadable store, a lock, a full disk, or a
# statement of ours it refused.
DatabaseError: ExceptionTypes = (sqlite3.Error,)
# The store could not be read or written as it stands: I/O, a lock, a full disk, a table a
# store of an older schema (or one with no graph yet) does not have. Never damage.
OperationalError: ExceptionTypes = (sqlite3.OperationalError,)
# What a front-end or a background worker reports in one line rather than as a crash: our
# own errors (bad input, a refused move) and the driver's.
ReportedError: ExceptionTypes = (SynapseError, *DatabaseError)
# Damage found past the header check at open (a malformed page, not a database at all).
_DAMAGE: ExceptionTypes = (sqlite3.DatabaseError,)
# What the driver raises for a statement of ours it refuses (a UNIQUE constraint our own
# write broke, a misused cursor): our bug, never the store's damage.
_OUR_SQL: ExceptionTypes = (
    sqlite3.IntegrityError,
    sqlite3.ProgrammingError,
    sqlite3.InterfaceError,
    sqlite3.InternalError,
    sqlite3.NotSupportedError,
)


class StoreStateError(StoreError, sqlite3.OperationalError):
    """A file's store as it stands (a table renamed by another program, a lock held past the
    busy timeout, a full disk), told in one line naming it (sqlite/state.py): still the
    driver's OperationalError for a caller that tells a missing table from damage."""


class StoreDamageError(StoreError, sqlite3.DatabaseError):
    """A file's store found damaged mid-session (a page another program overwrote, a bad
    sector), told in one line naming it (sqlite/state.py): still the driver's DatabaseError,
    never its OperationalError."""


# The words a store's state is told in, on either backend: a file's (sqlite/state.py) and a
# server's (postgres/connect.py's `refusal`), so the same state reads the same on both.
NOTHING_WRITTEN = "; nothing was written"


def unreadable(shown: str, said: str, hint: str = "", *, writing: bool = False) -> str:
    """`SHOWN: the store could not be read or written (SAID: HINT)`, and that nothing of a
    write landed when `writing`."""
    why = f"{said}: {hint}" if hint else said
    return f"{shown}: the store could not be read or written ({why}){NOTHING_WRITTEN if writing else ''}"


def by_hand(what: str) -> str:
    """The hint for a table, column or other part of the store the database does not find."""
    return f"a {what} renamed or dropped by hand?"


def busy(held: str, wait: str) -> str:
    """`the store is busy: another session held HELD for more than WAIT` (`wait`: "10s",
    "300ms"; "" when unknown)."""
    return f"the store is busy: another session held {held}{f' for more than {wait}' if wait else ''}"


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
    if _refused_privilege(exc):  # a server's login that may not do this (an agent's role)
        message = getattr(getattr(exc, "diag", None), "message_primary", None) or str(exc)
        return clean(f"the server refused this login: {' '.join(str(message).split())}")
    if _server_state(exc):  # a server's error a store's connection did not name (see below)
        message = getattr(getattr(exc, "diag", None), "message_primary", None) or str(exc)
        return clean(f"the database could not be read or written ({' '.join(str(message).split())})")
    if isinstance(exc, _OUR_SQL):
        pass  # a statement of ours that the driver refused: a bug, said so below
    elif isinstance(exc, OperationalError):  # full disk, I/O, lock: not damage
        return clean(f"the database could not be read or written ({exc})")
    elif isinstance(exc, _DAMAGE):
        return clean(f"the database is corrupt or unreadable ({exc})")
    if isinstance(exc, OSError):  # the machine's, not ours: a full disk, a permission
        where = f"{exc.filename}: " if exc.filename else ""
        return clean(f"{where}{exc.strerror or exc}")
    what = f"{type(exc).__name__}: {exc}"
    what = what if len(what) <= 200 else what[:197] + "..."
    return clean(f"internal error, please report it ({what})")


def _refused_privilege(exc: BaseException) -> bool:
    """A server's refusal of a privilege (SQLSTATE 42501: a column or table not granted, or
    a guard of the agent's role), told without importing the driver."""
    return getattr(exc, "sqlstate", None) == "42501" and type(exc).__module__.startswith("psycopg")


# A server's SQLSTATEs that say what the store or the server is as it stands (the file's
# OperationalError): a table, column or function renamed or dropped by hand, a server that
# takes no writes, a lock or a statement timeout, another writer's clash, the server's
# resources or I/O, the connection. A store's connection names its location in them
# (postgres/connect.py's `refusal`); one raised outside it is told here, without the driver.
# the part of the store a "does not exist" SQLSTATE names, and another writer's clash
# (serialization failure, deadlock): connect.py words each
MISSING_PART = {
    "42P01": "table",
    "42703": "column",
    "42883": "function",
    "3F000": "schema",
    "42704": "object",
}
CLASH = ("40001", "40P01")
_SERVER_STATE = (*MISSING_PART, "25006", "55P03", "57014", *CLASH)
_SERVER_STATE_CLASSES = ("08", "53", "57", "58")


def _server_state(exc: BaseException) -> bool:
    code = getattr(exc, "sqlstate", None) or ""
    return (
        bool(code)
        and type(exc).__module__.startswith("psycopg")
        and (code in _SERVER_STATE or code[:2] in _SERVER_STATE_CLASSES)
    )


def is_internal(exc: BaseException) -> bool:
    """Our own bug, not the user's input, their store or their machine."""
    if _refused_privilege(exc) or _server_state(exc):
        return False
    if isinstance(exc, _OUR_SQL):
        return True
    return not isinstance(exc, (SynapseError, OSError, *DatabaseError))
