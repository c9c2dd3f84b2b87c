"""Connections to a server: psycopg 3, imported only here and only when a server is named.

Every failure becomes a StoreError naming the location as `Location.shown` prints it, and
a driver message is scrubbed of the password too (libpq does not echo it today; this keeps
it so if a message ever quotes the connection string).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import re
import select
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import SECRET_KEYS, Location, redact
from synapse_tui.core.store.errors import CLASH, MISSING_PART, busy, by_hand, unreadable
from synapse_tui.core.store.postgres.schema import LOCK_CLASS

INSTALL = 'pip install "synapse-tui[postgres]"'
APPLICATION_NAME = "synapse-tui"  # what pg_stat_activity shows, unless the location names its own
CONNECT_TIMEOUT_S = 10  # a server that does not answer: an error line, not a hang
# How long a statement waits for a lock another session holds (a row a psql session locked,
# a long import holding the store's lock) before it gives up: a file's busy timeout
# (sqlite/store.py's BUSY_TIMEOUT_MS), so a triage key never hangs. A lock_timeout the
# location, PGOPTIONS or the server's configuration sets is theirs (`session_defaults`).
LOCK_TIMEOUT = "10s"


def driver() -> Any:
    """The psycopg module, or a StoreError saying how to install it."""
    try:
        import psycopg
    except ImportError as exc:
        raise StoreError(f"a PostgreSQL store needs psycopg ({exc.name} is missing): {INSTALL}") from None
    # psycopg logs a warning when a pipeline that failed also fails to end ("error ignored
    # terminating ...: pipeline aborted"), beside the error it raises: with no handler of the
    # application's, Python's last resort would print it above our one line
    logging.getLogger("psycopg").addHandler(_QUIET)
    return psycopg


_QUIET = logging.NullHandler()  # added once: a logger's handlers are a list


def _secrets(target: str) -> list[str]:
    """Every secret spelled in a location (SECRET_KEYS, the user info's password), as
    written and decoded, to scrub from any message: read by libpq's own parser when it
    takes the location, and by hand too (a malformed one it refuses)."""
    found: list[str] = []
    try:
        from psycopg.conninfo import conninfo_to_dict

        found += [str(v) for k, v in conninfo_to_dict(target).items() if k in SECRET_KEYS and v]
    except Exception:  # noqa: BLE001 - any refusal: the hand reading below still runs
        pass
    if "://" in target:
        rest = target.partition("://")[2]
        at = rest.rfind("@")
        if at >= 0 and ":" in rest[:at]:
            found.append(rest[:at].split(":", 1)[1])
        for pair in rest.partition("?")[2].split("&"):
            key, _, value = pair.partition("=")
            if unquote(key).strip().lower() in SECRET_KEYS and value:
                found.append(value)
    for m in re.finditer(
        r"(?i)(?<![\w%])(" + "|".join(SECRET_KEYS) + r")\s*=\s*('(?:[^'\\]|\\.)*'?|\S+)", target
    ):
        found.append(m.group(2).strip("'"))
    out = {piece for s in found for piece in (s, unquote(s)) if s}
    return sorted(out, key=len, reverse=True)  # longest first: no secret left half replaced


def describe(where: Location, exc: BaseException) -> str:
    """`LOCATION: what the server or driver said`, with no password anywhere in it."""
    return f"{where.shown}: {_scrubbed(where, str(exc)) or type(exc).__name__}"


def _scrubbed(where: Location, text: str) -> str:
    """`text` on one line, with no password of `where`'s (nor any a location spells) in it."""
    text = " ".join(text.split())
    for secret in _secrets(where.target):
        text = text.replace(secret, "***")
    return redact(text)


def lost_words(where: Location, exc: BaseException) -> str:
    """Why a connection was lost, in a few words without any password: the server's own
    when it said why (`terminating connection due to administrator command`), else the
    driver's first line (`server closed the connection unexpectedly`)."""
    said = getattr(getattr(exc, "diag", None), "message_primary", None) or ""
    if not said:
        said = next((line for line in str(exc).splitlines() if line.strip()), "")
        said = said.rpartition("failed: ")[2]  # libpq's "consuming input failed: ..." names its call
    return _scrubbed(where, said) or type(exc).__name__


# Set while reading a source the user did not name on this machine (a store's recorded
# server source, only confirmed): no password from PGPASSWORD, ~/.pgpass or pg_service.conf.
_NO_AMBIENT: contextvars.ContextVar[bool] = contextvars.ContextVar("no_ambient_secrets", default=False)


@contextmanager
def no_ambient_secrets() -> Iterator[None]:
    """Connections opened inside (in this thread) take no password but the location's own."""
    token = _NO_AMBIENT.set(True)
    try:
        yield
    finally:
        _NO_AMBIENT.reset(token)


def connect(where: Location, *, autocommit: bool = False) -> Any:
    """One connection (a psycopg.Connection) with our session settings (`session_defaults`);
    libpq's parameters in the location (sslmode, options, target_session_attrs...) and its
    environment (PGSERVICE, PGPASSFILE) apply."""
    return _dial(where, _defaults(where), autocommit, ())


def _dial(where: Location, kwargs: dict[str, Any], autocommit: bool, setup: Sequence[str]) -> Any:
    """`connect`, with libpq's keywords `kwargs` and then the statements of `setup`."""
    psycopg = driver()
    try:
        conn = psycopg.connect(where.target, autocommit=autocommit, **kwargs)
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to {describe(where, exc)}") from None
    try:
        session_defaults(conn)  # a lock another session holds: an error line, not a hang
        for sql in setup:
            conn.execute(sql)
        if not autocommit:
            conn.commit()
    except psycopg.Error as exc:  # the server's state (a statement_timeout of 1 ms) in its words
        conn.close()
        raise StoreError(f"cannot connect to {refusal(where, exc) or describe(where, exc)}") from None
    except BaseException:
        conn.close()
        raise
    return conn


def again(where: Location, conn: Any, setup: Sequence[str] = ()) -> Callable[[], Any]:
    """How to open `conn` (made by `connect`) again, once the server has ended it: the same
    location, on the same server (the host, port and address `conn` reached, not the next
    of a list of hosts nor what the name resolves to now), with the same rule for passwords
    (`no_ambient_secrets` as it stood when this is called), and our session settings with
    `setup` run after them (a store's time zone)."""
    kwargs = _defaults(where)
    info = conn.info
    kwargs["host"], kwargs["port"] = info.host, str(info.port)
    with contextlib.suppress(driver().NotSupportedError):  # a libpq before 12 tells no address
        if info.hostaddr:
            kwargs["hostaddr"] = info.hostaddr
    autocommit = bool(conn.autocommit)
    return lambda: _dial(where, kwargs, autocommit, setup)


def dropped(conn: Any) -> bool:
    """Whether the server has ended an idle connection since its last statement (its
    idle_session_timeout, a pg_terminate_backend, a restart): what the server sent meanwhile
    (its FATAL message, the end of the stream) is read without waiting, and nothing is sent.
    Only for a connection holding no transaction, whose server sends nothing unasked but a
    notice, a changed setting's report or a notification."""
    if conn.closed:
        return True
    pgconn = conn.pgconn
    if not select.select([pgconn.socket], [], [], 0)[0]:
        return False  # nothing came: the usual case, a syscall's time
    psycopg = driver()
    try:
        for _ in range(8):  # what came is read; more than this keeps coming: a live server's
            pgconn.consume_input()
            pgconn.is_busy()  # parses what came: a notice or a setting's report is handled
            if not select.select([pgconn.socket], [], [], 0)[0]:
                break
    except psycopg.OperationalError:  # the end of the stream: the server closed it
        return True
    from psycopg.pq import ConnStatus

    return pgconn.status != ConnStatus.OK


def _defaults(where: Location) -> dict[str, Any]:
    """Our defaults for what neither the location nor libpq's environment sets: a keyword
    given to psycopg would override the location's own (`?connect_timeout=30`)."""
    psycopg = driver()  # first: without psycopg, the line saying how to install it
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = conninfo_to_dict(where.target)
    except psycopg.ProgrammingError:
        given = {}
    out: dict[str, Any] = {"fallback_application_name": APPLICATION_NAME}
    if "connect_timeout" not in given and not os.environ.get("PGCONNECT_TIMEOUT"):
        out["connect_timeout"] = CONNECT_TIMEOUT_S
    if _NO_AMBIENT.get():
        # an explicit empty password keeps libpq from PGPASSWORD and a service file's, and
        # a password file that holds nothing from ~/.pgpass (libpq: an empty password is
        # never sent); a password the location spells itself is the location's own
        out["passfile"] = os.devnull
        if not given.get("password"):
            out["password"] = ""
    return out


def session_defaults(conn: Any) -> None:
    """Our session settings on a new connection (a psycopg.Connection), each only where
    nothing else set it (`pg_settings.source` is 'default'): `LOCK_TIMEOUT`. Not a
    statement_timeout: an import's COPY or a large store's load may rightly run long, and
    one the server or the role sets is reported as such (`refusal`)."""
    conn.execute(
        "SELECT set_config('lock_timeout', %s, false) FROM pg_settings"
        " WHERE name = 'lock_timeout' AND source = 'default'",
        (LOCK_TIMEOUT,),
    )


# SQLSTATEs that say what the store or the server is as it stands, not a statement of ours
# the server refused (which stays a bug to report): a table or column of the store renamed
# or dropped by hand, a database or schema that is not a store, a server that takes no
# writes, a lock another session holds, a statement the server cancelled, a clash with
# another writer, a full disk. Their message names the store (`refusal`).
_RESOURCES = ("53", "58")  # insufficient resources (disk full, out of memory), I/O error: the server's


def refusal(where: Location, exc: BaseException, raw: Any = None, *, writing: bool = False) -> str | None:
    """One line naming the store for a driver error that is the store's or the server's
    state, not our bug; None for any other. `raw`, the psycopg connection the statement
    failed on, is asked who holds a lock that timed out (after its transaction is rolled
    back); `writing`: the statement was part of a write, and nothing of it landed."""
    code = getattr(exc, "sqlstate", None) or ""
    if not type(exc).__module__.startswith("psycopg") or not code:
        return None
    diag = getattr(exc, "diag", None)
    said = _scrubbed(where, str(getattr(diag, "message_primary", None) or exc))
    nothing = "; nothing was written" if writing else ""
    if code in MISSING_PART:
        return unreadable(where.shown, said, by_hand(MISSING_PART[code]), writing=writing)
    if code == "42501":  # a privilege this login lacks, or a guard of the agent's role (docs/postgres.md)
        return f"{where.shown}: the server refused this login: {said}{nothing}"
    if code == "25006":
        return f"{where.shown}: the server takes no writes here ({said}: a standby, or a read-only default){nothing}"
    if code == "55P03":
        return f"{where.shown}: {_busy(diag, raw)}{nothing}"
    if code == "57014":
        return (
            f"{where.shown}: the server cancelled the statement ({said}: the server's or the role's"
            f" statement_timeout, or a person's pg_cancel_backend){nothing}"
        )
    if code in CLASH:
        return f"{where.shown}: another session's write clashed with this one ({said}){nothing}; try again"
    if code[:2] in _RESOURCES:
        return f"{where.shown}: the server could not read or write ({said}){nothing}"
    return None


def _busy(diag: Any, raw: Any) -> str:
    """`the store is busy: another session holds ...`: who holds a lock the statement gave
    up waiting for, asked of the server once the transaction is rolled back (the holder may
    have finished meanwhile: then only what was locked)."""
    context = " ".join(str(getattr(diag, "context", None) or "").split())
    found = re.search(r'(?:tuple|row) \S+ in relation "([^"]+)"', context)
    what = f"a row of {found.group(1)}" if found else "the store's write lock, or one of its tables"
    holders, waited = [], ""
    if raw is not None:
        try:
            if raw.info.transaction_status != _idle():
                raw.execute("ROLLBACK")
            waited = raw.execute("SELECT current_setting('lock_timeout')").fetchone()[0]
            holders = raw.execute(_HOLDERS, (LOCK_CLASS,)).fetchall()
        except Exception:  # noqa: BLE001 - who holds it is a courtesy: the line stands without
            holders = []
    if not holders:
        return busy(what, waited)
    wait = f" for more than {waited}" if waited else ""
    pid, user, app, state, since = holders[0]
    who = ", ".join(x for x in (f"pid {pid}", f"{app or 'no application name'} as {user}", state or "") if x)
    if since is not None:
        who += f" since {since:%Y-%m-%d %H:%M:%S} UTC"
    more = f" (and {len(holders) - 1} more)" if len(holders) > 1 else ""
    return f"the store is busy: another session ({who}){more} has held {what}{wait}"


# Sessions of this database holding a lock a writer of the store waits on: more than a
# read's share of one of the store's tables, or the store's advisory lock; oldest first.
_HOLDERS = (
    "SELECT a.pid, a.usename, a.application_name, a.state, a.xact_start AT TIME ZONE 'UTC'"
    " FROM pg_stat_activity a WHERE a.pid <> pg_backend_pid() AND a.pid IN (SELECT l.pid FROM pg_locks l"
    " LEFT JOIN pg_class c ON c.oid = l.relation WHERE l.granted AND l.database = (SELECT oid FROM"
    " pg_database WHERE datname = current_database()) AND ((l.locktype = 'relation' AND"
    " c.relnamespace = current_schema()::regnamespace AND l.mode <> 'AccessShareLock') OR"
    " (l.locktype = 'advisory' AND l.classid = %s::bigint::oid)))"
    " ORDER BY a.xact_start NULLS LAST LIMIT 4"
)


def _idle() -> Any:
    from psycopg.pq import TransactionStatus

    return TransactionStatus.IDLE


@contextmanager
def errors_named(where: Location, doing: str) -> Iterator[None]:
    """Turn a driver error raised inside into one StoreError line: `doing` says what failed."""
    psycopg = driver()
    try:
        yield
    except psycopg.Error as exc:
        said = refusal(where, exc)
        raise StoreError(f"{doing}: {said or describe(where, exc)}") from None


def pool(where: Location, *, min_size: int = 1, max_size: int = 4) -> Any:
    """A psycopg_pool.ConnectionPool for a long-lived process (a browser's workers, an MCP
    server): connections opened once and reused, checked before each lend. At most four:
    the browser's workers that run at once (score, search, graph, triage); a listener
    keeps a connection of its own outside the pool (live.py)."""
    driver()
    try:
        from psycopg_pool import ConnectionPool
    except ImportError as exc:
        raise StoreError(
            f"a PostgreSQL store needs psycopg-pool ({exc.name} is missing): {INSTALL}"
        ) from None
    return ConnectionPool(
        where.target,
        min_size=min_size,
        max_size=max_size,
        kwargs=_defaults(where),
        check=ConnectionPool.check_connection,
        open=True,
    )
