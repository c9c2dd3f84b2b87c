"""Typed reads the store answers together: `store.batch([op, ...])`.

An operation names what is asked, never how: a frozen dataclass with no SQL. A caller that
must decide on several things read from one state (an action's facts and what was done to
them since, what `show` explains a fact with) asks them in one `batch`: a file's store
answers them one after the other, a server's sends them all before waiting for any (one
round trip). `store.ask(op)` is one of them alone; `store.batch_soon(ops)` sends them with
the store's next statement (inside a write transaction, with its COMMIT).

Each operation's answer is typed: `Inputs` rows, not tuples of ten; `AuditEntry` lists;
`FactDetail`. The backends map each operation to their own statements (`core/store/`);
nothing above the store builds a statement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

import numpy as np

from synapse_tui.core.store.audit import AuditEntry

if TYPE_CHECKING:
    from synapse_tui.core.base.config import Config

T = TypeVar("T")


class Inputs(NamedTuple):
    """The arithmetic's inputs of one fact, as `load` reads them for all (`FactArrays`)."""

    id: str
    r: int  # corroborations
    s: int  # contradictions
    declared: int  # trust.AUTO / HUMAN / SIGNED
    sig_state: int
    trusted: bool  # a valid signature by a trusted signer
    o1_count: int  # reinforcements counted, not listed (0: listed in `events`)
    supersedes: int  # the position it supersedes, -1: none
    deleted: bool
    events: np.ndarray  # float64 epoch seconds: its creation, then each reinforcement


class Supersession(NamedTuple):
    """`new` names `old` in its `supersedes`."""

    old: str
    new: str


class Marks(NamedTuple):
    """The last fact's position and the last audit entry's seq: a long-lived reader tells
    new facts from new triage by them."""

    facts: int
    audit: int


@dataclass(frozen=True)
class FactRecord:
    """One fact as stored: the verbatim interchange values plus its position."""

    pos: int
    id: str
    text: str
    created_at: str
    tier: str
    corroborations: int
    contradictions: int
    reinforced_at: list[str] | None
    reinforcement_count: int | None
    supersedes: str | None
    note: str | None
    entities: list[str]
    provenance: dict[str, Any] | None
    signature: dict[str, Any] | None
    sig_state: int
    extra: dict[str, Any]


@dataclass(frozen=True)
class FactDetail:
    """What `show` reads of one fact beside its scores (the `Detail` read): its record
    (None: no such fact), the facts naming it in `supersedes`, its embedding's kind and its
    audit history."""

    record: FactRecord | None
    superseded_by: list[str]
    embedding: str | None
    history: list[AuditEntry]


@dataclass(frozen=True)
class WordHits:
    """What `Store.search_any` found: per matching fact (ascending positions) its BM25
    relevance and how many of the terms it holds; per term, the positions holding it."""

    pos: np.ndarray
    relevance: np.ndarray
    matched: np.ndarray
    hits: tuple[np.ndarray, ...]


class Op(Generic[T]):
    """A read the store answers (`Store.batch`); T is the type of its answer."""


@dataclass(frozen=True)
class FactInputs(Op[dict[int, Inputs]]):
    """The arithmetic's inputs of a few facts by 0-based position (unknown ids left out);
    `signers` are the trusted keys (config.trust.signers)."""

    ids: tuple[str, ...]
    signers: tuple[str, ...]

    @classmethod
    def of(cls, ids: list[str] | tuple[str, ...], config: Config) -> FactInputs:
        return cls(tuple(ids), tuple(config.trust.signers))


@dataclass(frozen=True)
class TriageFields(Op[dict[str, Any] | None]):
    """A fact's triage fields by their audit names (`store.review.fields`), None: no fact."""

    fact_id: str


@dataclass(frozen=True)
class Supersessors(Op[list[Supersession]]):
    """Every fact that supersedes one of `fact_ids`."""

    fact_ids: tuple[str, ...]


@dataclass(frozen=True)
class ChangedSince(Op[list[str]]):
    """The facts the audit entries after `seq` changed, each once."""

    seq: int


@dataclass(frozen=True)
class AuditSince(Op[list[AuditEntry]]):
    """The audit entries after `seq` about any of `fact_ids`, oldest first (no
    score_before): triage's check that nobody acted on them since."""

    fact_ids: tuple[str, ...]
    seq: int


@dataclass(frozen=True)
class NextBatch(Op[int]):
    """The number the next action's audit entries take (asked inside its transaction)."""


@dataclass(frozen=True)
class NewestEntry(Op["tuple[int, str] | None"]):
    """The newest audit entry's (seq, at), None when there is none: a new entry is not
    dated before it (triage's check that history is written in order)."""


@dataclass(frozen=True)
class CurrentMarks(Op[Marks]):
    """The store's `Marks`."""


@dataclass(frozen=True)
class DataVersion(Op[int]):
    """Changes when another connection commits (`Store.data_version`)."""


@dataclass(frozen=True)
class Meta(Op[Any]):
    """A value kept in `meta` (JSON), None when absent."""

    key: str


@dataclass(frozen=True)
class MetaPrefix(Op[list[tuple[str, Any]]]):
    """Every (key, value) of `meta` whose key starts with `prefix`, by key."""

    prefix: str


@dataclass(frozen=True)
class Detail(Op[FactDetail]):
    """What `show` reads of one fact beside its scores: its record, the facts naming it in
    `supersedes`, its embedding's kind, its audit history."""

    fact_id: str
