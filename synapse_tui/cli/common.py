"""What every command shares: options, error handling, opening a store, progress."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from ..core.clock import Clock
from ..core.config import resolve_config
from ..core.errors import QueryError, SynapseError
from ..core.memory import Memory
from ..core.store import Store

EXIT_USER_ERROR = 2


class SynapseGroup(click.Group):
    """A group whose first argument may be a database path instead of a command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["open", *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            sys.stderr.close()
            ctx.exit(1)
        except (SynapseError, sqlite3.DatabaseError) as exc:
            close_progress_bars()
            click.echo(f"error: {describe_error(exc)}", err=True)
            ctx.exit(EXIT_USER_ERROR)


def describe_error(exc: Exception) -> str:
    """One message for a user's mistake or a damaged store."""
    if isinstance(exc, QueryError):
        return f"{exc.reason}\n  " + exc.caret().replace("\n", "\n  ")
    if isinstance(exc, sqlite3.DatabaseError):  # damage found past the header check at open
        return f"the database is corrupt or unreadable ({exc})"
    return str(exc)


def now_option(f: Callable) -> Callable:
    return click.option(
        "--now", metavar="RFC3339", help="Pin the clock (default: SYNAPSE_NOW, else the wall clock)."
    )(f)


def json_option(f: Callable) -> Callable:
    return click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")(f)


def config_option(f: Callable) -> Callable:
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False),
        help="Config file (default: SYNAPSE_CONFIG, else DB.synapse.toml beside DB).",
    )(f)


def db_argument(f: Callable) -> Callable:
    return click.argument("db", type=click.Path(dir_okay=False))(f)


@contextmanager
def open_memory(db: str, now: str | None, config_path: str | None, readonly: bool = True) -> Iterator[Memory]:
    clock = Clock.from_option(now)
    config = resolve_config(db, config_path)
    with Store.open(db, readonly=readonly) as store:
        yield Memory(store, config, clock.now())


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False))


_OPEN_BARS: list[Any] = []


def close_progress_bars() -> None:
    """End any bar left open (an error mid-way), so a message starts on its own line."""
    while _OPEN_BARS:
        _OPEN_BARS.pop().__exit__(None, None, None)


def progress_bar(label: str) -> Callable[[int, int], None] | None:
    """A progress callback drawing on stderr when it is a terminal, else None."""
    if not sys.stderr.isatty():
        return None
    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if "bar" not in state:
            state["bar"] = click.progressbar(length=total, label=label, file=sys.stderr)
            state["bar"].__enter__()
            _OPEN_BARS.append(state["bar"])
            state["done"] = 0
        state["bar"].update(done - state["done"])
        state["done"] = done
        if done >= total:
            bar = state.pop("bar")
            _OPEN_BARS.remove(bar)
            bar.__exit__(None, None, None)

    return update
