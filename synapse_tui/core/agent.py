"""Recall for agents: one scored memory kept loaded and fresh, read and written by a
long-running server (the MCP server) beside a browser and the CLI.

Every fact it hands out carries its trust envelope (trust, band, the four factors, the
guidance and its advice, `stale`, the review date, flags, and what replaced it), so an
agent never recalls a stale fact with full confidence. Writes are the browser's
transactions with the agent as the audited actor; an agent adds evidence, never accepts.

Keeping the memory fresh without reloading it on every call: SQLite's data_version says
whether another connection committed. If what changed is explained by new audit entries
(triage from a browser or the CLI), only those facts are re-read (`Memory.refresh`); new
facts or a changed `deleted` flag (an import, a sync) reload the store; a commit that
touched only derived data (the neighbour graph) changes no score.

Every answer is of the instant it is made: the facts it hands out are scored at that
instant (a partial rescore, as the browser's triage does), and an action's own events are
stamped with the same instant, so an agent's write never reads as `clock_skew`. Ranking
uses the whole store's scores, recomputed when the clock has moved by more than
`RESCORE_AFTER` seconds.
"""

from __future__ import annotations

import sys
import threading
import time
import uuid
from typing import Any

import numpy as np

from synapse_tui.core.base.clock import Clock, format_time, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import InputError, SynapseError, missing_fact
from synapse_tui.core.ingest.interchange import import_facts, parse_line
from synapse_tui.core.review import query as fq
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Action, Triage, TriageError, no_such_fact
from synapse_tui.core.review.verdicts import FIT_META, constants_given, constants_in_use, held_for
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.errors import ReportedError
from synapse_tui.core.store.ops import ChangedSince, CurrentMarks, FactInputs, Meta, Op
from synapse_tui.core.trust.score import CAUTION_DELETED, GUIDANCE_ADVICE, review_dues

RESCORE_AFTER = 60.0  # seconds: the ranking's trust is at most a minute old; answers are exact
MAX_LIMIT = 100
GRAPH_QUIET = 1.0  # seconds without a remember before the graph catches up


def scope_query(scope: str) -> fq.Query | None:
    """A server's scope: filter terms only (`prov:KEY=VALUE`, `note:ID`, any filter), no
    words, since words rank and a scope restricts; None for no scope."""
    if not scope.strip():
        return None
    q = fq.parse(scope)
    if q.words:
        raise InputError(
            f"a scope is filter terms only (e.g. prov:x-mem0-user-id=alice), not words: {' '.join(q.words)!r}",
            field="scope",
        )
    return q


def agent_actor(name: str | None) -> str:
    """`agent:NAME` from a client's declared name, one printable line, bounded."""
    clean = " ".join("".join(ch if ch.isprintable() else " " for ch in name or "").split())[:64]
    return f"agent:{clean or 'unknown'}"


