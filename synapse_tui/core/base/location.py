"""Where a store lives: a file, or a PostgreSQL server. One function decides, for everyone.

A server is named the ways libpq names one: a URL (`postgresql://` or `postgres://`), or a
connection string naming a service from pg_service.conf (`service=team`); `postgresql://`
alone takes everything from libpq's environment (PGSERVICE, PGHOST, PGDATABASE...).
Everything else is a file's path. A password may sit in a URL, its query or a connection
string; `shown` is the only spelling that goes into a message, a log or a title.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from synapse_tui.core.base.errors import StoreError

_SCHEMES = ("postgresql://", "postgres://")
# libpq's key=value form, led by the service key (a path holding '=' is still a path)
_SERVICE = re.compile(r"^\s*service\s*=\s*\S+(\s+\w+\s*=\s*('(?:[^'\\]|\\.)*'|\S+))*\s*$")


@dataclass(frozen=True)
class Location:
    """A store's location as the user gave it: `target` is what a driver connects to."""

    kind: Literal["file", "server"]
    target: str

    @property
    def is_server(self) -> bool:
        return self.kind == "server"

    @property
    def shown(self) -> str:
        """The location with any password taken out: the one safe to print."""
        return redact(self.target) if self.is_server else self.target

    def __str__(self) -> str:
        return self.shown

    @property
    def name(self) -> str:
        """What a title shows of it, as a file's name (`store.path.name`)."""
        return self.shown if self.is_server else os.path.basename(self.target)

    def __fspath__(self) -> str:
        """What reopens it (`Store.open(store.path)`): the target, never for printing."""
        return self.target


def locate(text: str | os.PathLike[str]) -> Location:
    """A file or a server, by how the location is spelled (never by trying to connect)."""
    spelled = os.fspath(text)
    if spelled.lower().startswith(_SCHEMES) or _SERVICE.match(spelled):
        return Location("server", spelled)
    return Location("file", spelled)


def is_server(text: str | os.PathLike[str]) -> bool:
    return locate(text).is_server


# libpq's parameters that hold a secret (libpq-connect, "Parameter Key Words"): a password,
# the passphrase of the client key, an OAuth client's secret
SECRET_KEYS = ("password", "sslpassword", "oauth_client_secret")
_SECRET_PAIR = re.compile(
    r"(?<![\w%])(" + "|".join(SECRET_KEYS) + r")(\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&'\"]+)", re.I
)
_URL = re.compile(r"postgres(?:ql)?://[^\s'\"<>]*", re.I)


def redact(target: str) -> str:
    """A server's location without a secret (user, host, database and options kept); a
    message or any other text: every location in it so, and every `key=value` secret.

    Taken apart by hand, not by urlsplit: a malformed URL (an IPv6 host left open) must
    lose its password too. The user info ends at the last `@` (libpq stops at the first,
    but a password holding `@`, `?` or `/` is still the user's); a query's keys are read
    percent-decoded, as libpq reads them (`pass%77ord=`)."""
    return _SECRET_PAIR.sub(_hide_pair, _URL.sub(lambda m: _redact_url(m.group(0)), target))


def _hide_pair(m: re.Match[str]) -> str:
    return f"{m.group(1)}{m.group(2)}***"


def _redact_url(url: str) -> str:
    scheme, _, rest = url.partition("://")
    at = rest.rfind("@")
    if at >= 0:
        userinfo, rest = rest[:at], rest[at + 1 :]
        user = userinfo.split(":", 1)[0]
        rest = f"{user}@{rest}" if user else f"@{rest}"  # the password went with the rest
    head, q, query = rest.partition("?")
    if q:
        pairs = []
        for pair in query.split("&"):
            key, eq, _value = pair.partition("=")
            if eq and unquote(key).strip().lower() in SECRET_KEYS:
                pair = f"{key}=***"
            pairs.append(pair)
        head += "?" + "&".join(pairs)
    return f"{scheme}://{head}"


# What a server named where a file is wanted says (an export's output, a config, a file to
# import): every store argument takes a server, these do not.
NOT_A_FILE = "{shown}: a PostgreSQL server, where {what} takes a file"


def refuse_server(text: str | os.PathLike[str], what: str = "this") -> None:
    """Raise the one-line refusal for a server location where a file is wanted (a file passes)."""
    where = locate(text)
    if where.is_server:
        raise StoreError(NOT_A_FILE.format(shown=where.shown, what=what))
