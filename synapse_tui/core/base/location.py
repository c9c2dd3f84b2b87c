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
from urllib.parse import parse_qsl, urlencode, urlsplit

from synapse_tui.core.base.errors import StoreError

_SCHEMES = ("postgresql://", "postgres://")
# libpq's key=value form, led by the service key (a path holding '=' is still a path)
_SERVICE = re.compile(r"^\s*service\s*=\s*\S+(\s+\w+\s*=\s*\S+)*\s*$")
_SECRET_PAIR = re.compile(r"\b(password)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", re.I)


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


def redact(target: str) -> str:
    """A server's location without its password (user, host, database and options kept)."""
    if not target.lower().startswith(_SCHEMES):
        return _SECRET_PAIR.sub(r"\1=***", target)
    try:
        parts = urlsplit(target)
        netloc = parts.netloc
    except ValueError:
        return target.split("://", 1)[0] + "://***"  # too malformed to take apart: show nothing of it
    if "@" in netloc:
        userinfo, hosts = netloc.rsplit("@", 1)
        netloc = userinfo.split(":", 1)[0] + "@" + hosts
    query = urlencode(
        [
            (k, "***" if k.lower() == "password" else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ],
        safe="/*",
    )
    # by hand: urlunsplit drops the `//` of a scheme it does not know when there is no host
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")


# What a server named where a file is wanted says (an export's output, a config, a file to
# import): every store argument takes a server, these do not.
NOT_A_FILE = "{shown}: a PostgreSQL server, where {what} takes a file"


def refuse_server(text: str | os.PathLike[str], what: str = "this") -> None:
    """Raise the one-line refusal for a server location where a file is wanted (a file passes)."""
    where = locate(text)
    if where.is_server:
        raise StoreError(NOT_A_FILE.format(shown=where.shown, what=what))
