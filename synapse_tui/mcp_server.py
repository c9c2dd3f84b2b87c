"""The MCP server (SPEC 10): the store over stdio with the official `mcp` SDK (extra `[mcp]`).

A thin layer over `core.agent.Recall`: each tool validates its typed arguments (the SDK
does, from the signature), calls Recall in a worker thread (the SDK runs sync tools off
the event loop), and turns a SynapseError into a tool error carrying the CLI's message,
so the server keeps serving. The agent's name is the client's declared `clientInfo.name`.

What an agent reads is tidied here, not in the core: numbers to four significant digits
(`tidy`: the score is closed-form arithmetic shown banded, so 17 digits only cost tokens),
an argument of the wrong type as one line naming the argument (not the validator's text
and its link), and a filter typo with its query and caret on their own lines.
"""

from __future__ import annotations

import inspect
import math
import os
import re
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, NotRequired
from urllib.parse import unquote, urlsplit

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import ToolAnnotations
from pydantic import ConfigDict, Field, ValidationError, with_config
from typing_extensions import TypedDict

from synapse_tui.core.agent import MAX_LIMIT, Recall, agent_actor
from synapse_tui.core.base.errors import QueryError
from synapse_tui.core.base.location import Location, locate
from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.review.query import KEYED, MAX_QUERY_CHARS, MAX_WORDS, NUMERIC
from synapse_tui.core.review.triage import AGENT_ACTIONS, Action
from synapse_tui.core.store.errors import ReportedError, describe


@with_config(ConfigDict(extra="allow"))
class Fact(TypedDict, total=False):
    """A recalled fact with its trust envelope (`show` adds every field of `show --json`)."""

    id: str
    text: str
    trust: float
    band: str
    confidence: float
    freshness: float
    supersession: float
    gate: float
    guidance: str
    guidance_advice: str
    caution: str  # only for a fact deleted at its source: read it before the guidance
    stale: bool
    review_due: str
    flags: list[str]
    tier: str
    k: int
    superseded_by: list[str]
    suggestions: list[dict[str, Any]]  # standing suggestions (SPEC 13): kind, by/referent, why
    relevance: float | None
    rank_reason: str
    # the rest of the score row (core/trust/row.py: a test holds this class to its fields)
    b: float
    d: float
    u: float
    B: float


class SearchResult(TypedDict):
    results: list[Fact]
    total: int
    signals: list[str]
    constants: dict[str, Any]  # the score's constants now; fitted to verdicts here, on how many
    # the best match is history with a current successor: {"matched", "current", "why"}, and
    # "caution" when that successor is deleted at its source
    stale_premise: NotRequired[dict[str, str]]


@with_config(ConfigDict(extra="allow"))
class NeighboursResult(TypedDict):
    id: str
    semantic: list[Fact]
    entities: list[dict[str, Any]]


ENVELOPE = (
    "Every fact comes with its trust envelope: `trust` in [0, 1] and its `band` (very low .. very "
    "high), the four factors (confidence, freshness, supersession, gate), `guidance` with "
    "`guidance_advice` ('uncertain: go corroborate', 'disputed: go resolve'), `caution` when the "
    "fact was deleted at its source ('deleted at its source: do not rely on it', which overrides "
    "the guidance), `stale` (freshness "
    "below the review threshold), `review_due`, `flags`, and `superseded_by` (the facts that "
    "replaced it: follow them). `constants` (in search and show) names the score's constants "
    "and whether they were fitted to people's verdicts on this store, and on how many."
)
INSTRUCTIONS = (
    "Long-term memory with a deterministic, explainable trust score per fact. Prefer facts "
    "with high trust; treat a stale or superseded fact as history, not as the current truth. "
    "You may add evidence (corroborate, contradict, verify) and remember new facts; a person "
    "accepts and signs. " + ENVELOPE
)
# the search tool's `query`, described: a constant, as annotations are read back as text
# and an f-string there may not hold both kinds of quote
QUERY_HELP = (
    "Ask as you would a person ('When did Maria start at the climbing "
    "gym?') or give keywords; add filters to restrict, e.g. 'payments owner "
    "trust>0.5 -is:superseded' or 'is:stale tier:auto'. Filters: "
    f"{'/'.join(NUMERIC)} with < <= > >= = !=; "
    f"tier: guidance: band: flag: is:({'|'.join(KEYED['is'])}); "
    "prov:KEY=VALUE (provenance), note:ID (a path also by its last parts: note:CLAUDE.md; "
    "a value with spaces quoted: note:\"My Notes.md\"); a leading '-' negates. At most "
    f"{MAX_WORDS} distinct words and {MAX_QUERY_CHARS:,} characters."
)
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


def _agent(ctx: Context) -> str:
    """`agent:NAME`, NAME from the client's `initialize` (clientInfo.name)."""
    try:
        params = ctx.session.client_params
    except ValueError:  # called outside a request (in-process, as the benchmark does)
        params = None
    return agent_actor(params.client_info.name if params is not None else None)


