"""Recall for agents: one scored memory kept loaded and fresh, read and written by a
long-running server (the MCP server) beside a browser and the CLI.

Every fact it hands out carries its trust envelope (trust, band, the four factors, the
guidance and its advice, `stale`, the review date, flags, and what replaced it), so an
agent never recalls a stale fact with full confidence. Writes are the browser's
transactions with the agent as the audited actor; an agent adds evidence, never accepts.

Keeping the memory fresh without reloading it on every call: SQLite's data_version says
whether another connection committed. If what changed is explained by new audit entries
(triage from a browser or the CLI), only those facts are re-read (`Memory.refresh`);
anything else (an import, a sync) reloads the store. Scores are recomputed when the
clock has moved by more than `RESCORE_AFTER` seconds.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import numpy as np

from . import query as fq
from .clock import Clock, format_time
from .config import Config
from .errors import InputError, SynapseError
from .interchange import import_facts, parse_line
from .memory import Memory
from .store import Store
from .triage import Action, Triage, TriageError
from .trust import GUIDANCE_ADVICE

RESCORE_AFTER = 60.0  # seconds; the display has two decimals, a minute moves none of them
MAX_LIMIT = 100


def agent_actor(name: str | None) -> str:
    """`agent:NAME` from a client's declared name, one printable line, bounded."""
    clean = " ".join("".join(ch for ch in (name or "") if ch.isprintable()).split())[:64]
    return f"agent:{clean or 'unknown'}"