class Recall:
    """The store as an agent sees it. Methods return JSON-ready dicts and raise
    SynapseError with the CLI's message for a bad call; one lock serialises them."""

    def __init__(self, store: Store, config: Config, clock: Clock, scope: str = "") -> None:
        self.store, self.config, self.clock = store, config, clock
        self.scope = scope_query(scope)
        # what a remembered fact carries so that it lands inside the scope
        self.scope_provenance: dict[str, str] = {}
        self.scope_note: str | None = None
        for term in self.scope.terms if self.scope else ():
            name, _, value = term.text.partition(":")
            if not term.negate and name.lower() == "prov":
                key, _, val = value.partition("=")
                self.scope_provenance[key] = val
            elif not term.negate and name.lower() == "note":
                self.scope_note = value
        self.lock = threading.Lock()
        self._graph_guard = threading.Lock()
        self._graph_due: float | None = None  # monotonic time the graph update may start
        self._graph_worker: threading.Thread | None = None
        # read before the load: a commit landing meanwhile is then caught up, never skipped
        self.version = store.data_version()
        self.mark = self._fingerprint()
        self.memory = Memory(store, config, clock.now())
        self._rescored_at = self.now = self.memory.scores.now  # `now`: the call's instant
        store.prepare_search()  # the first broad search then costs what every later one does
        # each fact the agent was shown, with the newest audit entry the memory stood for
        # then: an action on it is decided on that state (Triage.apply's `seen`)
        self._served: dict[str, int] = {}
        # entity names for `neighbours`, read beside the first calls rather than by them
        self._names_worker = threading.Thread(target=self._read_names, name="synapse-names", daemon=True)
        self._names_worker.start()

    def _read_names(self) -> None:
        from synapse_tui.core.graph.read import read_entity_names, seed_entity_names

        try:
            with Store.open(self.store.path, readonly=True) as store, store.snapshot():
                mark, names = read_entity_names(store)
        except ReportedError:  # the calls read the names they need themselves
            return
        seed_entity_names(self.store, mark, names)

    # -- keeping fresh -------------------------------------------------------------------

    def close(self) -> None:
        """The front-ends call this before they close the store; the session keeps nothing
        beside it (no listener: `fresh` asks the store), so there is nothing to stop."""

    def _fingerprint(self, deleted: int | None = None) -> tuple[int, int, int]:
        """Last position, last audit entry, deleted facts: the first two are index
        lookups; counting deleted facts scans the table (~30 ms at 100,000), so a caller
        that knows the count did not change (its own write) passes it in."""
        pos, seq = self.store.marks()
        if deleted is None:
            deleted = self.store.deleted_count()
        return pos, seq, deleted

    def _serve(self, fact_ids: Any) -> None:
        """Remember that the agent was shown these facts as the memory stands now."""
        for fid in fact_ids:
            self._served[fid] = self.mark[1]

    def _after_own_write(self) -> None:
        """Our own commits leave data_version alone; move the mark past them."""
        self.mark = self._fingerprint(deleted=self.mark[2])

    def fresh(self) -> Memory:
        """The memory, caught up with other writers and the clock (call under the lock).

        Another writer's triage (new audit entries, no new or deleted facts) re-reads just
        the facts it names; new facts or a changed `deleted` flag reload the store. Every
        other input of the score changes only through audited triage or an import. On a
        server the question is one round trip (the newest change-log and audit entries),
        asked on every call as on a file: a change notice comes on another connection and
        may land after the next call, whose answer must hold every commit made before it."""
        # to the microsecond, as events are stored: an action stamped now is not after it
        now = self.now = parse_time(format_time(self.clock.now()))
        self._catch_up_writers(now)
        if abs(now - self._rescored_at) > RESCORE_AFTER:
            self.memory.rescore(now)
            self._rescored_at = now
        return self.memory

    def _catch_up_writers(self, now: float) -> None:
        version = self.store.data_version()
        if version != self.version:
            mark = self._fingerprint()
            if (mark[0], mark[2]) != (self.mark[0], self.mark[2]):
                self.memory.reload(now)
                self._rescored_at = now
            elif mark[1] != self.mark[1]:
                # scored now: another writer's new events are not in the future
                self.memory.refresh(self.store.audit.facts_since(self.mark[1]), now)
            # else only derived data changed (the graph): no score did
            self.version, self.mark = version, mark
            # the memory now stands for this version: without this, `Memory.explain` would
            # see a foreign version and explain every later `show` from a fresh full load
            self.memory.version = version

    # -- reads ---------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> dict[str, Any]:
        """Facts for a query in the filter language: with words, those reaching any word,
        best first (review/relevance.py), each saying why (`rank_reason`) and the answer
        naming the signals used; with filters only, highest trust first (ties in store
        order). Nothing outside the scope is ever considered."""
        limit = max(1, min(int(limit), MAX_LIMIT))
        q = fq.parse(query, lenient=True)  # an agent's question is never a filter typo
        with self.lock:
            memory = self.fresh()
            inside = self._inside(memory)
            if q.words:
                found = fq.ranked(memory, q, inside, limit)  # the page only, ranked as in the whole
                positions, rank, signals = found.pos, found.score, list(found.signals)
                total = found.total
            else:
                keep = q.mask(memory) if inside is None else q.mask(memory) & inside
                positions = np.flatnonzero(keep)
                rank, signals, found = memory.scores.trust[positions], ["trust"], None
                total = len(positions)
            top = fq.top(rank, positions, limit)
            memory.score_at(top, self.now)
            results = self._envelopes(memory, top)
            for row, p in zip(results, top.tolist(), strict=True):
                if found is not None:
                    i = int(np.searchsorted(found.pos, p))
                    row.update(relevance=round(float(found.score[i]), 6), rank_reason=found.reason(memory, i))
                else:
                    row.update(
                        relevance=None, rank_reason=f"no words: highest trust first ({row['trust']:.2f})"
                    )
            constants = constants_in_use(self.store, self.config)
            self._serve(row["id"] for row in results)
            signals += [f"{token!r} read as words (no filter has that name)" for token in q.as_words]
            answer = {"results": results, "total": int(total), "signals": signals, "constants": constants}
            return _with_suggestions(memory, answer, query if q.words else "")

    def _inside(self, memory: Memory) -> np.ndarray | None:
        """The facts in scope, or None when the server is not scoped."""
        return None if self.scope is None else self.scope.mask(memory)

    def _check_scope(self, memory: Memory, fact_id: str) -> None:
        """A fact outside the scope is, to the agent, no fact at all."""
        if self.scope is None:
            return
        i = memory.index.get(fact_id)
        if i is None or not self.scope.mask(memory)[i]:
            raise SynapseError(missing_fact(fact_id, self.store.path))

    def _envelopes(self, memory: Memory, positions: np.ndarray) -> list[dict[str, Any]]:
        """Facts as `score --json` plus what an agent needs to weigh them."""
        texts = self.store.texts(positions)
        dues = review_dues(memory.arrays, positions, self.config)
        out = []
        for i, text, due in zip(positions.tolist(), texts, dues.tolist(), strict=True):
            row = memory.row(i)
            row.update(
                text=text,
                guidance_advice=GUIDANCE_ADVICE[row["guidance"]],
                stale=bool(memory.scores.freshness[i] < self.config.review.threshold),
                review_due=format_time(due),
                superseded_by=self.store.superseded_by(row["id"]) if row["k"] else [],
            )
            if "deleted" in row["flags"]:
                row["caution"] = CAUTION_DELETED  # as `show` says it (Memory.explain)
            out.append(row)
        return out

    def show(self, fact_id: str) -> dict[str, Any]:
        with self.lock:
            memory = self.fresh()
            self._check_scope(memory, fact_id)
            shown = self._show(memory, fact_id)
            self._serve([fact_id])
            return shown

    def _show(self, memory: Memory, fact_id: str) -> dict[str, Any]:
        # what the number is worth (the constants), read in the snapshot the fact is
        # explained from: on a server it goes with the explanation's first reads
        at = memory.index.get(fact_id)
        if at is not None:
            memory.score_at(np.array([at]), self.now)
        with self.store.snapshot():
            fitted = self.store.batch_soon([Meta(FIT_META)])
            info = memory.explain(fact_id)
            (record,) = fitted()
        return self._shown(fact_id, info, record)

    def _shown(self, fact_id: str, info: dict[str, Any] | None, fitted: Any) -> dict[str, Any]:
        """`show`'s answer: the explanation, and the constants of the fitted record."""
        if info is None:
            raise SynapseError(missing_fact(fact_id, self.store.path))
        info["stale"] = info["review_overdue"]
        info["constants"] = constants_given(fitted, self.config, held_for(self.store, fitted))
        return _shown_suggestions(self.memory, info)

    def neighbours(self, fact_id: str) -> dict[str, Any]:
        """The `neighbours --json` object; each semantic neighbour carries its envelope."""
        from synapse_tui.core.graph.read import neighbours

        with self.lock:
            memory = self.fresh()
            self._check_scope(memory, fact_id)
            try:
                found = neighbours(self.store, fact_id, self.config).to_json()
            except KeyError:
                raise SynapseError(missing_fact(fact_id, self.store.path)) from None
            if self.scope is not None:  # co-occurrence is counted over every scope's facts
                inside = self.scope.mask(memory)
                found["semantic"] = [n for n in found["semantic"] if inside[memory.index[n["id"]]]]
                for entity in found["entities"]:
                    entity["npmi"] = []
            near = np.array([memory.index[n["id"]] for n in found["semantic"]], dtype=np.int64)
            memory.score_at(near, self.now)
            for n, envelope in zip(found["semantic"], self._envelopes(memory, near), strict=True):
                n.update(envelope, weight=n["weight"])
            self._serve([fact_id, *(n["id"] for n in found["semantic"])])
        return found

    # -- writes --------------------------------------------------------------------------

    def triage(self, action: Action, fact_id: str, actor: str) -> dict[str, Any]:
        """An agent's evidence (corroborate, contradict, verify), audited as `actor`.

        Evidence commutes: a corroboration counts the same whatever another writer added
        since the agent read the fact, so it is applied to the fact as it stands, as the
        CLI does, never refused as stale. (Decisions keep the check: `remember`'s
        supersede.) Stamped and scored at the call's one instant, so it is never in the
        future of its own answer."""
        if action not in (Action.CORROBORATE, Action.CONTRADICT, Action.VERIFY):
            raise TriageError(f"{action} is a person's decision, not an agent's")
        with self.lock:
            memory = self.fresh()
            self._check_scope(memory, fact_id)
            before = self.mark[1]
            triage = Triage(self.store, Clock(self.now), actor, config=self.config)
            # what `_after_own_write` reads, with what landed since the mark (ours, and a
            # writer's in between), our fact's inputs and what `show` answers with: asked in
            # the action's transaction, after its writes (an agent's action changes the one
            # fact or fails), so the answer is of the state the action left
            after: list[Op[Any]] = [
                CurrentMarks(),
                ChangedSince(before),
                FactInputs.of([fact_id], self.config),
                Meta(FIT_META),
                *memory.explain_reads(fact_id),
            ]
            outcome = triage.apply(action, [fact_id], reads_after=after)
            marks, since, inputs, fitted, *explained = outcome.read_after
            self.mark = (*marks, self.mark[2])
            changed = list(dict.fromkeys([*outcome.fact_ids, *since]))
            memory.refresh(changed, self.now, inputs=inputs if changed == [fact_id] else None)
            shown = self._shown(fact_id, memory.explained(fact_id, explained), fitted)
            self._serve([fact_id])
            return shown

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
        replaces that fact in the same transaction, audited like the browser's supersede
        (and refused whole, like `triage`, when another writer changed it since it was shown)."""
        provenance = {"x-ai-agent": actor.removeprefix("agent:")}
        provenance.update({k: v for k, v in (("x-ai-model", model), ("x-ai-session", session)) if v})
        if self.scope is not None:  # what an agent remembers stays in its scope
            provenance.update(self.scope_provenance)
            note = self.scope_note if self.scope_note is not None else note
        obj: dict[str, Any] = {
            "id": f"m-{uuid.uuid4().hex[:12]}",
            "text": text,
            "created_at": format_time(self.clock.now()),  # checked now, stamped with the call's instant
            "tier": "auto",
            "provenance": provenance,
        }
        obj.update({k: v for k, v in (("entities", entities), ("note", note)) if v is not None})

        def err(fld: str | None, msg: str) -> InputError:
            return InputError(msg, field=fld)

        parse_line(obj, err, 1)  # a bad argument is refused before the lock
        with self.lock:
            memory = self.fresh()
            fact = parse_line({**obj, "created_at": format_time(self.now)}, err, 1)
            triage = Triage(self.store, Clock(self.now), actor, config=self.config)
            if supersedes is not None and self.store.record(supersedes) is None:
                raise no_such_fact(self.store, supersedes)
            if supersedes is not None and self.scope is not None:
                try:
                    self._check_scope(memory, supersedes)
                except SynapseError:
                    raise no_such_fact(self.store, supersedes) from None

            def link(_store: Store, _positions: list[int]) -> None:
                if supersedes is not None:
                    # decided on the replaced fact as the agent was shown it, like `triage`
                    seen = self._served.get(supersedes)
                    triage.apply_in(Action.SUPERSEDE, [supersedes], fact.id, seen=seen)

            import_facts(self.store, [fact], "remember", after_insert=link)
            self._after_own_write()  # the mark first: the reload then holds all it names
            self.memory.reload(self.now)
            self._rescored_at = self.now
            shown = self._show(self.memory, fact.id)
            self._serve([fact.id] if supersedes is None else [fact.id, supersedes])
        self._update_graph_soon()
        return shown

    # -- the graph, behind the writes ----------------------------------------------------

    def _update_graph_soon(self) -> None:
        """Add new facts to the neighbour graph in a worker with its own connection, as
        `import` does in a transaction of its own: the fact is safe first, and the agent
        does not wait for derived data (seconds at 100,000 facts). The worker starts
        after `GRAPH_QUIET` seconds without a remember, so a burst of them is one update
        (the graph finds what is new itself) and does not queue behind its write lock."""
        with self._graph_guard:
            self._graph_due = time.monotonic() + GRAPH_QUIET
            if self._graph_worker is None:
                self._graph_worker = threading.Thread(target=self._graph_loop, name="synapse-graph")
                self._graph_worker.start()

    def _graph_loop(self) -> None:
        from synapse_tui.core.graph.build import update_graph

        while True:
            with self._graph_guard:
                if self._graph_due is None:
                    self._graph_worker = None
                    return
                wait = self._graph_due - time.monotonic()
                if wait <= 0:
                    self._graph_due = None
            if wait > 0:
                time.sleep(wait)
                continue
            try:
                with Store.open(self.store.path) as store, store.transaction():
                    update_graph(store, [], self.config)
            except ReportedError as exc:  # the next import or graph check finishes it
                print(f"warning: neighbour graph not updated: {exc}", file=sys.stderr)

    def settle(self) -> None:
        """Wait for a pending graph update (before exiting, and in tests)."""
        self._names_worker.join()
        worker = self._graph_worker
        if worker is not None:
            worker.join()


def _with_suggestions(memory: Memory, answer: dict[str, Any], words: str) -> dict[str, Any]:
    """SPEC 10: each result's standing suggestions and its flags, and `stale_premise` when
    the best match of the query's wording is history with a current successor (with
    `caution` when that successor is deleted at its source)."""
    from synapse_tui.core.review import suggestions as sg

    found = sg.of_memory(memory)
    results = sg.add_flags(answer["results"], found.flagged())
    for row in results:
        row["suggestions"] = sg.briefs(found, row["id"])
    premise = sg.stale_premise(memory, found, words, results) if words else None
    if premise is not None:
        # the fact to use instead, deleted at its source: said, as the fact itself says it
        if "deleted" in memory.row(memory.index[premise["current"]])["flags"]:
            premise["caution"] = CAUTION_DELETED
        answer["stale_premise"] = premise
    return answer


def _shown_suggestions(memory: Memory, info: dict[str, Any]) -> dict[str, Any]:
    """SPEC 10: `show` carries the fact's standing suggestions and their flags."""
    from synapse_tui.core.review.suggestions import explained

    return explained(memory, info)