def _call(
    store_path: str | os.PathLike[str], fn: Callable[..., dict[str, Any]], *args: Any, **kwargs: Any
) -> Any:
    try:
        return tidy(fn(*args, **kwargs))
    except ReportedError as exc:  # the CLI's "error:" cases
        raise ToolError(tool_error(exc, store_path)) from None


SIGNIFICANT = 4  # digits an agent reads: trust is shown to two decimals, ranks need a few more


def tidy(value: Any) -> Any:
    """`value` with every float rounded to SIGNIFICANT digits (whole numbers kept whole:
    an age of 1,234.5 days is 1,235, not 1.235e3); the structure is left as it was."""
    if isinstance(value, float):
        if value == 0 or not math.isfinite(value):
            return value
        return round(value, max(0, SIGNIFICANT - 1 - math.floor(math.log10(abs(value)))))
    if isinstance(value, dict):
        return {k: tidy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [tidy(v) for v in value]
    return value


def tool_error(exc: BaseException, store_path: str | os.PathLike[str]) -> str:
    """The CLI's message, and without the server's paths: the agent may run elsewhere, and
    the store's location is not its business. One line, except a filter typo's, whose
    query and caret under the bad token keep their own lines (the caret is its point)."""
    lines = [part.rstrip() for part in describe(exc).splitlines()]
    message = "\n".join(lines) if isinstance(exc, QueryError) else " ".join(p.strip() for p in lines)
    where = locate(store_path)
    spellings = (
        (where.shown, where.target) if where.is_server else (str(Path(store_path).resolve()), where.target)
    )
    for spelled in spellings:
        message = message.replace(spelled, store_name(where))
    return _LIBPQ_ADDRESS.sub(r"\1 failed", message) if where.is_server else message


# libpq's words for a connection it could not make name the server's socket or host:
# `connection to server on socket "/run/pg/.s.PGSQL.5432" failed`, `... at "db1" (10.0.0.5),
# port 5432 failed`; a tool error keeps the words and drops the address
_LIBPQ_ADDRESS = re.compile(
    r'(connection to server) (?:on socket "[^"]*"|at "[^"]*"(?: \([^)]*\))?, port \d+) failed'
)


def store_name(where: Location) -> str:
    """What a tool error calls the store: a file's name; a server's database (never its
    host, user or password), else the service it names, else "the store"."""
    if not where.is_server:
        return Path(where.target).name
    try:
        from psycopg import ProgrammingError
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:  # no driver: the URL's path is its database
        parts: dict[str, Any] = {"dbname": unquote(urlsplit(where.target).path.lstrip("/"))}
    else:
        try:
            parts = conninfo_to_dict(where.target)
        except ProgrammingError:  # a location libpq cannot read: nothing of it is shown
            parts = {}
    return str(parts.get("dbname") or parts.get("service") or "the store")


def argument_error(tool: str, exc: ValidationError) -> str:
    """A wrong-typed or missing argument as one line naming each argument and what it
    takes, without the validator's rejected value or its documentation link."""
    parts = []
    for err in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"argument {where!r}: {err['msg']}")
    return clean(f"Error executing tool {tool}: " + "; ".join(dict.fromkeys(parts)))


def tool_arguments(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The arguments a tool function takes from the agent: its parameters but the context."""
    hints = inspect.signature(fn).parameters.values()
    return tuple(p.name for p in hints if p.annotation is not Context and p.annotation != "Context")


def unknown_arguments(tool: str, unknown: list[str], accepted: tuple[str, ...]) -> str:
    """One line naming each argument the tool does not take, and those it does."""
    named = ", ".join(repr(key) for key in unknown)
    noun = "argument" if len(unknown) == 1 else "arguments"
    takes = ", ".join(accepted) or "none"
    return clean(f"Error executing tool {tool}: unknown {noun} {named} (it takes: {takes}); nothing changed")


def package_version() -> str:
    try:
        return metadata.version("synapse-tui")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


class Server(MCPServer):
    """The SDK's server with the validator's raw text turned into one line, and an argument
    no tool takes refused (the SDK's argument models ignore one: a `supercedes` typo would
    save the fact unlinked). Each tool's schema says so (`additionalProperties: false`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.accepted: dict[str, tuple[str, ...]] = {}  # each tool's arguments, by tool name

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        for tool in tools:
            if tool.name in self.accepted:
                tool.input_schema = {**tool.input_schema, "additionalProperties": False}
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        accepted = self.accepted.get(name)
        unknown = [key for key in arguments or {} if accepted is not None and key not in accepted]
        if unknown:  # refused before the tool runs: nothing is read or written
            raise ToolError(unknown_arguments(name, unknown, accepted or ()))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError) and not isinstance(exc, UnexpectedToolError):
                raise ToolError(argument_error(name, exc.__cause__)) from None
            raise


