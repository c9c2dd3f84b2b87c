"""What every command shares: options, error handling, opening a store, progress.

How a command ends, decided in one place (`SynapseGroup.invoke`):

- a user's mistake (bad input, an unknown id, a filter typo, a usage error of click's
  such as `--limit abc`, a file that is not a store, a disk that is full) prints one
  `error:` line on stderr (a filter error adds its query and a caret) and exits 2;
- our own bug prints one "internal error, please report" line and exits 1; the
  traceback follows only with SYNAPSE_DEBUG=1.

A traceback never reaches a user otherwise.
"""

from __future__ import annotations

import difflib
import os
import sys
import traceback
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config, config_for
from synapse_tui.core.base.ids import name_id
from synapse_tui.core.base.jsonl import json_line
from synapse_tui.core.base.limits import has_surrogate
from synapse_tui.core.base.location import is_server, locate, refuse_server
from synapse_tui.core.base.textsafe import clean, clean_block
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store, holds_facts
from synapse_tui.core.store.errors import describe, is_internal

EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 1


def say(text: str, err: bool = False) -> None:
    """Human output: every line through the one text-safety function, so nothing read from
    a store, a source or the environment acts on the terminal."""
    click.echo(clean_block(text), err=err)


def say_row(*fields: str) -> None:
    """Human output of one row of columns a tab apart (to read, or to cut): each field
    through the text-safety function, so a tab inside a field is shown, never a column."""
    click.echo("\t".join(clean(f) for f in fields))


class UsageLine(click.UsageError):
    """A usage error shown as one `error:` line (click's own form takes three)."""

    exit_code = EXIT_USER_ERROR

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {clean(self.message)}", err=True)


# The store a command uses when none is named (docs/postgres.md): a file or a server.
STORE_ENV = "SYNAPSE_DB"
_FROM_ENV = "synapse_tui.store_from_env"  # ctx.meta: the SYNAPSE_DB value a command took


def store_from_env() -> str | None:
    return os.environ.get(STORE_ENV) or None


