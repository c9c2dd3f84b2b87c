"""Connections to a server: psycopg 3, imported only here and only when a server is named.

Every failure becomes a StoreError naming the location as `Location.shown` prints it, and
a driver message is scrubbed of the password too (libpq does not echo it today; this keeps
it so if a message ever quotes the connection string).
"""

from __future__ import annotations

import contextvars
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import SECRET_KEYS, Location, redact

INSTALL = 'pip install "synapse-tui[postgres]"'
APPLICATION_NAME = "synapse-tui"  # what pg_stat_activity shows, unless the location names its own
CONNECT_TIMEOUT_S = 10  # a server that does not answer: an error line, not a hang


def driver() -> Any:
    """The psycopg module, or a StoreError saying how to install it."""
    try:
        import psycopg
    except ImportError as exc:
        raise StoreError(f"a PostgreSQL store needs psycopg ({exc.name} is missing): {INSTALL}") from None
    return psycopg


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
    text = " ".join(str(exc).split()) or type(exc).__name__
    for secret in _secrets(where.target):
        text = text.replace(secret, "***")
    return f"{where.shown}: {redact(text)}"


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
    """One connection (a psycopg.Connection); libpq's parameters in the location (sslmode,
    options, target_session_attrs...) and its environment (PGSERVICE, PGPASSFILE) apply."""
    psycopg = driver()
    try:
        return psycopg.connect(where.target, autocommit=autocommit, **_defaults(where))
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to {describe(where, exc)}") from None


def _defaults(where: Location) -> dict[str, Any]:
    """Our defaults for what neither the location nor libpq's environment sets: a keyword
    given to psycopg would override the location's own (`?connect_timeout=30`)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = conninfo_to_dict(where.target)
    except driver().ProgrammingError:
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


@contextmanager
def errors_named(where: Location, doing: str) -> Iterator[None]:
    """Turn a driver error raised inside into one StoreError line: `doing` says what failed."""
    psycopg = driver()
    try:
        yield
    except psycopg.Error as exc:
        raise StoreError(f"{doing}: {describe(where, exc)}") from None


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