def scope_note(recall: Recall) -> str:
    """What a scoped server says in its instructions and every tool's description."""
    if recall.scope is None:
        return ""
    return (
        f"This server is scoped to `{recall.scope.source}`: every tool sees only the facts "
        "matching it (others are unknown ids), what you remember is kept inside it, and "
        "entity co-occurrence (counted over every scope) is left out of `neighbours`."
    )


def build_server(recall: Recall) -> MCPServer:
    scoped = scope_note(recall)
    server = Server(
        "synapse-tui",
        version=package_version(),
        instructions=f"{INSTRUCTIONS} {scoped}".strip(),
        log_level="WARNING",
    )

    def call(fn: Callable[..., dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
        return _call(recall.store.path, fn, *args, **kwargs)

    def search(
        query: Annotated[
            str,
            Field(description=QUERY_HELP),
        ] = "",
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Most results to return.")] = 10,
    ) -> SearchResult:
        """Recall facts. Words rank the facts matching any of them (BM25 over stemmed words
        fused with lexical similarity, and sentence embeddings when the store has them;
        `signals` names those used), facts matching every keyword first, and among facts
        about as relevant the trusted, current one first; each result's `rank_reason` says
        why it ranks there. A superseded or disputed fact is still returned: it is history
        and evidence. With only filters (or nothing), highest trust first. `total` counts
        every match. Check `stale` and `superseded_by` before relying on a fact; a filter
        typo returns an error that points at the bad token."""
        return call(recall.search, query, limit)

    def show(id: Annotated[str, Field(description="The fact's id, e.g. from search.")]) -> Fact:
        """One fact explained: its text, trust envelope, every factor with its inputs (r, s,
        tiers, reinforcements, k), what would move it (`what_if`), its supersession chain,
        provenance and audit history (who did what, when)."""
        return call(recall.show, id)

    def neighbours(id: Annotated[str, Field(description="The fact's id.")]) -> NeighboursResult:
        """Facts related to one fact: its semantic neighbours (mutual nearest neighbours,
        `weight` in (0, 1], each with its trust envelope) and its entities with the
        entities that co-occur with them (NPMI). Use it to find corroborating or
        contradicting evidence before acting on a fact."""
        return call(recall.neighbours, id)

    def remember(
        text: Annotated[str, Field(min_length=1, description="The fact, one self-contained statement.")],
        ctx: Context,
        entities: Annotated[
            list[str] | None, Field(description="Entities it mentions (people, systems, projects).")
        ] = None,
        note: Annotated[str | None, Field(description="Id of the note or source it came from.")] = None,
        supersedes: Annotated[
            str | None, Field(description="Id of the fact this one replaces (it becomes history).")
        ] = None,
        model: Annotated[str | None, Field(description="Your model, kept in the provenance.")] = None,
        session: Annotated[str | None, Field(description="Your session id, kept in the provenance.")] = None,
    ) -> Fact:
        """Store a new fact (tier `auto`: a person may accept it later). Its provenance
        names you. Search first: if it restates a fact, corroborate that one instead; if it
        updates one, pass `supersedes`. Returns the new fact as `show` does."""
        return call(
            recall.remember,
            text,
            _agent(ctx),
            entities=entities,
            note=note,
            supersedes=supersedes,
            model=model,
            session=session,
        )

    _add(server, search, READ, f"{ENVELOPE} {scoped}")
    _add(server, show, READ, scoped)
    _add(server, neighbours, READ, scoped)
    _add(server, remember, WRITE, scoped)
    for action in AGENT_ACTIONS:
        _triage_tool(server, recall, action, scoped)
    return server


def _add(server: Server, fn: Callable[..., Any], annotations: ToolAnnotations, more: str = "") -> None:
    description = " ".join(inspect.cleandoc(fn.__doc__ or "").split())
    server.add_tool(fn, description=f"{description} {more}".strip(), annotations=annotations)
    server.accepted[fn.__name__] = tool_arguments(fn)


_WHEN = {
    Action.CORROBORATE: "Corroborate a fact: you found independent evidence that it holds",
    Action.CONTRADICT: "Contradict a fact: you found evidence against it (enough of it marks the fact disputed)",
    Action.VERIFY: "Verify a fact: you checked it now and it still holds, so it stays fresh",
}


def _triage_tool(server: Server, recall: Recall, action: Action, scoped: str) -> None:
    def tool(id: Annotated[str, Field(description="The fact's id.")], ctx: Context) -> Fact:
        return _call(recall.store.path, recall.triage, action, id, _agent(ctx))

    tool.__name__ = action.value
    tool.__doc__ = (
        f"{_WHEN[action]}. Recorded as: {action.summary}. Audited under your name; a person can "
        "undo it. Returns the fact after, as `show` does."
    )
    _add(server, tool, WRITE, scoped)


def serve(recall: Recall) -> None:
    """Serve on stdin/stdout until the client closes the pipe."""
    try:
        build_server(recall).run("stdio")
    finally:
        recall.settle()