class SynapseCommand(click.Command):
    """A command whose DB argument SYNAPSE_DB may stand for.

    DB comes first, then the ids if any (`show DB ID`); SYNAPSE_DB stands for it when the
    command line holds one positional fewer than the command takes (`show ID`), so an
    explicit DB keeps working exactly as before and no count of arguments means two things."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        self._no_misspelt_option(ctx, args)
        env = store_from_env()
        if env is not None and self._one_short(ctx, args):
            args = [env, *args]
            ctx.meta[_FROM_ENV] = env
        try:
            rest = super().parse_args(ctx, args)
        except click.UsageError as exc:
            if exc.ctx is None:  # click's parser names no command (`--limit` without a value):
                exc.ctx = ctx  # the help to see is this command's, which lists the option
            if (
                isinstance(exc, click.MissingParameter)
                and isinstance(exc.param, click.Argument)
                and exc.param.name == "db"
            ):
                # the browser opened the sample without one: say where a store comes from
                raise click.MissingParameter(
                    f"Name the store (a file or a postgresql:// location) or set {STORE_ENV};"
                    " `synapse-tui sample` prints the path of the bundled sample",
                    ctx=ctx,
                    param=exc.param,
                ) from None
            raise
        if ctx.get_parameter_source("db") is ParameterSource.ENVIRONMENT:  # `import --db`
            ctx.meta[_FROM_ENV] = ctx.params["db"]
        return rest

    def _no_misspelt_option(self, ctx: click.Context, args: list[str]) -> None:
        """A command taking ids lets an unknown option through as an id (TAKES_IDS): one
        that is a near miss of an option of its own (`--jsn`) is remembered, so the error
        it ends in (an extra argument, or no fact with that id) names the option meant."""
        if not ctx.ignore_unknown_options:
            return
        own = [o for p in self.get_params(ctx) for o in (*p.opts, *p.secondary_opts) if o.startswith("--")]
        for arg in args:
            if arg == "--":
                return
            name = arg.split("=", 1)[0]
            if name.startswith("--") and name not in own:
                close = difflib.get_close_matches(name, own, n=1)
                # no near miss (`--limit` to `neighbours`): an extra argument it ends as is
                # still said to be no such option, not an argument (`_meant`)
                ctx.meta.setdefault(_NEAR_MISSES, {})[arg] = close[0] if close else None

    def _one_short(self, ctx: click.Context, args: list[str]) -> bool:
        """Whether DB is the first argument and only the last one is missing."""
        names = [p.name for p in self.params if isinstance(p, click.Argument)]
        if not names or names[0] != "db":
            return False
        try:
            given, _, _ = self.make_parser(ctx).parse_args(list(args))
        except click.UsageError:
            return False  # the real parse says what is wrong
        missing = [name for name in names if not isinstance(given.get(name), str)]  # unset: a sentinel
        return missing == names[-1:]

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        arguments = [p for p in self.params if isinstance(p, click.Argument)]
        if not arguments or arguments[0].name != "db":
            return
        if len(arguments) > 1:
            ids = " ".join(a.human_readable_name for a in arguments[1:])
            text = (
                f"DB may be left out when {STORE_ENV} names the store (a file or a"
                f" postgresql:// location): `{ctx.command_path} {ids}` then uses it."
            )
        elif arguments[0].required:
            text = f"Without DB, the store {STORE_ENV} names (a file or a postgresql:// location)."
        else:
            text = f"Without DB, the store {STORE_ENV} names, else the bundled sample."
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(text)


class SynapseGroup(click.Group):
    """A group whose first argument may be a database path instead of a command."""

    command_class = SynapseCommand

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for n, arg in enumerate(args, start=1):
            # bytes the OS could not decode as UTF-8 arrive as lone surrogates
            if "\x00" in arg or has_surrogate(arg):
                raise UsageLine(f"argument {n} ({ascii(arg)[:60]}) holds a NUL or a byte that is not UTF-8")
        # `synapse-tui`, `synapse-tui DB ...` and `synapse-tui --now T DB` open the browser:
        # anything but a command or the group's own options (--help, --version) goes to `open`
        own = {opt for param in self.get_params(ctx) for opt in (*param.opts, *param.secondary_opts)}
        if args[:1] == ["help"] and not Path("help").exists():  # `help [COMMAND]`, not a store
            if args[1:2] and args[1] not in self.commands:  # a typo: said, not the list with status 0
                raise UsageLine(
                    _usage_message(click.NoSuchCommand(args[1], possibilities=self.commands, ctx=ctx))
                )
            args = [*args[1:2], "--help"]
        if not args or (args[0] not in self.commands and args[0].split("=", 1)[0] not in own):
            _no_misspelt_command(self, ctx, args)
            args = ["open", *args]
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise UsageLine(_usage_message(exc)) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:
            sys.stderr.close()
            ctx.exit(1)
        except Exception as exc:
            close_progress_bars()
            message, code = describe_error(exc)
            message = _meant(ctx, _naming_env(ctx, message))
            if code == EXIT_INTERNAL_ERROR and os.environ.get("SYNAPSE_DEBUG") == "1":
                traceback.print_exc(file=sys.stderr)
            click.echo(f"error: {message}", err=True)
            ctx.exit(code)


# words a newcomer tries as commands that are another command's (the browser's queues)
_MEANT = {
    "referent": "suggest DB --kind referent",
    "referents": "suggest DB --kind referent",
    "gone": "suggest DB --kind referent",
    "replaced": "suggest DB",
    "search": "score DB --where WORDS",
}


def _no_misspelt_command(group: click.Group, ctx: click.Context, args: list[str]) -> None:
    """`synapse-tui scor DB`: a first word that names no file, is no option and is a near
    miss of a command is that command's typo (not a store to open): say which was meant.
    So is a word (no `.` or `/`: not a store's name) followed by more arguments, which a
    store to open never is (`synapse-tui referents DB`), with the command meant if known."""
    if not args or args[0].startswith("-") or is_server(args[0]) or Path(args[0]).exists():
        return
    if difflib.get_close_matches(args[0], list(group.commands), n=1):
        raise UsageLine(_usage_message(click.NoSuchCommand(args[0], possibilities=group.commands, ctx=ctx)))
    word = args[0]
    if len(args) > 1 and not any(c in word for c in "./\\") and not args[1].startswith("-"):
        meant = f"; did you mean `synapse-tui {_MEANT[word.lower()]}`?" if word.lower() in _MEANT else ""
        raise UsageLine(f"no such command {word!r}{meant} (see {ctx.command_path} --help)")


_NEAR_MISSES = "synapse_tui.near_misses"  # ctx.meta: {argument: the option it nearly spells}


def _meant(ctx: click.Context, message: str) -> str:
    """`message`, when it names an argument that was a near miss of an option
    (`SynapseCommand._no_misspelt_option`), saying which option was meant: an extra
    argument is that option's typo; an unknown id may be."""
    for arg, option in ctx.meta.get(_NEAR_MISSES, {}).items():
        if f"extra argument ({arg})" in message or f"extra arguments ({arg} " in message:
            see = message[message.rfind(" (see ") :] if " (see " in message else ""
            meant = f"; did you mean {option}?" if option else ""
            return f"no such option {arg.split('=', 1)[0]!r}{meant}{see}"
        if f"{arg!r}" in message and option:
            return f"{message}; did you mean the option {option}?"
    return message


def _naming_env(ctx: click.Context, message: str) -> str:
    """A message about the store SYNAPSE_DB named says so: the user did not type it."""
    env = ctx.meta.get(_FROM_ENV)
    if env is None or clean(locate(env).shown) not in message:
        return message
    return f"{message} (named by {STORE_ENV})"


def _usage_message(exc: click.UsageError) -> str:
    """Click's message, lower-cased like ours, and where to read more."""
    text = exc.format_message()
    text = text[:1].lower() + text[1:] if text[1:2].islower() else text
    command = exc.ctx.command_path if exc.ctx is not None else "synapse-tui"
    return f"{text.rstrip('.')} (see {command} --help)"


def describe_error(exc: Exception) -> tuple[str, int]:
    """core's message for an exception (click's own usage errors in our words), and the
    exit status: 2 for a user's mistake, 1 for our bug."""
    if isinstance(exc, click.UsageError):
        return clean(_usage_message(exc)), EXIT_USER_ERROR
    if isinstance(exc, click.ClickException):
        return clean(exc.format_message()), EXIT_USER_ERROR
    if not is_internal(exc):
        return describe(exc), getattr(exc, "exit_code", EXIT_USER_ERROR)  # PartialWrite: its own
    hint = "" if os.environ.get("SYNAPSE_DEBUG") == "1" else "; SYNAPSE_DEBUG=1 shows the traceback"
    return describe(exc) + hint, EXIT_INTERNAL_ERROR


class FilePath(click.Path):
    """A file's path: not a directory, and not empty (which names no file at all); DB, a store,
    may be a server's location instead."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("an empty path names no file", param, ctx)
        if isinstance(value, str) and is_server(value):
            if param is not None and param.name == "db":
                return value  # a store on a server, which Store.open takes as it is
            # a file is wanted (an output, a config): said before any message could spell its password
            refuse_server(value, param.get_error_hint(ctx) if param is not None else "this")
        if isinstance(value, str) and param is not None and param.name == "db" and os.path.isdir(value):
            # a newcomer's first try: the folder the memory is in, not a store read from it
            self.fail(
                f"{clean(value)} is a folder, not a store: read the memory in it first, e.g."
                f" `synapse-tui import --from markdown {clean(value)} --db memory.db` (or"
                " `--from claude-code --project FOLDER`), then open memory.db",
                param,
                ctx,
            )
        if (
            isinstance(value, str)
            and param is not None
            and param.name == "db"
            and (hint := _memory_file(value))
        ):
            self.fail(hint, param, ctx)  # a newcomer's other first try: the memory file itself
        return super().convert(value, param, ctx)


_MARKDOWN = (".md", ".mdc", ".markdown")
_JSON = (".jsonl", ".json", ".ndjson")


def _memory_file(value: str) -> str | None:
    """What to say of a DB that is a memory file rather than a store (`synapse-tui
    CLAUDE.md`, an MCP memory server's memory.jsonl): how to read it into one. None for any
    other path, and for a store whatever its name (a SQLite file says so in its first bytes)."""
    path = Path(value)
    if path.suffix.lower() not in _MARKDOWN + _JSON or not path.is_file():
        return None
    try:
        with path.open("rb") as fh:
            if fh.read(16) == b"SQLite format 3\x00":
                return None
    except OSError:
        return None  # said as the store's open says it
    name, folder = clean(path.name), clean(str(path.parent))
    if path.suffix.lower() in _MARKDOWN:
        return (
            f"{name} is a Markdown file, not a store: read the memory it is in first, e.g."
            f" `synapse-tui import --from markdown {folder} --db memory.db` (or `--from claude-code"
            " --project FOLDER`, `--from cursor --project FOLDER`), then open memory.db"
        )
    return (
        f"{name} is a JSON Lines file, not a store: import it first, `synapse-tui import"
        f" {clean(value)} --db memory.db` (an MCP memory server's file: `--from mcp-memory`),"
        " then open memory.db"
    )


def instant(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """An option's RFC 3339 value as epoch seconds (click callback); None when not given."""
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


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
        type=FilePath(),
        help="Config file (default: SYNAPSE_CONFIG, else the one beside DB named for it: memory.db reads memory.synapse.toml).",
    )(f)


# Fact ids are data, and one may begin with '-' ("-0"), which click would take for an
# option: a command taking ids lets an option it does not know through as an argument, so
# `show DB -0` finds that fact (and a typo such as `show DB --jsn` is an unknown id).
TAKES_IDS = {"ignore_unknown_options": True}


def resolve_id(typed: str, ids: Sequence[str], known: Container[str] | None = None) -> str:
    """The fact id `typed` names (`name_id`: itself, or the one id a shortened form as the
    list or a toast showed, '…' and all, begins or ends); a shortened id naming several is
    refused naming them. `typed` unchanged when it names none (the command then says there
    is no such fact)."""
    return name_id(typed, ids, known) or typed


def store_id(store: Store, typed: str) -> str:
    """`typed`, or the fact of `store` it names as a shortened id (`resolve_id`), for every
    command taking an id; every id is read only when `typed` is none."""
    if store.review.exists(typed):
        return typed
    return resolve_id(typed, store.ids_at(list(range(store.count()))))


def db_argument(f: Callable) -> Callable:
    return click.argument("db", type=FilePath())(f)


def resolve_config(db: str | os.PathLike[str], config_path: str | None, must_exist: bool = True) -> Config:
    return config_for(db, config_path, must_exist)


@contextmanager
def nothing_left_if_refused(db: str | os.PathLike[str]) -> Iterator[None]:
    """A refused import into a new path leaves no file behind (store, -wal, -shm, -journal).

    A store that holds facts by then was filled by another process importing into the
    same new path meanwhile: it is left alone."""
    if is_server(db):  # a transaction on the server: a refused import left nothing there
        yield
        return
    p = Path(db)
    paths = [p] + [p.with_name(p.name + suffix) for suffix in ("-wal", "-shm", "-journal")]
    new = [q for q in paths if not q.exists()]
    try:
        yield
    except BaseException:
        if p in new and not holds_facts(p):
            for q in new:
                q.unlink(missing_ok=True)
        raise


@contextmanager
def open_memory(
    db: str, now: str | None, config_path: str | None, readonly: bool = True, config_must_exist: bool = True
) -> Iterator[Memory]:
    """A scored store for one command: every query of it reads one snapshot."""
    clock = Clock.from_option(now)
    config = resolve_config(db, config_path, must_exist=config_must_exist)
    with Store.open(db, readonly=readonly) as store, store.snapshot():
        yield Memory(store, config, clock.now())


def emit_json(obj: Any) -> None:
    click.echo(json_line(obj))


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