class Recall:
    """The store as an agent sees it. Methods return JSON-ready dicts and raise
    SynapseError with the CLI's message for a bad call; one lock serialises them."""

    def __init__(self, store: Store, config: Config, clock: Clock) -> None:
        self.store, self.config, self.clock = store, config, clock
        self.lock = threading.Lock()
        self.memory = Memory(store, config, clock.now())
        self.version = store.data_version()
        self.mark = self._fingerprint()

    # -- keeping fresh -------------------------------------------------------------------

    def _fingerprint(self) -> tuple[int, int, int, int]:
        """Facts, last position, deleted facts, last audit entry."""
        return self.store.conn.execute(
            "SELECT count(*), coalesce(max(pos), 0), coalesce(sum(deleted), 0),"
            " (SELECT coalesce(max(seq), 0) FROM audit) FROM facts"
        ).fetchone()

    def fresh(self) -> Memory:
        """The memory, caught up with other writers and the clock (call under the lock)."""
        version = self.store.data_version()
        if version != self.version:
            mark = self._fingerprint()
            if mark[:3] == self.mark[:3] and mark[3] > self.mark[3]:
                changed = [
                    row[0]
                    for row in self.store.conn.execute(
                        "SELECT DISTINCT fact_id FROM audit WHERE seq > ? AND fact_id IS NOT NULL",
                        (self.mark[3],),
                    )
                ]
                self.memory.refresh(changed)
            else:
                self.memory.reload(self.clock.now())
            self.version, self.mark = version, mark
        now = self.clock.now()
        if abs(now - self.memory.scores.now) > RESCORE_AFTER:
            self.memory.rescore(now)
        return self.memory

    # -- reads ---------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> dict[str, Any]:
        """Facts matching the filter language: ranked by relevance x freshness when the
        query has words, else by trust, highest first."""
        limit = max(1, min(int(limit), MAX_LIMIT))
        q = fq.parse(query)
        with self.lock:
            memory = self.fresh()
            if q.words:
                positions = fq.run(memory, q)
            else:
                positions = np.flatnonzero(q.mask(memory))
                order = np.argsort(-memory.scores.trust[positions], kind="stable")
                positions = positions[order]
            top = positions[:limit].tolist()
            texts = self.store.texts(top)
            results = [self._envelope(memory, i, text) for i, text in zip(top, texts, strict=True)]
        return {"results": results, "total": int(len(positions))}

    def _envelope(self, memory: Memory, i: int, text: str) -> dict[str, Any]:
        """A fact as `score --json` plus what an agent needs to weigh it."""
        row = memory.row(i)
        row.update(
            text=text,
            guidance_advice=GUIDANCE_ADVICE[row["guidance"]],
            stale=bool(memory.scores.freshness[i] < self.config.review.threshold),
            review_due=memory.review_due(i),
            superseded_by=memory.store.superseded_by(row["id"]) if row["k"] else [],
        )
        return row

    def show(self, fact_id: str) -> dict[str, Any]:
        with self.lock:
            return self._show(self.fresh(), fact_id)

    def _show(self, memory: Memory, fact_id: str) -> dict[str, Any]:
        info = memory.explain(fact_id)
        if info is None:
            raise SynapseError(f"no fact with id {fact_id!r} in {self.store.path}")
        info["stale"] = info["review_overdue"]
        return info

    def neighbours(self, fact_id: str) -> dict[str, Any]:
        """The `neighbours --json` object; each semantic neighbour carries its envelope."""
        from .graphview import neighbours

        with self.lock:
            memory = self.fresh()
            try:
                found = neighbours(self.store.conn, fact_id, self.config).to_json()
            except KeyError:
                raise SynapseError(f"no fact with id {fact_id!r} in {self.store.path}") from None
            near = [memory.index[n["id"]] for n in found["semantic"]]
            for n, i, text in zip(found["semantic"], near, self.store.texts(near), strict=True):
                n.update(self._envelope(memory, i, text), weight=n["weight"])
        return found

    # -- writes --------------------------------------------------------------------------

    def triage(self, action: Action, fact_id: str, actor: str) -> dict[str, Any]:
        """An agent's evidence (corroborate, contradict, verify), audited as `actor`."""
        if action not in (Action.CORROBORATE, Action.CONTRADICT, Action.VERIFY):
            raise TriageError(f"{action} is a person's decision, not an agent's")
        with self.lock:
            memory = self.fresh()
            outcome = Triage(self.store, self.clock, actor, config=self.config).apply(action, [fact_id])
            memory.refresh(outcome.fact_ids)
            self.mark = self._fingerprint()
            return self._show(memory, fact_id)

    def remember(
        self,
        text: str,
        actor: str,
        *,
        entities: list[str] | None = None,
        note: str | None = None,
        supersedes: str | None = None,
        model: str | None = None,
        session: str | None = None,
    ) -> dict[str, Any]:
        """A new `auto` fact whose provenance names the agent; with `supersedes`, it
        replaces that fact in the same transaction, audited like the browser's supersede."""
        from .graphstore import update_graph

        provenance = {"x-ai-agent": actor.removeprefix("agent:")}
        provenance.update({k: v for k, v in (("x-ai-model", model), ("x-ai-session", session)) if v})
        obj: dict[str, Any] = {
            "id": f"m-{uuid.uuid4().hex[:12]}",
            "text": text,
            "created_at": format_time(self.clock.now()),
            "tier": "auto",
            "provenance": provenance,
        }
        obj.update({k: v for k, v in (("entities", entities), ("note", note)) if v is not None})

        def err(fld: str | None, msg: str) -> InputError:
            return InputError(msg, field=fld)

        fact = parse_line(obj, err, 1)
        with self.lock:
            self.fresh()
            triage = Triage(self.store, self.clock, actor, config=self.config)
            if supersedes is not None and self.store.record(supersedes) is None:
                raise TriageError(f"no fact with id {supersedes!r}")

            def link(conn: Any, _positions: list[int]) -> None:
                if supersedes is not None:
                    triage.apply_in(conn, Action.SUPERSEDE, [supersedes], fact.id)

            result = import_facts(self.store, [fact], "remember", after_insert=link)
            # derived data, in its own transaction as `import` does: the fact is safe first
            with self.store.transaction() as conn:
                update_graph(conn, result.new_positions, self.config)
            self.memory.reload(self.clock.now())
            self.mark = self._fingerprint()
            return self._show(self.memory, fact.id)
